from switchboard.models.audit import (
    LEDGER_PROTECTION,
    ActorKind,
    AuditChainHead,
    AuditEntry,
    AuditExportCursor,
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
from switchboard.models.streams import HeldStream, HeldStreamState
from switchboard.models.users import LoginLink, Role, User

__all__ = [
    "ActorKind",
    "ApiKey",
    "AuditChainHead",
    "AuditDrain",
    "DrainFormat",
    "DrainStatus",
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
    "ServerStatus",
    "Trust",
    "User",
    "UserServerCredential",
]
