"""Probes for what runs the console: ``/healthz`` (liveness: the process
answers, with what it can see of the database and Redis) and ``/readyz``
(readiness: 503 naming each dependency that does not answer, so a balancer
takes the process out of rotation and a pager says what is down)."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET
from kombu import Connection

# A probe must answer before the balancer gives up on it.
BROKER_TIMEOUT = 2.0


@require_GET
def healthz(request):
    checks = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # report, don't crash: this is what monitors read
        checks["database"] = f"error: {exc.__class__.__name__}"
    try:
        cache.set("healthz", "1", 5)
        checks["redis"] = "ok" if cache.get("healthz") == "1" else "error"
    except Exception as exc:
        checks["redis"] = f"error: {exc.__class__.__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "degraded", **checks}, status=200 if healthy else 503
    )


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _redis() -> None:
    cache.set("readyz", "1", 5)
    if cache.get("readyz") != "1":
        raise RuntimeError("Redis did not return what was just written")


def _broker() -> None:
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=BROKER_TIMEOUT) as broker:
        broker.ensure_connection(
            max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT
        )


READINESS_CHECKS = {"database": _database, "redis": _redis, "broker": _broker}


@require_GET
def readyz(request):
    """200 ``{"status": "ready"}`` or 503 ``{"status": "unready", "unreachable":
    [names], "<name>": "error: …"}``."""
    checks: dict[str, str] = {}
    for name, check in READINESS_CHECKS.items():
        try:
            check()
            checks[name] = "ok"
        except Exception as exc:  # a probe reports; it never raises
            checks[name] = f"error: {exc.__class__.__name__}: {str(exc)[:200]}"
    down = [name for name, value in checks.items() if value != "ok"]
    if not down:
        return JsonResponse({"status": "ready", **checks})
    body = {"status": "unready", "unreachable": down, **checks}
    body["message"] = f"Not reachable: {', '.join(down)}."
    return JsonResponse(body, status=503)
