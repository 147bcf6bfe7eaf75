"""psycopg's connection pool under the web server (ARCHITECTURE.md, *The hot path*): concurrent
requests share a bounded set of connections that outlive the requests, and
a connection PostgreSQL dropped is replaced instead of failing a request.

A daphne of its own, with a small pool and its own application name, so its
backends can be told apart in ``pg_stat_activity``."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from config import supervisor as sv
from tests.live import ARTIFACTS, _env, free_port
from tests.pg import admin_connect, postgresql_only, terminate_backends

pytestmark = pytest.mark.processes

APPLICATION_NAME = "switchboard-pool-test"
POOL_MAX = 4


@pytest.fixture
def web(transactional_db):
    postgresql_only("psycopg's pool is PostgreSQL's")
    port = free_port()
    supervisor = sv.Supervisor(
        env=_env(
            {
                "DATABASE_APPLICATION_NAME": APPLICATION_NAME,
                "DATABASE_POOL_MIN_SIZE": "1",
                "DATABASE_POOL_MAX_SIZE": str(POOL_MAX),
            }
        ),
        log_dir=ARTIFACTS / "db-pool",
    )
    daphne = supervisor.start("daphne", sv.daphne_argv(port))
    try:
        sv.wait_for_http(f"http://127.0.0.1:{port}/healthz", process=daphne.process, timeout=60)
        yield f"http://127.0.0.1:{port}"
    finally:
        supervisor.stop_all()


def _backends() -> set[tuple[int, object]]:
    """(pid, backend_start) of the server's connections: a reconnect shows as
    a new pair."""
    with admin_connect() as admin:
        rows = admin.execute(
            "SELECT pid, backend_start FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            (APPLICATION_NAME,),
        ).fetchall()
    return {(pid, started) for pid, started in rows}


def _burst(base_url: str, key: str, requests: int) -> list[int]:
    async def run() -> list[int]:
        async with httpx.AsyncClient(
            base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30
        ) as client:
            answers = await asyncio.gather(
                *(client.get("/api/v1/users/alice") for _ in range(requests))
            )
        return [answer.status_code for answer in answers]

    return asyncio.run(run())


class _Watch:
    """The most backends seen at once while a burst runs."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, len(_backends()))
            self._stop.wait(0.01)

    def __enter__(self) -> _Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def test_concurrent_requests_share_a_bounded_set_of_reused_connections(tpersonas, web):
    assert set(_burst(web, tpersonas.acme_key, 40)) == {200}
    warm = _backends()
    assert 1 <= len(warm) <= POOL_MAX

    with _Watch() as watch:
        assert set(_burst(web, tpersonas.acme_key, 200)) == {200}
    assert 1 <= watch.peak <= POOL_MAX
    # The second burst ran on connections the first one opened: reused, not
    # one fresh connection per request.
    assert warm & _backends()


def test_a_connection_postgresql_dropped_is_replaced_not_used(tpersonas, web):
    assert set(_burst(web, tpersonas.acme_key, 20)) == {200}
    assert terminate_backends("application_name = %s", (APPLICATION_NAME,)) >= 1

    assert set(_burst(web, tpersonas.acme_key, 20)) == {200}
    assert _backends()  # new connections: the ended backends were noticed before use
