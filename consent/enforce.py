"""The one check before a user's data leaves for an MCP server.

Every outbound call made on a user's consent asks it after its MCP session
is open and right before the request is sent:

- the conversation fan-out (``consent.fanout``: ``outbound_check_many``,
  one statement for the servers whose sessions are ready together);
- events subscribe and refresh (``subscriptions.services.refresh``, through
  ``subscriptions.services.remote``), polls (``subscriptions.services.poll``);
- push streams' ``events/stream`` (``subscriptions.services.push``, held by
  the session worker) and task sources' ``tasks/get``
  (``subscriptions.services.task_sources``);
- MCPE tool calls that carry the user's request (``events_subscribe``,
  ``events_update``, ``events_resume``: ``subscriptions.services.mcpe``, on
  the session the worker holds; a refused one is shown in its
  subscription's ``last_error``);
- hooks' context tools (``hooks.services.context_tools``).

Opening a session takes round trips (a slow server: seconds), during which a
revoke or a block may commit; what the caller read before it is stale by
then. A session already open and pooled has no such wait, and is asked all
the same: a revoke may commit between the caller's own read and the send.

What comes back is forwarded only while the check still passes: the
fan-out's answers (``consent.services.conversation``), context tools'
results (``hooks``), and a subscription's events, checked again when the
outbox sends them, or hands them to a host that pulls them
(``subscriptions.services.forwarding``, an ``outbox.gates`` gate:
``outbound_check_pairs``; ``outbox.services.rows.pulled_deliveries_check``).

The answer is one statement: the grant, still live, joined to its server,
neither blocked (the kill switch, or the host policy now denying it, which
blocks it: ``switchboard.services.server_block``) nor deleted. The grant row
is read with the lock a revoke takes (``FOR NO KEY UPDATE``, released at
once), so a revoke that is writing the row is waited for and its outcome
read, never the version from before it. Outside a transaction it is one
round trip too: the statement runs alone in autocommit, its own
transaction, not between a ``BEGIN`` and a ``COMMIT`` of their own
(``_locked_rows``).

Fail closed: when the consent store cannot be read (connection refused, pool
exhausted, table gone), the call does not leave, and the verdict says why
(``consent_unavailable``) so the host is told rather than left guessing.
Events whose consent cannot be read when they are sent wait and are tried
again (``outbox.gates``): not sent, not lost; a pull of them answers 503
``consent_unavailable`` and they stay to be pulled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import QuerySet

from consent.models import Grant
from switchboard.errors import Unavailable
from switchboard.reconnect import surviving_reconnects

log = logging.getLogger(__name__)

Reason = Literal["", "no_consent", "server_blocked", "consent_unavailable"]

# The reasons, in the words the host reads (a skipped server's ``reason``, a
# suppressed hook's ``reason``, a subscription's ``last_error``).
NO_CONSENT: Reason = "no_consent"
SERVER_BLOCKED: Reason = "server_blocked"
CONSENT_UNAVAILABLE: Reason = "consent_unavailable"

MESSAGES: dict[str, str] = {
    NO_CONSENT: "The user's consent was withdrawn before the call left; nothing was sent.",
    SERVER_BLOCKED: "The server is blocked; nothing was sent.",
    CONSENT_UNAVAILABLE: (
        "Consent could not be read (the consent store did not answer); nothing was sent."
    ),
}


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: Reason = ""

    @property
    def message(self) -> str:
        return MESSAGES.get(self.reason, "")


ALLOWED = Verdict(True)


class OutboundRefused(Exception):
    """Raised by callers that stop a call on a refusing verdict."""

    def __init__(self, verdict: Verdict):
        super().__init__(verdict.message)
        self.verdict = verdict


def outbound_check(
    *,
    grant_id: str | None = None,
    user_id: str | None = None,
    server_id: str | None = None,
    scope: str | None = None,
    hook_id: str | None = None,
) -> Verdict:
    """May a call on this consent leave now? Name the grant the caller read
    (``grant_id``: it must be that one, still live), or what it was read by
    (``user_id``, ``server_id``, ``scope``: some grant of them still live);
    ``hook_id``: a hook the grant must still approve."""
    if grant_id is None and None in (user_id, server_id, scope):
        raise TypeError("outbound_check needs grant_id, or user_id, server_id and scope")

    def read():
        grants = Grant.objects.live()
        if grant_id is not None:
            grants = grants.filter(pk=grant_id)
        else:
            grants = grants.filter(user_id=user_id, server_id=server_id, scope=scope)
        rows = _locked_rows(
            grants.order_by("pk")[:1].values_list(
                "approved_hook_ids", "server__blocked_at", "server__deleted_at"
            )
        )
        return rows[0] if rows else None

    try:
        row = _surviving_lost_connections(read)
    except Exception:
        # Whatever stops the read (the database down, the pool exhausted, a
        # lock that never ends) stops the call: no consent read, no send.
        log.warning("consent could not be read for %s on %s", user_id, server_id, exc_info=True)
        return Verdict(False, CONSENT_UNAVAILABLE)
    if row is None:
        return Verdict(False, NO_CONSENT)
    approved, blocked_at, deleted_at = row
    if blocked_at is not None or deleted_at is not None:
        return Verdict(False, SERVER_BLOCKED)
    if hook_id is not None and hook_id not in (approved or ()):
        return Verdict(False, NO_CONSENT)
    return ALLOWED


def outbound_check_many(*, grant_ids: Sequence[str]) -> dict[str, Verdict]:
    """``outbound_check`` for several grants the caller read, in the one
    statement: for answers received on their authority and not forwarded
    yet (a revoke or a block between receipt and forward stops them)."""
    if not grant_ids:
        return {}

    def read():
        return _locked_rows(
            Grant.objects.live()
            .filter(pk__in=list(grant_ids))
            .values_list("pk", "server__blocked_at", "server__deleted_at")
        )

    try:
        rows = _surviving_lost_connections(read)
    except Exception:
        log.warning("consent could not be read for %d grants", len(grant_ids), exc_info=True)
        return dict.fromkeys(grant_ids, Verdict(False, CONSENT_UNAVAILABLE))
    live = {
        pk: ALLOWED if blocked is None and deleted is None else Verdict(False, SERVER_BLOCKED)
        for pk, blocked, deleted in rows
    }
    return {grant_id: live.get(grant_id, Verdict(False, NO_CONSENT)) for grant_id in grant_ids}


def outbound_check_pairs(
    *, pairs: Collection[tuple[str, str]], scope: str
) -> dict[tuple[str, str], Verdict]:
    """``outbound_check`` for several (user id, server id) of one scope, in
    one statement: for what was received on their consent and is about to
    be forwarded (a subscription's events, when the outbox sends them)."""
    if not pairs:
        return {}

    def read():
        return _locked_rows(
            Grant.objects.live()
            .filter(
                scope=scope,
                user_id__in={user for user, _ in pairs},
                server_id__in={server for _, server in pairs},
            )
            .values_list("user_id", "server_id", "server__blocked_at", "server__deleted_at")
        )

    try:
        rows = _surviving_lost_connections(read)
    except Exception:
        log.warning("consent could not be read for %d pairs", len(pairs), exc_info=True)
        return dict.fromkeys(pairs, Verdict(False, CONSENT_UNAVAILABLE))
    live = {
        (user, server): ALLOWED
        if blocked is None and deleted is None
        else Verdict(False, SERVER_BLOCKED)
        for user, server, blocked, deleted in rows
    }
    return {pair: live.get(pair, Verdict(False, NO_CONSENT)) for pair in pairs}


def _locked_rows(grants: QuerySet[Grant, tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows of ``grants`` (a ``values_list``), the grant rows read with
    the lock a revoke takes, in one round trip.

    In autocommit PostgreSQL runs a statement as its own transaction: the
    lock is taken, waited for if a revoke holds it, and released when the
    statement ends, as it was between an explicit ``BEGIN`` and ``COMMIT``,
    which are a round trip each. Django refuses to compile ``FOR UPDATE``
    in autocommit, so autocommit is off while the SQL is compiled, nothing
    run (psycopg sends no ``BEGIN`` before a statement, and none comes),
    then the SQL is run in autocommit and its rows converted as the ORM
    would.
    Inside the caller's transaction it is read there, in a savepoint."""
    locked = grants.select_for_update(no_key=True, of=("self",))
    if connection.in_atomic_block or not connection.features.has_select_for_update:
        # SQLite: its transaction (BEGIN IMMEDIATE) waits for a writer, as
        # the lock does; it is in process, no round trip.
        with transaction.atomic():
            return list(locked)
    compiler = locked.query.get_compiler(connection=connection)
    connection.set_autocommit(False)
    try:
        sql, params = compiler.as_sql()
    finally:
        connection.set_autocommit(True)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
    return [tuple(row) for row in compiler.results_iter(results=[fetched], tuple_expected=True)]


class _StoreAnswered(Exception):
    """The database answered with an error: not a lost connection."""


def _surviving_lost_connections[T](read: Callable[[], T]) -> T:
    """``read()``, tried again on a fresh connection when the one it used was
    lost (PostgreSQL terminated the backend): a drop is not an unreadable
    store, and failing closed on it would refuse, or drop the answer to, a
    message a server may already have received. An error the database
    answered with (a missing table, a lock timeout) is not retried."""

    def once() -> T:
        try:
            return read()
        except (OperationalError, InterfaceError) as error:
            if not _connection_lost(error):
                raise _StoreAnswered(str(error)) from error
            raise

    return surviving_reconnects(once, what="reading consent")


def _connection_lost(error: Exception) -> bool:
    """The connection itself is gone, as opposed to an error the database
    answered with: psycopg marks a connection the server closed as broken,
    and a backend terminated by an administrator (or a server shutting down)
    answers SQLSTATE 57P01-57P03; class 08 is a connection exception; and
    an error PostgreSQL itself sent always has a SQLSTATE, so one without
    is the client losing the connection ("consuming input failed")."""
    raw = connection.connection
    if raw is None or getattr(raw, "broken", False) or getattr(raw, "closed", False):
        return True
    if connection.vendor != "postgresql":
        return False
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(("08", "57P"))


@contextmanager
def consent_readable() -> Iterator[None]:
    """Around a read of consent whose failure must stop the call and say
    why: 503 ``consent_unavailable`` (nothing was sent), not a bare 500."""
    try:
        yield
    except DatabaseError as error:
        log.warning("consent could not be read", exc_info=True)
        raise Unavailable(MESSAGES[CONSENT_UNAVAILABLE], code=CONSENT_UNAVAILABLE) from error


def _on_own_connection(**kwargs: str | None) -> Verdict:
    """The check on a short-lived thread: its connection goes back (to the
    pool, or closed) with it, never left behind on a thread that lingers."""
    try:
        return outbound_check(**kwargs)
    finally:
        connection.close()


async def outbound_check_many_async(*, grant_ids: Sequence[str]) -> dict[str, Verdict]:
    """``outbound_check_many`` from an event loop, on Django's thread for
    sync work (the request's connection, as the caller's own reads)."""
    return await sync_to_async(outbound_check_many)(grant_ids=grant_ids)


async def outbound_check_async(*, own_connection: bool = False, **names: str | None) -> Verdict:
    """The same from an event loop. By default on Django's thread for sync
    work (the request's connection, as the caller's own reads);
    ``own_connection``: on a short-lived thread of its own, for code that
    runs its loop outside any request (a task's ``asyncio.run``)."""
    if own_connection:
        return await sync_to_async(_on_own_connection, thread_sensitive=False)(**names)
    return await sync_to_async(outbound_check)(**names)
