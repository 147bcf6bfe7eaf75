"""Helpers for the reference-server tests: the server process, a webhook receiver,
and MCP client plumbing for custom methods. Free of Django on purpose."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
from mcp import Client, MCPError
from mcp.client import ClientExtension
from mcp.client.streamable_http import streamable_http_client
from pydantic import model_serializer
from standardwebhooks import Webhook, WebhookVerificationError

REPO_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def new_secret(size: int = 32) -> str:
    return "whsec_" + base64.b64encode(os.urandom(size)).decode()


@dataclass
class RefServer:
    base: str
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def get(self, path: str, **params: Any) -> Any:
        response = httpx.get(self.base + path, params=params, timeout=10)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict[str, Any] | None = None, expect: int = 200) -> Any:
        response = httpx.post(self.base + path, json=body or {}, timeout=10)
        assert response.status_code == expect, response.text
        return response.json()

    def received(self, *kinds: str) -> dict[str, list[dict[str, Any]]]:
        return self.get("/control/received", kinds=",".join(kinds))


@dataclass
class Endpoint:
    secrets: list[str]
    echo: bool = True
    statuses: list[int] = field(default_factory=list)  # returned (and consumed) before 200


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any
    verified: bool
    status: int


class Receiver:
    """A webhook endpoint that verifies Standard Webhooks signatures and echoes challenges."""

    def __init__(self) -> None:
        self.endpoints: dict[str, Endpoint] = {}
        self.deliveries: list[Received] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                status, reply = receiver.handle(self.path, dict(self.headers.items()), raw)
                payload = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def add(self, path: str, *secrets: str, echo: bool = True) -> str:
        with self.lock:
            self.endpoints[path] = Endpoint(secrets=list(secrets), echo=echo)
        return self.url(path)

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        with self.lock:
            endpoint = self.endpoints.get(path)
            verified = False
            body: Any = None
            if endpoint is not None:
                for secret in endpoint.secrets:
                    try:
                        body = Webhook(secret).verify(raw, headers)
                        verified = True
                        break
                    except WebhookVerificationError:
                        continue
            if body is None:
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
            if endpoint is None:
                status, reply = 404, {}
            elif not verified:
                status, reply = 401, {}
            elif isinstance(body, dict) and body.get("type") == "verification":
                status, reply = (
                    (200, {"challenge": body["challenge"]}) if endpoint.echo else (200, {})
                )
            elif endpoint.statuses:
                status, reply = endpoint.statuses.pop(0), {}
            else:
                status, reply = 200, {}
            self.deliveries.append(Received(path, headers, raw, body, verified, status))
            return status, reply

    def at(self, path: str, kind: str | None = None) -> list[Received]:
        with self.lock:
            found = [d for d in self.deliveries if d.path == path]
        if kind == "event":
            return [d for d in found if isinstance(d.body, dict) and "type" not in d.body]
        if kind is not None:
            return [d for d in found if isinstance(d.body, dict) and d.body.get("type") == kind]
        return found

    def wait(self, path: str, kind: str | None, count: int, timeout: float = 5.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.at(path, kind)
            if len(found) >= count:
                return found
            time.sleep(0.02)
        raise AssertionError(
            f"expected {count} {kind or 'deliveries'} at {path}, got {len(self.at(path, kind))}"
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


MODES = ["auto", "legacy"]
EXT_EVENTS = "io.modelcontextprotocol/events"
EXT_CONVERSATION = "io.modelcontextprotocol/conversation-events"
EXT_HOOKS = "io.modelcontextprotocol/hooks"


# -- client plumbing -------------------------------------------------------------


class Params(types.RequestParams):
    """Free-form params that keep explicit nulls (`cursor: null`, `ttlMs: null`).

    The SDK dumps requests with exclude_none, which would turn `null` into
    "absent"; re-adding extra keys whose value is None keeps them on the wire.
    """

    model_config = types.RequestParams.model_config | {"extra": "allow"}

    @model_serializer(mode="wrap")
    def _keep_nulls(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        for key, value in (self.model_extra or {}).items():
            if value is None:
                data[key] = None
        return data


class CustomRequest(types.Request[Params, str]):
    method: str
    params: Params


class AnyResult(types.Result):
    model_config = types.Result.model_config | {"extra": "allow"}


async def call(
    client: Client, method: str, params: dict[str, Any] | None = None, timeout: float | None = None
) -> dict[str, Any]:
    result = await client.session.send_request(
        CustomRequest(method=method, params=Params(**(params or {}))),
        AnyResult,
        request_read_timeout_seconds=timeout,
    )
    data = result.model_dump(by_alias=True, exclude_none=False)
    data.update(result.model_extra or {})
    return data


@asynccontextmanager
async def connect(
    server: RefServer,
    mode: str,
    *,
    headers: dict[str, str] | None = None,
    extensions: list[ClientExtension] | None = None,
) -> AsyncIterator[Client]:
    target: Any = server.mcp_url
    if headers:
        target = streamable_http_client(
            server.mcp_url, http_client=httpx2.AsyncClient(headers=headers, timeout=30)
        )
    async with Client(target, mode=mode, extensions=extensions or []) as client:
        yield client


def run(body: Callable[[], Awaitable[None]]) -> None:
    anyio.run(body)


def subscribe_params(name: str, url: str, secret: str, **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "name": name,
        "arguments": extra.pop("arguments", {}),
        "delivery": {"mode": "webhook", "url": url, "secret": secret},
        "cursor": extra.pop("cursor", None),
    }
    params.update(extra)
    return params


async def expect_error(coro: Awaitable[Any]) -> MCPError:
    try:
        await coro
    except MCPError as exc:
        return exc
    raise AssertionError("expected an MCPError")


class StreamParams(types.NotificationParams):
    model_config = types.NotificationParams.model_config | {"extra": "allow"}


# -- helpers -------------------------------------------------------------------------


def parse_iso(value: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    with anyio.fail_after(timeout):
        while not predicate():
            await anyio.sleep(0.02)
