"""Shared fixtures: personas, API clients, and the real processes tests need.
The environment is prepared earlier, in ``tests/testenv.py``."""

from __future__ import annotations

import pytest

from tests.factories import Personas, make_personas

pytest_plugins = ["tests.live"]


@pytest.fixture
def personas(db) -> Personas:
    return make_personas()


@pytest.fixture
def tpersonas(transactional_db) -> Personas:
    """Personas committed to the database, for tests that use other processes."""
    return make_personas()
