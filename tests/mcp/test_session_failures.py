"""McpSession's failures, against the real reference server and fake
servers: timeouts, errors, refused and blocked targets, a dying server,
secrets kept out of errors."""

from __future__ import annotations

import time

import anyio
import pytest

from switchboard.mcp import McpCallError, McpSession, McpTarget
from tests.mcp.conftest import SECRET_TOKEN, RefServer, start_refserver, stop_refserver

pytestmark = pytest.mark.processes


# --- failures ---------------------------------------------------------------------------


async def test_call_timeout(refserver: RefServer, mode: str) -> None:
    refserver.post(
        "/control/behaviour", {"method": "conversation/userMessage", "fail": "hang", "times": 1}
    )
    async with McpSession(refserver.target(mode)) as s:
        started = time.monotonic()
        with pytest.raises(McpCallError) as caught:
            await s.user_message(message_id="m", content="x", timeout=0.3)
        elapsed = time.monotonic() - started
        # The session survives a timed-out call.
        ok = await s.user_message(message_id="m2", content="tea")
    assert caught.value.category == "timeout" and caught.value.method == "conversation/userMessage"
    assert elapsed < 1.5
    assert ok.context


async def test_server_error_and_garbage(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        refserver.post(
            "/control/behaviour",
            {"method": "conversation/userMessage", "fail": "error", "times": 1},
        )
        with pytest.raises(McpCallError) as error:
            await s.user_message(message_id="m", content="x")
        refserver.post(
            "/control/behaviour",
            {"method": "conversation/userMessage", "fail": "garbage", "times": 1},
        )
        with pytest.raises(McpCallError) as garbage:
            await s.user_message(message_id="m", content="x")
        with pytest.raises(McpCallError) as unknown:
            await s.poll(name="no.such.event")
    assert (error.value.category, error.value.code) == ("mcp_error", -32603)
    assert error.value.data == {"method": "conversation/userMessage"}
    assert garbage.value.category == "protocol" and "context" in garbage.value.message
    assert (unknown.value.code, unknown.value.data["kind"]) == (-32011, "event")


async def test_connect_deadline_on_a_silent_server(silent_server: str, settings, mode: str) -> None:
    settings.ALLOW_PRIVATE_TARGETS = True
    started = time.monotonic()
    with pytest.raises(McpCallError) as caught:
        async with McpSession(McpTarget(url=silent_server, mode=mode, connect_timeout=0.5)):
            pass
    assert caught.value.category == "timeout" and caught.value.method == "connect"
    assert time.monotonic() - started < 2.5


async def test_closed_port_is_connection_refused(closed_port_url: str, settings, mode: str) -> None:
    settings.ALLOW_PRIVATE_TARGETS = True
    with pytest.raises(McpCallError) as caught:
        async with McpSession(McpTarget(url=closed_port_url, mode=mode, connect_timeout=2)):
            pass
    assert caught.value.category == "connection_refused" and caught.value.retryable


@pytest.mark.parametrize(
    ("path", "category", "status", "code"),
    [
        ("/500/mcp", "http_5xx", 500, None),
        ("/503/mcp", "http_5xx", 503, None),
        ("/404/mcp", "http_4xx", 404, None),
        ("/401/mcp", "http_4xx", 401, None),
        ("/json401/mcp", "http_4xx", 401, -32001),
    ],
)
async def test_http_error_statuses(
    status_server: str, settings, mode: str, path: str, category: str, status: int, code
) -> None:
    settings.ALLOW_PRIVATE_TARGETS = True
    with pytest.raises(McpCallError) as caught:
        async with McpSession(McpTarget(url=status_server + path, mode=mode, connect_timeout=2)):
            pass
    assert (caught.value.category, caught.value.http_status, caught.value.code) == (
        category,
        status,
        code,
    )


async def test_tls_failure(status_server: str, settings) -> None:
    settings.ALLOW_PRIVATE_TARGETS = True
    url = status_server.replace("http://", "https://") + "/200/mcp"
    with pytest.raises(McpCallError) as caught:
        async with McpSession(McpTarget(url=url, connect_timeout=2)):
            pass
    assert caught.value.category == "tls_error"


async def test_blocked_target(refserver: RefServer, settings) -> None:
    settings.ALLOW_PRIVATE_TARGETS = False
    with pytest.raises(McpCallError) as caught:
        async with McpSession(refserver.target("auto")):
            pass
    assert caught.value.category == "blocked_target"
    assert refserver.received("requests") == []


async def test_secrets_stay_out_of_errors(status_server: str, settings) -> None:
    settings.ALLOW_PRIVATE_TARGETS = True
    target = McpTarget(
        url=status_server.replace("127.0.0.1", "user:pw@127.0.0.1") + "/401/mcp?key=qs-secret",
        headers={"Authorization": SECRET_TOKEN},
        connect_timeout=2,
    )
    with pytest.raises(McpCallError) as caught:
        async with McpSession(target):
            pass
    text = str(caught.value) + repr(caught.value) + repr(caught.value.as_dict())
    for secret in (SECRET_TOKEN, "pw", "qs-secret"):
        assert secret not in text


async def test_server_dying_mid_session(mode: str, settings) -> None:
    settings.ALLOW_PRIVATE_TARGETS = True
    server = start_refserver()
    try:
        with pytest.raises(McpCallError) as caught:
            async with McpSession(server.target(mode)) as s:
                await s.list_all_events()
                stop_refserver(server)
                await s.list_all_events()
        assert caught.value.category == "connection_refused"
    finally:
        if server.process.poll() is None:
            stop_refserver(server)


async def test_cancelling_the_caller_is_not_turned_into_an_error(refserver: RefServer) -> None:
    refserver.post("/control/behaviour", {"method": "conversation/userMessage", "fail": "hang"})
    with anyio.move_on_after(0.3) as scope:
        async with McpSession(refserver.target("auto")) as s:
            await s.user_message(message_id="m", content="x", timeout=5)
    assert scope.cancelled_caught
