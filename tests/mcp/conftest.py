"""Fixtures for the MCP client layer: the reference server as a real
subprocess, and tiny fake servers for failure modes the reference server
cannot produce (silence at the TCP level, bare HTTP errors, a closed port).

None of these need the database.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from switchboard.mcp import McpTarget

REPO_ROOT = Path(__file__).resolve().parents[2]
SECRET_TOKEN = "Bearer s3cr3t-token-value"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class RefServer:
    base: str
    process: subprocess.Popen[bytes]

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def target(self, mode: str = "auto", **kwargs: Any) -> McpTarget:
        kwargs.setdefault("headers", {"Authorization": SECRET_TOKEN})
        kwargs.setdefault("connect_timeout", 5)
        kwargs.setdefault("call_timeout", 5)
        return McpTarget(url=self.mcp_url, mode=mode, **kwargs)  # type: ignore[arg-type]

    def get(self, path: str, **params: Any) -> Any:
        response = httpx.get(self.base + path, params=params, timeout=10)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        response = httpx.post(self.base + path, json=body or {}, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    def received(self, kind: str) -> list[dict[str, Any]]:
        return self.get("/control/received", kinds=kind)[kind]


def start_refserver(*extra: str) -> RefServer:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "refserver",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--allow-http-callbacks",
            *extra,
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    server = RefServer(base=f"http://127.0.0.1:{port}", process=process)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            stderr = process.stderr.read().decode() if process.stderr else ""
            raise RuntimeError(f"refserver exited early: {stderr[-2000:]}")
        try:
            if httpx.get(server.base + "/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("refserver did not answer /healthz within 30 s")
        time.sleep(0.1)


def stop_refserver(server: RefServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


@pytest.fixture(scope="session")
def refserver_session() -> Iterator[RefServer]:
    server = start_refserver()
    yield server
    stop_refserver(server)


@pytest.fixture
def refserver(refserver_session: RefServer, settings: Any) -> RefServer:
    """The shared reference server, reset for each test; private targets allowed."""
    settings.ALLOW_PRIVATE_TARGETS = True
    refserver_session.post("/control/reset")
    return refserver_session


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    """Both protocol eras: auto lands on 2026-07-28, legacy on 2025-11-25."""
    return request.param


# --- fake servers for failure modes --------------------------------------------------


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts TCP connections and never sends a byte."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(50)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
                accepted.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    stop.set()
    thread.join(timeout=2)
    for conn in accepted:
        conn.close()
    sock.close()


@pytest.fixture
def closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}/mcp"


@pytest.fixture
def status_server() -> Iterator[str]:
    """Answers every request with the status in the first path segment.

    ``/500/mcp`` -> plain-text 500; ``/404/mcp`` -> 404; and so on. ``/json401/mcp``
    answers 401 with a JSON-RPC error body, as a spec-correct auth layer might.
    """

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _reply(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            segment = self.path.strip("/").split("/")[0]
            if segment.startswith("json"):
                status = int(segment[4:])
                request_id = json.loads(raw).get("id") if raw else None
                body = json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "error": {"code": -32001, "message": "Unauthorized", "data": {"x": 1}},
                    }
                ).encode()
                content_type = "application/json"
            else:
                status = int(segment)
                body, content_type = b"nope", "text/plain"
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET = do_DELETE = _reply

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@dataclass
class Receiver:
    """A webhook endpoint that echoes verification challenges (enough for subscribe)."""

    base: str
    bodies: list[Any]

    def url(self, path: str = "/hook") -> str:
        return self.base + path


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    bodies: list[Any] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.loads(raw) if raw else None
            bodies.append(body)
            reply: dict[str, Any] = {}
            if isinstance(body, dict) and body.get("type") == "verification":
                reply = {"challenge": body["challenge"]}
            payload = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Receiver(base=f"http://127.0.0.1:{server.server_address[1]}", bodies=bodies)
    server.shutdown()
    server.server_close()
