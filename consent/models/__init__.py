"""Consent's models, one module per topic; import them from here
(``from consent.models import Grant``), where the migrations find them too."""

from consent.models.conversations import (
    Conversation,
    Injection,
    InjectionOutcome,
    InjectionSource,
    ServerConversationState,
)
from consent.models.grants import (
    OPEN_STATUSES,
    Channel,
    Grant,
    GrantQuerySet,
    GrantStatus,
    Identity,
    Scope,
    SuspendedReason,
)
from consent.models.org_grants import (
    OrgGrant,
    OrgGrantGroup,
    OrgGrantOptOut,
    OrgGrantStatus,
    org_grant_applies,
)
from consent.models.policy import (
    HostPolicy,
    ServerListMode,
    default_budget_ms,
    default_max_chars_per_message,
    default_max_chars_per_server,
)
from consent.models.requests import (
    AccessRequest,
    AccessRequestStatus,
    ConsentRequest,
    RequestOrigin,
    RequestStatus,
)

__all__ = [
    "OPEN_STATUSES",
    "AccessRequest",
    "AccessRequestStatus",
    "Channel",
    "ConsentRequest",
    "Conversation",
    "Grant",
    "GrantQuerySet",
    "GrantStatus",
    "HostPolicy",
    "Identity",
    "Injection",
    "InjectionOutcome",
    "InjectionSource",
    "OrgGrant",
    "OrgGrantGroup",
    "OrgGrantOptOut",
    "OrgGrantStatus",
    "RequestOrigin",
    "RequestStatus",
    "Scope",
    "ServerConversationState",
    "ServerListMode",
    "SuspendedReason",
    "default_budget_ms",
    "default_max_chars_per_message",
    "default_max_chars_per_server",
    "org_grant_applies",
]
