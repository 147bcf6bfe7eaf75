"""The one way anything reaches browsers live.

Services call these helpers; they send after the surrounding transaction
commits (so nobody sees what might roll back), to one group per user and one
per host for staff. Messages carry HTML rendered from autoescaped templates,
which the htmx websocket extension swaps in by id (``hx-swap-oob``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Literal, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)


class PageUpdate(TypedDict):
    type: Literal["page.update"]
    html: str


def user_group(user_id: str) -> str:
    return f"user.{user_id}"


def host_staff_group(host_id: str) -> str:
    return f"host.{host_id}.staff"


def _send(groups: list[str], message: PageUpdate) -> None:
    layer = get_channel_layer()
    if layer is None:
        return

    def send_all() -> None:
        for group in groups:
            try:
                async_to_sync(layer.group_send)(group, message)
            except Exception:  # a dead Redis must never fail the write that triggered this
                log.exception("broadcast to %s failed", group)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        send_all()
        return
    # Called from a thread that runs an event loop (a sync service invoked
    # from async code): async_to_sync refuses to run here, so use a thread.
    worker = threading.Thread(target=send_all, name="broadcast")
    worker.start()
    worker.join(timeout=5)


def broadcast_html(
    *, html: str, host_id: str, user_id: str | None = None, staff: bool = True
) -> None:
    """Send ``html`` to the user's group and/or the host's staff group after commit."""
    groups = []
    if user_id:
        groups.append(user_group(user_id))
    if staff:
        groups.append(host_staff_group(host_id))
    message: PageUpdate = {"type": "page.update", "html": html}
    transaction.on_commit(lambda: _send(groups, message))
