"""Writes of the hooks app. Modules: ``lifecycle`` (evaluate an event, step by step),
``lifecycle_data`` (what the steps pass along), ``session_claim`` (the event's session),
``context_tools_step`` and ``context_tools`` (context-tool hooks, bounded MCP calls),
``flood_state`` (admit again under the session's lock), ``native`` (an event under the host's
own name), ``threads`` (thread claims, refresh signals), ``refresh`` (running a refresh),
``preferences`` (mute/downgrade), ``records`` (the event's row, and what it leaves, written
after its answer), ``retention``."""

from hooks.services.lifecycle import LifecycleOutcome, lifecycle_event_handle
from hooks.services.lifecycle_data import LifecycleInput
from hooks.services.native import lifecycle_native_handle
from hooks.services.preferences import hook_preference_set
from hooks.services.records import lifecycle_records_write
from hooks.services.refresh import refreshes_due, refreshes_recover_lost, thread_refresh_run
from hooks.services.retention import hooks_forget_user, lifecycle_purge_expired
from hooks.services.threads import (
    RefreshAnswer,
    thread_claim,
    thread_refresh_from_host,
    thread_refresh_request,
)

__all__ = [
    "LifecycleInput",
    "LifecycleOutcome",
    "RefreshAnswer",
    "hook_preference_set",
    "hooks_forget_user",
    "lifecycle_event_handle",
    "lifecycle_native_handle",
    "lifecycle_purge_expired",
    "lifecycle_records_write",
    "refreshes_due",
    "refreshes_recover_lost",
    "thread_claim",
    "thread_refresh_from_host",
    "thread_refresh_request",
    "thread_refresh_run",
]
