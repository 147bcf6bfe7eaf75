"""One cache client per process, for the hot path.

Django keeps its cache objects per request context (``django.core.cache.caches``
is an asgiref ``Local``): under ASGI every request builds a new RedisCache,
with a new connection pool and a new TCP connection whose handshake costs
several round trips before the first GET (the hot-path bench found 2-3 ms
per lifecycle call in it). The client here is made once per process;
redis-py's pool is thread-safe and resets itself after a fork."""

from __future__ import annotations

from functools import cache

from django.core.cache import BaseCache, caches


@cache
def shared_cache() -> BaseCache:
    return caches.create_connection("default")
