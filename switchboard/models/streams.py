"""Long-lived MCP streams held by the session worker, and who holds each.

One row per stream the system wants open (a push subscription's
``events/stream``, a server's ``subscriptions/listen``). The row is the
lease: a worker owns the stream while ``lease_until`` is in the future and
renews it; a worker that dies stops renewing and another takes the stream
over. The other fields are its health, shown to staff.
"""

from __future__ import annotations

from django.db import models


class HeldStreamState(models.TextChoices):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    WAITING = "waiting"  # between attempts, backing off
    ENDED = "ended"  # nobody wants it any more (or it ended for good)


class HeldStream(models.Model):
    # "<kind>:<id>", e.g. "push:sub_…" or "listen:srv_…".
    key = models.CharField(primary_key=True, max_length=120)
    kind = models.CharField(max_length=20)
    holder = models.CharField(max_length=120, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    state = models.CharField(
        max_length=12, choices=HeldStreamState.choices, default=HeldStreamState.CONNECTING
    )
    connected_since = models.DateTimeField(null=True, blank=True)
    # Any frame (event, heartbeat, acknowledgement): what liveness is judged on.
    last_frame_at = models.DateTimeField(null=True, blank=True)
    reconnects = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.key} ({self.state}, {self.holder or 'unheld'})"

    @property
    def kind_id(self) -> str:
        return self.key.partition(":")[2]
