"""A lifecycle event reported under the host's own name (``dialect``).

A name with a normalized twin is evaluated as that event
(``lifecycle_event_handle``), its row keeping the name the host sent. A name
without one (a known event no normalized event matches, or one the table
does not know) is recorded as the lifecycle records every event: the
session is claimed as usual (so a wrong user or a foreign session is
refused the same way), the event's row is written, and its timeline entry
follows from the records writer. Nothing is evaluated and nothing fires;
the answer's ``native`` says why.
"""

from __future__ import annotations

import time
from dataclasses import replace

from django.db import transaction
from django.utils import timezone

from hooks.dialects import NativeEvent, native_event_read
from hooks.models import LifecycleEvent
from hooks.services.lifecycle import LifecycleOutcome, lifecycle_event_handle
from hooks.services.lifecycle_data import LifecycleInput
from hooks.services.records import records_pending, records_write_soon
from hooks.services.session_claim import session_claim
from switchboard import metrics
from switchboard.actors import Actor
from switchboard.errors import DomainError
from switchboard.models import Host

# The metrics label of native events that fired nothing by design.
UNMAPPED = "unmapped"


def lifecycle_native_handle(*, host: Host, actor: Actor, data: LifecycleInput) -> LifecycleOutcome:
    """``data.event`` is the host's own name for the event, in ``data.dialect``."""
    native = native_event_read(dialect=data.dialect or "", name=data.event)
    if native.normalized is not None:
        outcome = lifecycle_event_handle(
            host=host,
            actor=actor,
            data=replace(data, event=native.normalized, native_event=native.name),
        )
        outcome.native = native.as_dict()
        return outcome
    try:
        outcome = _record_only(host=host, actor=actor, data=data, native=native)
    except DomainError:
        metrics.lifecycle_events.labels(event=UNMAPPED, outcome="refused").inc()
        raise
    metrics.lifecycle_events.labels(event=UNMAPPED, outcome="none").inc()
    return outcome


def _record_only(
    *, host: Host, actor: Actor, data: LifecycleInput, native: NativeEvent
) -> LifecycleOutcome:
    started = time.perf_counter()
    session, user = session_claim(host=host, data=data)
    with transaction.atomic():
        record = LifecycleEvent.objects.create(
            created_at=timezone.now(),
            host=host,
            session=session,
            user=user,
            event="",
            dialect=native.dialect,
            native_event=native.name[:200],
            tool_name=(data.tool_name or "")[:200],
            tool_server=(data.tool_server or "")[:200],
            thread_id=session.thread_id,
            duration_ms=round((time.perf_counter() - started) * 1000),
            pending=records_pending(firings=[], actor=actor),
        )
        records_write_soon()
    return LifecycleOutcome(
        record=record, fired=[], suppressed=[], refresh=None, native=native.as_dict()
    )
