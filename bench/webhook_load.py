"""The load generator of bench/webhook_receiver.py (also driven by bench/load.py):
signed Standard Webhooks deliveries over raw keep-alive HTTP/1.1 connections,
sent in a closed loop (throughput) or an open loop at a fixed rate (latency,
counted from each request's scheduled send time)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import itertools
import json
import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Target:
    token: str
    key: bytes
    remote_id: str


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def send(self, data: bytes) -> int:
        self.writer.write(data)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        if length:
            await self.reader.readexactly(length)
        return status

    def close(self) -> None:
        self.writer.close()


class Requests:
    """Builds signed deliveries (each a new event) for one path, cheaply."""

    def __init__(self, path: str, targets: list[Target], port: int, run: str, receiver: bool):
        self.path, self.targets, self.port, self.run, self.receiver = (
            path,
            targets,
            port,
            run,
            receiver,
        )
        self.counter = itertools.count()

    def __call__(self) -> bytes:
        n = next(self.counter)
        target = self.targets[n % len(self.targets)]
        event_id = f"evt_{self.run}_{self.port}_{n}"
        body = json.dumps(
            {
                "eventId": event_id,
                "name": "build.finished",
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "data": {"repo": "acme/app", "status": "success", "n": n},
                "cursor": str(n),
            },
            separators=(",", ":"),
        ).encode()
        webhook_id = f"msg_{self.run}_{self.port}_{n}"
        stamp = str(int(time.time()))
        digest = hmac.new(
            target.key, f"{webhook_id}.{stamp}.".encode() + body, hashlib.sha256
        ).digest()
        path = f"/webhooks/mcp/{target.token}" if self.receiver else self.path
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"webhook-id: {webhook_id}\r\nwebhook-timestamp: {stamp}\r\n"
            f"webhook-signature: v1,{base64.b64encode(digest).decode()}\r\n"
            f"X-MCP-Subscription-Id: {target.remote_id}\r\n\r\n"
        )
        return head.encode() + body


@dataclass
class Window:
    ok: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)

    @property
    def rps(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    def quantile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def closed_loop(port: int, make: Requests, duration: float, concurrency: int) -> Window:
    conns = [await Connection.open(port) for _ in range(concurrency)]
    window = Window()
    deadline = time.monotonic() + duration
    started = time.monotonic()

    async def drive(conn: Connection) -> None:
        while time.monotonic() < deadline:
            data = make()
            sent = time.perf_counter()
            status = await conn.send(data)
            window.latencies.append(time.perf_counter() - sent)
            window.statuses[status] += 1
            if status == 200:
                window.ok += 1

    await asyncio.gather(*(drive(c) for c in conns))
    window.seconds = time.monotonic() - started
    for conn in conns:
        conn.close()
    return window


async def open_loop(
    port: int, make: Requests, rate: float, duration: float, concurrency: int
) -> Window:
    pool: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(concurrency):
        pool.put_nowait(await Connection.open(port))
    window = Window()
    total = max(1, int(rate * duration))
    started = time.monotonic()

    async def one(scheduled: float) -> None:
        conn = await pool.get()
        status = await conn.send(make())
        window.latencies.append(time.monotonic() - scheduled)
        window.statuses[status] += 1
        window.ok += status == 200
        pool.put_nowait(conn)

    tasks = []
    for i in range(total):
        scheduled = started + i / rate
        delay = scheduled - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(scheduled)))
    await asyncio.gather(*tasks)
    window.seconds = time.monotonic() - started
    while not pool.empty():
        pool.get_nowait().close()
    return window
