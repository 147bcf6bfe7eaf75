"""Settings for bench/webhook_receiver.py: the project's, plus a bare view."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "webhook_bench_urls"
