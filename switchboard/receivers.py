"""The core's receivers for signals it does not send itself (Django's)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from switchboard.broadcast import sessions_end_now


@receiver(user_logged_out, dispatch_uid="switchboard.sessions_end_on_logout")
def close_sockets_on_logout(sender: Any, request: Any = None, **kwargs: Any) -> None:
    """Django sends this before it flushes the session, so the key is still
    there to name the session's sockets. A socket outliving its logout would
    keep streaming the user's activity to whoever has the tab."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if key:
        sessions_end_now(session_key=key)
