"""The burst of bench/hot_path.py: lifecycle events fired at once while a
signed-in user's and a staff admin's live sockets count what reaches them."""

from __future__ import annotations

import asyncio
import json
import re
import time

from hot_path_calls import Calls, Fixture, audit_since, audit_watermark, records_pending
from stack import Http

# What the broadcast helper logs when a live update is lost or fails, and
# what Redis raised before it had one sender per process.
BROADCAST_ERRORS = re.compile(
    r"broadcast to \S+ failed|backlog full|MaxConnectionsError|Too many connections|ChannelFull"
)
TIMELINE_ID = re.compile(r'id="lce-(lce_\w+)"')
ACTIVITY_ID = re.compile(r'id="entry-(\d+)"')
TOPICS = re.compile(r'data-live-topics="([^"]*)"')


class LiveSocket:
    """A signed-in ``/ws/live/`` socket: the ids of what reached it."""

    def __init__(self) -> None:
        self.timeline: set[str] = set()
        self.activity: set[int] = set()
        self.topics: list[str] = []
        self.messages = 0
        self.last_new = 0.0

    async def read(self, ws) -> None:
        async for message in ws:
            text = message if isinstance(message, str) else message.decode()
            self.messages += 1
            before = len(self.timeline) + len(self.activity)
            self.timeline.update(TIMELINE_ID.findall(text))
            self.activity.update(int(n) for n in ACTIVITY_ID.findall(text))
            self.topics.extend(TOPICS.findall(text))
            if len(self.timeline) + len(self.activity) > before:
                self.last_new = time.perf_counter()


async def drained(timeout: float) -> int:
    """Until the worker has written every pending record (what earlier
    phases left), so a burst is measured alone; what is still pending."""
    deadline = time.perf_counter() + timeout
    while (left := await asyncio.to_thread(records_pending)) and time.perf_counter() < deadline:
        await asyncio.sleep(0.25)
    return left


async def burst(
    port: int, ws_port: int, server: str, calls: Calls, fixture: Fixture, cookies, args, logs
):
    from websockets.asyncio.client import connect

    await drained(args.burst_wait)

    sockets = {"user": LiveSocket(), "staff": LiveSocket()}
    opened = []
    readers = []
    for label, live in sockets.items():
        ws = await connect(
            f"ws://127.0.0.1:{ws_port}/ws/live/",
            origin=f"http://127.0.0.1:{ws_port}",
            additional_headers={"Cookie": cookies[label]},
            max_size=None,
        )
        opened.append(ws)
        readers.append(asyncio.create_task(live.read(ws)))
    # Broadcasts leave from the servers (the answers' own updates) and the
    # worker (what it writes after the answers): all their logs count.
    offsets = {log: log.stat().st_size for log in logs}
    watermark = await asyncio.to_thread(audit_watermark)
    events: list[str] = []
    problems: list[str] = []
    counter = iter(range(args.burst))
    conns = [await Http.open(port) for _ in range(args.burst_concurrency)]

    async def drive(conn: Http, session: str) -> None:
        raw = calls.raw("lifecycle-5", session=session)
        for _ in counter:
            answer = await conn.send(raw)
            if (problem := Calls.check("lifecycle-5", answer)) is not None:
                problems.append(problem)
            elif answer.status == 200:
                events.append(json.loads(answer.body)["event_id"])

    started = time.perf_counter()
    await asyncio.gather(*(drive(conn, f"burst-{server}-{i}") for i, conn in enumerate(conns)))
    sent = time.perf_counter()
    for conn in conns:
        conn.close()

    # Wait for everything the burst wrote to reach the sockets: the timeline
    # entries named by the answers, and the ledger entries above the
    # watermark (read again while they keep coming, in case any are written
    # after the answer).
    expected = set(events)
    deadline = sent + args.burst_wait
    ledger: list[tuple[int, str]] = []
    while time.perf_counter() < deadline:
        ledger = await asyncio.to_thread(audit_since, fixture.host_id, watermark)
        user_ledger = {n for n, user_id in ledger if user_id == fixture.user_id}
        staff_ledger = {n for n, _ in ledger}
        if (
            expected <= sockets["user"].timeline
            and expected <= sockets["staff"].timeline
            and user_ledger <= sockets["user"].activity
            and staff_ledger <= sockets["staff"].activity
            and time.perf_counter() - max(sockets["user"].last_new, sent) > 1.0
        ):
            break
        await asyncio.sleep(0.25)
    for ws in opened:
        await ws.close()
    for reader in readers:
        reader.cancel()
    user_ledger = {n for n, user_id in ledger if user_id == fixture.user_id}
    staff_ledger = {n for n, _ in ledger}
    logged = ""
    for log, offset in offsets.items():
        with log.open("rb") as handle:
            handle.seek(offset)
            logged += handle.read().decode(errors="replace")
    left = await asyncio.to_thread(records_pending)
    last = max(live.last_new for live in sockets.values())
    return {
        "events": len(events),
        "problems": len(problems),
        "first_problem": problems[0] if problems else None,
        "seconds": sent - started,
        "timeline_user": len(expected & sockets["user"].timeline),
        "timeline_staff": len(expected & sockets["staff"].timeline),
        "ledger_user": len(user_ledger),
        "ledger_user_seen": len(user_ledger & sockets["user"].activity),
        "ledger_staff": len(staff_ledger),
        "ledger_staff_seen": len(staff_ledger & sockets["staff"].activity),
        "messages_user": sockets["user"].messages,
        "messages_staff": sockets["staff"].messages,
        "broadcast_errors": len(BROADCAST_ERRORS.findall(logged)),
        "tracebacks": logged.count("Traceback"),
        "last_update_after_s": max(0.0, last - sent) if last else None,
        "records_pending": left,
    }
