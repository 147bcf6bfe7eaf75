"""Writes of the subscriptions app. Import from here; the modules are:

``creation`` (create), ``lifecycle`` (pause/resume, rotate, revoke, consent
reactions),
``refresh`` (subscribe/refresh/unsubscribe through ``switchboard.mcp``, the
scheduler), ``receiver`` (the webhook endpoint), ``poll`` (the poll loop),
``push`` (the session worker's push streams), ``intake`` (storing fetched and
streamed events with their cursor), ``remote`` (MCP calls and the error
table), ``filters`` (the host's filter and expiry), ``channels`` and
``digests`` (cron and scheduled digests). What the host hears goes
through ``outbox``.
"""

from subscriptions.services.creation import subscription_create, subscription_create_mcpe
from subscriptions.services.digests import subscription_digest, subscriptions_digest_due
from subscriptions.services.filters import subscription_settings_change
from subscriptions.services.lifecycle import (
    subscription_pause,
    subscription_resume,
    subscription_revoke,
    subscription_rotate_secret,
    subscriptions_erase_user,
    subscriptions_expire_due,
    subscriptions_on_grant_change,
    subscriptions_on_server_blocking,
)
from subscriptions.services.poll import (
    subscription_poll,
    subscription_poll_when_due,
    subscriptions_poll_due,
)
from subscriptions.services.receiver import Answer, webhook_receive
from subscriptions.services.refresh import (
    subscription_refresh,
    subscription_refresh_when_due,
    subscriptions_due_for_refresh,
    subscriptions_refresh_due,
)
from subscriptions.services.unsubscribe import (
    subscription_unsubscribe,
    subscriptions_unsubscribe_due,
)
from subscriptions.services.watch import receiver_watch

__all__ = [
    "receiver_watch",
    "Answer",
    "subscription_create",
    "subscription_create_mcpe",
    "subscription_settings_change",
    "subscription_digest",
    "subscriptions_digest_due",
    "subscriptions_expire_due",
    "subscription_pause",
    "subscription_poll",
    "subscription_poll_when_due",
    "subscriptions_poll_due",
    "subscription_refresh",
    "subscription_refresh_when_due",
    "subscription_resume",
    "subscription_revoke",
    "subscription_rotate_secret",
    "subscription_unsubscribe",
    "subscriptions_due_for_refresh",
    "subscriptions_erase_user",
    "subscriptions_on_server_blocking",
    "subscriptions_on_grant_change",
    "subscriptions_refresh_due",
    "subscriptions_unsubscribe_due",
    "webhook_receive",
]
