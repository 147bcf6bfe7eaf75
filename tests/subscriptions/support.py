"""Test data and signing helpers for the subscriptions tests."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from standardwebhooks import Webhook

from consent.models import Scope
from consent.services import grant_approve, grant_request
from outbox.signing import receiver_token_new, webhook_secret_new
from subscriptions.models import Subscription, SubscriptionStatus
from subscriptions.services.common import arguments_key
from switchboard.actors import Actor
from switchboard.models import EventType, Host, McpServer, User
from switchboard.services.servers import server_register

SYSTEM = Actor.system("tests")

BUILD_FINISHED = {
    "name": "build.finished",
    "description": "A CI build finished for a repository.",
    "delivery": ["webhook"],
    "inputSchema": {
        "type": "object",
        "properties": {"repo": {"type": "string"}, "branch": {"type": "string"}},
        "required": ["repo"],
        "additionalProperties": False,
    },
    "payloadSchema": {"type": "object"},
}


def make_event_server(
    host: Host, *, url: str = "https://mcp.example.test/mcp", name: str = "CI"
) -> McpServer:
    """A server that offers the reference server's event types (as a sync would store them)."""
    server = McpServer.objects.create(
        host=host, name=name, url=url, status="active", capabilities={"events": {}}
    )
    for descriptor in (
        BUILD_FINISHED,
        {
            **BUILD_FINISHED,
            "name": "ticket.created",
            "delivery": ["webhook", "poll"],
            "inputSchema": {"type": "object"},
        },
        {
            **BUILD_FINISHED,
            "name": "deploy.status",
            "delivery": ["push", "poll"],
            "inputSchema": {"type": "object"},
        },
    ):
        EventType.objects.create(
            server=server,
            name=descriptor["name"],
            description=descriptor["description"],
            delivery=descriptor["delivery"],
            input_schema=descriptor["inputSchema"],
            payload_schema=descriptor["payloadSchema"],
            raw=descriptor,
        )
    return server


def approve_events(user: User, server: McpServer, event_types: list[str]):
    grant = grant_request(
        user=user, server=server, scope=Scope.EVENTS, actor=SYSTEM, event_types=event_types
    )
    return grant_approve(grant=grant, actor=Actor.for_user(user), event_types=event_types)


def reference_server_for_alice(
    personas: Any, refserver: Any, host_receiver: HostReceiver, events: list[str], name: str = "Ref"
) -> McpServer:
    """The live suites' start: the reference server registered (and synced)
    for Acme, alice's ``events`` grant for ``events``, and Acme's host
    endpoint pointing at ``host_receiver``."""
    server = server_register(host=personas.acme, name=name, url=refserver.mcp_url, actor=SYSTEM)
    offered = set(server.event_types.values_list("name", flat=True))
    assert set(events) <= offered, server.last_error_detail
    approve_events(personas.alice, server, events)
    answer = personas.acme_api.put("/host/endpoint", json={"url": host_receiver.url})
    assert answer.status_code == 200, answer.content
    host_receiver.secret = answer.json()["secret"]
    return server


def make_subscription(
    user: User,
    server: McpServer,
    *,
    event: str = "build.finished",
    arguments: dict | None = None,
    status: str = SubscriptionStatus.ACTIVE,
    remote_id: str = "",
    **fields: Any,
) -> Subscription:
    """A subscription row as if it had been created and subscribed."""
    arguments = {"repo": "acme/app"} if arguments is None else arguments
    sub = Subscription(
        host_id=user.host_id,
        user=user,
        server=server,
        event_name=event,
        arguments=arguments,
        arguments_key=arguments_key(arguments),
        status=status,
        token=receiver_token_new(),
        remote_id=remote_id,
        **fields,
    )
    sub.secret = webhook_secret_new()
    sub.save(force_insert=True)
    return sub


def signed(
    secret: str | list[str],
    body: dict | bytes | str,
    *,
    webhook_id: str = "msg_1",
    subscription_id: str = "sub_remote",
    at: float | None = None,
    signature: str | None = None,
) -> tuple[dict[str, str], bytes]:
    """Headers and raw bytes of one delivery, signed like a server would."""
    if isinstance(body, dict):
        raw = json.dumps(body, separators=(",", ":")).encode()
    elif isinstance(body, str):
        raw = body.encode()
    else:
        raw = body
    moment = datetime.fromtimestamp(time.time() if at is None else at, UTC)
    secrets = [secret] if isinstance(secret, str) else secret
    headers = {
        "content-type": "application/json",
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "x-mcp-subscription-id": subscription_id,
        "webhook-signature": signature
        if signature is not None
        else " ".join(Webhook(s).sign(webhook_id, moment, raw.decode()) for s in secrets),
    }
    return headers, raw


def event_body(
    event_id: str = "evt_1", *, cursor: str | None = "1", name: str = "build.finished", **data
) -> dict:
    return {
        "eventId": event_id,
        "name": name,
        "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "data": data or {"repo": "acme/app", "status": "success"},
        "cursor": cursor,
    }


def _type_of(raw: bytes) -> str:
    try:
        return str(json.loads(raw).get("type", ""))
    except ValueError:
        return ""


class HostReceiver:
    """The host application's endpoint, as a real HTTP server in the test
    process. It verifies every delivery with the ``svix`` library (unchanged)
    and answers what the test scripts (``responses_for`` a delivery type first,
    then ``responses``; 204 once both are exhausted)."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.secret: str | None = None
        self.received: list[dict[str, Any]] = []  # verified deliveries
        self.rejected: list[str] = []  # verification failures
        self.responses: list[tuple[int, dict[str, str]]] = []
        self.responses_for: dict[str, list[tuple[int, dict[str, str]]]] = {}
        self.hits = 0
        self.hit_times: list[float] = []  # time.monotonic() of each request
        self.traceparents: list[str | None] = []  # W3C trace context of each request
        self.delay = 0.0  # seconds each answer takes (deliveries in flight)
        # Called while a request is being answered (a fault injected mid-POST).
        self.during_request: Callable[[], None] | None = None
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                from svix.webhooks import Webhook as SvixWebhook

                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver.lock:
                    receiver.hits += 1
                    receiver.hit_times.append(time.monotonic())
                    receiver.traceparents.append(headers.get("traceparent"))
                    scripted = receiver.responses_for.get(_type_of(raw)) or receiver.responses
                    status, extra = scripted.pop(0) if scripted else (204, {})
                    try:
                        SvixWebhook(receiver.secret).verify(raw, headers)
                        body = json.loads(raw)
                        receiver.received.append(
                            {"webhook_id": headers["webhook-id"], "status": status, **body}
                        )
                    except Exception as exc:  # recorded; the test asserts on it
                        receiver.rejected.append(repr(exc))
                if receiver.during_request:
                    receiver.during_request()
                if receiver.delay:
                    time.sleep(receiver.delay)
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            # socketserver's listen backlog is 5: a sixth connection opened
            # at once waits a SYN retransmit (1 s). A host's server queues more.
            request_queue_size = 128

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/switchboard"

    def accepted(self, type_: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [
                r
                for r in self.received
                if 200 <= r["status"] < 300 and (type_ is None or r["type"] == type_)
            ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_for(predicate, *, timeout: float = 20, interval: float = 0.1, message: str = ""):
    """Poll until ``predicate()`` is truthy; return its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting: {message or predicate}")
        time.sleep(interval)
