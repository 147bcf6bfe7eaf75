"""Real processes for tests: daphne, a Celery worker and beat, the reference
MCP server. They run against the test database, so tests using them need
``transactional_db`` (data must be committed for another process to see it)."""

from __future__ import annotations

import os
import signal
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import dj_database_url
import pytest
from django.conf import settings

from config import supervisor as sv

LIVE_APPLICATION_NAME = "switchboard-live"
# Logs, beat schedules and screenshots of this run. Per run (tests/testenv.py
# gives each its TEST_DB_SUFFIX): concurrent runs on one checkout must not
# write into, or read, each other's logs.
ARTIFACTS = (
    Path(__file__).resolve().parent.parent
    / "var"
    / "test-logs"
    / (os.environ.get("TEST_DB_SUFFIX") or f"pid{os.getpid()}")
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _test_database_url() -> str:
    """The URL of the database pytest-django created (test_<name>)."""
    from django.db import connection

    current = dict(connection.settings_dict)
    base = dj_database_url.parse(settings.DATABASE_URL)
    if base["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{current['NAME']}"
    return settings.DATABASE_URL.rsplit("/", 1)[0] + "/" + current["NAME"]


def log_offset(supervisor: sv.Supervisor, name: str) -> int:
    """Where the next lines of child ``name``'s log will start."""
    assert supervisor.log_dir is not None
    path = supervisor.log_dir / f"{name}.log"
    return path.stat().st_size if path.exists() else 0


def wait_for_worker(child: sv.Child, *, since: int, timeout: float = 120) -> None:
    """Return once a Celery worker takes tasks (its "ready." line, written
    after byte ``since`` of its log). On a loaded machine a worker takes
    15-40 s to start, longer than what a test waits for one task."""
    assert child.log_path is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.process.poll() is not None:
            raise RuntimeError(f"the worker exited while starting (see {child.log_path})")
        with open(child.log_path, encoding="utf-8", errors="replace") as log:
            log.seek(since)
            if " ready." in log.read():
                return
        time.sleep(0.2)
    raise TimeoutError(f"the worker was not ready within {timeout}s (see {child.log_path})")


@dataclass
class LiveStack:
    base_url: str
    port: int
    supervisor: sv.Supervisor

    def child(self, name: str) -> sv.Child:
        return next(c for c in self.supervisor.children if c.name == name)


# The processes of this run share one PROMETHEUS_MULTIPROC_DIR (as the
# processes of one machine do), emptied once when the run first starts one.
METRICS_DIR = ARTIFACTS / "prometheus"
LIVE_METRICS_TOKEN = "live-metrics-token"
_metrics_env: dict[str, str] = {}


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    if not _metrics_env:
        _metrics_env.update(sv.metrics_dir_fresh(METRICS_DIR))
    env.update(_metrics_env)
    env.update(
        {
            "DATABASE_URL": _test_database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "PYTHONUNBUFFERED": "1",
            # The processes' connections, apart from the test process's own.
            "DATABASE_APPLICATION_NAME": LIVE_APPLICATION_NAME,
            "METRICS_TOKEN": LIVE_METRICS_TOKEN,
        }
    )
    env.update(extra or {})
    return env


@pytest.fixture(scope="session")
def live_stack(django_db_setup, django_db_blocker):
    """daphne + Celery worker + beat against the test database, for the whole session."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with django_db_blocker.unblock():
        env = _env({"PUBLIC_BASE_URL": base_url})
    supervisor = sv.Supervisor(env=env, log_dir=ARTIFACTS)
    web = supervisor.start("daphne", sv.daphne_argv(port))
    since = log_offset(supervisor, "worker")
    worker = supervisor.start("worker", sv.celery_worker_argv(queue=os.environ["CELERY_QUEUE"]))
    supervisor.start("beat", sv.celery_beat_argv())
    try:
        sv.wait_for_http(f"{base_url}/healthz", process=web.process, timeout=60)
        # The first test's tasks must not wait for the worker's start.
        wait_for_worker(worker, since=since)
        previous = settings.PUBLIC_BASE_URL
        settings.PUBLIC_BASE_URL = base_url  # links made in-process point at this server
        stack = LiveStack(base_url=base_url, port=port, supervisor=supervisor)
        _running.append(stack)
        yield stack
        _running.remove(stack)
        settings.PUBLIC_BASE_URL = previous
    finally:
        supervisor.stop_all()
        forget_beat_schedule()


_running: list[LiveStack] = []


@contextmanager
def session_scheduling_aside():
    """While a test runs a deployment of its own on the session's queue (the
    scale-out test), the session's worker and beat, if started, step aside so
    the processes it counts are the only ones; they come back after."""
    stopped: list[LiveStack] = []
    for stack in _running:
        children = [c for c in stack.supervisor.children if c.name in ("beat", "worker")]
        stack.supervisor.stop_many(children)
        if children:
            stopped.append(stack)
    try:
        yield
    finally:
        for stack in stopped:
            stack.supervisor.start(
                "worker", sv.celery_worker_argv(queue=os.environ["CELERY_QUEUE"])
            )
            stack.supervisor.start("beat", sv.celery_beat_argv())


@pytest.fixture(scope="module")
def session_beat_aside():
    """For a module whose tests commit rows that fall due (subscriptions to
    refresh, task watches to check) and call the services themselves, with
    tasks recorded (``tasks_sent``). A live stack an earlier module started
    keeps its beat ticking on this database, and a tick would dispatch the
    same rows to the session's worker, racing the test (CI: a subscription
    the test left pending found active). So beat, if running, stops for the
    module; the worker stays, with nothing sent to it. Beat comes back when
    a test next asks for the live stack (``live``): starting it here, in a
    fast-tier test's teardown, would be a process that tier may not start."""
    for stack in _running:
        stack.supervisor.stop_many([c for c in stack.supervisor.children if c.name == "beat"])
    yield


