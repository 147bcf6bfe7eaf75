"""McpSession against the real reference server (both eras): connecting,
credentials, and each request it makes (events/list, messages, tools,
poll, subscribe, tasks/get)."""

from __future__ import annotations

import logging

import pytest

from switchboard.mcp import McpCallError, McpSession, McpTarget, refresh_thread_id, thread_meta
from switchboard.mcp.session import UNSET
from tests.mcp.conftest import SECRET_TOKEN, RefServer

pytestmark = pytest.mark.processes

ERA = {"auto": "2026-07-28", "legacy": "2025-11-25"}


async def test_connects_in_each_era(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        assert s.protocol_version == ERA[mode]
        assert s.is_legacy is (mode == "legacy")
        assert s.server_info == {"name": "refserver", "version": "1.0.0"}
    first = refserver.received("requests")[0]
    assert first["method"] == ("server/discover" if mode == "auto" else "initialize")


async def test_auto_falls_back_to_initialize_for_older_servers(refserver: RefServer) -> None:
    # A server that fails `server/discover` is, for the SDK's auto mode, a legacy server.
    refserver.post("/control/behaviour", {"method": "server/discover", "fail": "error"})
    async with McpSession(refserver.target("auto")) as s:
        assert s.protocol_version == "2025-11-25" and s.is_legacy
        caps = await s.capabilities()
        reply = await s.user_message(message_id="m", content="deploy")
    assert caps.sources["events"] == "experimental" and reply.context
    methods = [r["method"] for r in refserver.received("requests")]
    assert methods[:2] == ["server/discover", "initialize"]


async def test_credentials_go_on_every_request(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        await s.list_all_events()
        await s.user_message(message_id="m1", content="hello")
        await s.list_tools()
    requests = [r for r in refserver.received("requests") if not r.get("notification")]
    assert requests and {r["principal"] for r in requests} == {SECRET_TOKEN}


def test_headers_never_show_in_reprs(refserver: RefServer) -> None:
    target = refserver.target(headers={"Authorization": SECRET_TOKEN, "X-Api-Key": "k-123"})
    shown = repr(target) + repr(McpSession(target))
    assert SECRET_TOKEN not in shown and "k-123" not in shown
    assert "Authorization" in repr(target)


async def test_events_list_follows_every_page(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        first = await s.list_events()
        events = await s.list_all_events()
    assert len(first.events) == 2 and first.next_cursor
    assert [e.name for e in events] == [
        "build.finished",
        "ticket.created",
        "alert.fired",
        "deploy.status",
        "deploy.progress",
    ]
    assert events[0].delivery == ["webhook"]
    assert events[3].delivery == ["push", "poll"]
    assert events[0].input_schema and events[0].input_schema["required"] == ["repo"]
    assert events[0].payload_schema and "status" in events[0].payload_schema["properties"]
    cursors = [r["cursor"] for r in refserver.received("eventsList")]
    assert cursors[:3] == [None, None, first.next_cursor] and len(cursors) == 4  # 3 pages


async def test_events_list_reads_delivery_modes_fallback(refserver: RefServer) -> None:
    refserver.post(
        "/control/event-types",
        {
            "types": [
                {"name": "old.style", "deliveryModes": ["poll"], "inputSchema": {}},
                {"name": "both", "delivery": ["push"], "deliveryModes": ["poll"]},
            ]
        },
    )
    async with McpSession(refserver.target("auto")) as s:
        events = await s.list_all_events()
    assert [(e.name, e.delivery) for e in events] == [("old.style", ["poll"]), ("both", ["push"])]


async def test_user_message_round_trip(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        reply = await s.user_message(
            message_id="msg-1",
            content="What did we decide about the database?",
            recent_history=[{"role": "user", "content": "earlier"}],
        )
    assert reply.context and "msg-1" in reply.context
    memories = reply.structured_context.memories if reply.structured_context else []
    assert memories[0].source == "memory-bank:database" and memories[0].relevance == 0.92
    [seen] = refserver.received("userMessages")
    assert seen["messageId"] == "msg-1"
    assert seen["recentHistory"] == [{"role": "user", "content": "earlier"}]


async def test_tools_and_resources_with_thread_meta(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        before = [t.name for t in await s.list_tools(meta=thread_meta("thread-1"))]
        result = await s.call_tool(
            name="login", arguments={"username": "ada"}, meta=thread_meta("thread-1")
        )
        after = [t.name for t in await s.list_tools(meta=thread_meta("thread-1"))]
        other = [t.name for t in await s.list_tools(meta=thread_meta("thread-2"))]
        resources = [r.uri for r in await s.list_resources(meta=thread_meta("thread-1"))]
        echo = await s.call_tool(name="echo", arguments={"text": "hi"})
    assert "private_repos" not in before and "private_repos" in after
    assert "private_repos" not in other
    assert "refserver://private/repos" in resources
    assert refresh_thread_id(result) == "thread-1"
    assert refresh_thread_id(result.model_dump(by_alias=True)) == "thread-1"
    assert echo.content[0].text == "hi" and not echo.is_error
    listed = refserver.received("toolsList")
    assert [r["threadId"] for r in listed] == ["thread-1", "thread-1", "thread-2"]
    assert listed[0]["meta"]["threadId"] == "thread-1"
    assert refserver.received("resourcesList")[0]["threadId"] == "thread-1"


async def test_tool_errors_are_results_not_exceptions(refserver: RefServer) -> None:
    async with McpSession(refserver.target("auto")) as s:
        result = await s.call_tool(name="private_repos")
    assert result.is_error


async def test_poll(refserver: RefServer, mode: str) -> None:
    async with McpSession(refserver.target(mode)) as s:
        start = await s.poll(name="alert.fired", arguments={"severity": "critical"})
        assert start.events == [] and start.cursor is not None
        refserver.post(
            "/control/emit",
            {
                "name": "alert.fired",
                "data": {"summary": "disk"},
                "arguments": {"severity": "critical"},
            },
        )
        refserver.post(
            "/control/emit",
            {"name": "alert.fired", "data": {"summary": "cpu"}, "arguments": {"severity": "info"}},
        )
        batch = await s.poll(
            name="alert.fired", arguments={"severity": "critical"}, cursor=start.cursor
        )
        long_poll = await s.poll(
            name="alert.fired", cursor=batch.cursor, timeout_ms=300, max_events=5
        )
    assert [e.data["summary"] for e in batch.events] == ["disk"]
    assert batch.events[0].event_id and batch.events[0].name == "alert.fired"
    assert batch.truncated is False and batch.has_more is False and batch.next_poll_ms == 1000
    assert long_poll.events == []
    polls = refserver.received("poll")
    assert polls[0]["cursor"] is None and polls[1]["cursor"] == start.cursor
    assert polls[2]["timeoutMs"] == 300 and polls[2]["maxEvents"] == 5


async def test_subscribe_and_unsubscribe(refserver: RefServer, receiver, mode: str) -> None:
    url = receiver.url("/hooks/one")
    secret = "whsec_" + "A" * 43 + "="
    async with McpSession(refserver.target(mode)) as s:
        sub = await s.subscribe(
            name="build.finished",
            arguments={"repo": "acme/api"},
            url=url,
            secret=secret,
            ttl_ms=60_000,
        )
        refresh = await s.subscribe(
            name="build.finished",
            arguments={"repo": "acme/api"},
            url=url,
            secret=secret,
            cursor=sub.cursor,
            ttl_ms=None,
        )
        await s.unsubscribe(name="build.finished", arguments={"repo": "acme/api"}, url=url)
        # A second one finds nothing: the error comes back as the server sent
        # it (whether it means "already gone" depends on the dialect).
        with pytest.raises(McpCallError) as gone:
            await s.unsubscribe(name="build.finished", arguments={"repo": "acme/api"}, url=url)
    assert sub.id and sub.refresh_before and sub.cursor is not None and sub.truncated is False
    assert refresh.id == sub.id and refresh.refresh_before is None
    assert refresh.delivery_status is not None and refresh.delivery_status.active is True
    assert gone.value.code == -32011
    assert any(b.get("type") == "verification" for b in receiver.bodies)
    records = refserver.received("subscribe")
    assert records[0]["delivery"]["mode"] == "webhook" and records[0]["ttlMs"] == 60_000
    assert records[1]["ttlMs"] is None and records[1]["cursor"] == sub.cursor
    # Case 30: the unsubscribe names the delivery mode too.
    assert refserver.received("unsubscribe")[0]["delivery"] == {"mode": "webhook", "url": url}


async def test_secrets_never_reach_the_logs(refserver: RefServer, receiver, caplog) -> None:
    secret = "whsec_" + "Z" * 43 + "="
    target = McpTarget(
        url=refserver.mcp_url + "?token=qs-secret",
        headers={"Authorization": SECRET_TOKEN},
        connect_timeout=5,
    )
    with caplog.at_level(logging.DEBUG):
        async with McpSession(target) as s:
            await s.subscribe(
                name="ticket.created", arguments={}, url=receiver.url("/l"), secret=secret
            )
    assert caplog.records  # the SDK and httpx2 did log at DEBUG/INFO
    for leaked in (secret, SECRET_TOKEN, "qs-secret"):
        assert leaked not in caplog.text


async def test_subscribe_ttl_absent_vs_null(refserver: RefServer, receiver) -> None:
    secret = "whsec_" + "B" * 43 + "="
    async with McpSession(refserver.target("auto")) as s:
        await s.subscribe(
            name="ticket.created", arguments={}, url=receiver.url("/a"), secret=secret, ttl_ms=UNSET
        )
    assert refserver.received("subscribe")[0]["ttlMs"] == "absent"


async def test_subscribe_errors_carry_code_and_data(refserver: RefServer) -> None:
    async with McpSession(refserver.target("auto")) as s:
        with pytest.raises(McpCallError) as caught:
            await s.subscribe(
                name="deploy.status",
                arguments={},
                url="http://127.0.0.1:9/x",
                secret="whsec_" + "C" * 43 + "=",
            )
    assert caught.value.category == "mcp_error" and caught.value.code == -32014
    assert caught.value.data == {"feature": "deliveryMode", "value": "webhook"}


async def test_every_events_request_declares_the_events_extension(refserver: RefServer) -> None:
    """docs/events-client.md §8: on 2026-07-28 each request carries the client capabilities
    in ``_meta``; ours name the events extension (and the protocol version)."""
    async with McpSession(refserver.target("auto")) as s:
        await s.list_events()
    (listed,) = [r for r in refserver.received("requests") if r["method"] == "events/list"]
    meta = listed["meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    extensions = meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]
    assert "io.modelcontextprotocol/events" in extensions


async def test_task_get_reads_a_tasks_status_in_each_era(refserver: RefServer, mode: str) -> None:
    created = refserver.post("/control/tasks", {"service": "api", "poll_interval_ms": 700})
    task_id = created["task"]["taskId"]
    refserver.post(
        "/control/tasks/status",
        {"taskId": task_id, "status": "input_required", "statusMessage": "approve it"},
    )
    async with McpSession(refserver.target(mode)) as s:
        task = await s.task_get(task_id=task_id)
        with pytest.raises(McpCallError) as missing:
            await s.task_get(task_id="no-such-task")
    assert task.task_id == task_id and task.status == "input_required"
    assert task.status_message == "approve it" and task.poll_interval == 700
    assert missing.value.code == -32602  # what a task the server does not know gives
