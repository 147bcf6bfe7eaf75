"""Celery tasks: thin wrappers that take ids and call one service.

Every task is safe to run twice (each service claims its row with a
conditional UPDATE first), so ``acks_late`` redelivery is harmless.
"""

from __future__ import annotations

from celery import shared_task


@shared_task(name="subscriptions.refresh_due", ignore_result=True)
def refresh_due() -> int:
    from subscriptions.services import subscriptions_refresh_due

    return subscriptions_refresh_due()


@shared_task(name="subscriptions.refresh_subscription", ignore_result=True)
def refresh_subscription(subscription_id: str) -> str:
    from subscriptions.services import subscription_refresh

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
    from subscriptions.services import subscription_unsubscribe

    if not subscription_unsubscribe(subscription_id=subscription_id):
        raise self.retry(countdown=min(10 * 2**self.request.retries, 300))
    return True


@shared_task(name="subscriptions.send_host_delivery", ignore_result=True)
def send_host_delivery(seq: int) -> str:
    from subscriptions.services import host_delivery_send

    return host_delivery_send(seq=seq)


@shared_task(name="subscriptions.send_host_deliveries_in_order", ignore_result=True)
def send_host_deliveries_in_order(seqs: list[int]) -> int:
    """Released held deliveries, one after the other (resume keeps order)."""
    from subscriptions.services import host_delivery_send

    return sum(host_delivery_send(seq=seq) == "delivered" for seq in seqs)


@shared_task(name="subscriptions.sweep_host_deliveries", ignore_result=True)
def sweep_host_deliveries() -> int:
    from subscriptions.services import host_deliveries_sweep

    return host_deliveries_sweep()
