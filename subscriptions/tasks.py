"""Celery tasks: thin wrappers that take ids and call one service.

Every task is safe to run twice (each service claims its row with a
conditional UPDATE first), so ``acks_late`` redelivery is harmless.
"""

from __future__ import annotations

from celery import shared_task

from subscriptions.services import (
    subscription_refresh,
    subscription_unsubscribe,
    subscriptions_refresh_due,
)


@shared_task(name="subscriptions.refresh_due", ignore_result=True)
def refresh_due() -> int:

    return subscriptions_refresh_due()


@shared_task(name="subscriptions.refresh_subscription", ignore_result=True)
def refresh_subscription(subscription_id: str) -> str:

    return subscription_refresh(subscription_id=subscription_id)


@shared_task(
    name="subscriptions.unsubscribe_subscription",
    bind=True,
    ignore_result=True,
    max_retries=6,
)
def unsubscribe_subscription(self, subscription_id: str) -> bool:
    """Best effort with short retries: the 410 our receiver answers already
    stops deliveries, and the server's TTL ends what a failed call leaves."""

    if not subscription_unsubscribe(subscription_id=subscription_id):
        raise self.retry(countdown=min(10 * 2**self.request.retries, 300))
    return True
