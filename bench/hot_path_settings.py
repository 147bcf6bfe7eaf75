"""Settings for bench/hot_path.py: the webhook bench's (the project's, plus
bare views), with one more middleware, outermost, that stamps each answer
with the time Django spent on it (``Server-Timing: django;dur=<ms>``).

It wraps every target alike, bare views included, and costs two clock reads,
so the comparisons stay fair; it lets the bench split a call's latency into
"in Django" and "around it" (the server, the event loop, the network)."""

from webhook_bench_settings import *  # noqa: F403

MIDDLEWARE = ["hot_path_timing.server_timing", *MIDDLEWARE]  # noqa: F405
