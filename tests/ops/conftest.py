import pytest

from outbox.services import host_endpoint_set
from tests.subscriptions.support import SYSTEM


@pytest.fixture
def tendpoint(tpersonas, receiver):
    """The host's endpoint (committed: live processes read it)."""
    endpoint, secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.secret = secret
    return endpoint
