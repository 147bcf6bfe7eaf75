"""Step 1: consent, preferences and the priority policy (``select``), and
template rendering of the admitted few (``render``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hooks.engine.compiled import CompiledHook, ServerHooks
from hooks.engine.facts import EventFacts, substitute, substitute_args
from hooks.engine.results import Candidate, Suppression

PRIORITIES = ("suggestion", "important", "required")
_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}


@dataclass(frozen=True, slots=True)
class Permissions:
    """What the user (and the host's policy) decided, loaded in bulk per call.

    ``approved``: server id -> hook ids of its live ``hooks`` grant (a server
    without an entry has no live grant). ``approved_as_required``: the subset
    approved with the ``required`` priority the user was shown. ``muted`` /
    ``caps``: preferences keyed ``(server_id, hook_id)``, ``hook_id == ""``
    meaning every hook of that server. ``blocked_servers``: servers the
    host's policy excludes. ``context_tools_trusted_only``: the host runs
    only static ``context`` hooks for servers it has not marked trusted.
    """

    approved: Mapping[str, frozenset[str]] = field(default_factory=dict)
    approved_as_required: Mapping[str, frozenset[str]] = field(default_factory=dict)
    muted: frozenset[tuple[str, str]] = frozenset()
    caps: Mapping[tuple[str, str], str] = field(default_factory=dict)
    blocked_servers: frozenset[str] = frozenset()
    required_trusted_only: bool = True
    context_tools_trusted_only: bool = False


def effective_priority(
    *,
    declared: str,
    trusted: bool,
    approved_as_required: bool,
    user_cap: str | None = None,
    required_trusted_only: bool = True,
) -> tuple[str, tuple[str, ...]]:
    """The priority the host should give a firing, and why it differs.

    ``required`` stands only for a trusted server (unless the host's policy
    waives trust) whose declaration the user approved as required; otherwise
    it becomes ``important``. The user's cap then lowers any priority.
    """
    priority = declared
    why: list[str] = []
    if priority == "required":
        if required_trusted_only and not trusted:
            why.append("untrusted_server")
        if not approved_as_required:
            why.append("not_approved_as_required")
        if why:
            priority = "important"
    if user_cap is not None and _RANK.get(user_cap, 2) < _RANK[priority]:
        priority = user_cap
        why.append("user_downgrade")
    return priority, tuple(why)


Matched = list[tuple[ServerHooks, Sequence[CompiledHook]]]


def match(servers: Sequence[ServerHooks], facts: EventFacts) -> Matched:
    """Each server with the hooks that apply to this event (servers with
    none are left out), so callers can skip loading consent when nothing
    applies."""
    matched: Matched = []
    for server in servers:
        hooks = server.hooks_for(facts)
        if hooks:
            matched.append((server, hooks))
    return matched


def select(
    servers: Sequence[ServerHooks], facts: EventFacts, permissions: Permissions
) -> tuple[list[Candidate], list[Suppression]]:
    """The hooks that apply to this event, ordered, with the suppressions
    decided by consent, policy and preferences. Texts are not rendered yet."""
    return select_matched(match(servers, facts), permissions)


def select_matched(
    matched: Matched, permissions: Permissions
) -> tuple[list[Candidate], list[Suppression]]:
    """``select`` over hooks already matched (``match``)."""
    candidates: list[Candidate] = []
    suppressed: list[Suppression] = []
    muted = permissions.muted
    caps = permissions.caps
    trusted_only = permissions.required_trusted_only
    tools_need_trust = permissions.context_tools_trusted_only
    for server, hooks in matched:
        sid = server.server_id
        approved = permissions.approved.get(sid)
        if sid in permissions.blocked_servers or approved is None:
            reason = "disabled_by_host" if sid in permissions.blocked_servers else "no_consent"
            suppressed.extend(Suppression(sid, hook.hook_id, reason) for hook in hooks)
            continue
        as_required = permissions.approved_as_required.get(sid, frozenset())
        server_muted = (sid, "") in muted
        server_cap = caps.get((sid, ""))
        has_caps = bool(caps)
        for hook in hooks:
            hid = hook.hook_id
            if hid not in approved:
                suppressed.append(Suppression(sid, hid, "not_approved"))
                continue
            if server_muted or (sid, hid) in muted:
                suppressed.append(Suppression(sid, hid, "muted"))
                continue
            if hook.context_tool is not None and tools_need_trust and not server.trusted:
                suppressed.append(Suppression(sid, hid, "context_tool_untrusted"))
                continue
            cap = _lower(caps.get((sid, hid)), server_cap) if has_caps else None
            if hook.priority == "required" or cap is not None:
                priority, why = effective_priority(
                    declared=hook.priority,
                    trusted=server.trusted,
                    approved_as_required=hid in as_required,
                    user_cap=cap,
                    required_trusted_only=trusted_only,
                )
            else:
                priority, why = hook.priority, ()
            candidates.append(
                Candidate(
                    hook,
                    server,
                    priority,
                    why,
                    (-_RANK[priority], server.priority, sid, hook.index),
                )
            )
    candidates.sort(key=_sort_key)
    return candidates, suppressed


def _sort_key(candidate: Candidate) -> tuple[int, int, str, int]:
    return candidate.sort_key


def render(candidates: Sequence[Candidate], facts: EventFacts) -> list[Candidate]:
    """Substitute the template variables of the (admitted) candidates."""
    if not candidates:
        return []
    variables = facts.variables()
    for candidate in candidates:
        hook = candidate.hook
        if hook.context_tool is not None:
            candidate.arguments = substitute_args(hook.context_tool_args or {}, variables)
        else:
            candidate.text = substitute(hook.context or "", variables)
    return list(candidates)


def _lower(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if _RANK.get(a, 2) <= _RANK.get(b, 2) else b
