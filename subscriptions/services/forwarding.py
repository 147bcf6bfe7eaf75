"""A subscription's events reach the host only while the user's consent
holds, checked when they are forwarded.

Events are received on the user's ``events`` consent and wait in the outbox
until they are sent (at once, or hours later: the host's endpoint down, the
stream paused). A revoke or a block withdraws what waits then
(``stream_events_withdraw``); this gate asks again at the moment of sending,
after the sender claimed the rows and right before the POST
(``outbox.gates``), and when a host pulls them
(``outbox.services.rows.pulled_deliveries_check``), so what was received while a revoke committed, or on a
grant whose expiry passed before the sweep ended it, is not forwarded
either. The "policy evaluation between event receipt and action" of the
events extension, with ``consent.enforce``'s rule: the grant still live,
the server not blocked.

Two statements for a task's rows, however many: their subscriptions' users
and servers, then ``outbound_check_pairs``. Refused: the row fails with the
verdict's reason and its event data is dropped. Consent that cannot be
read: the row waits and is tried again (not lost, not sent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from consent.enforce import CONSENT_UNAVAILABLE, NO_CONSENT, outbound_check_pairs
from consent.models import Scope
from outbox.gates import Refusal
from outbox.models import HostDelivery
from subscriptions.models import Subscription

# The rows that carry events received on a user's consent.
EVENT_TYPES = ("event.received", "events.digest")


def events_forward_refusals(rows: Sequence[HostDelivery]) -> Mapping[int, Refusal]:
    owners = {
        pk: (user_id, server_id)
        for pk, user_id, server_id in Subscription.objects.filter(
            pk__in={row.stream for row in rows}
        ).values_list("pk", "user_id", "server_id")
    }
    verdicts = outbound_check_pairs(pairs=set(owners.values()), scope=Scope.EVENTS)
    refused: dict[int, Refusal] = {}
    for row in rows:
        owner = owners.get(row.stream)
        if owner is None:  # no subscription of ours: nothing to forward it on
            refused[row.seq] = Refusal(NO_CONSENT, final=True)
            continue
        verdict = verdicts[owner]
        if not verdict.allowed:
            refused[row.seq] = Refusal(verdict.reason, final=verdict.reason != CONSENT_UNAVAILABLE)
    return refused
