"""What the core announces, for the apps above it to act on.

The core (hosts, users, servers, the MCP layer, the ledger) is the bottom
floor and imports no app. Where one of its changes must reach into the apps —
erase a user everywhere, ask consent again when a server declares something
else, close what a retired server had, tell the host — it sends one of these
signals inside the transaction of the change, and each app connects its
receivers in its ``AppConfig.ready()``. A receiver that raises rolls the
change back, as a direct call would.
"""

from django.dispatch import Signal

# user, actor — a user is being deleted: each app revokes what the user
# allowed and erases what it kept for them (the ledger keeps a tombstone).
# Receivers must not depend on each other's order.
user_erasing = Signal()

# server, added_hook_ids, removed_hook_ids — a re-sync found that a server's
# hook declarations or event types changed (not on its first sync).
server_declarations_changed = Signal()

# server, actor, changed (["url"] and/or ["header_names"]), previous_url —
# staff changed where a server is reached or the names of the credentials
# sent to it: consent given to the server as it was is suspended and asked
# again (a new header value under the same name changes nothing).
server_registration_changed = Signal()

# server, actor — a server is being removed: what it was allowed ends first.
server_retiring = Signal()

# server, actor — the kill switch: a server is being blocked for the whole
# host. Each app stops what it has running for the server and returns what
# it stopped as a dict of counts (they go into the answer and the ledger).
server_blocking = Signal()

# server, status, reason — a server's status changed (the host is told).
server_status_changed = Signal()

# checkpoint, payload — a host's transparency log has a new signed
# checkpoint (``payload``: what a witness keeps, ``checkpoint_witness_payload``).
audit_checkpoint_issued = Signal()

# user, added, removed, actor — an end user's groups changed (``added`` and
# ``removed``: sorted group names; a new user's first groups are all added):
# consent an organisation gave to a group starts or ends for them.
user_groups_changed = Signal()
