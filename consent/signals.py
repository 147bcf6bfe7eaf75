"""What consent announces, for the apps that act on consent (subscriptions
start and stop with their ``events`` grant). Sent inside the transaction of
the change; a receiver that raises rolls the change back."""

from django.dispatch import Signal

# grant, previous_status, actor — a grant's status or approved items changed.
grant_changed = Signal()
