"""The host's endpoint for the outbox tests: a real HTTP server (the
``receiver`` fixture) that verifies every delivery with svix."""

from __future__ import annotations

import pytest

from outbox.services import host_endpoint_set
from tests.subscriptions.support import SYSTEM


@pytest.fixture
def endpoint(personas, receiver):
    endpoint, secret = host_endpoint_set(host=personas.acme, url=receiver.url, actor=SYSTEM)
    receiver.secret = secret
    return endpoint


@pytest.fixture
def tendpoint(tpersonas, receiver):
    """The same for tests whose rows are read from another connection (the
    endpoint's thread, a live process): the rows must be committed."""
    endpoint, secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.secret = secret
    return endpoint
