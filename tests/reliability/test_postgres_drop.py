"""docs/reliability.md row 3: PostgreSQL drops the live processes' connections
(``pg_terminate_backend``, as a failover or an administrator would) while
requests are being answered and while the worker forwards to the host.

Nothing may be lost or done twice, and the processes recover by themselves:
none is restarted."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import Counter

import httpx
import pytest
from django.db import connection, transaction

from consent.models import Injection
from consent.services import host_policy_update
from outbox.emit import host_event_emit
from outbox.models import DeliveryAttempt, HostDelivery
from outbox.services import host_endpoint_set
from switchboard.services.servers import server_register
from tests.consent.support import allow_all, open_request
from tests.live import LIVE_APPLICATION_NAME
from tests.pg import terminate_backends
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = pytest.mark.processes

MESSAGES = 16
PINGS = 12


@pytest.fixture(autouse=True)
def _fresh_connection_after():
    yield
    connection.close()


def _burst(base_url: str, key: str, prefix: str) -> list[tuple[str, int]]:
    """Messages sent at once; each waits on the reference server (slowed)
    between the plan's reads and the record's write."""

    async def run() -> list[tuple[str, int]]:
        async with httpx.AsyncClient(
            base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=60
        ) as client:

            async def one(n: int) -> tuple[str, int]:
                message_id = f"{prefix}-{n}"
                answer = await client.post(
                    "/api/v1/conversations/drop/messages",
                    json={"user": "alice", "message_id": message_id, "content": "hello"},
                )
                return message_id, answer.status_code

            return await asyncio.gather(*(one(n) for n in range(MESSAGES)))

    return asyncio.run(run())


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="pg_terminate_backend is PostgreSQL's: SQLite has no server backends to drop",
)
def test_connections_dropped_mid_request_and_mid_task(live, tpersonas, refserver, receiver):
    ref = server_register(host=tpersonas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    allow_all(open_request(tpersonas, ref, ["conversation:read"]))
    host_policy_update(host=tpersonas.acme, actor=SYSTEM, conversation_budget_ms=5000)
    refserver.control("POST", "behaviour", {"method": "conversation/userMessage", "delay_ms": 600})
    _, receiver.secret = host_endpoint_set(host=tpersonas.acme, url=receiver.url, actor=SYSTEM)
    receiver.delay = 0.3  # POSTs in flight when the backends go
    with transaction.atomic():
        for n in range(PINGS):
            host_event_emit(host_id=tpersonas.acme.id, type="ping", data={"n": n})

    stop = threading.Event()
    terminated: list[int] = []

    def chaos() -> None:
        while not stop.is_set() and len(terminated) < 3:
            time.sleep(0.5)
            terminated.append(terminate_backends("application_name = %s", (LIVE_APPLICATION_NAME,)))

    chaos_thread = threading.Thread(target=chaos, daemon=True)
    chaos_thread.start()
    try:
        during = _burst(live.base_url, tpersonas.acme_key, "during")
    finally:
        stop.set()
        chaos_thread.join()
    assert sum(terminated) > 0, "the test terminated no backend"

    # Recovered by themselves: the next burst is answered in full.
    after = _burst(live.base_url, tpersonas.acme_key, "after")
    assert {status for _, status in after} == {200}, after

    try:
        wait_for(
            lambda: (
                connection.close()
                or HostDelivery.objects.filter(
                    host=tpersonas.acme, type="ping", status="delivered"
                ).count()
                == PINGS
            ),
            timeout=120,
            message="every ping delivered",
        )
    except AssertionError:
        states = HostDelivery.objects.filter(host=tpersonas.acme, type="ping")
        raise AssertionError(
            f"pings by status: {Counter(states.values_list('status', flat=True))}, "
            f"host saw {receiver.hits} POSTs"
        ) from None
    # Forwarding: each delivery reached the host exactly once.
    pings = Counter(got["webhook_id"] for got in receiver.accepted("ping"))
    # Each delivery reached the host once, or again only after an attempt
    # recorded as failed (the host answered too late: at-least-once by
    # design, same webhook-id); never a second send nobody accounted for.
    twice = {}
    for webhook_id, sends in pings.items():
        attempts = list(
            DeliveryAttempt.objects.filter(delivery__webhook_id=webhook_id).values_list(
                "status_code", "error_category"
            )
        )
        failed = [a for a in attempts if a[0] is None or a[0] >= 300]
        if sends > 1 and len(failed) < sends - 1:
            twice[webhook_id] = attempts
    assert len(pings) == PINGS and not twice, twice

    # Requests: every message answered 200 left exactly one record, and none
    # was recorded twice; a message refused for the drop left none and was
    # not sent on after the answer.
    recorded = Counter(
        Injection.objects.filter(user=tpersonas.alice).values_list("message_id", flat=True)
    )
    assert set(recorded.values()) == {1}, recorded
    answered = {message_id for message_id, status in during + after if status == 200}
    refused = {message_id for message_id, status in during if status != 200}
    assert answered <= set(recorded), (sorted(answered - set(recorded)), refused)
    received = Counter(m["messageId"] for m in refserver.received()["userMessages"])
    assert set(received.values()) == {1}, received
    # What reached the server is on record, even when the answer was a 500.
    unrecorded = set(received) - set(recorded)
    assert not unrecorded, f"sent to the server but not recorded: {sorted(unrecorded)}"
    print(
        f"backends terminated: {sum(terminated)}; answers during the drops: "
        f"{Counter(status for _, status in during)}"
    )
    assert not live.supervisor.dead_children(), "a process died instead of reconnecting"
