"""Writes of the outbox: the host's endpoint and what it missed
(``endpoint``), sending rows to it (``sending``), rows made due, held or
erased, and pulled rows checked (``rows``). Import from here."""

from outbox.services.bursts import host_deliveries_send
from outbox.services.endpoint import (
    host_deliveries_recover,
    host_delivery_resend,
    host_endpoint_enable,
    host_endpoint_get,
    host_endpoint_set,
    host_endpoint_test,
)
from outbox.services.rows import (
    held_deliveries_release,
    pulled_deliveries_check,
    stream_events_withdraw,
    stream_payloads_erase,
)
from outbox.services.sending import (
    WORKER_LOST,
    AttemptOutcome,
    attempt_record,
    host_deliveries_sweep,
    host_delivery_send,
)

__all__ = [
    "WORKER_LOST",
    "AttemptOutcome",
    "attempt_record",
    "held_deliveries_release",
    "host_deliveries_recover",
    "host_deliveries_send",
    "host_deliveries_sweep",
    "host_delivery_resend",
    "host_delivery_send",
    "host_endpoint_enable",
    "host_endpoint_get",
    "host_endpoint_set",
    "host_endpoint_test",
    "pulled_deliveries_check",
    "stream_events_withdraw",
    "stream_payloads_erase",
]
