"""The webhook receiver: what one POST to ``/webhooks/mcp/<token>`` does.

``dispatch`` runs the checks (size, headers, token, signature, the server's
id, the body), cheapest first, and nothing is written before all of them
pass. Then an event (``events``) is stored with its cursor and its outbox row
and answered 2xx only once that is committed: on PostgreSQL in one statement
(``sql``), so an accepted delivery costs two round trips, the token lookup
and that statement. Envelopes (``envelopes``) take one ORM transaction each.
Duplicates (same ``eventId`` for events, same ``webhook-id`` for envelopes)
hit a unique constraint and answer 200 without storing or forwarding
anything; concurrent duplicates are resolved by the database. ``refused``
holds what a refused delivery still owes; ``answers`` what the parts share.
"""

from subscriptions.services.receiver.answers import Answer, page_updates_send
from subscriptions.services.receiver.dispatch import webhook_receive
from subscriptions.services.receiver.refused import oversize_refused

__all__ = ["Answer", "oversize_refused", "page_updates_send", "webhook_receive"]
