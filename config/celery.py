"""The Celery app: ``celery -A config worker`` / ``celery -A config beat``."""

import os

from celery import Celery
from celery.signals import beat_init, before_task_publish, task_postrun

from config import broker_patch, celery_db
from switchboard import metrics
from switchboard.queue import stamp_sent_at

broker_patch.install()

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("switchboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
celery_db.install(app)  # a worker child's connection pool lasts between tasks
app.autodiscover_tasks()
# Every message says when it was published: sweepers measure the queue's age.
before_task_publish.connect(stamp_sent_at, weak=False)


@beat_init.connect
def _beat_started(**kwargs):
    global _kind
    _kind = "beat"


_kind = ""


@before_task_publish.connect
def _beat_seen(**kwargs):
    """Beat publishes every tick: each is a sign of life (``process_seen``)."""
    if _kind == "beat":
        metrics.seen("beat")


@task_postrun.connect
def _worker_seen(**kwargs):
    metrics.seen("worker")


@app.on_after_finalize.connect
def _schedule_periodic_tasks(sender, **kwargs):
    """Beat ticks often; the tasks find due work in the database (due times +
    indexes), so long waits never live in broker countdowns.

    A tick not started within its interval expires (the worker drops it on
    receipt): the next one is already queued and finds the same work. Beat
    sends ticks whether or not a worker takes them, so a worker that was
    down, or slower than the ticks, would otherwise work through every
    missed tick, in order, before the task that was queued after them."""
    from django.conf import settings

    for name, entry in getattr(settings, "PERIODIC_TASKS", {}).items():
        task, every = entry if isinstance(entry, tuple) else (entry, settings.BEAT_TICK)
        sender.add_periodic_task(every, sender.signature(task), name=name, expires=every)
