"""All in-memory state of one server process, in one object.

Handlers and control routes share this object; everything runs on uvicorn's
single event loop, so plain data structures suffice (asyncio locks only
where an await sits between a read and a write). Two ways to throw state
away, because client tests need both:

- `forget()` simulates a server that lost its subscriptions (a restart
  without persistence): subscriptions and endpoint verifications go, the
  event log stays, so a client refresh recreates them from its cursor.
- `reset()` returns the process to its just-started state: settings,
  capabilities, logs, logins, records and tasks.
"""

from __future__ import annotations

import copy
import itertools
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from refserver import dialect
from refserver.catalog import Catalog
from refserver.config import Config
from refserver.eventlog import EventLog, iso_now
from refserver.hooks import default_declarations
from refserver.identity import Identity
from refserver.streams import StreamHub
from refserver.subscriptions import SubscriptionRegistry
from refserver.tasks import TaskStore

RECORD_KINDS = (
    "requests",
    "capabilityReads",
    "userMessages",
    "subscribe",
    "unsubscribe",
    "poll",
    "stream",
    "listen",
    "eventsList",
    "toolsList",
    "resourcesList",
    "toolCalls",
    "taskGets",
    "deliveries",
)
FEATURES = ("events", "conversationEvents", "hooks")
LOCATIONS = ("extensions", "experimental", "toplevel")
RECORD_LIMIT = 2000


@dataclass
class Behaviour:
    """An injected slowdown or failure for one JSON-RPC method."""

    delay_ms: int = 0
    fail: str | None = None  # "error" | "hang" | "garbage" | "input_required"
    times: int | None = None  # failures left; None = every call
    # For fail="error": the JSON-RPC error to answer (sketch numbering, renumbered
    # for the SEP dialect); default -32603 "Injected failure".
    error: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "delay_ms": self.delay_ms,
            "fail": self.fail,
            "times": self.times,
            "error": self.error,
        }


@dataclass
class CapabilitySettings:
    locations: dict[str, list[str]] = field(
        default_factory=lambda: {f: list(LOCATIONS) for f in FEATURES}
    )
    declarations: list[Any] = field(default_factory=default_declarations)
    events: dict[str, Any] = field(default_factory=lambda: {"listChanged": True})
    conversation_events: dict[str, Any] = field(default_factory=lambda: {"onUserMessage": True})

    def describe(self) -> dict[str, Any]:
        return {
            "locations": copy.deepcopy(self.locations),
            "declarations": copy.deepcopy(self.declarations),
            "events": copy.deepcopy(self.events),
            "conversationEvents": copy.deepcopy(self.conversation_events),
        }


class State:
    def __init__(self, config: Config) -> None:
        self.initial_config = copy.deepcopy(config)
        self.config = config
        self.catalog = Catalog()
        self.log = EventLog(retention=config.log_retention)
        self.subscriptions = SubscriptionRegistry()
        self.streams = StreamHub()
        self.capabilities = self._capabilities_for_dialect()
        self.behaviours: dict[str, Behaviour] = {}
        self.logged_in_threads: set[str] = set()
        self.logged_in_any = False
        self.received: dict[str, deque[dict[str, Any]]] = {
            k: deque(maxlen=RECORD_LIMIT) for k in RECORD_KINDS
        }
        # Legacy-era sessions by Mcp-Session-Id, for standalone list_changed pushes.
        self.legacy_sessions: dict[str, Any] = {}
        # Open subscriptions/listen streams that asked for eventsListChanged.
        self.listens: dict[Any, Any] = {}
        self.catalog_version = 1
        self._record_ids = itertools.count(1)
        self.delivery: Any = None  # DeliveryManager, attached by the app
        self.identity = Identity()  # used when config.webhook_identity is on
        self.mcpe: Any = None  # McpeHub (refserver.mcpe), attached by the app
        # Tasks outlive forget() (a lost subscription is not a lost task); reset() clears them.
        self.tasks = TaskStore()

    def _capabilities_for_dialect(self) -> CapabilitySettings:
        caps = CapabilitySettings()
        caps.locations["events"] = dialect.events_locations(
            self.config.dialect, caps.locations["events"]
        )
        if self.config.dialect == dialect.CHATGPT:
            caps.events = {}  # `events: {}`, never with listChanged
        return caps

    def record(self, kind: str, entry: dict[str, Any]) -> dict[str, Any]:
        entry = {"seq": next(self._record_ids), "at": iso_now(), **entry}
        self.received[kind].append(entry)
        return entry

    def received_view(self, kinds: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
        return {k: list(v) for k, v in self.received.items() if not kinds or k in kinds}

    def forget(self) -> None:
        if self.delivery is not None:
            for sub in self.subscriptions.by_id.values():
                self.delivery.stop_worker(sub)
        self.subscriptions = SubscriptionRegistry()

    def reset(self) -> None:
        self.forget()
        self.config = copy.deepcopy(self.initial_config)
        self.catalog.reset()
        self.catalog_version += 1
        self.log.clear()
        self.log.retention = self.config.log_retention
        self.capabilities = self._capabilities_for_dialect()
        self.behaviours.clear()
        self.logged_in_threads.clear()
        self.logged_in_any = False
        for records in self.received.values():
            records.clear()
        self.tasks.clear()
        if self.mcpe is not None:
            self.mcpe.reset()
