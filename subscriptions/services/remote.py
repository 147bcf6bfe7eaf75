"""Calls to the MCP server (through ``switchboard.mcp``, never hand-rolled) and
what each failure means for a subscription.

Error table (docs/events-client.md §6 and, for the dialects,
docs/events-client.md §8). The codes are the ChatGPT dialect's; a SEP-3415 server's -32023…-32027
mean the same five errors (``switchboard.mcp.dialects``), and a code of the
other dialect is logged as unexpected, never guessed at. ``retry``
means: keep the status, back off (SUBSCRIPTION_RETRY_BASE doubling up to
SUBSCRIPTION_RETRY_MAX, always before ``refreshBefore``), try again.

====================================  ==============  =================================
Error                                 Outcome         Message shown on the subscription
====================================  ==============  =================================
-32602 InvalidParams                  failed          the server rejected the request's
                                                      parameters (not retried unchanged)
-32011 NotFound ``kind: event``       failed          the server no longer offers this
                                                      event type
-32011 NotFound (other) / -32016      retry           the server did not find the
                                                      subscription; subscribing again
-32012 Forbidden                      failed, or      the server refused access
                                      terminated if   (``data.reason``); no blind retry
                                      it was running
-32013 ResourceExhausted              retry (backoff) the server's quota is reached
                                                      (``data.limit``/``max``)
-32014 Unsupported deliveryMode       failed          the server does not offer webhook
                                                      delivery for it
-32014 Unsupported schema_changed     failed          the event type changed; subscribe
                                                      again after the server is re-synced
-32014 "CursorExpired" (older draft)  retry now,      the cursor expired; resubscribed
                                      cursor null,    from now and a gap is recorded
                                      gap flagged
-32015 CallbackEndpointError          retry (backoff) our receiver failed the server's
                                                      check (``data.reason``, e.g.
                                                      challenge_failed)
other JSON-RPC errors (-32603, …)     retry           the server reported an error
timeout, connection_refused,          retry           the server could not be reached
http_5xx, tls_error, protocol
http_4xx                              retry           the server answered HTTP 4xx
blocked_target                        failed          the server's address is not allowed
====================================  ==============  =================================
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from consent.enforce import ALLOWED, OutboundRefused, Verdict, outbound_check_async
from switchboard.mcp import (
    McpCallError,
    McpSession,
    McpSyncClient,
    McpTarget,
    dialects,
    with_session,
)
from switchboard.mcp.dialects import EventsError as E
from switchboard.mcp.wire import EventsPollResult, EventsSubscribeResult
from switchboard.models import McpServer, User
from switchboard.selectors.mcp_targets import mcp_target_for

log = logging.getLogger(__name__)

Outcome = Literal["failed", "terminated", "retry", "retry_from_now"]

# CallbackEndpointError reasons of both dialects (docs/events-client.md §8).
CALLBACK_REASONS = frozenset(
    {
        "challenge_failed",
        "timeout",
        "connection_failed",
        "connection_refused",
        "tls_error",
        "dns_failure",
        "blocked_address",
        "insecure_url",
        "invalid_url",
    }
)


@dataclass(frozen=True)
class Reaction:
    outcome: Outcome
    error: str  # the stable category stored in ``last_error``
    message: str  # human text stored in ``last_error_message``


def _data(exc: McpCallError) -> dict[str, Any]:
    return exc.data if isinstance(exc.data, dict) else {}


def _short(value: Any, limit: int = 80) -> str:
    return str(value)[:limit]


def reaction_for(exc: McpCallError, *, running: bool, dialect: str) -> Reaction:
    """Map one failed events/subscribe to what happens to the subscription.
    Codes are read in the server's dialect (``switchboard.mcp.dialects``):
    one vocabulary, two numberings."""
    data = _data(exc)
    if exc.category == "blocked_target":
        return Reaction("failed", "blocked_target", "The server's address is not allowed.")
    # A JSON-RPC error counts by its code, whether it came with HTTP 200 or
    # with an HTTP error status (the layer then says http_4xx/http_5xx).
    if exc.code is None:
        if exc.category == "http_4xx":
            return Reaction("retry", "http_4xx", f"The server answered HTTP {exc.http_status}.")
        if exc.category == "protocol":
            return Reaction(
                "retry",
                "protocol",
                f"The server's answer could not be used: {_short(exc.message, 300)}",
            )
        return Reaction("retry", exc.category, "The server could not be reached; retrying.")
    code = exc.code
    kind = dialects.classify(code, dialect=dialect, method=exc.method)
    if _names_an_unknown_event(exc, kind, dialect):
        # A ChatGPT-dialect server's way of saying NotFound ``kind: event``.
        return Reaction("failed", "event_not_found", "The server no longer offers this event type.")
    if kind == E.INVALID_PARAMS:
        return Reaction(
            "failed",
            "invalid_params",
            f"The server rejected the parameters: {_short(exc.message, 200)}",
        )
    if kind == E.NOT_OFFERED:
        return Reaction("failed", "events_not_offered", "The server offers no events (-32601).")
    if kind == E.NOT_FOUND and data.get("kind") == "event":
        return Reaction("failed", "event_not_found", "The server no longer offers this event type.")
    if kind == E.NOT_FOUND:
        return Reaction(
            "retry", "subscription_not_found", "The server did not find it; subscribing again."
        )
    if kind == E.FORBIDDEN:
        reason = _short(data.get("reason") or "forbidden")
        return Reaction(
            "terminated" if running else "failed",
            "forbidden",
            f"The server refused access ({reason}).",
        )
    if kind == E.RESOURCE_EXHAUSTED:
        limit = _short(data.get("limit") or "quota")
        return Reaction(
            "retry", "resource_exhausted", f"The server's {limit} limit is reached; backing off."
        )
    if kind == E.UNSUPPORTED:
        if "cursorexpired" in exc.message.replace(" ", "").lower():
            return Reaction(
                "retry_from_now", "cursor_expired", "The cursor expired; resubscribed from now."
            )
        if data.get("reason") == "schema_changed":
            return Reaction("failed", "schema_changed", "The event type changed on the server.")
        return Reaction(
            "failed",
            "unsupported_delivery_mode",
            "The server does not offer webhook delivery for this event type.",
        )
    if kind == E.CALLBACK_ENDPOINT:
        # docs/events-client.md §8: an unknown reason counts as connection_refused.
        given = data.get("reason")
        reason = given if given in CALLBACK_REASONS else "connection_refused"
        return Reaction(
            "retry", reason, f"The server could not verify or reach our receiver ({reason})."
        )
    if kind == E.MISSING_CLIENT_CAPABILITY:
        needed = data.get("requiredCapabilities")
        return Reaction(
            "failed",
            "missing_client_capability",
            "The server requires client capabilities Switchboard does not offer: "
            f"{_short(needed, 200) if needed else 'unnamed'}.",
        )
    if kind == E.UNSUPPORTED_PROTOCOL_VERSION:
        return Reaction(
            "retry",
            "unsupported_protocol_version",
            "The server no longer speaks this protocol version; reading what it supports again.",
        )
    if kind == E.HEADER_MISMATCH:
        return Reaction(
            "retry", "header_mismatch", "The server says our request headers do not match (-32020)."
        )
    if kind == E.UNEXPECTED:
        return Reaction(
            "retry",
            "unexpected_error",
            f"The server answered error {code}, which its {dialect or 'events'} dialect does not "
            "define; logged, not interpreted.",
        )
    return Reaction(
        "retry", "server_error", f"The server reported an error: {_short(exc.message, 200)}"
    )


def target_for(*, user: User, server: McpServer) -> McpTarget:
    """The user's own credentials for the server if they have some, else the
    server's host-level headers: the principal the server keys us by."""
    return mcp_target_for(user_id=user.id, server=server)


