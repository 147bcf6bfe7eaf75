"""The health check of psycopg's connection pool, without a round trip for
a connection used a moment ago.

psycopg's own ``check_connection`` (what Django passes with
CONN_HEALTH_CHECKS) sends an empty query every time a connection leaves
the pool: one more round trip on every request, for a connection that,
under load, served another request a few milliseconds ago. ``IdleCheck``
sends it only when

- the connection may have been idle longer than ``after`` seconds, when
  something between may have dropped it without a word (a NAT or a
  firewall forgetting it, a failover), or
- its socket has something to read although no query is running: a
  backend that ends (``pg_terminate_backend``, a server shut down or
  restarted) sends its FATAL error and closes the socket. Looking costs a
  ``poll`` with no wait, no round trip.

psycopg keeps no time of a connection's last use, and a ``reset``
callback (which could stamp the return) makes the pool hand connections
back through its worker thread. So the check stamps each connection when
it hands it out: the time since then is the time since its last return
plus how long it was last used, never less than its idle time, so a
connection idle past ``after`` is always checked (and one used for a long
time is sometimes checked early). A connection never handed out (new in
the pool) is checked the first time.

What neither catches: a connection lost silently (no FIN reached us)
within ``after`` of its last use fails the one request that takes it, as
it would between the check and the first query; the pool replaces a
connection returned broken.
"""

from __future__ import annotations

import select
from time import monotonic

import psycopg
from psycopg import Connection
from psycopg_pool import ConnectionPool

_STAMP = "_switchboard_handed_out_at"


class IdleCheck:
    """A ``check`` callable for psycopg_pool (``OPTIONS["pool"]["check"]``):
    ``ConnectionPool.check_connection`` for connections handed out last
    more than ``after`` seconds ago (or never), nothing for the others.
    ``after=0`` checks every time, as psycopg's own check does; a
    connection whose backend said something while idle (it ended) is
    checked whatever its age."""

    def __init__(self, after: float) -> None:
        self.after = after

    def __call__(self, conn: Connection) -> None:
        now = monotonic()
        # On the connection itself: it goes when the connection goes, and
        # one connection is in one thread's hands at a time.
        last: float | None = getattr(conn, _STAMP, None)
        if last is None or now - last >= self.after or _has_news(conn):
            # Raises for a dead connection: the pool discards it and tries
            # the next one (psycopg_pool's check loop); no stamp then.
            ConnectionPool.check_connection(conn)
        setattr(conn, _STAMP, now)

    def __repr__(self) -> str:
        return f"IdleCheck(after={self.after})"


def _has_news(conn: Connection) -> bool:
    """Whether the idle connection's socket can be read (data or the end of
    the stream) right now, without waiting: an idle backend sends nothing
    unless it ends (or a NOTIFY arrives, which only costs a check)."""
    if conn.closed:
        return True
    try:
        poller = select.poll()
        poller.register(conn.pgconn.socket, select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    except (OSError, psycopg.Error):
        # No socket to look at: let the round trip tell.
        return True
