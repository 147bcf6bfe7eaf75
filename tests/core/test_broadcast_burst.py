"""Live updates under a burst (ARCHITECTURE.md, *Live pages*): 1,000 lifecycle events as fast as
eight threads can record them, and a signed-in browser sees every one of
them arrive on its page's socket, with no broadcast error logged.

Regression: every write started its own send, so a burst opened Redis
connections up to the pool's limit and the rest failed with
``MaxConnectionsError`` (460 lifecycle calls: 300 dropped updates)."""

from __future__ import annotations

import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from hooks.models import LifecycleEvent
from hooks.services import LifecycleInput, lifecycle_event_handle
from switchboard.actors import Actor
from switchboard.broadcast import broadcast_idle
from switchboard.services.users import login_link_create
from tests.factories import in_thread

pytestmark = [pytest.mark.processes, pytest.mark.browser]

EVENTS = 1000
ENTRY_ID = re.compile(r'id="lce-(lce_\w+)"')


def test_a_burst_of_lifecycle_events_reaches_the_open_page_whole(live, tpersonas, page, caplog):
    seen: set[str] = set()
    page.on(
        "websocket",
        lambda socket: socket.on(
            "framereceived",
            lambda frame: seen.update(ENTRY_ID.findall(str(frame))),
        ),
    )
    url, _ = in_thread(
        login_link_create,
        user=tpersonas.alice,
        actor=Actor.system(),
        next_path="/hooks/timeline/",
    )
    page.goto(url)
    page.wait_for_function("() => document.body.getAttribute('data-live') === 'on'")

    actor = Actor.for_key(in_thread(lambda: tpersonas.acme.api_keys.first()))

    def one(n: int) -> None:
        lifecycle_event_handle(
            host=tpersonas.acme,
            actor=actor,
            data=LifecycleInput(
                session_id=f"burst-{n % 8}",
                user="alice",
                event="post_tool_use",
                tool_name="Bash",
                tool_input={"command": f"echo {n}"},
            ),
        )

    with caplog.at_level(logging.WARNING, logger="switchboard.broadcast"):
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(one, range(EVENTS)))
        broadcast_idle(timeout=60)
    assert not caplog.records, [r.getMessage() for r in caplog.records]

    recorded = in_thread(lambda: set(LifecycleEvent.objects.values_list("id", flat=True)))
    assert len(recorded) == EVENTS
    deadline = time.monotonic() + 60
    while not recorded <= seen and time.monotonic() < deadline:
        page.wait_for_timeout(200)  # Playwright hands over frames while it runs
    assert recorded <= seen, f"{len(recorded - seen)} of {EVENTS} entries never reached the page"
