"""Fixtures the ``consent.enforce`` tests (``test_enforce_*.py``) share:
the reference server registered for Acme, alice's events grant on it, and a
consent store a test can take away (always put back). The helpers are in
``enforce_support.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from switchboard.services.servers import server_register
from tests.consent.support import ConsentStore
from tests.subscriptions.support import SYSTEM, approve_events


@pytest.fixture
def store(transactional_db) -> Iterator[ConsentStore]:
    store = ConsentStore()
    yield store
    store.put_back()


@pytest.fixture
def ref(tpersonas, refserver):
    server = server_register(host=tpersonas.acme, name="Ref", url=refserver.mcp_url, actor=SYSTEM)
    assert server.status == "active", server.last_error_detail
    return server


@pytest.fixture
def events_grant(tpersonas, ref):
    return approve_events(tpersonas.alice, ref, ["build.finished", "ticket.created"])
