"""Event subscriptions over the API (contract: Event subscriptions)."""

from __future__ import annotations

import base64
import binascii

from ninja import Router, Status

from outbox.selectors import pulled_deliveries
from outbox.services import pulled_deliveries_check
from subscriptions.schemas import (
    PulledPage,
    RevokedOut,
    SubscriptionIn,
    SubscriptionOut,
    SubscriptionPage,
    SubscriptionPatch,
    TaskIn,
    TaskOut,
    TaskPage,
)
from subscriptions.selectors import (
    subscription_get_for_host,
    subscriptions_for_host,
    task_watch_get_for_host,
    task_watches_for_host,
)
from subscriptions.services import (
    subscription_create,
    subscription_create_mcpe,
    subscription_pause,
    subscription_resume,
    subscription_revoke,
    subscription_rotate_secret,
    subscription_settings_change,
)
from subscriptions.services.task_sources import task_watch_start
from switchboard.api.pagination import clamp_limit, paginate
from switchboard.api.params import PageLimit
from switchboard.api.schemas import ErrorOut
from switchboard.errors import DomainError, Invalid
from switchboard.selectors import server_get_for_host, user_get_for_host, user_id_to_filter_by

router = Router(tags=["subscriptions"])
ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


@router.post("/subscriptions", response={200: SubscriptionOut, 201: SubscriptionOut, **ERRORS})
def create_subscription(request, payload: SubscriptionIn):
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    if payload.event is None:
        sub, created = subscription_create_mcpe(
            user=user,
            server=server,
            filter=payload.filter.model_dump(exclude_none=True) if payload.filter else None,
            expires_at=payload.expires_at,
            channel=_channel(payload.channel),
            handler=payload.handler,
            actor=request.actor,
        )
        return Status(201 if created else 200, sub)
    if payload.handler:
        raise Invalid("a handler is for subscriptions on MCPE servers only", field="handler")
    sub, created = subscription_create(
        user=user,
        server=server,
        event=payload.event,
        arguments=payload.arguments,
        delivery=payload.delivery,
        ttl_ms=payload.ttl_ms if "ttl_ms" in payload.model_fields_set else ...,
        max_age_ms=payload.max_age_ms,
        filter=payload.filter.model_dump(exclude_none=True) if payload.filter else None,
        expires_at=payload.expires_at,
        channel=_channel(payload.channel),
        actor=request.actor,
    )
    return Status(201 if created else 200, sub)


def _channel(channel) -> dict | None:
    return channel.model_dump(exclude_none=True, mode="json") if channel else None


@router.get("/subscriptions", response={200: SubscriptionPage, **ERRORS})
def list_subscriptions(
    request,
    user: str | None = None,
    server: str | None = None,
    status: str | None = None,
    cursor: str | None = None,
    limit: PageLimit | None = None,
):
    rows = subscriptions_for_host(
        host=request.host,
        user_id=user_id_to_filter_by(host=request.host, external_id=user),
        server_id=server,
        status=status,
    )
    items, next_cursor = paginate(rows, cursor=cursor, limit=limit)
    return {"items": items, "next_cursor": next_cursor}


@router.get("/subscriptions/{subscription_id}", response={200: SubscriptionOut, **ERRORS})
def get_subscription(request, subscription_id: str):
    return subscription_get_for_host(host=request.host, subscription_id=subscription_id)


@router.patch("/subscriptions/{subscription_id}", response={200: SubscriptionOut, **ERRORS})
def change_subscription(request, subscription_id: str, payload: SubscriptionPatch):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    given = payload.model_fields_set
    return subscription_settings_change(
        subscription=sub,
        actor=request.actor,
        filter=(payload.filter.model_dump(exclude_none=True) if payload.filter else None)
        if "filter" in given
        else ...,
        expires_at=payload.expires_at if "expires_at" in given else ...,
        channel=_channel(payload.channel) if "channel" in given else ...,
    )


