"""What a host may ask a user for: the scopes, event types (or, for an MCPE
server, patterns) and agent handlers of a request, checked against the host's
policy and what the server declares; and the fingerprint that makes two asks
"the same request"."""

from __future__ import annotations

import hashlib

from consent.models import Scope
from consent.selectors import host_policy_get
from consent.snapshots import canonical_json, current_event_types, current_hooks
from switchboard.errors import Forbidden, Invalid
from switchboard.mcp.mcpe import agent_handler_normal
from switchboard.models import Host, McpServer, User
from switchboard.patterns import PatternError, pattern_check


def request_fingerprint(
    user: User, server: McpServer, scopes: list[str], event_types: list[str]
) -> str:
    """The same user, server, scopes and event types: the same open request."""
    key = canonical_json([user.id, server.id, sorted(scopes), sorted(event_types)])
    return hashlib.sha256(key.encode()).hexdigest()


def request_scopes_check(
    *, host: Host, server: McpServer, scopes: list[str], event_types: list[str] | None
) -> tuple[list[str], list[str]]:
    """The scopes asked (sorted, once each) and the event types (or patterns)
    they cover; refuses what the policy or the server's declarations rule out."""
    if not scopes:
        raise Invalid("ask for at least one scope", field="scopes")
    unknown = [s for s in scopes if s not in Scope.values]
    if unknown:
        raise Invalid(
            f"unknown scope {unknown[0]!r}; scopes are {', '.join(Scope.values)}", field="scopes"
        )
    scopes = sorted(set(scopes))
    if not host_policy_get(host_id=host.id).allows_server(server.id):
        raise Forbidden(
            "this host's policy does not allow this server",
            field="server",
            code="server_not_allowed",
        )
    if Scope.CONVERSATION_READ in scopes and not server.conversation_events:
        raise Invalid(
            "this server does not ask for conversation events",
            field="scopes",
            code="scope_not_offered",
        )
    if Scope.HOOKS in scopes and not current_hooks(server):
        raise Invalid(
            "this server declares no valid hooks", field="scopes", code="scope_not_offered"
        )
    names: list[str] = []
    if event_types and Scope.EVENTS not in scopes:
        raise Invalid("event_types need the events scope", field="event_types")
    if Scope.EVENTS in scopes and (server.capabilities or {}).get("mcpe"):
        # An MCPE server lists no event types: the request names patterns
        # (github.*), and a subscription runs only under patterns covering its
        # filter (consent.selectors.events_grant_covering). None asked: all.
        names = sorted(set(event_types)) if event_types else ["*"]
        for index, name in enumerate(names):
            try:
                pattern_check(name)
            except PatternError as exc:
                raise Invalid(
                    f"{name!r} {exc}", field=f"event_types[{index}]", code="invalid_pattern"
                ) from None
        return scopes, names
    if Scope.EVENTS in scopes:
        offered = {et.name for et in current_event_types(server)}
        names = sorted(set(event_types)) if event_types else sorted(offered)
        missing = [n for n in names if n not in offered]
        if missing:
            raise Invalid(
                f"the server offers no event type {missing[0]!r}",
                field="event_types",
                code="unknown_event_type",
            )
        if not names:
            raise Invalid(
                "this server offers no event types", field="scopes", code="scope_not_offered"
            )
    return scopes, names


def request_handlers_check(
    *, server: McpServer, scopes: list[str], handlers: list[dict] | None
) -> list[dict]:
    """The agent handlers a request shows (MCPE servers, events scope only)."""
    if not handlers:
        return []
    if Scope.EVENTS not in scopes or not (server.capabilities or {}).get("mcpe"):
        raise Invalid("handlers are shown for the events scope of an MCPE server", field="handlers")
    agents = []
    for index, handler in enumerate(handlers):
        agent = agent_handler_normal(handler)
        if agent is None:
            raise Invalid(
                "only agent handlers are asked for here (bash and webhook handlers are "
                "the host's staff's policy)",
                field=f"handlers[{index}].type",
            )
        agents.append(agent)
    return agents
