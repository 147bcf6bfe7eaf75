"""Lifecycle hooks (SEP-2282) and the thread-scoped capability refresh.

Threads are the consent app's ``Conversation`` rows (a conversation id and
the thread id of ``refreshThreadCapabilities`` are one thing); the rows here
refer to them by the host's thread id, so the two apps' migrations stay
independent.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from switchboard.ids import id_factory
from switchboard.models import Host, McpServer, User
from switchboard.models.base import TimeStamped


class LifecycleSession(TimeStamped):
    """One agent session of a host, with what evaluating its events needs:
    its user, its thread (at most one), its servers (the union of every
    ``servers`` the host listed) and its firing history (flood control)."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("lcs"), editable=False
    )
    # The host's id. It belongs to the host that used it first (another host: 404).
    session_id = models.CharField(max_length=200, unique=True)
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="lifecycle_sessions")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="lifecycle_sessions")
    thread_id = models.CharField(max_length=200, blank=True)
    server_ids = models.JSONField(default=list, blank=True)
    # hook_id -> epoch seconds of its last firing in this session (cooldown).
    last_fired = models.JSONField(default=dict, blank=True)
    # Epoch seconds of firings inside the rate window (pruned on write).
    recent_firings = models.JSONField(default=list, blank=True)
    last_event_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-last_event_at", "-created_at"]
        indexes = [
            # The staff session list and a user's sessions, most recent first.
            models.Index(fields=["host", "-last_event_at"], name="lifecycle_session_host_idx"),
            models.Index(fields=["user", "-last_event_at"], name="lifecycle_session_user_idx"),
        ]

    def __str__(self) -> str:
        return self.session_id


