"""Reading py-spy's raw stacks (``--format raw --threads --idle``) for
bench/hot_path.py: where one call's time goes, as milliseconds per call.

Each sample is put in one category by its innermost frame that says
something (standard-library frames such as ``threading`` or ``json`` are
passed over, so time in them counts for the code that called them): a
thread blocked in psycopg is "database", one blocked in asgiref's
``CurrentThreadExecutor`` is waiting for the event loop, and so on.
Threads are told apart by role: the event loop of each process (its main
thread) and the threads that run sync code for requests.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

# (substring of a frame's file, category), tried in order on each frame from
# the leaf up; the first frame with a match decides the sample.
RULES: list[tuple[str, str]] = [
    ("psycopg/", "database: psycopg (mostly waiting for PostgreSQL)"),
    ("asgiref/current_thread_executor.py", "thread hop: waiting for the event loop"),
    ("django/template/", "templates"),
    ("django/db/", "ORM (Python side)"),
    ("ninja/", "django-ninja + pydantic"),
    ("pydantic", "django-ninja + pydantic"),
    ("redis/", "Redis (cache, channel layer)"),
    ("channels_redis/", "Redis (cache, channel layer)"),
    ("kombu/", "Celery publish"),
    ("celery/", "Celery publish"),
    ("hooks/engine/", "hooks engine"),
    ("hot_path_timing.py", "Django request/response"),
    ("django/", "Django request/response"),
    ("whitenoise/", "Django request/response"),
    ("django_htmx/", "Django request/response"),
    ("channels/", "channels (ASGI routing, websockets)"),
    ("asgiref/", "asgiref (sync/async adapters)"),
    ("switchboard/", "project code"),
    ("hooks/", "project code"),
    ("consent/", "project code"),
    ("subscriptions/", "project code"),
    ("outbox/", "project code"),
    ("config/", "project code"),
    ("daphne/", "server: daphne + Twisted"),
    ("twisted/", "server: daphne + Twisted"),
    ("autobahn/", "server: daphne + Twisted"),
    ("uvicorn/", "server: uvicorn"),
    ("gunicorn/", "server: gunicorn"),
    ("granian/", "server: granian"),
    ("logging/", "logging"),
]
# Tried only when no frame matched RULES: the machinery every stack passes
# through (a thread waiting in ``threading`` is waiting for whatever called it).
FALLBACK: list[tuple[str, str]] = [
    ("asyncio/", "asyncio scheduling"),
    ("concurrent/futures/", "thread pool hand-over"),
    ("threading.py", "thread pool hand-over"),
]
FRAME = re.compile(r"^(.*) \(([^()]+):(\d+)\)$")
PROJECT = ("switchboard/", "hooks/", "consent/", "outbox/", "config/", "subscriptions/")
# Project code every request passes through (the ASGI router, the API's
# error middleware): it holds everything below it and says nothing.
WRAPPERS = ("subscriptions/asgi.py", "switchboard/api/middleware.py")
PROCESSES = re.compile(r'^(?:process \d+:"[^"]*";)+')
PROCESS_ID = re.compile(r"process (\d+):")
# An event loop with nothing to do: in ``select`` (asyncio, Twisted's
# asyncio reactor) or, under uvloop, which waits in C, in the runner itself.
IDLE_LEAVES = ("selectors.py", "asyncio/runners.py")
REQUEST_MARKERS = ("django/core/handlers/", "ninja/")


def _short(path: str) -> str:
    """A frame's file relative to what holds it: the repository, a
    site-packages directory or the standard library (py-spy runs with
    ``--full-filenames``, since its own shortening drops package folders)."""
    for marker in ("/site-packages/", "/lib/python3."):
        if marker in path:
            rest = path.split(marker, 1)[1]
            return rest if marker == "/site-packages/" else rest.split("/", 1)[-1]
    for own in PROJECT:
        if f"/{own}" in path:
            return own + path.split(f"/{own}", 1)[1]
    return path.rsplit("/", 1)[-1]


def _category(frames: list[tuple[str, str]]) -> str:
    if any(path.startswith("psycopg_pool/") for _, path in frames):
        # Handing out a connection: with CONN_HEALTH_CHECKS the pool runs
        # its check, a round trip of its own, on every checkout.
        return "database: pool checkout"
    if not frames or frames[-1][1] in IDLE_LEAVES:
        return "idle: waiting for I/O"
    if any(function == "Thread.start" for function, _ in frames):
        # asgiref runs each request's sync code in a thread of its own
        # (a new executor per request) and joins it from another new
        # thread; whoever starts one waits until the OS has scheduled it.
        return "starting a thread"
    for rules in (RULES, FALLBACK):
        for _, path in reversed(frames):
            for needle, category in rules:
                if needle in path:
                    return category
    return "other"


def parse(raw: str) -> list[tuple[str, str, list[tuple[str, str]], int]]:
    """(process, thread, frames root first as (function, file), samples) per
    distinct stack."""
    rows = []
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        # With --subprocesses a stack starts with every process from the
        # parent down, each with its command line (which may hold ";").
        lead = PROCESSES.match(stack)
        if not lead:
            continue
        process = PROCESS_ID.findall(lead.group(0))[-1]
        thread, *raw_frames = stack[lead.end() :].split(";")
        frames = []
        for frame in raw_frames:
            if match := FRAME.match(frame):
                frames.append((match.group(1), _short(match.group(2))))
        rows.append((process, thread, frames, int(count)))
    return rows


def summarize(raw: str, *, calls: int, rate: float, top: int = 8) -> str:
    """Milliseconds per call by category, for the threads that ran request
    code and for the busy event loop of the process that served the calls,
    and the project functions that took the most (inclusive)."""
    rows = parse(raw)
    if not rows or not calls:
        return "  (no samples)"
    per_call = 1000.0 / rate / calls
    # The process that served the calls: the one with the most request samples.
    served = Counter()
    for process, _thread, frames, count in rows:
        if any(m in path for _, path in frames for m in REQUEST_MARKERS):
            served[process] += count
    if not served:
        return "  (no request samples)"
    process = served.most_common(1)[0][0]
    request: Counter[str] = Counter()
    loop: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for proc, thread, frames, count in rows:
        if proc != process:
            continue
        is_loop = "MainThread" in thread
        does_request = any(m in path for _, path in frames for m in REQUEST_MARKERS)
        category = _category(frames)
        if is_loop:
            if not category.startswith("idle"):
                loop[category] += count
        elif does_request:
            request[category] += count
        else:
            continue  # idle pool threads, the broadcast loop, the pool's workers
        seen = set()
        for function, path in frames:
            if path.startswith(PROJECT) and not path.startswith(WRAPPERS):
                name = f"{path}:{function}"
            else:
                continue
            if name not in seen:
                seen.add(name)  # once per sample, however deep the recursion
                own[name] += count
    lines = []
    for title, counter in (
        ("request threads (sync code, wall time)", request),
        ("event loop, busy", loop),
    ):
        total = sum(counter.values()) * per_call
        parts = ", ".join(
            f"{name} {n * per_call:.2f}"
            for name, n in counter.most_common(top)
            if n * per_call >= 0.05
        )
        lines.append(f"  {title}: {total:.2f} ms per call — {parts}")
    named = defaultdict(float)
    for name, n in own.items():
        named[name] = n * per_call
    best = sorted(named.items(), key=lambda item: -item[1])[:top]
    lines.append(
        "  project functions (inclusive, ms per call): "
        + ", ".join(f"{name} {ms:.2f}" for name, ms in best)
    )
    return "\n".join(lines)
