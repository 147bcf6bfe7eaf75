from switchboard.models.audit import ActorKind, AuditEntry
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
    "AuditEntry",
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
