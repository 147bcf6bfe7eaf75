"""bench/load.py's data: a fresh database with what a host sets up (its key,
users with their consents, one webhook subscription each, one-time login
links, the host's endpoint), made by the project's own services; and the
forwarding queue's depth while the run goes."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from stack import database_create
from webhook_load import Target
from webhook_receiver import webhook_subscription


@dataclass
class Fixture:
    key: str
    users: list[str]  # external ids
    targets: list[Target]  # one webhook subscription per user
    login_paths: list[str]
    endpoint_key: bytes


def setup_database(env: dict[str, str], users: int, refserver_url: str, endpoint_url: str):
    """A fresh database with what a host sets up, made by the project's services."""
    database_create(env)
    from django.db import connections

    from consent.services import Decision, consent_request_create, consent_request_decide
    from outbox.services import host_endpoint_set
    from switchboard.actors import Actor
    from switchboard.services.hosts import host_create
    from switchboard.services.servers import server_register
    from switchboard.services.users import login_link_create, user_upsert

    actor = Actor.system("bench")
    host, key = host_create(name="Load host", actor=actor)
    server = server_register(host=host, name="reference", actor=actor, url=refserver_url)
    if server.status != "active":
        raise SystemExit(f"the reference server did not sync: {server.last_error_detail}")
    external_ids, targets, login_paths = [], [], []
    for n in range(users):
        user, _ = user_upsert(host=host, external_id=f"load-user-{n}", actor=actor)
        # The subscription's events reach the host only on the user's events
        # consent (checked again when they are forwarded).
        request, _ = consent_request_create(
            host=host,
            user=user,
            server=server,
            scopes=["conversation:read", "events"],
            event_types=["build.finished"],
            actor=actor,
        )
        consent_request_decide(
            request=request,
            decisions={
                g.id: Decision(
                    allow=True, event_types=["build.finished"] if g.scope == "events" else []
                )
                for g in request.grants.all()
            },
            remember="forever",
            actor=actor,
        )
        targets.append(webhook_subscription(host, user, server, n, remote_id=f"sub_load_{n}"))
        url, _ = login_link_create(user=user, actor=actor)
        login_paths.append("/login/" + url.rsplit("/login/", 1)[1])
        external_ids.append(user.external_id)
    # Last, so the consent changes above stay in the log (no_endpoint), not in the run.
    _, endpoint_secret = host_endpoint_set(host=host, url=endpoint_url, actor=actor)
    connections.close_all()
    endpoint_key = base64.b64decode(endpoint_secret.removeprefix("whsec_"))
    return Fixture(key, external_ids, targets, login_paths, endpoint_key)


def queue_depth(queue: str) -> tuple[int, int]:
    """Outbox rows pending, and tasks waiting in the run's Celery queue."""
    import redis
    from django.conf import settings
    from django.db import connection

    from outbox.models import HostDelivery

    try:
        pending = HostDelivery.objects.filter(status="pending").count()
    finally:
        connection.close()
    return pending, redis.Redis.from_url(settings.REDIS_URL).llen(queue)
