"""Writes of the hooks app. Modules: ``lifecycle`` (evaluate an event),
``native`` (an event under the host's own name), ``context_tools`` (bounded MCP calls), ``threads`` (thread claims, refresh
signals), ``refresh`` (running a refresh), ``preferences`` (mute/downgrade), ``records`` (what an event leaves,
written after its answer), ``retention``."""

from hooks.services.lifecycle import LifecycleInput, LifecycleOutcome, lifecycle_event_handle
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
