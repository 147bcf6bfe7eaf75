"""Importing the Celery app reads no settings (config/celery_db.py installs
its worker fixup when a worker starts, not at import): a process may set its
database up before Django reads the settings, as bench/stack.py does. Found
by CI: the load bench's setup connected to the base database instead of its
own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_celery_app_leaves_the_settings_unread():
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import config.celery; from django.conf import settings; "
            "print('configured' if settings.configured else 'unread')",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "unread"


def test_a_worker_gets_the_pool_keeping_fixup_when_it_starts():
    from celery.fixups.django import DjangoFixup
    from celery.signals import celeryd_init

    from config.celery import app
    from config.celery_db import PoolKeepingWorkerFixup

    (fixup,) = [f for f in app._fixups if isinstance(f, DjangoFixup)]
    celeryd_init.send(sender="test-worker", instance=None, conf=app.conf, options={})
    assert isinstance(fixup.worker_fixup, PoolKeepingWorkerFixup)