def refusal(refused: OutboundRefused) -> Reaction:
    """A call the consent check stopped because consent could not be read:
    nothing was sent; the subscription keeps its status and tries again."""
    return Reaction("retry", refused.verdict.reason, refused.verdict.message)


async def _consent_still_live(grant_id: str) -> None:
    """``consent.enforce`` once the session is open, right before the request
    is sent: opening a session takes round trips, during which consent may
    have been revoked or the server blocked. Raises ``OutboundRefused`` (its
    verdict says why), and then nothing is sent. On a thread and connection
    of its own: this runs in the loop ``with_session`` starts for a task."""
    verdict = await outbound_check_async(grant_id=grant_id, own_connection=True)
    if not verdict.allowed:
        raise OutboundRefused(verdict)


# MCPE tool calls that hand the server what the user asked for; pause and
# unsubscribe only stop deliveries, and must go even once consent is gone.
_CARRIES_USER_DATA = frozenset({"subscribe", "update", "resume"})


async def events_step_verdict(action: str, user_id: str, server_id: str) -> Verdict:
    """For an MCPE tool call on an open session, right before it is sent:
    ``consent.enforce`` for the user's ``events`` consent on the server."""
    if action not in _CARRIES_USER_DATA:
        return ALLOWED
    verdict = await outbound_check_async(
        user_id=user_id, server_id=server_id, scope="events", own_connection=True
    )
    if not verdict.allowed:
        log.info("MCPE %s for %s on %s not sent: %s", action, user_id, server_id, verdict.reason)
    return verdict


