"""What bench/load.py plays on the host's side: its endpoint (an HTTP server
that verifies each delivery's signature and counts every eventId) and the
signed-in browsers' live-page websockets."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass, field

from standardwebhooks import Webhook, WebhookVerificationError


@dataclass
class Endpoint:
    """The host endpoint: verifies each delivery and counts every eventId."""

    key: bytes
    arrivals: dict[str, list[float]] = field(default_factory=dict)  # eventId -> arrival times
    webhook_ids: Counter = field(default_factory=Counter)
    other_types: Counter = field(default_factory=Counter)
    bad_signatures: int = 0

    def verified(self, headers: dict[str, str], body: bytes) -> bool:
        try:
            Webhook(self.key).verify(body, headers)
        except WebhookVerificationError:
            return False
        return True

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                headers = {}
                for line in head.decode("latin-1").split("\r\n")[1:]:
                    name, sep, value = line.partition(":")
                    if sep:
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                self.record(headers, body, time.perf_counter())
                writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def record(self, headers: dict[str, str], body: bytes, now: float) -> None:
        if not self.verified(headers, body):
            self.bad_signatures += 1
            return
        self.webhook_ids[headers["webhook-id"]] += 1
        message = json.loads(body)
        if message["type"] != "event.received":
            self.other_types[message["type"]] += 1
            return
        self.arrivals.setdefault(message["data"]["event"]["eventId"], []).append(now)


# --- the browsers -------------------------------------------------------------------------


@dataclass
class Browsers:
    messages: int = 0
    closed: list[str] = field(default_factory=list)
    sockets: list = field(default_factory=list)
    readers: list = field(default_factory=list)
    closing: bool = False

    async def open(self, port: int, cookies: list[str]) -> None:
        from websockets.asyncio.client import connect

        for cookie in cookies:
            ws = await connect(
                f"ws://127.0.0.1:{port}/ws/live/",
                origin=f"http://127.0.0.1:{port}",
                additional_headers={"Cookie": cookie},
                max_size=None,
            )
            self.sockets.append(ws)
            self.readers.append(asyncio.create_task(self.read(ws)))

    async def read(self, ws) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for _ in ws:
                self.messages += 1
        except ConnectionClosed:
            pass
        if not self.closing:
            self.closed.append(f"{ws.close_code} {ws.close_reason}".strip())

    async def close(self) -> None:
        self.closing = True
        for reader in self.readers:
            reader.cancel()
        for ws in self.sockets:
            await ws.close()
