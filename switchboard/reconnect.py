"""Writing down something that already happened outside (a POST answered, a
message sent to a server) while the database connection may be going away
under us: a terminated backend, a failover, a pool momentarily out of
connections.

Such a write cannot simply fail: what it records happened, and leaving it
unrecorded means it is done twice or goes missing from the audit trail. So it
is tried again on a fresh connection, a few times over several seconds.
Only lost connections are retried; any other error is the write's own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.db import InterfaceError, OperationalError, connection

log = logging.getLogger(__name__)

# Pauses before each try (seconds): about 8 s in all, which outlasts a
# backend termination, a burst of them (docs/reliability.md row 3) and a pool refilling.
RECONNECT_PAUSES = (0.0, 0.2, 0.5, 1.0, 2.0, 4.0)


class StillDisconnected(OperationalError):
    """Every try lost its connection (the last error is the cause). Still an
    ``OperationalError``, so whatever treats a lost database as one (task
    retries, the API's 500) goes on doing so."""


def surviving_reconnects[T](
    write: Callable[[], T], *, what: str, pauses: tuple[float, ...] = RECONNECT_PAUSES
) -> T:
    """``write()``, tried again on a fresh connection while the database
    connection keeps failing; ``StillDisconnected`` once ``pauses`` run out.

    ``write`` must be safe to run again after a try whose commit went through
    but whose answer was lost (ids chosen before the first try, conditional
    updates)."""
    last: Exception | None = None
    for pause in pauses:
        time.sleep(pause)
        try:
            return write()
        except (OperationalError, InterfaceError) as error:
            last = error
            log.warning("%s: the database connection failed; reconnecting", what, exc_info=True)
            # The broken connection goes back to the pool, which discards
            # it; the next statement takes a fresh one.
            connection.close()
    raise StillDisconnected(what) from last
