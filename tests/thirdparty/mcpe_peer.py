"""The MCPE peer (``tests.peers.MCPE_PEER_SOURCE``): the open-source MCPE
implementation ``@mcpe/core`` served over Streamable HTTP with a control API,
built with its own ``build.sh`` and run with ``node server.mjs``.

The build goes to one directory per machine (``MCPE_PEER_DIR``, default
``/tmp/mcpe-peer-switchboard``), under a file lock, and only when it does
not hold a finished build of the same upstream commit: build.sh removes and
re-copies the sources, which must not happen under a peer another test run
is using.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from config import supervisor as sv
from tests.live import ARTIFACTS, free_port
from tests.peers import MCPE_PEER_SOURCE

PEER_SOURCE = MCPE_PEER_SOURCE
PEER_DIR = Path(os.environ.get("MCPE_PEER_DIR") or "/tmp/mcpe-peer-switchboard")


def peer_build() -> Path:
    """A finished build of the peer in PEER_DIR (built now if needed)."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"the MCPE peer needs {tool} (.ci/test installs it)")
    commit = (PEER_SOURCE / "upstream" / "COMMIT").read_text().strip()
    PEER_DIR.mkdir(parents=True, exist_ok=True)
    with open(PEER_DIR.parent / f".{PEER_DIR.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        info = PEER_DIR / "BUILD_INFO.json"
        try:
            built = json.loads(info.read_text()).get("commit") == commit
        except (OSError, ValueError):
            built = False
        if not built:
            done = subprocess.run(
                [str(PEER_SOURCE / "build.sh")],
                env={**os.environ, "MCPE_PEER_DIR": str(PEER_DIR)},
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0:
                raise RuntimeError(f"the MCPE peer's build.sh failed:\n{done.stderr[-3000:]}")
    return PEER_DIR


class McpePeer:
    """One running peer: its MCP URL and its control API."""

    def __init__(self, supervisor: sv.Supervisor, name: str, *flags: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.child = supervisor.start(
            name,
            [
                "node",
                str(PEER_SOURCE / "server.mjs"),
                "--port",
                str(self.port),
                "--peer-dir",
                str(PEER_DIR),
                *flags,
            ],
        )
        sv.wait_for_http(f"{self.base}/control/health", process=self.child.process, timeout=30)

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def control(self, method: str, path: str, body: dict | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.base}/control/{path}",
            data=data,
            method=method,
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    # What the server itself says -------------------------------------------------

    def subscriptions(self) -> list[dict[str, Any]]:
        return self.control("GET", "subscriptions")["subscriptions"]

    def sessions(self) -> list[dict[str, Any]]:
        return self.control("GET", "sessions")["sessions"]

    def log(self, kind: str, *, tool: str | None = None) -> list[dict[str, Any]]:
        entries = self.control("GET", f"log?kind={kind}")["entries"]
        return [e for e in entries if tool is None or e.get("tool") == tool]

    def publish(self, type_: str, **metadata: Any) -> dict[str, Any]:
        return self.control(
            "POST", "publish", {"type": type_, "data": {"summary": type_}, "metadata": metadata}
        )

    def stream_open(self, timeout: float = 20) -> str:
        """The one session whose GET stream (which carries the events) is open."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            open_ = [s for s in self.sessions() if s["standaloneStream"] and s["subscriptions"]]
            if open_:
                return open_[0]["sessionId"]
            time.sleep(0.1)
        raise AssertionError(f"no MCPE session with an open GET stream: {self.sessions()}")


def start_peers(name: str) -> sv.Supervisor:
    peer_build()
    return sv.Supervisor(env={**os.environ}, log_dir=ARTIFACTS / name)
