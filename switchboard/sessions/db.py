"""Database work from the session worker's event loop.

Streams run side by side; their writes must too, or one busy stream would
queue every other stream's events behind it. So each call runs in a pool
thread (``thread_sensitive=False``), with a connection checked first
(``close_old_connections``: one PostgreSQL dropped is replaced instead of
failing every later call) and handed back after (to the pool, on
PostgreSQL: the executor has more threads than the pool has connections,
and an idle thread must not pin one).
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
        try:
            return fn(*args, **kwargs)
        finally:
            close_old_connections()

    return sync_to_async(call, thread_sensitive=False)
