"""The calls of bench/hot_path.py: the data a host sets up (on the run's
throwaway database, made by the project's own services), the bytes of each
target's request and the check of its answer."""

from __future__ import annotations

import json
from dataclasses import dataclass

from hot_path_servings import NAMES
from stack import Answer, database_create
from webhook_load import Requests, Target

USER = "bench-user"
TARGETS = ("bare", "bare-async", "user", "lifecycle-0", "lifecycle-5", "receiver")
SERVERS = NAMES
# Targets whose every call must be new bytes (a delivery is accepted once).
FRESH = {"receiver"}
INJECTIONS = {"lifecycle-0": 0, "lifecycle-5": 5}


def hook_declarations(n: int) -> list[dict]:
    """Five hooks per server; one (the first) matches ``lifecycle-5``'s event,
    none matches ``lifecycle-0``'s, the rest make the compiled set realistic."""
    return [
        {
            "event": "post_tool_use",
            "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
            "context": f"Server {n}: you committed in {{project_name}}; note what changed and why.",
            "priority": "suggestion",
        },
        {
            "event": "pre_tool_use",
            "matcher": {"tool_name": "Bash", "input_contains": "git push"},
            "context": "Run the tests before pushing.",
            "priority": "important",
        },
        {"event": "post_tool_use", "matcher": {"tool_name": "Edit"}, "context": "Edited."},
        {"event": "post_tool_use", "matcher": {"tool_name": f"mcp__srv{n}__*"}, "context": "Ok."},
        {
            "event": "session_start",
            "context": "Working on {project_name}.",
            "priority": "important",
        },
    ]


@dataclass
class Fixture:
    key: str
    host_id: str
    user_id: str
    server_ids: list[str]
    login_paths: dict[str, str]  # "user"/"staff" -> /login/<one-time token>
    receivers: list[Target]  # webhook subscriptions a server delivers to


def setup_database(env: dict[str, str], hook_servers: int) -> Fixture:
    """A fresh database, migrated, with what a host sets up, made by the
    project's own services (what ``create_host`` and the API call)."""
    database_create(env)
    from django.db import connections

    from consent.services import grant_approve, grant_request
    from switchboard.actors import Actor
    from switchboard.mcp import parse_declarations
    from switchboard.models import McpServer
    from switchboard.services.hosts import host_create
    from switchboard.services.server_discovery import ServerSnapshot
    from switchboard.services.server_sync import server_apply_snapshot
    from switchboard.services.users import login_link_create, staff_create, user_upsert

    actor = Actor.system("bench")
    host, key = host_create(name="Bench host", actor=actor)
    user, _ = user_upsert(host=host, external_id=USER, actor=actor, display_name="Bench User")
    staff = staff_create(host=host, email="admin@bench.test", role="admin", actor=actor)
    server_ids = []
    for n in range(hook_servers):
        server = McpServer.objects.create(
            host=host,
            name=f"hooks-{n}",
            status="host_managed",
            trust="trusted" if n == 0 else "untrusted",
        )
        raws = hook_declarations(n)
        snapshot = ServerSnapshot(
            capabilities={"hooks": {"declarations": raws}},
            sources={"hooks": "toplevel"},
            declarations=parse_declarations(server_id=server.id, raw_list=raws),
        )
        server_apply_snapshot(server=server, snapshot=snapshot, actor=actor)
        grant = grant_request(user=user, server=server, scope="hooks", actor=actor)
        hook_ids = list(server.hook_declarations.values_list("hook_id", flat=True))
        grant_approve(grant=grant, actor=actor, hook_ids=hook_ids)
        server_ids.append(server.id)
    receivers = receiver_subscriptions(host, user, actor)
    login_paths = {}
    for label, who in (("user", user), ("staff", staff)):
        url, _ = login_link_create(user=who, actor=actor)
        login_paths[label] = "/login/" + url.rsplit("/login/", 1)[1]
    fixture = Fixture(key, host.id, user.id, server_ids, login_paths, receivers)
    connections.close_all()
    return fixture