def forget_beat_schedule(queue: str | None = None) -> None:
    """Beat keeps its schedule and lock in Redis under the run's queue name
    (config/beat.py), or ``queue`` for a beat started on a queue of its own;
    a finished run leaves nothing behind."""
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    keys = list(client.scan_iter(f"redbeat:{queue or settings.CELERY_TASK_DEFAULT_QUEUE}:*"))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture
def live(live_stack, transactional_db):
    if not any(c.name == "beat" for c in live_stack.supervisor.children):
        live_stack.supervisor.start("beat", sv.celery_beat_argv())  # see session_beat_aside
    return live_stack


# The timings tests/testenv.py compresses for speed; ``production_timings``
# runs without them, so what a test measures is what a deployment gets.
COMPRESSED = (
    "BEAT_TICK",
    "HOST_DELIVERY_RETRY_SCHEDULE",
    "HOST_DELIVERY_TIMEOUT",
    "HOST_DELIVERY_LEASE_MARGIN",
    "HOST_DELIVERY_REQUEUE_AFTER",
    "HOST_DELIVERY_SWEEP_EVERY",
)


@pytest.fixture
def production_timings(live):
    """The session's worker and beat give way to a pair running with the
    production defaults for the scheduler and forwarding; the session's come
    back after."""
    for name in ("beat", "worker"):
        live.supervisor.stop(live.child(name))
    env = {k: v for k, v in _env({"PUBLIC_BASE_URL": live.base_url}).items() if k not in COMPRESSED}
    supervisor = sv.Supervisor(env=env, log_dir=ARTIFACTS / "production-timings")
    queue = os.environ["CELERY_QUEUE"]
    supervisor.start("worker", sv.celery_worker_argv(queue=queue))
    supervisor.start("beat", sv.celery_beat_argv())
    try:
        yield supervisor
    finally:
        supervisor.stop_all()
        live.supervisor.start("worker", sv.celery_worker_argv(queue=queue))
        live.supervisor.start("beat", sv.celery_beat_argv())


class SessionWorkers:
    """Session worker processes (``manage.py session_worker``) for one test."""

    def __init__(self, live: LiveStack) -> None:
        self.supervisor = sv.Supervisor(
            env=_env({"PUBLIC_BASE_URL": live.base_url}), log_dir=ARTIFACTS
        )
        self._names = iter(range(1, 1000))

    def start(self) -> sv.Child:
        return self.supervisor.start(
            f"session-worker-{next(self._names)}", sv.session_worker_argv()
        )

    def kill(self, child: sv.Child) -> None:
        """SIGKILL: no lease released, no stream closed politely."""
        self.supervisor.stop(child, sig=signal.SIGKILL)


