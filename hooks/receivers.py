"""Hooks' part in what the core announces (``switchboard.signals``)."""

from __future__ import annotations

from typing import Any

from hooks.services import hooks_forget_user
from switchboard.models import User


def erase_user(*, user: User, **_: Any) -> None:
    """Erase every text a hook injected for the user."""
    hooks_forget_user(user=user)
