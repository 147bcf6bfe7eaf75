"""The host API: the core's NinjaAPI (``switchboard.api.root``) with every
app's router mounted, once."""

from consent import access_api
from consent import api as consent_api
from hooks import api as hooks_api
from outbox import api as outbox_api
from subscriptions import api as subscriptions_api
from switchboard.api import audit, audit_log, servers, users
from switchboard.api import sso as sso_api
from switchboard.api.root import api

api.add_router("", users.router)
api.add_router("", audit.router)
api.add_router("", audit_log.router)
api.add_router("", servers.router)
api.add_router("", consent_api.router)
api.add_router("", access_api.router)
api.add_router("", hooks_api.router)
api.add_router("", subscriptions_api.router)
api.add_router("", outbox_api.router)
api.add_router("", sso_api.router)

__all__ = ["api"]
