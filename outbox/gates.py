"""Checks a row must still pass at the moment it is sent, registered by the
apps above (the outbox knows none of them).

Some rows may only be forwarded while a condition holds that the outbox
cannot judge: a subscription's events, only while the user's consent holds
(``consent.enforce``; the app that owns the stream registers the gate). The
condition may change between the row's writing and its sending (hours, when
the host's endpoint is down or the stream paused), so it is asked when the
row is sent: after the sender claimed it and right before the POST, for a
task's rows together (one call per row type present, however many rows).

A gate answers a ``Refusal`` for each row that must not go now:

- ``final``: never sent. The row fails with the reason as its error
  category and the event data in its body is dropped, so neither a resend
  nor pull delivery hands it out (as ``stream_events_withdraw``).
- not ``final``: not now, and not lost. The row stays pending, due again
  after the first step of HOST_DELIVERY_RETRY_SCHEDULE (the sweeper sends
  it then); no attempt is counted, since nothing was sent. For a check that
  could not be made (consent that could not be read).

A gate that raises refuses its rows for now (fail closed, not lost).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from outbox.models import HostDelivery

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Refusal:
    reason: str  # the row's error category (at most 40 characters)
    final: bool


# Rows of one type → the refused ones by seq (rows absent: they go).
ForwardGate = Callable[[Sequence[HostDelivery]], Mapping[int, Refusal]]

_gates: dict[str, ForwardGate] = {}

GATE_FAILED = Refusal("forward_check_failed", final=False)


def forward_gate_register(*, types: Sequence[str], gate: ForwardGate) -> None:
    """``gate`` is asked before rows of these types are sent (``ready()``)."""
    for type_ in types:
        _gates[type_] = gate


def forward_refusals(rows: Sequence[HostDelivery]) -> dict[int, Refusal]:
    """What the registered gates refuse among rows about to be sent."""
    by_type: dict[str, list[HostDelivery]] = defaultdict(list)
    for row in rows:
        if row.type in _gates:
            by_type[row.type].append(row)
    refused: dict[int, Refusal] = {}
    for type_, of_type in by_type.items():
        try:
            refused.update(_gates[type_](of_type))
        except Exception:
            log.exception("the forward check for %s rows failed; they wait", type_)
            refused.update(dict.fromkeys((row.seq for row in of_type), GATE_FAILED))
    return refused
