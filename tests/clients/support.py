"""What the client tests put around the live console: a fault injector that
answers 429/503 before letting requests through, and a host endpoint that keeps
each delivery's raw headers and body for the client to verify."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent.parent
CLIENTS = REPO / "clients"
PYTHON_CLIENT = CLIENTS / "python"
TYPESCRIPT_CLIENT = CLIENTS / "typescript"

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class Hit:
    at: float
    method: str
    path: str
    status: int


class FaultInjector(_Server):
    """Answers the scripted statuses (with their ``Retry-After``) to the first
    requests, in the API's error shape, then forwards every request to the
    console unchanged: a rate limit or an outage outside our code."""

    def __init__(self, target: str):
        self.target = target
        self.script: list[tuple[int, str | None]] = []
        self.hits: list[Hit] = []
        self.lock = threading.Lock()
        injector = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with injector.lock:
                    fault = injector.script.pop(0) if injector.script else None
                if fault is not None:
                    status, retry_after = fault
                    code = {429: "rate_limited", 503: "unavailable"}.get(status, "error")
                    payload = f'{{"error": {{"code": "{code}", "message": "injected"}}}}'.encode()
                    self._hit(status)
                    self.send_response(status)
                    if retry_after is not None:
                        self.send_header("Retry-After", retry_after)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                else:
                    headers = {
                        k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP
                    }
                    answer = httpx.request(
                        self.command,
                        injector.target + self.path,
                        headers=headers,
                        content=body,
                        timeout=30,
                    )
                    status = answer.status_code
                    self._hit(status)
                    self.send_response(status)
                    for name, value in answer.headers.items():
                        if name.lower() not in _HOP_BY_HOP | {"content-encoding"}:
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(answer.content)))
                    self.end_headers()
                    self.wfile.write(answer.content)

            def _hit(self, status: int) -> None:
                # Recorded before the answer is written: the client may act on
                # the answer (and the test read the hits) before this thread
                # runs again.
                with injector.lock:
                    injector.hits.append(Hit(time.monotonic(), self.command, self.path, status))

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any  # noqa: N815

        super().__init__(Handler)


@dataclass
class Delivery:
    headers: dict[str, str]
    body: bytes


@dataclass
class RawEndpoint:
    """The host's endpoint: keeps what arrives, verifies nothing (the client does)."""

    deliveries: list[Delivery] = field(default_factory=list)

    def __post_init__(self) -> None:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                endpoint.deliveries.append(Delivery(dict(self.headers.items()), body))
                self.send_response(204)
                self.end_headers()

        self.server = _Server(Handler)

    @property
    def url(self) -> str:
        return self.server.url + "/switchboard/webhooks"

    def close(self) -> None:
        self.server.close()


def wait_for(predicate, *, timeout: float = 60, message: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting: {message}")
        time.sleep(0.2)


def run(argv: list[str], *, cwd: Path | None = None, timeout: float = 600, env=None) -> str:
    """Run a command to its end; fail the test with what it printed."""
    done = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def python_with_the_client(where: Path) -> Path:
    """A fresh venv with ``pip install ./clients/python``, as a host would install it.
    The folder is installed from a copy: setuptools builds in the source folder and
    would leave ``build/`` in the repository."""
    shutil.copytree(
        PYTHON_CLIENT,
        where / "python",
        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"),
    )
    run([sys.executable, "-m", "venv", str(where / "venv")])
    python = where / "venv" / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", "./python"], cwd=where)
    return python
