"""``McpTarget``: where and as whom to connect (kept apart from the session so
code that only builds targets — selectors, tasks — needs no SDK machinery)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from switchboard.mcp.netguard import redact_url

__all__ = ["UNSET", "McpTarget", "Unset"]


class Unset:
    """Sentinel type: "do not send this field" (distinct from sending null)."""

    _instance: Unset | None = None

    def __new__(cls) -> Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset()


def _setting(name: str, default: float) -> float:
    try:
        from django.conf import settings

        return float(getattr(settings, name, default))
    except Exception:  # no Django settings in this process
        return default


@dataclass(frozen=True, kw_only=True)
class McpTarget:
    """Where and as whom to connect.

    ``headers`` are the credentials (host-level or the user's own); they are
    sent on every HTTP request and hidden from ``repr``. ``server_id`` is only
    used to build ``hook_id``s. Timeouts default to the ``MCP_CONNECT_TIMEOUT``
    and ``MCP_CALL_TIMEOUT`` settings.
    """

    url: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    server_id: str | None = None
    mode: Literal["auto", "legacy"] = "auto"
    connect_timeout: float | None = None
    call_timeout: float | None = None
    # HTTP connections the session may open at once. Every open stream
    # (events/stream, subscriptions/listen) holds one for as long as it runs,
    # so a session shared by many streams needs one each (``sessions.shared``).
    max_connections: int = 20

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "legacy"):
            raise ValueError("mode must be 'auto' or 'legacy'")

    def __repr__(self) -> str:
        names = ", ".join(sorted(self.headers)) or "none"
        return (
            f"McpTarget(url={redact_url(self.url)!r}, headers=<{names}>, "
            f"server_id={self.server_id!r}, mode={self.mode!r})"
        )

    @property
    def safe_url(self) -> str:
        return redact_url(self.url)

    def resolved_connect_timeout(self) -> float:
        if self.connect_timeout is not None:
            return self.connect_timeout
        return _setting("MCP_CONNECT_TIMEOUT", 5.0)

    def resolved_call_timeout(self) -> float:
        if self.call_timeout is not None:
            return self.call_timeout
        return _setting("MCP_CALL_TIMEOUT", 10.0)
