"""Runtime knobs of the reference server.

Every timing is in milliseconds and adjustable at runtime through
`POST /control/config`, so client tests can compress TTLs, retry schedules
and heartbeats to a few hundred milliseconds instead of waiting minutes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass
class Config:
    name: str = "refserver"
    # "sketch" (the digest, default), "sep-3415" or "chatgpt": see refserver/dialect.py.
    dialect: str = "sketch"
    # Sign deliveries with an ed25519 v1a signature too, and publish the key.
    webhook_identity: bool = False
    allow_http_callbacks: bool = False
    # TTL grant: `ttlMs` is clamped to [min_ttl_ms, max_ttl_ms]; absent means default.
    min_ttl_ms: int = 1000
    max_ttl_ms: int = 24 * 60 * 60 * 1000
    default_ttl_ms: int = 10 * 60 * 1000
    allow_no_expiry: bool = True
    # Webhook delivery: one try plus one retry per entry, exponential by default.
    retry_delays_ms: list[int] = field(default_factory=lambda: [200, 400, 800])
    delivery_timeout_ms: int = 5000
    challenge_timeout_ms: int = 5000
    rotation_grace_ms: int = 60_000
    # Abandoned events in a row before a subscription is suspended (active=false).
    suspend_after_failures: int = 2
    max_subscriptions_per_principal: int = 100
    require_auth: bool = False
    # Listing and polling.
    events_page_size: int = 2
    poll_next_ms: int = 1000
    poll_max_events: int = 100
    max_poll_timeout_ms: int = 30_000
    heartbeat_ms: int = 30_000
    # Echo eventsListChanged in a listen acknowledgement (when listChanged is declared).
    listen_acks_events: bool = True
    log_retention: int = 1000
    # Hooks: filter declarations by the client's advertised supported_events.
    filter_hooks_by_supported_events: bool = True
    # Tasks (refserver.tasks): the pollInterval a new task suggests, and how long
    # it is kept when the request names no ttl (tasks/get then answers not found).
    task_poll_interval_ms: int = 500
    task_ttl_ms: int = 60 * 60 * 1000

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def update(self, values: dict[str, Any]) -> list[str]:
        """Apply known keys, coercing to the field's type; return unknown keys."""
        known = {f.name: f for f in fields(self)}
        unknown: list[str] = []
        for key, value in values.items():
            if key not in known:
                unknown.append(key)
                continue
            current = getattr(self, key)
            if isinstance(current, bool):
                value = bool(value)
            elif isinstance(current, int):
                value = int(value)
            elif isinstance(current, list):
                items = value.split(",") if isinstance(value, str) else value
                value = [int(v) for v in items if str(v).strip()]
            setattr(self, key, value)
        return unknown
