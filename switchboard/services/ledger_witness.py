"""When the host last received a checkpoint, for the staff audit page.

The outbox sends checkpoints and knows when the host took one; the core
sits below it, so the outbox registers its reader here (``apps.ready``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

checkpoint_receipts: list[Callable[[str], datetime | None]] = []


def checkpoint_last_received(host_id: str) -> datetime | None:
    found = [moment for reader in checkpoint_receipts if (moment := reader(host_id))]
    return max(found) if found else None
