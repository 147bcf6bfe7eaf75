from switchboard.models.audit import (
    LEDGER_PROTECTION,
    TREE_LEAF_PROTECTION,
    ActorKind,
    AuditChainHead,
    AuditCheckpoint,
    AuditEntry,
    AuditExportCursor,
    AuditTreeLeaf,
)
from switchboard.models.audit_drain import AuditDrain, DrainFormat, DrainStatus
from switchboard.models.hosts import ApiKey, Host
from switchboard.models.servers import (
    EventsDialectChoice,
    EventType,
    HookDeclaration,
    ListChanges,
    McpServer,
    ServerStatus,
    Trust,
    UserServerCredential,
)
from switchboard.models.sso import (
    ScimResource,
    SignInMethod,
    SsoConnection,
    StaffIdentity,
    StaffSession,
)
from switchboard.models.streams import HeldStream, HeldStreamState
from switchboard.models.users import LoginLink, Role, User, UserGroup

__all__ = [
    "ActorKind",
    "ApiKey",
    "AuditChainHead",
    "AuditDrain",
    "DrainFormat",
    "DrainStatus",
    "AuditCheckpoint",
    "AuditTreeLeaf",
    "TREE_LEAF_PROTECTION",
    "AuditEntry",
    "AuditExportCursor",
    "LEDGER_PROTECTION",
    "EventType",
    "EventsDialectChoice",
    "HeldStream",
    "HeldStreamState",
    "HookDeclaration",
    "Host",
    "ListChanges",
    "LoginLink",
    "McpServer",
    "Role",
    "ScimResource",
    "ServerStatus",
    "SignInMethod",
    "SsoConnection",
    "StaffIdentity",
    "StaffSession",
    "Trust",
    "User",
    "UserGroup",
    "UserServerCredential",
]
