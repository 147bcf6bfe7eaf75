"""Celery tasks: thin wrappers that take ids and call one service.

Every task is safe to run twice (each service claims its row with a
conditional UPDATE first), so ``acks_late`` redelivery is harmless.
"""

from __future__ import annotations

from celery import shared_task

from subscriptions.services import (
    receiver_watch,
    subscription_digest,
    subscription_poll,
    subscription_poll_when_due,
    subscription_refresh,
    subscription_refresh_when_due,
    subscription_unsubscribe,
    subscriptions_digest_due,
    subscriptions_expire_due,
    subscriptions_poll_due,
    subscriptions_refresh_due,
    subscriptions_unsubscribe_due,
)
from subscriptions.services.retention import event_payloads_purge
from subscriptions.services.task_sources import task_watch_check, task_watches_check_due


@shared_task(name="subscriptions.refresh_due", ignore_result=True)
def refresh_due() -> int:

    return subscriptions_refresh_due()


@shared_task(name="subscriptions.refresh_subscription", ignore_result=True)
def refresh_subscription(subscription_id: str) -> str:

    return subscription_refresh(subscription_id=subscription_id)


@shared_task(name="subscriptions.refresh_when_due", ignore_result=True)
def refresh_when_due(subscription_id: str, due: str | None = None) -> str:
    return subscription_refresh_when_due(subscription_id=subscription_id, due=due)


@shared_task(name="subscriptions.unsubscribe_subscription", ignore_result=True)
def unsubscribe_subscription(subscription_id: str) -> str:
    """One try of an owed unsubscribe; the service schedules the next."""
    return subscription_unsubscribe(subscription_id=subscription_id)


@shared_task(name="subscriptions.watch_receiver", ignore_result=True)
def watch_receiver() -> int:
    return receiver_watch()


@shared_task(name="subscriptions.unsubscribe_due", ignore_result=True)
def unsubscribe_due() -> int:
    return subscriptions_unsubscribe_due()


@shared_task(name="subscriptions.digest_due", ignore_result=True)
def digest_due() -> int:
    return subscriptions_digest_due()


@shared_task(name="subscriptions.digest_subscription", ignore_result=True)
def digest_subscription(subscription_id: str) -> str:
    return subscription_digest(subscription_id=subscription_id)


@shared_task(name="subscriptions.expire_due", ignore_result=True)
def expire_due() -> int:
    return subscriptions_expire_due()


@shared_task(name="subscriptions.poll_due", ignore_result=True)
def poll_due() -> int:
    return subscriptions_poll_due()


@shared_task(name="subscriptions.poll_subscription", ignore_result=True)
def poll_subscription(subscription_id: str) -> str:
    return subscription_poll(subscription_id=subscription_id)


@shared_task(name="subscriptions.poll_when_due", ignore_result=True)
def poll_when_due(subscription_id: str, due: str | None = None) -> str:
    return subscription_poll_when_due(subscription_id=subscription_id, due=due)


@shared_task(name="subscriptions.purge_event_payloads")
def purge_event_payloads() -> int:
    """Beat: erase received event payloads past each host's retention."""
    return event_payloads_purge()


@shared_task(name="subscriptions.check_due_tasks", ignore_result=True)
def check_due_tasks() -> int:
    """Beat: tasks/get for each task watch that is due (task event sources)."""
    return task_watches_check_due()


@shared_task(name="subscriptions.check_task", ignore_result=True)
def check_task(watch_id: str, due: str) -> str:
    return task_watch_check(watch_id=watch_id, due=due)