def receiver_subscriptions(host, user, actor) -> list[Target]:
    """Sixteen active webhook subscriptions of a server of their own, as in
    bench/webhook_receiver.py, but with no host endpoint: this run's worker
    consumes its queue and would try to deliver every stored event."""
    from webhook_receiver import webhook_subscription

    from switchboard.models import EventType, McpServer

    server = McpServer.objects.create(
        host=host, name="Webhooks", url="https://mcp.bench.test/mcp", status="active"
    )
    EventType.objects.create(server=server, name="build.finished", delivery=["webhook"])
    return [
        webhook_subscription(host, user, server, n, remote_id=f"sub_hot_{n}") for n in range(16)
    ]


def audit_watermark() -> int:
    """The newest ledger entry's id (ids only grow): what a burst adds is above it."""
    from django.db import connection
    from django.db.models import Max

    from switchboard.models import AuditEntry

    try:
        return AuditEntry.objects.aggregate(top=Max("id"))["top"] or 0
    finally:
        connection.close()


def records_pending() -> int:
    """Lifecycle events whose records (firings, ledger, timeline entry) the
    worker has yet to write."""
    from django.db import connection

    from hooks.models import LifecycleEvent

    try:
        return LifecycleEvent.objects.filter(pending__isnull=False).count()
    finally:
        connection.close()


def audit_since(host_id: str, after: int) -> list[tuple[int, str]]:
    from django.db import connection

    from switchboard.models import AuditEntry

    try:
        return list(
            AuditEntry.objects.filter(host_id=host_id, id__gt=after).values_list("id", "user_id")
        )
    finally:
        connection.close()


class Calls:
    """The bytes of each target's request for one server, and the check of its answer."""

    def __init__(self, port: int, fixture: Fixture, run: str = "run"):
        self.port, self.fixture = port, fixture
        self.auth = f"Authorization: Bearer {fixture.key}\r\n"
        # Signed deliveries, each a new event (ids carry the run and the port).
        self.deliveries = Requests("", fixture.receivers, port, run, receiver=True)

    def _request(self, method: str, path: str, extra: str = "", body: bytes = b"") -> bytes:
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n{extra}"
        if body or method == "POST":
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        return (head + "\r\n").encode() + body

    def raw(self, target: str, session: str = "") -> bytes:
        if target == "bare":
            return self._request("GET", "/bench/bare-sync")
        if target == "bare-async":
            return self._request("GET", "/bench/bare")
        if target == "user":
            return self._request("GET", f"/api/v1/users/{USER}", self.auth)
        if target == "receiver":
            return self.deliveries()
        commit = target == "lifecycle-5"
        event = {
            "user": USER,
            "event": "post_tool_use",
            "servers": self.fixture.server_ids,
            "tool_name": "Bash" if commit else "Read",
            "tool_input": {"command": "git commit -m 'wip'"}
            if commit
            else {"file_path": "/work/project/README.md"},
            "tool_output": {"content": [{"type": "text", "text": "[main 1a2b3c4] wip"}]},
            "project_name": "bench",
        }
        body = json.dumps(event, separators=(",", ":")).encode()
        return self._request("POST", f"/api/v1/sessions/{session}/lifecycle", self.auth, body)

    @staticmethod
    def check(target: str, answer: Answer) -> str | None:
        """What is wrong with the answer, if anything (a wrong answer is no figure)."""
        if answer.status != 200:
            return f"HTTP {answer.status}: {answer.body[:200]!r}"
        if target == "receiver" and json.loads(answer.body).get("status") != "accepted":
            return f"not accepted: {answer.body[:200]!r}"
        if target in INJECTIONS:
            got = len(json.loads(answer.body)["injections"])
            if got != INJECTIONS[target]:
                return f"{got} injections, expected {INJECTIONS[target]}"
        return None


def server_ms(answer: Answer) -> float | None:
    timing = answer.headers.get("server-timing", "")
    _, sep, value = timing.partition("dur=")
    return float(value) if sep else None
