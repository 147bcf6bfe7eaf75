"""API root: every app's router is added here, once."""

from consent import api as consent_api
from switchboard.api import audit, servers, users
from switchboard.api.root import api

api.add_router("", users.router)
api.add_router("", audit.router)
api.add_router("", servers.router)
api.add_router("", consent_api.router)

__all__ = ["api"]
