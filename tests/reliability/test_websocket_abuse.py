"""docs/reliability.md row 9: the live socket (``/ws/live/``) against a hostile client.

A foreign origin and a missing or dead session are refused; nothing a client
sends lets it hear another user's (or another host's) activity; an oversize
frame closes the socket; and logging out closes the session's open socket
within two seconds, as does deleting the user.

The fast cases run Channels' ``WebsocketCommunicator`` against the real ASGI
application (``config.asgi``: origin validator, session and auth middleware,
the consumer, the Redis channel layer). Frame sizes and logout run against a
real daphne with a real websocket client, since frame limits and the logout
request belong to the server process.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
import websockets
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.test import Client
from websockets.exceptions import ConnectionClosed

from config.asgi import application
from switchboard.actors import Actor
from switchboard.broadcast import host_staff_group, user_group
from switchboard.consumers import CLIENT_FRAME_MAX, CLOSE_FRAME_TOO_BIG, CLOSE_NOT_SIGNED_IN
from switchboard.services.audit import audit_record
from switchboard.services.users import user_delete
from tests.factories import in_thread

GOOD_ORIGIN = b"http://127.0.0.1:8000"
# daphne's own limit on an incoming message (``--websocket-max-message-size``,
# 1 MiB by default in daphne 4.2; the Procfile keeps the default).
DAPHNE_MESSAGE_MAX = 1024 * 1024
LOGOUT_CLOSE_WITHIN = 2.0  # seconds
CONNECT_TIMEOUT = 10  # the machine is shared and busy; a refusal is still a refusal


def _login(user) -> str:
    """A real session in the database for ``user``: the ``sessionid`` value."""
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client.cookies["sessionid"].value


async def _communicator(
    *, sessionid: str | None = None, origin: bytes | None = GOOD_ORIGIN
) -> tuple[WebsocketCommunicator, bool]:
    headers = []
    if origin is not None:
        headers.append((b"origin", origin))
    if sessionid is not None:
        headers.append((b"cookie", f"sessionid={sessionid}".encode()))
    communicator = WebsocketCommunicator(application, "/ws/live/", headers=headers)
    connected, _ = await communicator.connect(timeout=CONNECT_TIMEOUT)
    return communicator, connected


async def _record(user, summary: str, host_id: str | None = None) -> None:
    await sync_to_async(audit_record)(
        host_id=host_id or user.tenant_id,
        kind="test.abuse",
        actor=Actor.system(),
        user=user,
        summary=summary,
    )


# --- refused before anything is joined ------------------------------------


@pytest.mark.parametrize(
    "origin",
    [
        b"https://evil.test",
        b"http://127.0.0.1.evil.test",  # a look-alike prefix
        b"http://127.0.0.1:8000@evil.test",  # userinfo: the host is evil.test
        b"null",  # sandboxed iframes, file: pages
        None,  # no Origin header at all
    ],
)
@pytest.mark.django_db(transaction=True)
async def test_a_socket_from_a_foreign_or_missing_origin_is_refused(tpersonas, origin):
    sessionid = await sync_to_async(_login)(tpersonas.alice)
    communicator, connected = await _communicator(sessionid=sessionid, origin=origin)
    try:
        assert not connected
    finally:
        await communicator.disconnect()
    # The same session from the console's own origin is let in: the origin
    # alone made the difference.
    communicator, connected = await _communicator(sessionid=sessionid)
    try:
        assert connected
    finally:
        await communicator.disconnect()


@pytest.mark.parametrize("case", ["no cookie", "made-up session", "logged-out session"])
@pytest.mark.django_db(transaction=True)
async def test_a_socket_without_a_live_session_is_refused(tpersonas, case):
    sessionid: str | None = None
    if case == "made-up session":
        sessionid = "x" * 32
    elif case == "logged-out session":

        def logged_out() -> str:
            client = Client()
            client.force_login(tpersonas.alice, backend="django.contrib.auth.backends.ModelBackend")
            value = client.cookies["sessionid"].value
            client.logout()
            return value

        sessionid = await sync_to_async(logged_out)()
    communicator, connected = await _communicator(sessionid=sessionid)
    try:
        assert not connected
    finally:
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_deleted_users_session_cannot_open_a_socket(tpersonas):
    sessionid = await sync_to_async(_login)(tpersonas.bob)
    await sync_to_async(user_delete)(user=tpersonas.bob, actor=Actor.system())
    communicator, connected = await _communicator(sessionid=sessionid)
    try:
        assert not connected
    finally:
        await communicator.disconnect()


# --- what a client sends changes nothing it hears --------------------------


def _frames_naming(*groups: str) -> list[dict]:
    frames: list[dict] = []
    for group in groups:
        frames += [
            {"text_data": group},
            {"text_data": json.dumps({"subscribe": group})},
            {"text_data": json.dumps({"type": "group_add", "group": group})},
            {"text_data": json.dumps({"type": "websocket.receive", "groups": [group]})},
            {"text_data": json.dumps({"type": "page.update", "html": "<b>forged</b>"})},
            {"bytes_data": group.encode()},
        ]
    return frames


@pytest.mark.django_db(transaction=True)
async def test_naming_another_users_group_does_not_let_a_user_hear_it(tpersonas):
    alice_id = await sync_to_async(_login)(tpersonas.alice)
    bob_id = await sync_to_async(_login)(tpersonas.bob)
    alice, connected = await _communicator(sessionid=alice_id)
    assert connected
    bob, connected = await _communicator(sessionid=bob_id)
    assert connected
    try:
        for frame in _frames_naming(
            user_group(tpersonas.bob.id),
            user_group(tpersonas.charlie.id),
            host_staff_group(tpersonas.acme.id),
            f"user.{tpersonas.bob.id}",
        ):
            await alice.send_to(**frame)
        # What alice sent was not echoed or acted on.
        assert await alice.receive_nothing(timeout=0.5)

        await _record(tpersonas.bob, "bob's own business")
        assert "bob&#x27;s own business" in await bob.receive_from(timeout=5)
        assert await alice.receive_nothing(timeout=1)

        # Alice's socket is still open and still hears her own activity.
        await _record(tpersonas.alice, "alice's own business")
        assert "alice&#x27;s own business" in await alice.receive_from(timeout=5)
    finally:
        await alice.disconnect()
        await bob.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_staff_naming_another_hosts_group_do_not_hear_that_host(tpersonas):
    auditor_id = await sync_to_async(_login)(tpersonas.auditor)
    auditor, connected = await _communicator(sessionid=auditor_id)
    assert connected
    try:
        for frame in _frames_naming(
            host_staff_group(tpersonas.bravo.id), user_group(tpersonas.charlie.id)
        ):
            await auditor.send_to(**frame)
        await _record(tpersonas.charlie, "bravo's business")
        assert await auditor.receive_nothing(timeout=1)
    finally:
        await auditor.disconnect()


# --- the user is deleted: their open sockets close --------------------------


@pytest.mark.django_db(transaction=True)
async def test_deleting_a_user_closes_their_open_sockets(tpersonas):
    first, connected = await _communicator(sessionid=await sync_to_async(_login)(tpersonas.bob))
    assert connected
    second, connected = await _communicator(sessionid=await sync_to_async(_login)(tpersonas.bob))
    assert connected
    alice, connected = await _communicator(sessionid=await sync_to_async(_login)(tpersonas.alice))
    assert connected
    try:
        await sync_to_async(user_delete)(user=tpersonas.bob, actor=Actor.system())
        for socket in (first, second):
            # The ledger's own entry (user.deleted) may come first.
            while (message := await socket.receive_output(timeout=5))["type"] != "websocket.close":
                assert message["type"] == "websocket.send", message
        assert await alice.receive_nothing(timeout=0.5)
    finally:
        for socket in (first, second, alice):
            await socket.disconnect()


# --- against a real daphne ---------------------------------------------------

live_only = pytest.mark.processes


def _ws_url(live) -> str:
    return live.base_url.replace("http://", "ws://") + "/ws/live/"


def _headers(live, sessionid: str) -> dict[str, str]:
    return {"Cookie": f"sessionid={sessionid}", "Origin": live.base_url}


async def _closed_within(socket, seconds: float) -> int:
    """The close code, if the server closes the socket within ``seconds``
    (a TimeoutError fails the test when it does not)."""
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(seconds):
            while True:
                await socket.recv()
    return closed.value.rcvd.code if closed.value.rcvd else 1006


@live_only
@pytest.mark.parametrize(
    ("size", "code"),
    [
        # The consumer closes it (4009: 1009 in the application's range).
        (CLIENT_FRAME_MAX + 1, CLOSE_FRAME_TOO_BIG),
        # daphne fails the connection before the consumer sees it: autobahn
        # (under daphne) drops the TCP connection without a close frame
        # (``failByDrop``), which a client reports as 1006.
        (DAPHNE_MESSAGE_MAX + 1, 1006),
    ],
    ids=["over-the-consumers-limit", "over-daphnes-limit"],
)
def test_an_oversize_frame_closes_the_socket(live, tpersonas, size, code):
    sessionid = _login(tpersonas.alice)

    async def scenario() -> tuple[int, int]:
        async with websockets.connect(
            _ws_url(live), additional_headers=_headers(live, sessionid)
        ) as socket:
            # A frame within the limit is ignored and the socket stays open.
            await socket.send("x" * CLIENT_FRAME_MAX)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(socket.recv(), timeout=0.5)
            await socket.send("x" * size)
            text_code = await _closed_within(socket, 5)
        async with websockets.connect(
            _ws_url(live), additional_headers=_headers(live, sessionid)
        ) as socket:
            await socket.send(b"\0" * size)
            bytes_code = await _closed_within(socket, 5)
        return text_code, bytes_code

    assert asyncio.run(scenario()) == (code, code)


def _log_out(live, sessionid: str) -> httpx.Response:
    """Press the console's *Sign out* (``POST /logout/``), as a browser does:
    with the CSRF cookie and token, from the console's own origin."""
    token = "a" * 32  # a CSRF secret of the valid form; cookie and header agree
    return httpx.post(
        f"{live.base_url}/logout/",
        cookies={"sessionid": sessionid, "csrftoken": token},
        headers={"X-CSRFToken": token, "Origin": live.base_url},
        follow_redirects=False,
        timeout=10,
    )


