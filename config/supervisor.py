"""Start and stop the processes Switchboard runs as (daphne, Celery worker and
beat, the reference MCP server). Used by ``manage.py console`` and by the test
suite, so both bring the system up the same way.

Each child gets its own process group, so stopping it also stops whatever it
forked (Celery's pool processes) and no process outlives the supervisor.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen
    log_path: Path | None = None


@dataclass
class Supervisor:
    env: dict[str, str]
    log_dir: Path | None = None
    children: list[Child] = field(default_factory=list)

    def start(
        self, name: str, argv: list[str], *, extra_env: dict[str, str] | None = None
    ) -> Child:
        log_path = None
        stdout = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log_path = self.log_dir / f"{name}.log"
            stdout = open(log_path, "ab")  # noqa: SIM115 - closed with the child
        process = subprocess.Popen(
            argv,
            env={**self.env, **(extra_env or {})},
            stdout=stdout,
            stderr=subprocess.STDOUT if stdout else None,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        child = Child(name=name, argv=argv, process=process, log_path=log_path)
        self.children.append(child)
        return child

    def dead_children(self) -> list[Child]:
        return [child for child in self.children if child.process.poll() is not None]

    def stop(self, child: Child, *, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
        self.stop_many([child], sig=sig, timeout=timeout)

    def stop_many(
        self, children: list[Child], *, sig: int = signal.SIGTERM, timeout: float = 10
    ) -> None:
        """Stop ``children`` together: each is sent ``sig`` first, then each
        gets ``timeout`` from then to end before it is killed. Stopping takes
        as long as the slowest child, not the sum of them all (a Celery worker
        or a session worker takes seconds to shut down on a busy machine)."""
        signalled_at = time.monotonic()
        for child in children:
            if child.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.process.pid, sig)
        for child in children:
            if child.process.poll() is None:
                left = max(0.0, signalled_at + timeout - time.monotonic())
                try:
                    child.process.wait(timeout=left)
                except subprocess.TimeoutExpired:
                    os.killpg(child.process.pid, signal.SIGKILL)
                    child.process.wait(timeout=5)
            # Reap anything left in the group (e.g. orphaned pool workers).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.process.pid, signal.SIGKILL)
            if child in self.children:
                self.children.remove(child)

    def stop_all(self, timeout: float = 10) -> None:
        self.stop_many(list(reversed(self.children)), timeout=timeout)


def wait_for_http(
    url: str,
    *,
    timeout: float = 30,
    process: subprocess.Popen | None = None,
    accept_5xx: bool = False,
) -> None:
    """Poll ``url`` until it answers (any status below 500, or any status at
    all with ``accept_5xx``) or fail with a clear error."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process for {url} exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - our own loopback URL
                if response.status < 500:
                    return
        except urllib.error.HTTPError as exc:
            if exc.code < 500 or accept_5xx:
                return
            last_error = exc
        except OSError as exc:
            last_error = exc
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer within {timeout}s (last error: {last_error})")


def metrics_dir_fresh(path: Path) -> dict[str, str]:
    """An empty PROMETHEUS_MULTIPROC_DIR for the processes about to start
    (what an earlier run's processes counted is not theirs), as the
    environment they need."""
    if path.exists():
        for stale in path.glob("*.db"):
            stale.unlink()
    path.mkdir(parents=True, exist_ok=True)
    return {"PROMETHEUS_MULTIPROC_DIR": str(path)}


def python() -> str:
    return sys.executable


PROCFILE = Path(__file__).resolve().parent.parent / "Procfile"


def procfile_entries(path: Path = PROCFILE) -> dict[str, str]:
    """The processes production runs, by name (``web: <command>`` per line).

    The run command starts exactly this set, so what a newcomer runs is what
    production runs."""
    entries = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, command = line.partition(":")
        if not sep or not name.strip().isidentifier() or not command.strip():
            raise ValueError(f"{path}:{number}: expected 'name: command', got {line!r}")
        entries[name.strip()] = command.strip()
    return entries


def procfile_argv(command: str) -> list[str]:
    """A Procfile line as a shell runs it (``$PORT`` and friends expand)."""
    return ["/bin/sh", "-c", f"exec {command}"]


def procfile_env(env: dict[str, str], *, port: int) -> dict[str, str]:
    """``python`` in a Procfile line means this interpreter (the project's venv)."""
    bin_dir = str(Path(sys.executable).parent)
    path = env.get("PATH", os.defpath)
    return {**env, "PORT": str(port), "PATH": f"{bin_dir}{os.pathsep}{path}"}


def daphne_argv(port: int, bind: str = "127.0.0.1") -> list[str]:
    return [python(), "-m", "daphne", "-b", bind, "-p", str(port), "config.asgi:application"]


def celery_worker_argv(
    *, concurrency: int = 2, queue: str = "switchboard", hostname: str = "worker"
) -> list[str]:
    return [
        python(),
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--loglevel",
        "INFO",
        "--concurrency",
        str(concurrency),
        "--queues",
        queue,
        "--hostname",
        f"{hostname}@%h",
        "--without-gossip",
        "--without-mingle",
    ]


def celery_beat_argv(*, schedule_path: str | None = None) -> list[str]:
    """Beat keeps its schedule in Redis (config/beat.py); ``schedule_path`` is
    only read by a file-based scheduler chosen with ``-S``."""
    argv = [python(), "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO"]
    return [*argv, "--schedule", schedule_path] if schedule_path else argv


def session_worker_argv() -> list[str]:
    return [python(), str(Path(__file__).resolve().parent.parent / "manage.py"), "session_worker"]


def refserver_argv(port: int) -> list[str]:
    return [
        python(),
        "-m",
        "refserver",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--allow-http-callbacks",
    ]
