"""The MCPE surface's `/control/mcpe/*` routes: their errors, the reset,
and a delay that holds a tool call in hand (the client:
``mcpe_support.py``)."""

from __future__ import annotations

import anyio
import pytest

from tests.refserver.mcpe_support import emit, mcpe
from tests.refserver.support import RefServer, run, wait_for

pytestmark = [pytest.mark.processes, pytest.mark.sqlite]


def test_control_errors_and_reset(refserver: RefServer) -> None:
    refserver.post("/control/mcpe/emit", {}, expect=400)
    refserver.post("/control/mcpe/emit", {"type": "a", "metadata": "x"}, expect=400)
    refserver.post("/control/mcpe/emit", {"type": "a", "count": 0}, expect=400)
    refserver.post("/control/mcpe/flush", {}, expect=400)
    refserver.post("/control/mcpe/flush", {"subscriptionId": "nope"}, expect=404)
    many = emit(refserver, "a.b", count=3)
    assert len({e["id"] for e in many["event"]}) == 3

    async def body() -> None:
        async with mcpe(refserver) as c:
            sub_id = await c.subscribe()
            # A realtime subscription has no batch to flush.
            refserver.post("/control/mcpe/flush", {"subscriptionId": sub_id}, expect=400)

    run(body)
    assert refserver.get("/control/mcpe/calls")["calls"]
    refserver.post("/control/reset")
    assert refserver.get("/control/mcpe/subscriptions") == {"subscriptions": []}
    assert refserver.get("/control/mcpe/calls") == {"calls": []}
    assert refserver.get("/control/mcpe/dropped") == {"dropped": []}


def test_a_delay_holds_a_tool_call_in_hand_until_it_is_cleared(refserver: RefServer) -> None:
    refserver.post("/control/mcpe/delay", {"tool": "events_nothing", "delay_ms": 10}, expect=400)
    refserver.post("/control/mcpe/delay", {"tool": "events_subscribe", "delay_ms": -1}, expect=400)

    async def body() -> None:
        async with mcpe(refserver) as c:
            held = {"tool": "events_subscribe", "delay_ms": 60_000}
            assert refserver.post("/control/mcpe/delay", held) == held
            answered: list[str] = []

            async def subscribe() -> None:
                answered.append(await c.subscribe(filter={"eventTypes": ["d.*"]}))

            async with anyio.create_task_group() as group:
                group.start_soon(subscribe)
                # In the server's hands (recorded), not answered, not made yet.
                await wait_for(
                    lambda: any(
                        call["name"] == "events_subscribe"
                        for call in refserver.get("/control/mcpe/calls")["calls"]
                    )
                )
                await anyio.sleep(0.5)  # a bounded look for an absence: still held
                assert answered == []
                assert refserver.get("/control/mcpe/subscriptions")["subscriptions"] == []
                # Other tools are not held.
                assert (await c.ok("events_list"))["subscriptions"] == []
                cleared = {"tool": "events_subscribe", "delay_ms": 0}
                assert refserver.post("/control/mcpe/delay", cleared) == cleared
            assert len(answered) == 1
            assert [s["subscriptionId"] for s in (await c.ok("events_list"))["subscriptions"]] == (
                answered
            )
            # A short delay ends by itself; and cleared, calls go at once again.
            refserver.post("/control/mcpe/delay", {"tool": "events_pause", "delay_ms": 1000})
            started = anyio.current_time()
            await c.ok("events_pause", {"subscriptionId": answered[0]})
            assert anyio.current_time() - started >= 1.0
            refserver.post("/control/mcpe/delay", {"tool": "events_pause", "delay_ms": 0})
            started = anyio.current_time()
            await c.ok("events_resume", {"subscriptionId": answered[0]})
            await c.ok("events_pause", {"subscriptionId": answered[0]})
            assert anyio.current_time() - started < 1.0

    run(body)
