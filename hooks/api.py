"""Lifecycle events over the API (docs/host-integration.md, "Lifecycle hooks and thread refresh")."""

from __future__ import annotations

from ninja import Router, Status

from hooks.engine import HOOK_EVENTS
from hooks.schemas import (
    LifecycleIn,
    LifecycleOut,
    SupportedEventsOut,
    ThreadRefreshIn,
    ThreadRefreshOut,
)
from hooks.selectors import server_ids_for_host
from hooks.services import (
    LifecycleInput,
    lifecycle_event_handle,
    lifecycle_native_handle,
    thread_refresh_from_host,
)
from switchboard.api.schemas import ErrorOut
from switchboard.errors import DomainError, Invalid
from switchboard.selectors import user_get_for_host

router = Router(tags=["lifecycle"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


def _host_id(value: str, field: str) -> str:
    if not 1 <= len(value) <= 200 or not value.isprintable():
        raise Invalid(f"{field} must be 1–200 printable characters", field=field)
    return value


@router.get("/hooks/supported-events", response={200: SupportedEventsOut, 401: ErrorOut})
def supported_events(request):
    """The SEP-2282 events to advertise in the host's client capabilities."""
    return {"supported_events": list(HOOK_EVENTS)}


@router.post("/sessions/{session_id}/lifecycle", response={200: LifecycleOut, **ERRORS})
def lifecycle(request, session_id: str, payload: LifecycleIn):
    """Evaluate one lifecycle event of the session: what to inject, what was
    held back and why, and whether a thread refresh was scheduled. With
    ``dialect``, ``event`` is the host's own name for it (``hooks.dialects``)."""
    data = LifecycleInput(session_id=_host_id(session_id, "session_id"), **payload.model_dump())
    handle = lifecycle_native_handle if data.dialect else lifecycle_event_handle
    outcome = handle(host=request.host, actor=request.actor, data=data)
    return outcome.as_dict()


@router.post(
    "/threads/{thread_id}/refresh",
    response={202: ThreadRefreshOut, 429: ErrorOut, **ERRORS},
)
def refresh_thread(request, thread_id: str, payload: ThreadRefreshIn):
    """Refresh the tools and resources of every server of the thread (the thread-scoped capability refresh)."""
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server_ids = server_ids_for_host(host=request.host, ids=payload.servers)
    answer = thread_refresh_from_host(
        host_id=request.host.id,
        thread_id=_host_id(thread_id, "thread_id"),
        user=user,
        server_ids=server_ids,
        actor=request.actor,
    )
    if answer.status == "rate_limited":
        raise DomainError(
            "too many refresh signals for this thread; retry later",
            code="rate_limited",
            status=429,
            headers={"Retry-After": str(answer.retry_after)},
        )
    return Status(202, {"thread_id": answer.thread_id, "status": answer.status})
