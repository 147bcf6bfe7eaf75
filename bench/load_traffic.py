"""bench/load.py's traffic: the MCP servers' webhook deliveries on an open
loop (with duplicates and bad signatures mixed in) and the host's
conversation messages, each at a fixed rate, latency counted from each
request's scheduled time."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field

from load_fixture import Fixture
from stack import Http
from webhook_load import Connection, Requests

EVENT_ID = re.compile(rb'"eventId":"([^"]+)"')
SIGNATURE = re.compile(rb"webhook-signature: v1,([A-Za-z0-9+/=]+)")


@dataclass
class Sent:
    """What the MCP servers' side sent and what it was answered."""

    send_at: dict[str, float] = field(default_factory=dict)  # accepted eventId -> sent
    acks: list[tuple[float, float]] = field(default_factory=list)  # (answered at, ms)
    statuses: Counter = field(default_factory=Counter)  # (kind, status) -> n
    bad_ids: set[str] = field(default_factory=set)
    accepted_raw: list[bytes] = field(default_factory=list)  # recent, for resending


def bad_signature(raw: bytes) -> bytes:
    """The same delivery signed with the wrong key (a valid-looking signature)."""
    forged = base64.b64encode(hashlib.sha256(raw).digest())
    return SIGNATURE.sub(b"webhook-signature: v1," + forged, raw, count=1)


async def deliveries(port: int, make: Requests, rate: float, until: float, sent: Sent, args):
    """An open loop at ``rate``: latency from each delivery's scheduled time."""
    pool: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(args.concurrency):
        pool.put_nowait(await Connection.open(port))
    every_dup = round(1 / args.duplicates) if args.duplicates else 0
    every_bad = round(1 / args.bad_signatures) if args.bad_signatures else 0

    async def one(kind: str, raw: bytes, scheduled: float, event_id: str) -> None:
        conn = await pool.get()
        try:
            if kind == "new":
                sent.send_at[event_id] = time.perf_counter()
            status = await conn.send(raw)
        finally:
            pool.put_nowait(conn)
        now = time.perf_counter()
        sent.acks.append((now, (now - scheduled) * 1000))
        sent.statuses[kind, status] += 1
        if kind == "new":
            if status == 200:
                sent.accepted_raw.append(raw)
                del sent.accepted_raw[:-200]
            else:
                sent.send_at.pop(event_id, None)  # refused: not owed to the host

    tasks = set()
    started = time.perf_counter()
    n = 0
    while (scheduled := started + n / rate) < until:
        if (delay := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(delay)
        raw = make()
        kind = "new"
        if every_dup and n % every_dup == every_dup // 2 and sent.accepted_raw:
            kind, raw = "duplicate", sent.accepted_raw[0]
        elif every_bad and n % every_bad == 0:
            kind, raw = "bad", bad_signature(raw)
        event_id = EVENT_ID.search(raw).group(1).decode()
        if kind == "bad":
            sent.bad_ids.add(event_id)
        task = asyncio.create_task(one(kind, raw, scheduled, event_id))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        n += 1
    await asyncio.gather(*tasks)
    while not pool.empty():
        pool.get_nowait().close()


@dataclass
class Conversations:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (answered at, ms)
    statuses: Counter = field(default_factory=Counter)


async def conversations(port: int, fixture: Fixture, rate: float, until: float, out) -> None:
    """The host's API client: conversation messages at ``rate``, round robin over the users."""
    pool: asyncio.Queue[Http] = asyncio.Queue()
    for _ in range(8):
        pool.put_nowait(await Http.open(port))

    async def one(n: int, scheduled: float) -> None:
        body = json.dumps(
            {
                "user": fixture.users[n % len(fixture.users)],
                "message_id": f"m{n}",
                "content": "What did we decide about the schema?",
            }
        ).encode()
        raw = (
            f"POST /api/v1/conversations/load-{n % len(fixture.users)}/messages HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {fixture.key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        conn = await pool.get()
        try:
            answer = await conn.send(raw)
        finally:
            pool.put_nowait(conn)
        now = time.perf_counter()
        out.latencies.append((now, (now - scheduled) * 1000))
        out.statuses[answer.status] += 1

    tasks = set()
    started = time.perf_counter()
    n = 0
    while (scheduled := started + n / rate) < until:
        if (delay := scheduled - time.perf_counter()) > 0:
            await asyncio.sleep(delay)
        task = asyncio.create_task(one(n, scheduled))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        n += 1
    await asyncio.gather(*tasks)
    while not pool.empty():
        pool.get_nowait().close()
