"""Demo data, so a newcomer sees Switchboard working on first run."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from switchboard.actors import Actor
from switchboard.models import Host
from switchboard.services.hosts import api_key_create, host_create
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


@transaction.atomic
def demo_load(*, refserver_url: str | None = None) -> DemoAccess:
    """Idempotent: reuses the demo host, issues a fresh key and fresh login links."""
    actor = Actor.system("demo data")
    host = Host.objects.filter(name=DEMO_HOST).first()
    if host is None:
        host, api_key = host_create(
            name=DEMO_HOST, actor=actor, allowed_origins=["http://127.0.0.1:8000"]
        )
    else:
        _, api_key = api_key_create(host=host, name="demo run", actor=actor)
    user, _ = user_upsert(
        host=host,
        external_id=DEMO_USER,
        actor=actor,
        display_name="Dana Demo",
        email="dana@demo.example",
    )
    admin = staff_create(host=host, email=DEMO_ADMIN, role="admin", actor=actor)
    if refserver_url:
        _register_refserver(host=host, url=refserver_url, actor=actor)
    user_url, _ = login_link_create(user=user, actor=actor)
    admin_url, _ = login_link_create(user=admin, actor=actor)
    return DemoAccess(
        host=host, api_key=api_key, user_login_url=user_url, admin_login_url=admin_url
    )


def _register_refserver(*, host: Host, url: str, actor: Actor) -> None:
    """Register the reference MCP server once (the registry syncs it)."""
    try:
        from switchboard.services.servers import server_register
    except ImportError:  # the registry arrives with the MCP-layer issue
        return
    from switchboard.models import McpServer

    if not McpServer.objects.filter(host=host, url=url, deleted_at__isnull=True).exists():
        server_register(
            host=host, name="Reference events server", url=url, actor=actor, trust="trusted"
        )
