"""Database work from the session worker's event loop.

Streams run side by side; their writes must too, or one busy stream would
queue every other stream's events behind it. So each call runs in a pool
thread (``thread_sensitive=False``), with its own connection, checked first
(``close_old_connections``): a connection PostgreSQL dropped is replaced on
the next call instead of failing every later one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps

from asgiref.sync import sync_to_async
from django.db import close_old_connections


def in_db_thread[**P, R](fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    @wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        close_old_connections()
        return fn(*args, **kwargs)

    return sync_to_async(call, thread_sensitive=False)
