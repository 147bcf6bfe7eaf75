"""The Celery app: ``celery -A config worker`` / ``celery -A config beat``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("switchboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_finalize.connect
def _schedule_periodic_tasks(sender, **kwargs):
    """Beat ticks often; the tasks find due work in the database (due times +
    indexes), so long waits never live in broker countdowns."""
    from django.conf import settings

    for name, entry in getattr(settings, "PERIODIC_TASKS", {}).items():
        task, every = entry if isinstance(entry, tuple) else (entry, settings.BEAT_TICK)
        sender.add_periodic_task(every, sender.signature(task), name=name)
