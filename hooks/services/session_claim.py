"""A lifecycle event's session: steps 2 and 3 of ``lifecycle_event_handle``.

The first call of a session claims it for this host and user; it belongs
to at most one thread (``thread_claim``), whose servers are the union of
those listed for it. Every later call reads it back in one query and
changes nothing unless it lists a thread or servers the session lacks.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import IntegrityError, transaction

from hooks.models import LifecycleSession
from hooks.selectors import server_ids_for_host
from hooks.services.lifecycle_data import LifecycleInput
from hooks.services.threads import thread_baseline_schedule, thread_claim
from switchboard.errors import Conflict, Forbidden, NotFound
from switchboard.models import Host, McpServer, User
from switchboard.selectors import live_end_user, user_get_for_host
from switchboard.selectors.servers_cached import host_servers_cached


def session_claim(*, host: Host, data: LifecycleInput) -> tuple[LifecycleSession, User]:
    """Step 2: the session and its user, checked, claimed when this call
    changes it; servers new to its thread get their baseline snapshot."""
    known = _known_session(host=host, data=data)
    user = known.user if known else user_get_for_host(host=host, external_id=data.user)
    listed = _listed_servers(host=host, known=known, ids=data.servers)
    session, joined = _session_claim(
        host=host, user=user, data=data, server_ids=listed, known=known
    )
    if joined:
        thread_baseline_schedule(host_id=host.id, thread_id=session.thread_id, user=user)
    return session, user


def session_servers(*, host: Host, session: LifecycleSession) -> dict[str, McpServer]:
    """Step 3: the session's servers, from the process's copy while no server
    of the host has changed (only what evaluation needs: capabilities and
    encrypted headers stay in the database unless a context tool needs them)."""
    return host_servers_cached(host_id=host.id, ids=session.server_ids)


def _session_check(
    session: LifecycleSession, *, host: Host, user: User, data: LifecycleInput
) -> None:
    if session.host_id != host.id:
        raise NotFound(
            f"no session {data.session_id!r} for this host",
            field="session_id",
            code="session_not_found",
        )
    if session.user_id != user.id:
        raise Forbidden(
            "this session belongs to another user", field="user", code="session_user_mismatch"
        )
    if data.thread_id and session.thread_id and session.thread_id != data.thread_id:
        raise Conflict(
            f"this session belongs to thread {session.thread_id!r}",
            field="thread_id",
            code="session_thread_mismatch",
        )


def _known_session(*, host: Host, data: LifecycleInput) -> LifecycleSession | None:
    """The session with its user, in one read, when it is this host's and
    the named user's (the common case: every call after the first). Anything
    else goes the long way, where the errors are told apart."""
    return (
        LifecycleSession.objects.select_related("user")
        .filter(live_end_user(data.user, via="user"), session_id=data.session_id, host=host)
        .first()
    )


def _listed_servers(
    *, host: Host, known: LifecycleSession | None, ids: Sequence[str] | None
) -> list[str]:
    """The servers the call lists, checked to be the host's: those the
    session already has were checked when they were added."""
    wanted = list(dict.fromkeys(ids or []))
    if known is not None and all(sid in known.server_ids for sid in wanted):
        return wanted
    return server_ids_for_host(host=host, ids=wanted)


def _session_claim(
    *,
    host: Host,
    user: User,
    data: LifecycleInput,
    server_ids: list[str],
    known: LifecycleSession | None,
) -> tuple[LifecycleSession, list[str]]:
    """The session, checked; claimed (created, thread bound, servers added)
    when this call changes it. The common case — a known session, nothing
    new — is the read ``_known_session`` already made."""
    session = known or LifecycleSession.objects.filter(session_id=data.session_id).first()
    if session is not None:
        _session_check(session, host=host, user=user, data=data)
        unchanged = (not data.thread_id or session.thread_id == data.thread_id) and all(
            sid in session.server_ids for sid in server_ids
        )
        if unchanged:
            return session, []
    return _session_claim_locked(host=host, user=user, data=data, server_ids=server_ids)


@transaction.atomic
def _session_claim_locked(
    *, host: Host, user: User, data: LifecycleInput, server_ids: list[str]
) -> tuple[LifecycleSession, list[str]]:
    """Get (locked) or create the session, bind its thread, add servers.
    Returns it and the server ids new to its thread (they need a baseline
    snapshot)."""
    session = (
        LifecycleSession.objects.select_for_update(no_key=True)
        .filter(session_id=data.session_id)
        .first()
    )
    if session is None:
        try:
            with transaction.atomic():
                session = LifecycleSession.objects.create(
                    session_id=data.session_id, host=host, user=user, server_ids=[]
                )
        except IntegrityError:
            session = LifecycleSession.objects.select_for_update(no_key=True).get(
                session_id=data.session_id
            )
    _session_check(session, host=host, user=user, data=data)
    changed = []
    if data.thread_id and not session.thread_id:
        session.thread_id = data.thread_id
        changed.append("thread_id")
    new_servers = [sid for sid in server_ids if sid not in session.server_ids]
    if new_servers:
        session.server_ids = [*session.server_ids, *new_servers]
        changed.append("server_ids")
    if changed:
        session.save(update_fields=[*changed, "updated_at"])
    joined: list[str] = []
    if session.thread_id and changed:
        # The thread's servers are the union of those listed for it; a
        # session's calls are calls for its thread.
        joined = thread_claim(
            host_id=host.id, thread_id=session.thread_id, server_ids=session.server_ids
        )
    return session, joined
