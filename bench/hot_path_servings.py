"""The servings bench/hot_path.py measures side by side: each an HTTP server
started on a port of its own, serving the project's application (or, for
``stock``, Django's stock handler) with the run's settings.

Process and thread counts, for the bench's two CPUs:

- daphne: one process, the reference (what the Procfile's ``web`` ran).
- uvicorn, granian: two worker processes, one per CPU: the interpreter's
  lock lets one process run Python on one core at a time.
- gunicorn (gthread) and granian's WSGI interface: two processes of four
  threads each. A request spends about half its time waiting on PostgreSQL
  and Redis round trips (bench/README.md, *Where the time goes*), so a
  second thread per core fills those waits; past four the threads only
  queue for the lock and hold more of the database pool (20 per process).
  Both get the same counts so the two WSGI servers compare as servers.

``stock`` is Django's stock handler (every middleware on every route; no
webhook receiver in front) under the recommended server: the before of a
change to ``config/``'s entry points, measured in the same run as the after.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

WORKERS = 2
THREADS = 4
# Seconds an idle keep-alive connection stays open: the sequential phase
# leaves each of its connections idle while it visits every other target of
# every serving (uvicorn's default is 5 s, gunicorn's 2 s; a proxy in front
# keeps its connections to the server open as long).
KEEP_ALIVE = 30

# The serving of the Procfile's ``web`` (what ``make run`` starts), which
# serves every kind of traffic: the goals are judged under it, and the stock
# handler is served by it; ``--recommended`` overrides (bench/README.md, *Serving*).
RECOMMENDED = "granian-asgi"
# The webhook receiver's serving: ASGI, where its front answers before Django
# (under WSGI the receiver is Django's async view, run per request through
# async_to_sync, without the size limit applied while the body arrives).
RECEIVER = "granian-asgi"
# The serving of the WebSockets (``/ws/``): WSGI has none, so a WSGI serving's
# burst opens its live sockets here, as production routes ``/ws/`` to it.
SOCKETS = "daphne"


@dataclass(frozen=True)
class Serving:
    name: str
    interface: str  # "asgi" or "wsgi"
    label: str
    argv: list[str]


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _uvicorn(port: int, app: str) -> list[str]:
    argv = [
        sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port),
        "--workers", str(WORKERS), "--lifespan", "off", "--log-level", "warning",
        "--no-access-log", "--timeout-keep-alive", str(KEEP_ALIVE),
    ]  # fmt: skip
    if _has("uvloop"):
        argv += ["--loop", "uvloop"]
    if _has("httptools"):
        argv += ["--http", "httptools"]
    return argv


def _gunicorn(port: int, app: str) -> list[str]:
    return [
        sys.executable, "-m", "gunicorn", app, "--bind", f"127.0.0.1:{port}",
        "--worker-class", "gthread", "--workers", str(WORKERS), "--threads", str(THREADS),
        "--keep-alive", str(KEEP_ALIVE), "--log-level", "warning",
    ]  # fmt: skip


def _granian(port: int, app: str, interface: str) -> list[str]:
    argv = [
        sys.executable, "-m", "granian", app, "--interface", interface,
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(WORKERS),
        "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    if interface == "wsgi":
        argv += ["--blocking-threads", str(THREADS)]
    elif _has("uvloop"):
        argv += ["--loop", "uvloop"]
    return argv


def _daphne(port: int, app: str) -> list[str]:
    return [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app]


PROJECT_ASGI = "config.asgi:application"
PROJECT_WSGI = "hot_path_apps:project_wsgi"
KINDS = {
    # name: (interface, label, argv maker)
    "daphne": ("asgi", "daphne, 1 process", _daphne),
    "uvicorn": ("asgi", f"uvicorn ×{WORKERS}", _uvicorn),
    "gunicorn": ("wsgi", f"gunicorn gthread {WORKERS}×{THREADS}", _gunicorn),
    "granian-wsgi": (
        "wsgi",
        f"granian wsgi ×{WORKERS}, {THREADS} threads",
        lambda port, app: _granian(port, app, "wsgi"),
    ),
    "granian-asgi": (
        "asgi",
        f"granian asgi ×{WORKERS}",
        lambda port, app: _granian(port, app, "asgi"),
    ),
}
NAMES = (*KINDS, "stock")


def servings(ports: dict[str, int], recommended: str) -> dict[str, Serving]:
    """Every serving of the run, ``stock`` under the recommended server."""
    out = {}
    for name, (interface, label, argv) in KINDS.items():
        app = PROJECT_ASGI if interface == "asgi" else PROJECT_WSGI
        out[name] = Serving(name, interface, label, argv(ports[name], app))
    interface, label, argv = KINDS[recommended]
    stock_app = f"hot_path_apps:stock_{interface}"
    out["stock"] = Serving(
        "stock", interface, f"{label}, Django's stock handler", argv(ports["stock"], stock_app)
    )
    return out