class LifecycleEvent(models.Model):
    """One lifecycle event a host reported, and its outcome (the timeline).

    Tool input and output are not kept: only what was injected (on the
    firings) and why the rest was not.
    """

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("lce"), editable=False
    )
    created_at = models.DateTimeField()
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="+")
    session = models.ForeignKey(LifecycleSession, on_delete=models.CASCADE, related_name="events")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="lifecycle_events")
    # The normalized event; empty for a host's native event with no
    # normalized twin (recorded, nothing fired: ``hooks.dialects``).
    event = models.CharField(max_length=40, blank=True)
    # The host's own name for the event, when it reported one with a dialect.
    dialect = models.CharField(max_length=20, blank=True)
    native_event = models.CharField(max_length=200, blank=True)
    tool_name = models.CharField(max_length=200, blank=True)
    tool_server = models.CharField(max_length=200, blank=True)
    thread_id = models.CharField(max_length=200, blank=True)
    injected = models.PositiveIntegerField(default=0)
    # [{server, hook_id, reason, detail}] — every hook that applied but did not fire.
    suppressed = models.JSONField(default=list, blank=True)
    refresh = models.JSONField(null=True, blank=True)
    notices = models.JSONField(default=list, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    # What this event still has to leave behind once the host has its answer:
    # the firings (with their text), the actor for the ledger entries. The
    # request writes only this row; a worker writes the rest and sets it to
    # null (``hooks.services.records``). Null: everything is written.
    pending = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The records writer and its sweep find what is left, oldest first.
            models.Index(
                fields=["created_at", "id"],
                name="lifecycle_event_pending_idx",
                condition=models.Q(pending__isnull=False),
            ),
            # Timelines: per session (staff), per user, per host; newest first.
            models.Index(fields=["session", "-created_at"], name="lifecycle_event_session_idx"),
            models.Index(fields=["user", "-created_at"], name="lifecycle_event_user_idx"),
            models.Index(fields=["host", "-created_at"], name="lifecycle_event_host_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event} in {self.session_id}"

    # How many suppressions a timeline entry lists one by one.
    PREVIEW = 10

    @property
    def suppressed_by_reason(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for item in self.suppressed or []:
            counts[item.get("reason", "?")] = counts.get(item.get("reason", "?"), 0) + 1
        return sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))

    @property
    def suppressed_preview(self) -> list[dict]:
        """The first suppressions, each with its detail as one line of text."""
        return [
            {
                **item,
                "detail_text": ", ".join(f"{k}={v}" for k, v in (item.get("detail") or {}).items()),
            }
            for item in (self.suppressed or [])[: self.PREVIEW]
        ]

    @property
    def suppressed_more(self) -> int:
        return max(len(self.suppressed or []) - self.PREVIEW, 0)


class FiringSource(models.TextChoices):
    CONTEXT = "context"
    CONTEXT_TOOL = "context_tool"


class HookFiring(models.Model):
    """One hook that fired: the injection record (who injected what, when,
    why). The text is erased after LIFECYCLE_RETENTION and when the user is
    deleted; the row stays."""

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("hkf"), editable=False
    )
    created_at = models.DateTimeField()
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="hook_firings")
    session = models.ForeignKey(LifecycleSession, on_delete=models.CASCADE, related_name="firings")
    lifecycle_event = models.ForeignKey(
        LifecycleEvent, on_delete=models.CASCADE, related_name="firings"
    )
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="hook_firings")
    hook_id = models.CharField(max_length=80)
    event = models.CharField(max_length=40)
    priority = models.CharField(max_length=20)
    effective_priority = models.CharField(max_length=20)
    downgraded = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=16, choices=FiringSource.choices)
    text = models.TextField(blank=True)
    chars = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    purged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # "When did this hook last fire for me" on the per-server page.
            models.Index(
                fields=["user", "server", "hook_id", "-created_at"],
                name="hook_firing_user_hook_idx",
            ),
            # A host's injections, newest first (staff views).
            models.Index(fields=["host", "-created_at"], name="hook_firing_host_idx"),
            # The retention sweep: rows whose text is still kept, oldest first.
            models.Index(
                fields=["created_at"],
                condition=Q(purged_at__isnull=True),
                name="hook_firing_text_kept_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.hook_id} fired on {self.event}"


class CappedPriority(models.TextChoices):
    SUGGESTION = "suggestion"
    IMPORTANT = "important"


class HookPreference(TimeStamped):
    """A user's say over one server's hooks: mute, or cap the priority.
    ``hook_id == ""`` applies to every hook of the server."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="hook_preferences")
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="+")
    hook_id = models.CharField(max_length=80, blank=True)
    muted = models.BooleanField(default=False)
    max_priority = models.CharField(max_length=20, choices=CappedPriority.choices, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "server", "hook_id"], name="hook_preference_unique"
            ),
        ]

    def __str__(self) -> str:
        what = "muted" if self.muted else f"at most {self.max_priority or 'as declared'}"
        return f"{self.hook_id or self.server_id}: {what}"


class ThreadState(TimeStamped):
    """Refresh bookkeeping of one thread; also the row a signal locks, so
    concurrent signals for one thread coalesce instead of racing."""

    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="+")
    thread_id = models.CharField(max_length=200, unique=True)
    signal_window_started_at = models.DateTimeField(null=True, blank=True)
    signals_in_window = models.PositiveIntegerField(default=0)
    last_refresh_started_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.thread_id


class RefreshKind(models.TextChoices):
    REFRESH = "refresh"  # a signal: compare with the last snapshot and tell the host
    BASELINE = "baseline"  # a server joined the thread: first snapshot, no delivery


class RefreshStatus(models.TextChoices):
    SCHEDULED = "scheduled"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class RefreshTrigger(models.TextChoices):
    TOOL_OUTPUT = "tool_output"  # _meta.refreshThreadCapabilities in a post_tool_use
    API = "api"  # POST /threads/{id}/refresh
    SERVER_JOINED = "server_joined"


class ThreadRefresh(TimeStamped):
    """One refresh of a thread's servers (``tools/list`` + ``resources/list``).

    A burst of signals lands on the one ``scheduled`` row (a constraint, not
    a check); a worker claims it by moving it to ``running`` once due.
    """

    id = models.CharField(
        primary_key=True, max_length=40, default=id_factory("trf"), editable=False
    )
    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="+")
    thread_id = models.CharField(max_length=200)
    user = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(max_length=12, choices=RefreshKind.choices, default=RefreshKind.REFRESH)
    status = models.CharField(
        max_length=12, choices=RefreshStatus.choices, default=RefreshStatus.SCHEDULED
    )
    trigger = models.CharField(max_length=16, choices=RefreshTrigger.choices)
    signals = models.PositiveIntegerField(default=1)
    due_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # What it did: the servers covered, the delivery's per-server changes,
    # and per-server failures ({server_id: category}).
    server_ids = models.JSONField(default=list, blank=True)
    changes = models.JSONField(default=list, blank=True)
    errors = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["thread_id", "kind"],
                condition=Q(status="scheduled"),
                name="thread_refresh_one_scheduled",
            ),
        ]
        indexes = [
            # The sweep: scheduled rows that are due, running rows whose lease ran out.
            models.Index(fields=["status", "due_at"], name="thread_refresh_due_idx"),
            # A thread's refresh history.
            models.Index(fields=["thread_id", "-created_at"], name="thread_refresh_thread_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.thread_id} ({self.status})"


class ThreadSnapshot(TimeStamped):
    """The tools and resources one server listed for one thread, last time."""

    host = models.ForeignKey(Host, on_delete=models.CASCADE, related_name="+")
    thread_id = models.CharField(max_length=200)
    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="+")
    tools = models.JSONField(default=list, blank=True)  # sorted tool names
    resources = models.JSONField(default=list, blank=True)  # sorted resource URIs
    taken_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["thread_id", "server"], name="thread_snapshot_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.server_id} in {self.thread_id}"
