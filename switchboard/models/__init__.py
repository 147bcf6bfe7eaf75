from switchboard.models.audit import ActorKind, AuditEntry
from switchboard.models.hosts import ApiKey, Host
from switchboard.models.servers import (
    EventsDialectChoice,
    EventType,
    HookDeclaration,
    McpServer,
    ServerStatus,
    Trust,
    UserServerCredential,
)
from switchboard.models.users import LoginLink, Role, User

__all__ = [
    "ActorKind",
    "ApiKey",
    "AuditEntry",
    "EventType",
    "EventsDialectChoice",
    "HookDeclaration",
    "Host",
    "LoginLink",
    "McpServer",
    "Role",
    "ServerStatus",
    "Trust",
    "User",
    "UserServerCredential",
]
