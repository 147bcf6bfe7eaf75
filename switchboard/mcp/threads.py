"""Thread-scoped capability refresh on the wire.

The thread-scoped refresh proposal defines the signal, ``CallToolResult._meta.refreshThreadCapabilities
= "<thread id>"``, and says the client then sends ``tools/list`` and
``resources/list`` to every server of the thread "including the thread_id in
the context", without naming a wire key. We send it in the request's
``_meta`` as ``threadId`` (camelCase like every other MCP ``_meta`` key); the
reference server also accepts ``thread_id`` and ``refreshThreadCapabilities``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["REFRESH_META_KEY", "THREAD_META_KEY", "refresh_thread_id", "thread_meta"]

THREAD_META_KEY = "threadId"
REFRESH_META_KEY = "refreshThreadCapabilities"


def thread_meta(thread_id: str) -> dict[str, Any]:
    """The ``_meta`` for a thread-scoped ``tools/list`` / ``resources/list``."""
    return {THREAD_META_KEY: thread_id}


def refresh_thread_id(result: Any) -> str | None:
    """The thread id a tool result asks to refresh, or None.

    Accepts an SDK ``CallToolResult`` or its JSON form (a host posts the
    latter as ``tool_output``).
    """
    meta = result.get("_meta") if isinstance(result, Mapping) else getattr(result, "meta", None)
    if isinstance(meta, Mapping):
        value = meta.get(REFRESH_META_KEY)
        if isinstance(value, str) and value:
            return value
    return None
