"""What the ``consent.enforce`` tests (``test_enforce_*.py``) share.
``consent.enforce`` is the one check before a user's data leaves, on every
outbound path; the tests drive each path against the reference MCP server
over Streamable HTTP and the test database, through three faults, at the
moment they matter:

- **a revoke committed while the session opens**: the reference server is
  slowed where the race is widest (``server/discover``, ``initialize``); a
  thread of the test, with a database connection of its own, commits the
  revoke once the server has seen the session opening. Nothing may reach the
  server after it.
- **the consent store unreachable**: at the same point the grant table is
  renamed away from another connection (the store still answers for
  everything else, so only consent is missing) and put back afterwards.
  Nothing may leave, and the host is told why.
- **a block between receipt and forward**: the server's answer (a reply, a
  tool result) or an event is in our hands and not yet with the host when
  the kill switch is thrown (or the grant's expiry passes, which nothing
  withdraws). It must not be forwarded; events are checked again when the
  outbox sends them (``test_enforce_forward.py``, every receiving path:
  webhook, poll, push, MCPE notifications).

The paths, a module each: the check itself (``test_enforce_check.py``), the
fan-out, also on a session already open (``test_enforce_fanout.py``), hooks'
context tools (``test_enforce_context_tools.py``), subscribe and refresh,
poll, push (``events/stream``, the session worker's hold run in this
process) and task sources (``tasks/get``) (``test_enforce_events.py``), MCPE
tool calls (the session worker's hold run in this process; the MCPE server
holds a call in hand, ``/control/mcpe/delay``, while the fault strikes:
``test_enforce_mcpe.py``), forwarding (``test_enforce_forward.py``), and pull
delivery (tests/subscriptions/test_pull_consent.py). Each test names its path.

Here: the hook points, the faults, and the reads of what the server was sent.
The fixtures the modules share (``ref``, ``store``, ``events_grant``) are in
this directory's conftest.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection

from consent.models import Grant
from consent.services import grant_revoke
from outbox.models import DeliveryStatus, HostDelivery
from subscriptions.models import Mode
from switchboard.actors import Actor
from switchboard.services.server_block import server_block
from tests.subscriptions.support import SYSTEM, make_subscription, wait_for

SESSION_OPEN = ("server/discover", "initialize")
SLOW_MS = 1500


# --- the hook points ------------------------------------------------------------------


def _requests(refserver, *methods: str) -> int:
    received = refserver.control("GET", "received?kinds=requests")["requests"]
    return sum(1 for r in received if r["method"] in methods)


def _slow(refserver, *methods: str, delay_ms: int = SLOW_MS) -> None:
    for method in methods:
        refserver.control("POST", "behaviour", {"method": method, "delay_ms": delay_ms})


@contextmanager
def meanwhile(when: Callable[[], bool], action: Callable[[], None]) -> Iterator[None]:
    """Run ``action`` on a thread of its own (its own database connection,
    so what it does is committed) as soon as ``when()`` holds, while the
    body runs."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            wait_for(when, timeout=30, interval=0.02, message="the hook point")
            action()
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        yield
    finally:
        thread.join(timeout=60)
    if errors:
        raise errors[0]


def while_session_opens(refserver, action: Callable[[], None]):
    """``meanwhile``: once the server has seen a session start opening."""
    _slow(refserver, *SESSION_OPEN)
    before = _requests(refserver, *SESSION_OPEN)
    return meanwhile(lambda: _requests(refserver, *SESSION_OPEN) > before, action)


def while_answering(refserver, method: str, action: Callable[[], None]):
    """``meanwhile``: once the server has the request in hand (it answers
    ``SLOW_MS`` later): its answer is received after ``action``."""
    _slow(refserver, method)
    before = _requests(refserver, method)
    return meanwhile(lambda: _requests(refserver, method) > before, action)


def _revoke(grant: Grant) -> Callable[[], None]:
    return lambda: grant_revoke(grant=grant, actor=Actor.for_user(grant.user))


def _block(server) -> Callable[[], None]:
    return lambda: server_block(server=server, actor=SYSTEM)


def _message(tpersonas, message_id: str):
    return tpersonas.acme_api.post(
        "/conversations/enforce/messages",
        json={"user": "alice", "message_id": message_id, "content": "my secret plans"},
    )


def _messages_received(refserver) -> list[str]:
    return [
        m["messageId"]
        for m in refserver.control("GET", "received?kinds=userMessages")["userMessages"]
    ]


def _subscription(tpersonas, ref, *, status: str, mode: str = Mode.WEBHOOK, event=None):
    return make_subscription(
        tpersonas.alice,
        ref,
        event=event or ("ticket.created" if mode == Mode.POLL else "build.finished"),
        arguments={"project": "apollo"} if mode == Mode.POLL else None,
        status=status,
        mode=mode,
    )


def _unsent_events(sub) -> list[HostDelivery]:
    return list(
        HostDelivery.objects.filter(stream=sub.pk, type="event.received").exclude(
            status__in=[DeliveryStatus.FAILED, DeliveryStatus.DELIVERED]
        )
    )
