"""The host's policy on MCPE handlers (docs/host-integration.md ``handler``).

An MCPE subscription may carry a handler that the *server* runs when events
arrive: a bash command, an agent prompt, or a webhook. The console passes
one on only when the policy allows that type, and records every decision
in the ledger, allowed or refused:

- ``bash``: never, unless staff switched bash handlers on for that server
  (``McpServer.mcpe_bash_handlers``, with a warning on its page); else 403
  ``handler_not_allowed``.
- ``webhook``: only to an ``https`` URL whose every address passes the
  outbound checks with private ranges refused whatever
  ALLOW_PRIVATE_TARGETS says (the server would call it: a private address
  would reach into its network); else 422 naming ``handler.url``.
- ``agent``: only under the user's live ``events`` grant whose consent page
  showed that very handler (a consent request's ``handlers``; compared by
  the fields the user saw, ``agent_handler_normal``); else 403
  ``handler_not_allowed``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from consent.models import Scope
from consent.selectors import grant_is_live
from switchboard.actors import Actor
from switchboard.errors import Forbidden, Invalid
from switchboard.mcp import BlockedTarget, check_url
from switchboard.mcp.mcpe import agent_handler_normal
from switchboard.models import McpServer, User
from switchboard.services.audit import audit_record

KINDS = ("bash", "agent", "webhook")
MAX_TEXT = 2000


def handler_check(
    *, handler: dict[str, Any] | None, server: McpServer, user: User, actor: Actor
) -> dict[str, Any]:
    """The handler as it may be passed on ({} for none), or the refusal."""
    if not handler:
        return {}
    kind = handler.get("type")
    if kind not in KINDS:
        raise Invalid("must be bash, agent or webhook", field="handler.type")
    try:
        checked = _check(kind, handler, server, user)
    except (Forbidden, Invalid) as refusal:
        _record(server, user, actor, kind, allowed=False, reason=refusal.message)
        raise
    _record(server, user, actor, kind, allowed=True, reason="")
    return checked


def _check(kind: str, handler: dict[str, Any], server: McpServer, user: User) -> dict[str, Any]:
    if kind == "bash":
        if not server.mcpe_bash_handlers:
            raise Forbidden(
                f"bash handlers are off for {server.name}; staff can switch them on "
                "on the server's page",
                field="handler.type",
                code="handler_not_allowed",
            )
        command = handler.get("command")
        if not isinstance(command, str) or not command.strip() or len(command) > MAX_TEXT:
            raise Invalid("a bash handler needs a command", field="handler.command")
        return _known(handler, ("type", "command", "args", "input", "cwd", "env", "timeout"))
    if kind == "webhook":
        url = handler.get("url")
        if not isinstance(url, str) or urlsplit(url).scheme != "https":
            raise Invalid("a webhook handler needs an https URL", field="handler.url")
        try:
            check_url(url, allow_private=False)
        except BlockedTarget as blocked:
            raise Invalid(
                f"the handler's URL is refused: {blocked.message}",
                field="handler.url",
                code="blocked_target",
            ) from None
        return _known(handler, ("type", "url", "headers", "timeout"))
    agent = agent_handler_normal(handler) or {}
    grant = grant_is_live(user=user, server_id=server.id, scope=Scope.EVENTS)
    shown = (grant.approved_shown or {}).get("handlers", []) if grant is not None else []
    if agent not in shown:
        raise Forbidden(
            "this agent handler was not shown to the user when they gave consent; ask "
            "again with it in the consent request's handlers",
            field="handler",
            code="handler_not_allowed",
        )
    return agent


def _known(handler: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in handler.items() if k in keys}


def _record(
    server: McpServer, user: User, actor: Actor, kind: str, *, allowed: bool, reason: str
) -> None:
    audit_record(
        host_id=server.host_id,
        kind="subscription.handler_allowed" if allowed else "subscription.handler_refused",
        actor=actor,
        user=user,
        server_id=server.id,
        subject_type="server",
        subject_id=server.id,
        summary=f"A {kind} handler for {server.name} was "
        + ("allowed" if allowed else f"refused: {reason}"),
        detail={"handler_type": kind, "allowed": allowed, "reason": reason},
    )
