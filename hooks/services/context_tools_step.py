"""The context-tool step of a lifecycle event: step 6 of ``lifecycle_event_handle``.

Which admitted hooks call a ``context_tool``, on which targets, and with
what readiness wait; the calls themselves are ``context_tools_call``
(``hooks.services.context_tools``). They take time, so consent is read
again after them and a revoke or mute that landed meanwhile wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.conf import settings

from consent.enforce import consent_readable
from hooks import engine
from hooks.engine import Candidate, Suppression
from hooks.selectors import permissions_for
from hooks.services.context_tools import ToolCall, context_tools_call
from hooks.services.lifecycle_data import Evaluation
from switchboard.models import McpServer, User
from switchboard.selectors.mcp_targets import mcp_targets_for


def context_tools_run(
    *, user: User, event: str, evaluation: Evaluation, servers: Mapping[str, McpServer]
) -> None:
    """Step 6: the admitted ``context_tool`` hooks, called concurrently on
    pooled sessions, each asking ``consent.enforce`` right before it leaves
    (``hooks.services.context_tools``). The calls took time: a revoke or a
    mute that landed meanwhile wins (consent read again)."""
    outcomes = context_tools_call(
        _tool_calls(user, evaluation.admitted, servers),
        timeout=settings.HOOK_CONTEXT_TOOL_TIMEOUT,
        ready_wait=_readiness_wait(event),
    )
    if not outcomes:
        return
    evaluation.tool_results = {k: v.result for k, v in outcomes.items()}
    evaluation.latencies = {k: v.latency_ms for k, v in outcomes.items()}
    host_id = servers[evaluation.admitted[0].hook.server_id].host_id
    with consent_readable():
        fresh = permissions_for(
            user=user, host_id=host_id, server_ids=[c.hook.server_id for c in evaluation.admitted]
        )
    evaluation.admitted, withdrawn = _still_allowed(evaluation.admitted, evaluation.matched, fresh)
    evaluation.suppressed.extend(withdrawn)


def _still_allowed(
    admitted: Sequence[Candidate], matched: engine.Matched, permissions: engine.Permissions
) -> tuple[list[Candidate], list[Suppression]]:
    """Keep the admitted candidates that fresh permissions still allow."""
    _, now_suppressed = engine.select_matched(matched, permissions)
    refused = {s.hook_id: s for s in now_suppressed}
    kept = [c for c in admitted if c.hook.hook_id not in refused]
    return kept, [refused[c.hook.hook_id] for c in admitted if c.hook.hook_id in refused]


def _tool_calls(
    user: User, admitted: Sequence[Candidate], servers: Mapping[str, McpServer]
) -> list[ToolCall]:
    wanted = [c for c in admitted if c.hook.context_tool is not None]
    if not wanted:
        return []
    timeout = settings.HOOK_CONTEXT_TOOL_TIMEOUT
    targets = mcp_targets_for(
        user_id=user.id,
        servers={servers[c.hook.server_id] for c in wanted if servers[c.hook.server_id].url},
        timeout=timeout,
    )
    calls = []
    for candidate in wanted:
        target = targets.get(candidate.hook.server_id)
        calls.append(
            ToolCall(
                hook_id=candidate.hook.hook_id,
                server_id=candidate.hook.server_id,
                user_id=user.id,
                target=target,
                name=candidate.hook.context_tool or "",
                arguments=candidate.arguments or {},
            )
        )
    return calls


def _readiness_wait(event: str) -> float:
    """How long a context tool's server still starting is waited for: at
    session start (servers start with the session), HOOK_READINESS_WAIT."""
    return settings.HOOK_READINESS_WAIT if event == "session_start" else 0.0