@pytest.fixture
def session_workers(live):
    """Start session workers as the test needs them; all stopped after it."""
    workers = SessionWorkers(live)
    try:
        yield workers
    finally:
        workers.supervisor.stop_all()


@pytest.fixture
def session_worker(session_workers):
    """One session worker running for the test."""
    return session_workers.start()


@contextmanager
def chromium():
    """Headless Chromium through Playwright's sync API, closed on leaving."""
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium"
    if not Path(executable).exists():
        pytest.fail(
            f"Chromium not found at {executable}: the browser tests must run (install Debian's chromium)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


class _SharedChromium:
    """One Chromium for a run of consecutive browser tests. Launching it (and
    Playwright's driver) costs seconds of CPU per test; each test still gets a
    browser with nothing of the last one's: every context it opened is closed
    after it (a context is a profile of its own: cookies, storage, sockets).

    It is closed as soon as the next test does not use it, because Playwright's
    sync API keeps an event loop running in this thread while it is started,
    which would stop async tests from running."""

    def __init__(self) -> None:
        self._launched = None
        self.browser = None

    def get(self):
        if self.browser is not None and not self.browser.is_connected():
            self.close()  # a test that crashed it leaves the next one a new one
        if self.browser is None:
            self._launched = chromium()
            self.browser = self._launched.__enter__()
        return self.browser

    def close_contexts(self) -> None:
        if self.browser is not None and self.browser.is_connected():
            for context in list(self.browser.contexts):
                context.close()

    def close(self) -> None:
        launched, self._launched, self.browser = self._launched, None, None
        if launched is not None:
            launched.__exit__(None, None, None)


_chromium = _SharedChromium()


@pytest.fixture
def browser():
    """Chromium for this test, shared with the browser tests run right next
    to it (``_SharedChromium``), none of their contexts left open."""
    yield _chromium.get()
    _chromium.close_contexts()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    result = yield
    if nextitem is None or not _uses_shared_chromium(nextitem):
        _chromium.close()
    return result


def _uses_shared_chromium(item: pytest.Item) -> bool:
    """Whether ``item``'s ``browser`` is the fixture above (not one a module
    defines for itself, which would start a second Playwright)."""
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.get("browser") if info is not None else None
    return bool(definitions) and definitions[-1].func.__module__ == __name__


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@dataclass
class RefServer:
    """The reference MCP server as a real process, with its control surface."""

    base_url: str
    port: int
    child: sv.Child

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"

    @property
    def mcpe_url(self) -> str:
        return f"{self.base_url}/mcpe/mcp"

    def control(self, method: str, path: str, json: dict | None = None) -> dict:
        import httpx

        response = httpx.request(method, f"{self.base_url}/control/{path}", json=json, timeout=10)
        response.raise_for_status()
        return response.json()

    def received(self) -> dict:
        return self.control("GET", "received")

    def reset(self) -> None:
        self.control("POST", "reset")


def start_refserver(
    extra_args: list[str] | None = None, name: str = "refserver"
) -> tuple[sv.Supervisor, RefServer]:
    port = free_port()
    supervisor = sv.Supervisor(env={**os.environ, "PYTHONUNBUFFERED": "1"}, log_dir=ARTIFACTS)
    child = supervisor.start(name, sv.refserver_argv(port) + (extra_args or []))
    sv.wait_for_http(f"http://127.0.0.1:{port}/healthz", process=child.process, timeout=30)
    return supervisor, RefServer(base_url=f"http://127.0.0.1:{port}", port=port, child=child)


@pytest.fixture(scope="session")
def refserver_process():
    """One reference server for the session (short TTL bounds and heartbeats
    so tests can compress time); use the ``refserver`` fixture, which resets it per test."""
    supervisor, server = start_refserver(["--min-ttl-ms", "500", "--heartbeat-ms", "500"])
    try:
        yield server
    finally:
        supervisor.stop_all()


@pytest.fixture
def refserver(refserver_process) -> RefServer:
    refserver_process.reset()
    return refserver_process
