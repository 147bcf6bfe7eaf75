"""The live socket against the real stack (daphne, Redis channel layer): an
idle page keeps its socket, and what happens after a long quiet arrives."""

import asyncio

import pytest
import websockets
from django.test import Client

from switchboard.actors import Actor
from switchboard.services.audit import audit_record
from tests.factories import in_thread

pytestmark = pytest.mark.processes

IDLE_SECONDS = 60


def _cookie(user) -> str:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return f"sessionid={client.cookies['sessionid'].value}"


def test_an_idle_socket_stays_open_and_still_receives(live, tpersonas):
    """Redis' client timed out its blocking reads (5 s) while channels-redis
    blocked for as long: the socket dropped every few seconds when idle."""
    url = live.base_url.replace("http://", "ws://") + "/ws/live/"
    headers = {"Cookie": _cookie(tpersonas.alice), "Origin": live.base_url}

    async def scenario() -> str:
        async with websockets.connect(url, additional_headers=headers) as socket:
            with pytest.raises(TimeoutError):
                # Nothing arrives, and nothing closes the socket meanwhile
                # (a close would raise ConnectionClosed here instead).
                await asyncio.wait_for(socket.recv(), timeout=IDLE_SECONDS)
            await asyncio.to_thread(
                in_thread,
                audit_record,
                host_id=tpersonas.acme.id,
                kind="test.after_idle",
                actor=Actor.system(),
                user=tpersonas.alice,
                summary="after a long quiet",
            )
            return await asyncio.wait_for(socket.recv(), timeout=10)

    assert "after a long quiet" in asyncio.run(scenario())
