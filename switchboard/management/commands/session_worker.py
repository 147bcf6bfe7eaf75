"""Run the session worker: hold every push stream and listen stream wanted.

One of the production processes (Procfile ``sessions``); run more than one
for capacity or failover, they share the streams through their leases.
"""

from __future__ import annotations

import asyncio
import logging
import signal

from django.core.management.base import BaseCommand

from switchboard import metrics
from switchboard.sessions.worker import SessionWorker


class Command(BaseCommand):
    help = "Hold the long-lived MCP streams (push subscriptions, list-change listens)."

    def handle(self, **options):
        logging.basicConfig(
            level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
        try:
            asyncio.run(self._run())
        finally:
            metrics.process_forget()  # its held streams are no longer held

    async def _run(self) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        worker = SessionWorker()
        self.stdout.write(f"session worker {worker.holder} started", ending="\n")
        self.stdout.flush()
        await worker.run(stop)
