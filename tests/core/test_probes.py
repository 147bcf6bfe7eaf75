"""``/readyz`` names the dependency that does not answer; ``/healthz`` stays
liveness. The unreachable ends are real: a closed port, a database that
cannot be opened."""

from __future__ import annotations

import os

import httpx
import pytest
from django.conf import settings
from django.test import override_settings

from config import supervisor as sv
from tests.live import ARTIFACTS, free_port


def closed_redis_url() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"


@pytest.mark.django_db
def test_readyz_is_ready_when_everything_answers(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ready", "database": "ok", "redis": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_readyz_names_redis_and_the_broker_when_they_do_not_answer(client):
    url = closed_redis_url()
    caches = {"default": {**settings.CACHES["default"], "LOCATION": url}}
    with override_settings(CACHES=caches, CELERY_BROKER_URL=url):
        response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unready"
    assert body["unreachable"] == ["redis", "broker"]
    assert body["database"] == "ok"
    assert "Connection" in body["redis"] and "Connection" in body["broker"]
    assert body["message"] == "Not reachable: redis, broker."


@pytest.mark.processes
def test_a_web_process_without_its_database_is_live_but_not_ready(tmp_path):
    """A real daphne whose database and Redis are unreachable: readiness names
    all three, while liveness still answers (degraded)."""
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        database = f"sqlite:///{tmp_path}/missing/dir/db.sqlite3"  # cannot be opened
    else:
        database = f"postgresql://postgres@127.0.0.1:{free_port()}/switchboard"
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "REDIS_URL": closed_redis_url(),
        "PYTHONUNBUFFERED": "1",
        # The probe waits this long for a pooled connection (production: 10 s).
        "DATABASE_POOL_TIMEOUT": "1",
    }
    supervisor = sv.Supervisor(env=env, log_dir=ARTIFACTS)
    web = supervisor.start("daphne-unready", sv.daphne_argv(port))
    try:
        base = f"http://127.0.0.1:{port}"
        sv.wait_for_http(f"{base}/readyz", process=web.process, timeout=60, accept_5xx=True)
        ready = httpx.get(f"{base}/readyz", timeout=20)
        assert ready.status_code == 503
        body = ready.json()
        assert body["unreachable"] == ["database", "redis", "broker"]
        assert body["message"] == "Not reachable: database, redis, broker."
        live = httpx.get(f"{base}/healthz", timeout=20)
        assert live.status_code == 503 and live.json()["status"] == "degraded"
    finally:
        supervisor.stop_all()
