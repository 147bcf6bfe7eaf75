"""Fixtures: one reference server per session (reset per test) and a receiver."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.refserver.support import REPO_ROOT, Receiver, RefServer, free_port


@pytest.fixture(scope="session")
def refserver_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefServer]:
    port = free_port()
    # A file, not a pipe: an unread pipe fills up and blocks the server.
    log_path = tmp_path_factory.mktemp("refserver") / "server.log"
    log = log_path.open("wb")
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
            "--min-ttl-ms",
            "300",
            "--retry-delays-ms",
            "50,100",
            "--rotation-grace-ms",
            "60000",
            "--heartbeat-ms",
            "500",
        ],
        cwd=REPO_ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    server = RefServer(base=f"http://127.0.0.1:{port}", process=process, log_path=log_path)
    deadline = time.monotonic() + 20
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"refserver exited: {log_path.read_text()}")
        try:
            if httpx.get(server.base + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"refserver did not start: {log_path.read_text()}")
        time.sleep(0.1)
    yield server
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()


@pytest.fixture
def refserver(refserver_process: RefServer) -> RefServer:
    """The shared server, reset to its just-started state for each test."""
    refserver_process.post("/control/reset")
    return refserver_process


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rec = Receiver()
    yield rec
    rec.close()