@live_only
def test_logging_out_closes_that_sessions_socket_within_two_seconds(live, tpersonas):
    leaving = _login(tpersonas.alice)
    staying = _login(tpersonas.alice)  # the same user in another browser

    async def scenario() -> tuple[float, int, str]:
        async with (
            websockets.connect(_ws_url(live), additional_headers=_headers(live, leaving)) as socket,
            websockets.connect(_ws_url(live), additional_headers=_headers(live, staying)) as other,
        ):
            response = await asyncio.to_thread(_log_out, live, leaving)
            assert response.status_code == 302, response.text
            started = time.monotonic()
            code = await _closed_within(socket, LOGOUT_CLOSE_WITHIN)
            elapsed = time.monotonic() - started
            # The other session is not logged out and still hears alice's activity.
            await asyncio.to_thread(
                in_thread,
                audit_record,
                host_id=tpersonas.acme.id,
                kind="test.after_logout",
                actor=Actor.system(),
                user=tpersonas.alice,
                summary="after the other browser logged out",
            )
            return elapsed, code, await asyncio.wait_for(other.recv(), timeout=10)

    elapsed, code, received = asyncio.run(scenario())
    assert not Session.objects.filter(session_key=leaving).exists()
    assert elapsed <= LOGOUT_CLOSE_WITHIN
    assert code == CLOSE_NOT_SIGNED_IN
    assert "after the other browser logged out" in received
