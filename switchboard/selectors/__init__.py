"""Reads scoped to the caller: a foreign or unknown id is a 404 before any work."""

from __future__ import annotations

from django.db import connection
from django.db.models import Q, QuerySet, StringAgg, Value

from switchboard.errors import NotFound
from switchboard.models import ApiKey, AuditEntry, Host, McpServer, Role, User

# A user id no row has: a list filtered by an unknown user is simply empty.
_NO_SUCH_USER = "-none-"


def live_end_user(external_id: str, *, via: str = "") -> Q:
    """The live end user a host knows by ``external_id``; ``via`` is the path
    to the user from another model (``"user"`` on a row that has one)."""
    prefix = f"{via}__" if via else ""
    return Q(
        **{
            f"{prefix}external_id": external_id,
            f"{prefix}role": Role.END_USER,
            f"{prefix}deleted_at__isnull": True,
        }
    )


def user_groups_of(*, user: User) -> list[str]:
    """The user's groups, sorted (``groups`` on the users API)."""
    return sorted(user.org_groups.values_list("name", flat=True))


def user_get_for_host(*, host: Host, external_id: str) -> User:
    user = User.objects.filter(live_end_user(external_id), host=host).first()
    if user is None:
        raise NotFound(
            f"no user {external_id!r} for this host", field="user", code="user_not_found"
        )
    return user


# Group names are printable (``validate_groups``), so a newline separates them.
GROUP_NAMES_SEPARATOR = "\n"


def user_with_groups_for_host(*, host: Host, external_id: str) -> User:
    """``user_get_for_host`` with the user's group names read in the same
    statement (``group_names``): ``GET /users/{id}`` is a hot call, one
    query for the key and one for the user and their groups."""
    user = (
        User.objects.filter(live_end_user(external_id), host=host)
        .annotate(
            group_names=StringAgg(
                "org_groups__name", Value(GROUP_NAMES_SEPARATOR), default=Value("")
            )
        )
        .first()
    )
    if user is None:
        raise NotFound(
            f"no user {external_id!r} for this host", field="user", code="user_not_found"
        )
    return user


def end_users_for_host(*, host: Host) -> QuerySet[User]:
    return User.objects.filter(host=host, role=Role.END_USER, deleted_at__isnull=True)


def end_user_get_for_host(*, host: Host, user_id: str) -> User:
    """By our id, for the staff pages (an erased user's page still opens)."""
    user = User.objects.filter(host=host, pk=user_id, role=Role.END_USER).first()
    if user is None:
        raise NotFound(f"no user {user_id!r} for this host", field="user", code="user_not_found")
    return user


def user_id_to_filter_by(*, host: Host, external_id: str | None) -> str | None:
    """For a list filtered by a user's external id: their id; an id no row
    has when the host has no such user (the list is empty, not an error);
    None when there is no filter."""
    if external_id is None:
        return None
    user = User.objects.filter(host=host, external_id=external_id).only("id").first()
    return user.id if user else _NO_SUCH_USER


def server_get_for_host(*, host: Host, server_id: str, include_removed: bool = False) -> McpServer:
    """``include_removed``: a removed server too (its history, re-enabling
    or revoking what it left behind)."""
    servers = McpServer.objects.filter(host=host, pk=server_id)
    if not include_removed:
        servers = servers.filter(deleted_at__isnull=True)
    server = servers.first()
    if server is None:
        raise NotFound(
            f"no server {server_id!r} for this host", field="server", code="server_not_found"
        )
    return server


def servers_for_host(*, host: Host):
    host_id = host.id
    return McpServer.objects.filter(host_id=host_id, deleted_at__isnull=True)


def audit_entries_for_host(
    *,
    host: Host,
    kind: str | None = None,
    user_id: str | None = None,
    server_id: str | None = None,
    since=None,
    until=None,
    subscription_id: str | None = None,
    text: str | None = None,
):
    """The host's ledger with the contract's filters; ``kind`` matches a prefix
    when it ends with '.' or '*' (``consent.`` = every consent change);
    ``text`` searches the summaries (``ledger_search``)."""
    host_id = host.id
    entries = AuditEntry.objects.filter(host_id=host_id)
    if subscription_id:
        entries = entries.filter(subject_type="subscription", subject_id=subscription_id)
    if text:
        entries = ledger_search(entries, text)
    if kind:
        if kind.endswith(("*", ".")):
            entries = entries.filter(kind__startswith=kind.rstrip("*"))
        else:
            entries = entries.filter(kind=kind)
    if user_id is not None:
        entries = entries.filter(user_id=user_id)
    if server_id:
        entries = entries.filter(server_id=server_id)
    if since:
        entries = entries.filter(at__gte=since)
    if until:
        entries = entries.filter(at__lt=until)
    return entries


def ledger_search(entries, text: str):
    """Summaries that match every word of ``text``. PostgreSQL: full-text
    search (web-search syntax: "quoted phrases", -excluded words) on the
    ``audit_summary_fts`` index; other databases: each word as a substring."""
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVector

        return entries.annotate(_summary_search=SearchVector("summary", config="simple")).filter(
            _summary_search=SearchQuery(text, config="simple", search_type="websearch")
        )
    for word in text.split():
        entries = entries.filter(summary__icontains=word)
    return entries


def audit_entries_for_user(*, user: User):
    return AuditEntry.objects.filter(host_id=user.host_id, user_id=user.id)


def api_keys_for_host(*, host: Host):
    host_id = host.id
    return ApiKey.objects.filter(host_id=host_id).order_by("revoked_at", "-created_at")


def api_key_get_for_host(*, host: Host, key_id: str) -> ApiKey:
    host_id = host.id
    key = ApiKey.objects.filter(host_id=host_id, pk=key_id).first()
    if key is None:
        raise NotFound(f"no API key {key_id!r} for this host", field="key")
    return key
