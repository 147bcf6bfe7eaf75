"""Fixtures the live subscription suites share."""

from __future__ import annotations

import pytest

from tests.subscriptions.support import HostReceiver


@pytest.fixture
def host_receiver():
    """The host's endpoint, a real HTTP server verifying each delivery."""
    receiver = HostReceiver()
    yield receiver
    receiver.close()
