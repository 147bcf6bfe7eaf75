"""Context tools on pooled sessions, the readiness gate at session start,
the cap on declarations and the host's "static hooks only for untrusted
servers" switch; against the reference MCP server over Streamable HTTP."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Iterator

import pytest
from django.test import Client

from consent.services import host_policy_update
from hooks.services.context_tools import LATE
from switchboard.models import HookDeclaration
from switchboard.services.servers import server_register
from tests.factories import SYSTEM
from tests.hooks.conftest import BRIEF_HOOK, START_HOOK, approve, hook_id_of, hooked_server

SESSION_OPEN = ("server/discover", "initialize")


def _opens(refserver) -> int:
    received = refserver.control("GET", "received?kinds=requests")["requests"]
    return sum(1 for r in received if r["method"] in SESSION_OPEN)


def _brief_calls(refserver) -> int:
    calls = refserver.control("GET", "received?kinds=toolCalls")["toolCalls"]
    return sum(1 for c in calls if c["name"] == "project_brief")


def session_start(personas, server, **extra):
    answer = personas.acme_api.post(
        f"/sessions/{uuid.uuid4().hex}/lifecycle",
        {
            "user": "alice",
            "event": "session_start",
            "servers": [server.id],
            "project_name": "apollo",
            **extra,
        },
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


# --- pooled sessions ---------------------------------------------------------------------


@pytest.mark.processes
@pytest.mark.sqlite
@pytest.mark.django_db
def test_lifecycle_events_reuse_one_session_for_their_context_tools(personas, refserver):
    server = server_register(host=personas.acme, name="Ref", url=refserver.mcp_url, actor=SYSTEM)
    hook = next(
        d.raw
        for d in HookDeclaration.objects.filter(server=server, valid=True)
        if d.raw.get("context_tool") == "project_brief"
    )
    approve(personas.alice, server, hook)
    opens = _opens(refserver)
    for _ in range(3):
        (injection,) = session_start(personas, server)["injections"]
        assert injection["text"].startswith("Project brief for apollo:")
    assert _brief_calls(refserver) == 3
    # One handshake for the three calls: each costs a call, not a session.
    assert _opens(refserver) - opens == 1


# --- the readiness gate ------------------------------------------------------------------


class LateListener:
    """A server that starts late: its port refuses connections until
    ``start_after`` seconds have passed, then relays to the reference server."""

    def __init__(self, target_port: int, start_after: float):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._target = target_port
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(start_after,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def _run(self, start_after: float) -> None:
        if self._stop.wait(start_after):
            return
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        listener.settimeout(0.2)
        while not self._stop.is_set():
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            upstream = socket.create_connection(("127.0.0.1", self._target))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()
        listener.close()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        self._stop.set()


@pytest.fixture
def late_server(refserver) -> Iterator:
    listeners: list[LateListener] = []

    def start(after: float) -> LateListener:
        listener = LateListener(refserver.port, after)
        listeners.append(listener)
        return listener

    yield start
    for listener in listeners:
        listener.stop()


@pytest.mark.processes
@pytest.mark.sqlite
@pytest.mark.django_db
def test_a_server_starting_within_the_readiness_wait_is_used(
    personas, refserver, late_server, settings
):
    settings.HOOK_READINESS_WAIT = 4
    listener = late_server(after=0.8)
    server = hooked_server(personas.acme, [BRIEF_HOOK], name="Starting", url=listener.url)
    approve(personas.alice, server, BRIEF_HOOK)
    answer = session_start(personas, server)
    assert answer["late"] == []
    (injection,) = answer["injections"]
    assert injection["source"] == "context_tool"
    assert injection["text"].startswith("Project brief for apollo:")


@pytest.mark.processes
@pytest.mark.sqlite
@pytest.mark.django_db
def test_a_server_still_starting_past_the_wait_is_reported_late(
    personas, refserver, late_server, settings
):
    settings.HOOK_READINESS_WAIT = 0.5
    listener = late_server(after=3)
    server = hooked_server(personas.acme, [BRIEF_HOOK], name="Slow", url=listener.url)
    approve(personas.alice, server, BRIEF_HOOK)
    started = time.monotonic()
    answer = session_start(personas, server)
    assert time.monotonic() - started < 2.5  # the wait, not the server, bounds it
    hook_id = hook_id_of(server, BRIEF_HOOK)
    assert answer["late"] == [{"server": server.id, "hook_id": hook_id}]
    assert answer["injections"] == []
    (suppressed,) = answer["suppressed"]
    assert (suppressed["reason"], suppressed["detail"]) == (LATE, {"waited_seconds": 0.5})
    assert _brief_calls(refserver) == 0


@pytest.mark.processes
@pytest.mark.sqlite
@pytest.mark.django_db
def test_other_events_do_not_wait_for_a_server_that_is_not_up(
    personas, refserver, late_server, settings
):
    settings.HOOK_READINESS_WAIT = 4
    listener = late_server(after=30)
    hook = {**BRIEF_HOOK, "event": "pre_tool_use", "matcher": {"tool_name": "Bash"}}
    server = hooked_server(personas.acme, [hook], name="Down", url=listener.url)
    approve(personas.alice, server, hook)
    started = time.monotonic()
    answer = personas.acme_api.post(
        "/sessions/s-pre/lifecycle",
        {"user": "alice", "event": "pre_tool_use", "servers": [server.id], "tool_name": "Bash"},
    ).json()
    assert time.monotonic() - started < 2
    assert answer["late"] == []
    assert answer["suppressed"][0]["reason"] == "context_tool_error"


# --- the mitigations ---------------------------------------------------------------------


@pytest.mark.django_db
def test_declarations_past_the_cap_are_flagged_never_used_and_shown(personas, settings):
    settings.HOOK_MAX_DECLARATIONS = 1
    server = hooked_server(personas.acme, [START_HOOK, BRIEF_HOOK], name="Many")
    first, extra = (
        HookDeclaration.objects.get(server=server, raw=START_HOOK),
        HookDeclaration.objects.get(server=server, raw=BRIEF_HOOK),
    )
    assert first.valid and not extra.valid
    assert extra.problems == [
        "over the limit of 1 declarations per server (HOOK_MAX_DECLARATIONS): not used"
    ]
    approve(personas.alice, server, START_HOOK)
    answer = session_start(personas, server)
    assert [i["hook_id"] for i in answer["injections"]] == [first.hook_id]
    client = Client()
    client.force_login(personas.alice)
    page = client.get(f"/hooks/servers/{server.id}/").content.decode()
    assert "HOOK_MAX_DECLARATIONS" in page and "invalid — never fires" in page


@pytest.mark.django_db
def test_the_host_can_run_only_static_hooks_for_untrusted_servers(personas, settings):
    server = hooked_server(personas.acme, [START_HOOK, BRIEF_HOOK], name="Strangers")
    approve(personas.alice, server, START_HOOK, BRIEF_HOOK)
    brief = hook_id_of(server, BRIEF_HOOK)
    # Off (the default): the context tool is asked for (this server has no
    # url, so the host would reach it itself).
    reasons = {s["hook_id"]: s["reason"] for s in session_start(personas, server)["suppressed"]}
    assert reasons[brief] == "context_tool_unreachable"
    answer = personas.acme_api.put("/policy", {"context_tools_trusted_only": True})
    assert answer.status_code == 200, answer.content
    assert answer.json()["context_tools_trusted_only"] is True
    answer = session_start(personas, server)
    assert [i["source"] for i in answer["injections"]] == ["context"]
    assert {s["hook_id"]: s["reason"] for s in answer["suppressed"]} == {
        brief: "context_tool_untrusted"
    }
    # Marked trusted (the servers API's trust field), its tools are used again.
    marked = personas.acme_api.patch(f"/servers/{server.id}", {"trust": "trusted"})
    assert marked.status_code == 200, marked.content
    reasons = {s["hook_id"]: s["reason"] for s in session_start(personas, server)["suppressed"]}
    assert reasons[brief] == "context_tool_unreachable"
    host_policy_update(host=personas.acme, actor=SYSTEM, context_tools_trusted_only=False)


@pytest.mark.django_db
def test_the_policy_page_switches_context_tools_to_trusted_servers_only(personas):
    from consent.models import HostPolicy

    admin = Client()
    admin.force_login(personas.admin)
    page = admin.get("/staff/policy/").content.decode()
    assert 'name="context_tools_trusted_only"' in page
    form = {
        "server_list_mode": "off",
        "required_hooks_trusted_only": "on",
        "context_tools_trusted_only": "on",
        "max_chars_per_message": "5000",
        "max_chars_per_server": "1000",
        "conversation_budget_ms": "400",
    }
    assert admin.post("/staff/policy/save", form).status_code == 302
    assert HostPolicy.objects.get(host=personas.acme).context_tools_trusted_only is True
