"""The middleware of bench/hot_path_settings.py: ``Server-Timing`` per answer."""

from __future__ import annotations

import time

from asgiref.sync import iscoroutinefunction
from django.utils.decorators import sync_and_async_middleware


def _stamp(response, started: float):
    response["Server-Timing"] = f"django;dur={(time.perf_counter() - started) * 1000:.3f}"
    return response


@sync_and_async_middleware
def server_timing(get_response):
    # Both modes, so adding it never changes how Django adapts the chain
    # below it (an async-capable stack stays async, as in production).
    if iscoroutinefunction(get_response):

        async def timed_async(request):
            started = time.perf_counter()
            return _stamp(await get_response(request), started)

        return timed_async

    def timed(request):
        started = time.perf_counter()
        return _stamp(get_response(request), started)

    return timed
