"""Celery tasks of the outbox: thin wrappers that take ids and call one
service. Each claims its row first, so ``acks_late`` redelivery is harmless."""

from __future__ import annotations

from celery import shared_task

from outbox.services import host_deliveries_sweep, host_delivery_send


@shared_task(name="outbox.send_host_delivery", ignore_result=True)
def send_host_delivery(seq: int) -> str:
    return host_delivery_send(seq=seq)


@shared_task(name="outbox.send_host_deliveries_in_order", ignore_result=True)
def send_host_deliveries_in_order(seqs: list[int]) -> int:
    """Released held deliveries, one after the other (resume keeps order)."""
    return sum(host_delivery_send(seq=seq) == "delivered" for seq in seqs)


@shared_task(name="outbox.sweep_host_deliveries", ignore_result=True)
def sweep_host_deliveries() -> int:
    return host_deliveries_sweep()