async def events_step_allowed(action: str, user_id: str, server_id: str) -> bool:
    """``events_step_verdict``, only whether the call may leave."""
    return (await events_step_verdict(action, user_id, server_id)).allowed


def remote_subscribe(
    *,
    target: McpTarget,
    name: str,
    arguments: dict[str, Any],
    url: str,
    secret: str,
    cursor: str | None,
    max_age_ms: int | None,
    ttl_ms: int | None,
    grant_id: str,
) -> EventsSubscribeResult:
    """events/subscribe (also the refresh), on the authority of ``grant_id``,
    checked once the session is open. Raises ``McpCallError``, or
    ``OutboundRefused`` when nothing was sent."""

    async def call(session: McpSession) -> EventsSubscribeResult:
        await _consent_still_live(grant_id)
        return await session.subscribe(
            name=name,
            arguments=arguments,
            url=url,
            secret=secret,
            cursor=cursor,
            max_age_ms=max_age_ms,
            ttl_ms=ttl_ms,
        )

    return with_session(target, call)


def remote_poll(
    *,
    target: McpTarget,
    name: str,
    arguments: dict[str, Any],
    cursor: str | None,
    max_age_ms: int | None,
    max_events: int | None,
    grant_id: str,
) -> EventsPollResult:
    """events/poll (no ``timeoutMs``: SEP-3415 §"Poll-Based Delivery" has none),
    on the authority of ``grant_id``, checked once the session is open.
    Raises ``McpCallError``, or ``OutboundRefused`` when nothing was sent."""

    async def call(session: McpSession) -> EventsPollResult:
        await _consent_still_live(grant_id)
        return await session.poll(
            name=name,
            arguments=arguments,
            cursor=cursor,
            max_age_ms=max_age_ms,
            max_events=max_events,
        )

    return with_session(target, call)


def remote_unsubscribe(
    *, target: McpTarget, name: str, arguments: dict[str, Any], url: str
) -> None:
    """events/unsubscribe. Raises ``McpCallError``; see ``already_gone``."""
    McpSyncClient(target).unsubscribe(name=name, arguments=arguments, url=url)


def _names_an_unknown_event(exc: McpCallError, kind: E, dialect: str) -> bool:
    return (
        kind == E.INVALID_PARAMS
        and dialect == dialects.CHATGPT
        and "unknown event" in exc.message.lower()
    )


def already_gone(exc: McpCallError, *, dialect: str) -> bool:
    """An unsubscribe error that means success (docs/events-client.md §7; case 51): NotFound in
    either numbering, and on a ChatGPT-dialect server a -32602 that names an
    unknown event (it forgets subscriptions of event types it no longer lists)."""
    if exc.code is None:
        return False
    kind = dialects.classify(exc.code, dialect=dialect, method=exc.method)
    return kind == E.NOT_FOUND or _names_an_unknown_event(exc, kind, dialect)