@router.delete("/subscriptions/{subscription_id}", response={200: RevokedOut, **ERRORS})
def revoke_subscription(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    return subscription_revoke(subscription=sub, actor=request.actor, reason="revoked_by_host")


@router.post(
    "/subscriptions/{subscription_id}/rotate-secret", response={200: SubscriptionOut, **ERRORS}
)
def rotate_secret(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    return subscription_rotate_secret(subscription=sub, actor=request.actor)


@router.post("/subscriptions/{subscription_id}/pause", response={200: SubscriptionOut, **ERRORS})
def pause_subscription(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    return subscription_pause(subscription=sub, actor=request.actor)


@router.post("/subscriptions/{subscription_id}/resume", response={200: SubscriptionOut, **ERRORS})
def resume_subscription(request, subscription_id: str):
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    return subscription_resume(subscription=sub, actor=request.actor)


def _encode_after(seq: int) -> str:
    return base64.urlsafe_b64encode(f"d:{seq}".encode()).decode().rstrip("=")


def _decode_after(value: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
        prefix, _, number = raw.partition(":")
        if prefix != "d" or not number.isdigit():
            raise ValueError
        return int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise DomainError(
            "after is not a position this API issued", field="after", code="invalid_cursor"
        ) from None


@router.get(
    "/subscriptions/{subscription_id}/events",
    response={200: PulledPage, **ERRORS, 503: ErrorOut},
)
def pull_events(
    request, subscription_id: str, after: str | None = None, limit: PageLimit | None = None
):
    """Pull delivery: the same bodies the host endpoint receives, in order.
    Events are handed over only while the user's consent holds at the pull
    (without their data otherwise); consent that cannot be read answers 503
    ``consent_unavailable`` (``forward_check_failed`` if the check itself
    failed), and nothing is lost."""
    sub = subscription_get_for_host(host=request.host, subscription_id=subscription_id)
    size = clamp_limit(limit)
    rows = pulled_deliveries_check(
        pulled_deliveries(
            host_id=sub.host_id,
            stream=sub.id,
            after=_decode_after(after) if after else None,
            limit=size,
        )
    )
    items = [{**row.body, "webhook_id": row.webhook_id} for row in rows]
    next_after = _encode_after(rows[-1].seq) if rows else after
    return {"items": items, "next_after": next_after}


# --- task event sources (case 49; off unless TASK_EVENT_SOURCES) ---------------------


@router.post("/tasks", response={200: TaskOut, 201: TaskOut, **ERRORS})
def hand_over_task(request, payload: TaskIn):
    """A task the host created on a server, whose result carried an
    ``eventSource``: the console subscribes to it and watches the task
    (``tasks/get``) until it is terminal, then ends the subscription."""
    user = user_get_for_host(host=request.host, external_id=payload.user)
    server = server_get_for_host(host=request.host, server_id=payload.server)
    watch, created = task_watch_start(
        user=user,
        server=server,
        task_id=payload.task_id,
        event_source=payload.event_source.model_dump(exclude_none=True),
        poll_interval_ms=payload.poll_interval_ms,
        actor=request.actor,
    )
    return Status(
        201 if created else 200, task_watch_get_for_host(host=request.host, watch_id=watch.pk)
    )


@router.get("/tasks", response={200: TaskPage, **ERRORS})
def list_tasks(
    request,
    user: str | None = None,
    server: str | None = None,
    cursor: str | None = None,
    limit: PageLimit | None = None,
):
    rows = task_watches_for_host(
        host=request.host,
        user_id=user_id_to_filter_by(host=request.host, external_id=user),
        server_id=server,
    )
    items, next_cursor = paginate(rows, cursor=cursor, limit=limit)
    return {"items": items, "next_cursor": next_cursor}


@router.get("/tasks/{task_watch_id}", response={200: TaskOut, **ERRORS})
def get_task(request, task_watch_id: str):
    return task_watch_get_for_host(host=request.host, watch_id=task_watch_id)
