import pytest

from outbox.services import host_endpoint_set
from tests.live import start_refserver
from tests.subscriptions.support import SYSTEM


@pytest.fixture
def tendpoint(tpersonas, receiver):
    """The host's endpoint (committed: live processes read it)."""
    endpoint, secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.secret = secret
    return endpoint


@pytest.fixture
def sep_server():
    """A reference server of its own speaking SEP-3415 (a session worker
    holds a listen stream to such a server once it is registered)."""
    supervisor, server = start_refserver(["--dialect", "sep-3415"], name="refserver-sep")
    try:
        yield server
    finally:
        supervisor.stop_all()
