"""The Prometheus families every process increments where the work happens
(docs/production.md, Metrics), and the one function that renders a scrape.

With ``PROMETHEUS_MULTIPROC_DIR`` set (the run command, the test stacks and
docs/production.md set it, one directory per machine shared by every process
there, emptied before they start), each process writes its samples to files
in it and one scrape of the web process reads them all: what workers, beat
and session workers did on that machine. Without it, the process counts in
memory (tests in one process).

The gauges that are state (subscriptions by mode and status, the queue's
depth, the tightest refresh margin) are read at scrape time by collectors
the top floor registers (``config.metrics``); ``held_streams`` is set by
each session worker and summed over the live ones.

Labels are of bounded cardinality: outcomes, kinds, event names, method
names. Never a user id; free text (a method name a server made up) is
bucketed by ``bounded``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from django.db import transaction
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

# A fan-out is bounded by the host's budget (0.5 s by default), a host
# delivery by HOST_DELIVERY_TIMEOUT (8 s), an MCP call by MCP_CALL_TIMEOUT.
_FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0)
_MCP = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)

host_deliveries = Counter(
    "switchboard_host_deliveries",
    "Attempts to deliver to the host endpoint, by delivery type and outcome.",
    ["type", "outcome"],
)
host_delivery_duration = Histogram(
    "switchboard_host_delivery_duration_seconds",
    "Time one POST to the host endpoint took.",
    ["outcome"],
    buckets=_FAST,
)
webhook_receptions = Counter(
    "switchboard_webhook_receptions",
    "Deliveries MCP servers POSTed to the webhook receiver, by outcome.",
    ["outcome"],
)
conversation_calls = Counter(
    "switchboard_conversation_calls",
    "Servers named in a message's plan, by what became of the call.",
    ["outcome"],
)
conversation_duration = Histogram(
    "switchboard_conversation_duration_seconds",
    "One POST …/messages fan-out, as long as the host waits.",
    buckets=_FAST,
)
lifecycle_events = Counter(
    "switchboard_lifecycle_events",
    "Lifecycle events the host reported, by event and outcome.",
    ["event", "outcome"],
)
consent_decisions = Counter(
    "switchboard_consent_decisions",
    "Consent decisions, by scope and decision.",
    ["scope", "decision"],
)
held_streams = Gauge(
    "switchboard_held_streams",
    "Long-lived MCP streams the session workers hold, by kind.",
    ["kind"],
    multiprocess_mode="livesum",
)
ledger_entries = Counter(
    "switchboard_ledger_entries", "Audit ledger entries written, by kind.", ["kind"]
)
audit_drain_batches = Counter(
    "switchboard_audit_drain_batches",
    "Batches POSTed to audit drains, by outcome (delivered, failed).",
    ["outcome"],
)
mcp_client_operation_duration = Histogram(
    "mcp_client_operation_duration_seconds",
    "MCP requests sent to servers (OpenTelemetry mcp.client.operation.duration).",
    ["mcp_method_name", "error_type"],
    buckets=_MCP,
)

process_seen = Gauge(
    "switchboard_process_last_seen_timestamp_seconds",
    "When a process of each kind (web, worker, beat, sessions) last did its work "
    "(the newest over the machine's processes, dead ones included: a kind that "
    "stopped shows as a time that no longer moves).",
    ["kind"],
    multiprocess_mode="max",
)

# Outcome labels known in advance: exposed as zero from the first scrape.
OUTCOMES: dict[Any, Iterable[dict[str, str]]] = {
    webhook_receptions: [{"outcome": o} for o in ("accepted", "duplicate", "refused")],
    conversation_calls: [{"outcome": o} for o in ("answered", "timeout", "error", "skipped")],
    host_delivery_duration: [{"outcome": o} for o in ("delivered", "failed", "gave_up")],
    audit_drain_batches: [{"outcome": o} for o in ("delivered", "failed")],
}


def bounded(value: str, allowed: Iterable[str], *, other: str = "other") -> str:
    """``value`` if it is one of ``allowed``, else ``other``: a label never
    takes a value a caller or a server made up."""
    return value if value in allowed else other


def after_commit(fn: Callable[[], None]) -> None:
    """Count what a transaction did once it committed (a rollback counts
    nothing); at once outside a transaction."""
    transaction.on_commit(fn)


def zeros_expose(label_sets: dict[Any, Iterable[dict[str, str]]] | None = None) -> None:
    """Create the known label sets (these outcomes, and ``label_sets`` the
    upper floors know), so they are there, as 0, before anything happened."""
    for family, sets in {**OUTCOMES, **(label_sets or {})}.items():
        for labels in sets:
            family.labels(**labels)


FAMILIES = (
    host_deliveries,
    host_delivery_duration,
    webhook_receptions,
    conversation_calls,
    conversation_duration,
    lifecycle_events,
    consent_decisions,
    held_streams,
    ledger_entries,
    audit_drain_batches,
    mcp_client_operation_duration,
    process_seen,
)


def seen(kind: str) -> None:
    """A process of ``kind`` is alive and working (see ``process_seen``)."""
    process_seen.labels(kind=kind).set(time.time())


def process_forget(pid: int | None = None) -> None:
    """A process that stops takes its live gauges with it (``held_streams``)."""
    if MULTIPROCESS:
        _multiprocess.mark_process_dead(pid or os.getpid())


def _forget_the_dead(path: str) -> None:
    """Drop the live gauges of every process that no longer runs. A process
    ends by forgetting itself (``process_forget``), but one killed first
    (SIGKILL, the OOM killer) leaves its file, and its held streams would be
    summed with the live ones' at every scrape after. So the processes
    sharing the directory share one process table too (docs/production.md)."""
    for file in Path(path).glob("gauge_live*_*.db"):
        pid = file.stem.rsplit("_", 1)[1]
        if pid.isdigit() and not _running(int(pid)):
            _multiprocess.mark_process_dead(int(pid), path)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal sent: only whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        pass
    return True


class _Collected:
    """What one scrape shows, as ``generate_latest`` reads it."""

    def __init__(self, families: list[Any]) -> None:
        self.families = families

    def collect(self) -> list[Any]:
        return self.families


def scrape(extra: Iterable[Any] = ()) -> tuple[bytes, str]:
    """The text of one scrape: every process's samples on this machine (or
    this process's alone), plus ``extra`` collectors (state read now). A
    family nobody has touched yet is still declared (help and type)."""
    if MULTIPROCESS:
        _forget_the_dead(os.environ["PROMETHEUS_MULTIPROC_DIR"])
        collected = list(_multiprocess.MultiProcessCollector(None).collect())
    else:
        collected = [f for family in FAMILIES for f in family.collect()]
    present = {f.name for f in collected}
    for family in FAMILIES:
        collected += [f for f in family.describe() if f.name not in present]
    for collector in extra:
        collected += list(collector.collect())
    return generate_latest(_Collected(collected)), CONTENT_TYPE_LATEST  # type: ignore[arg-type]
