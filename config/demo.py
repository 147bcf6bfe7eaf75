"""Demo data, so a newcomer sees Switchboard working on first run."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from consent.models import Injection, InjectionOutcome, InjectionSource
from consent.services import consent_request_create
from consent.services.request_links import consent_path
from outbox.models import DeliveryAttempt, DeliveryStatus, HostDelivery
from switchboard.actors import Actor
from switchboard.keys import hash_key
from switchboard.models import ApiKey, Host, McpServer
from switchboard.services.hosts import api_key_create, host_create
from switchboard.services.servers import server_register
from switchboard.services.users import login_link_create, staff_create, user_upsert

DEMO_HOST = "Demo Host"
DEMO_USER = "demo-user"
DEMO_ADMIN = "admin@demo.example"


@dataclass
class DemoAccess:
    host: Host
    api_key: str
    user_login_url: str
    admin_login_url: str


def demo_load(*, refserver_url: str | None = None) -> DemoAccess:
    """Idempotent: reuses the demo host and its key, issues fresh login links."""
    actor = Actor.system("demo data")
    host = Host.objects.filter(name=DEMO_HOST).first()
    if host is None:
        host, api_key = host_create(
            name=DEMO_HOST, actor=actor, allowed_origins=["http://127.0.0.1:8000"]
        )
        _remember_demo_key(api_key)
    else:
        api_key = _demo_key(host=host, actor=actor)
    user, _ = user_upsert(
        host=host,
        external_id=DEMO_USER,
        actor=actor,
        display_name="Dana Demo",
        email="dana@demo.example",
    )
    admin = staff_create(host=host, email=DEMO_ADMIN, role="admin", actor=actor)
    next_path = None
    if refserver_url:
        server = _register_refserver(host=host, url=refserver_url, actor=actor)
        next_path = _ask_demo_user(host=host, user=user, server=server, actor=actor)
        demo_history_add(host=host, user=user, server=server)
    user_url, _ = login_link_create(user=user, actor=actor, next_path=next_path)
    admin_url, _ = login_link_create(user=admin, actor=actor)
    return DemoAccess(
        host=host, api_key=api_key, user_login_url=user_url, admin_login_url=admin_url
    )


def _demo_key_path() -> Path:
    return Path(settings.SECRETS_DIR) / "demo_api_key"


def _remember_demo_key(plaintext: str) -> None:
    """Only the hash is in the database; the demo keeps its own key's
    plaintext beside the other local secrets, so every run prints the same
    key instead of minting a new one."""
    path = _demo_key_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(plaintext)


def _demo_key(*, host: Host, actor: Actor) -> str:
    """The key printed last time, while it still works; a new one otherwise."""
    path = _demo_key_path()
    if path.exists():
        plaintext = path.read_text().strip()
        if ApiKey.objects.filter(
            host=host, hashed=hash_key(plaintext), revoked_at__isnull=True
        ).exists():
            return plaintext
    _, plaintext = api_key_create(host=host, name="demo", actor=actor)
    _remember_demo_key(plaintext)
    return plaintext


def _register_refserver(*, host: Host, url: str, actor: Actor) -> McpServer:
    """Register the reference MCP server once (the registry syncs it)."""
    server = McpServer.objects.filter(host=host, url=url, deleted_at__isnull=True).first()
    if server is None:
        server = server_register(
            host=host, name="Reference events server", url=url, actor=actor, trust="trusted"
        )
    return server


def _ask_demo_user(*, host: Host, user, server: McpServer, actor: Actor) -> str | None:
    """Open a consent request, so the demo user's link lands on a real decision."""
    if server.status != "active":
        return None

    request, _ = consent_request_create(
        host=host,
        user=user,
        server=server,
        scopes=["conversation:read", "hooks", "events"],
        event_types=["build.finished"],
        actor=actor,
    )
    return consent_path(request) if request.status == "pending" else None


# The demo's recent past: (minutes ago, HTTP status) of deliveries to the
# host, and (hours ago, outcome, characters) of conversation calls.
_DELIVERIES = [(24, 200), (21, 200), (17, 503), (16, 200), (12, 200), (8, 200), (3, 500), (2, 200)]
_CALLS = [
    (60, InjectionOutcome.OK, 420),
    (40, InjectionOutcome.OK, 310),
    (20, InjectionOutcome.TIMEOUT, 0),
    (6, InjectionOutcome.OK, 260),
    (2, InjectionOutcome.OK, 380),
    (1, InjectionOutcome.ERROR, 0),
]


@transaction.atomic
def demo_history_add(*, host: Host, user, server: McpServer) -> None:
    """A little recent activity, so the Health page has charts on first run:
    deliveries to the host (some failed), and the server's conversation
    calls with the context they injected. Written as records of the past
    (nothing is sent, no server is called), with terminal states so no
    sweeper picks them up; added again only once the last lot has aged out
    of the charts' windows (30 minutes; 24 hours)."""
    now = timezone.now()
    if not DeliveryAttempt.objects.filter(
        delivery__host=host, at__gte=now - timedelta(minutes=25)
    ).exists():
        for minutes_ago, status_code in _DELIVERIES:
            at = now - timedelta(minutes=minutes_ago)
            ok = status_code < 300
            delivery = HostDelivery.objects.create(
                host=host,
                type="demo.ping",
                body={"type": "demo.ping", "timestamp": at.isoformat(), "data": {"demo": True}},
                status=DeliveryStatus.DELIVERED if ok else DeliveryStatus.FAILED,
                attempts=1,
                delivered_at=at if ok else None,
                last_status_code=status_code,
                last_error_category="" if ok else "server_error",
            )
            attempt = DeliveryAttempt.objects.create(
                delivery=delivery,
                completed_at=at,
                status_code=status_code,
                duration_ms=40,
                error_category="" if ok else "server_error",
            )
            DeliveryAttempt.objects.filter(pk=attempt.pk).update(at=at)  # at is auto_now_add
    if not Injection.objects.filter(
        host=host, server=server, created_at__gte=now - timedelta(hours=23)
    ).exists():
        stamp = int(now.timestamp())
        Injection.objects.bulk_create(
            Injection(
                created_at=now - timedelta(hours=hours_ago),
                host=host,
                user=user,
                server=server,
                conversation_id="demo",
                message_id=f"demo-{stamp}-{n}",
                source=InjectionSource.CONSOLE,
                outcome=outcome,
                latency_ms=30_000 if outcome == InjectionOutcome.TIMEOUT else 180,
                chars=chars,
                text="(demo context)" if chars else "",
                error="" if outcome == InjectionOutcome.OK else outcome,
            )
            for n, (hours_ago, outcome, chars) in enumerate(_CALLS)
        )
