"""The per-process sender threads (``switchboard.background``): the same
behaviour for all three senders — started again in a forked child and when
the thread died, and what waits is sent when the process ends normally.
Every other per-process state (the pooled-session loop, the outbox's
clients and POST threads) is a ``ForkLocal`` too, and nothing else resets
itself after a fork."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from consent import pool
from outbox.publish import Publisher, publisher
from outbox.services import bursts
from outbox.services.clients import clients as delivery_clients
from switchboard import broadcast
from switchboard.background import BackgroundThread, ForkLocal
from switchboard.queue import _Coalescer, _coalescer
from tests.subscriptions.support import wait_for

ROOT = Path(__file__).resolve().parents[2]


class Recorder(BackgroundThread):
    """A sender that records what it sends and in which thread."""

    thread_name = "recorder"

    def _reset(self) -> None:
        super()._reset()
        self.waiting: list[str] = []
        self.sent: list[tuple[str, str]] = []
        self.die_once = False

    def add(self, item: str) -> None:
        self._ensure_this_process()
        with self._lock:
            self.waiting.append(item)
        self.wake()

    def flush(self) -> None:
        if self.die_once:
            self.die_once = False
            raise SystemExit  # ends the thread quietly, as any escaped error would
        with self._lock:
            items, self.waiting = self.waiting, []
        self.sent += [(item, threading.current_thread().name) for item in items]


def test_every_sender_thread_is_one_background_thread():
    assert isinstance(_coalescer, BackgroundThread)
    assert isinstance(publisher, BackgroundThread)
    assert isinstance(broadcast._send_loop, BackgroundThread)


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_starts_its_own_thread_with_nothing_of_the_parents():
    sender = Recorder()
    sender.add("parent")
    wait_for(lambda: sender.sent, timeout=5, message="the parent's send")
    # At the fork, the parent has something waiting and another of its
    # threads holds the lock (the child would wait for it forever).
    sender.waiting.append("the parent's to send")
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with sender._lock:
            holding.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(5)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return to pytest
        code = 1
        try:
            inherited = list(sender.waiting)
            sender.add("child")
            for _ in range(500):
                if sender.sent:
                    break
                threading.Event().wait(0.01)
            os.write(write, repr((inherited, sender.sent)).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    release.set()
    holder.join()
    with os.fdopen(read) as pipe:
        report = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    inherited, sent = eval(report)  # noqa: S307 - our own child's repr of plain lists
    assert inherited == []
    assert sent == [("child", "recorder")]
    assert sender.waiting == ["the parent's to send"]  # the parent still has it


DIES = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


@DIES
def test_a_dead_thread_is_started_again_on_the_next_send():
    sender = Recorder()
    sender.die_once = True
    sender.add("lost with the thread")
    first = sender._thread
    assert first is not None
    first.join(5)
    assert not first.is_alive()
    sender.add("after")
    wait_for(lambda: sender.sent, timeout=5, message="a send from a new thread")
    assert sender._thread is not first
    assert sender.sent == [("lost with the thread", "recorder"), ("after", "recorder")]


@DIES
@pytest.mark.parametrize("which", ["publisher", "coalescer"])
def test_the_real_senders_start_a_dead_thread_again(which):
    sent: list = []
    die = [True]

    def send(*args) -> None:
        if die.pop() if die else False:
            raise SystemExit
        sent.append(args)

    if which == "publisher":
        own: BackgroundThread = Publisher(send=send)
        first_call, second_call = (lambda: own.publish([1])), (lambda: own.publish([2]))
    else:
        own = _Coalescer(send=send)
        first_call, second_call = (lambda: own.want("a.first")), (lambda: own.want("a.second"))
    first_call()
    thread = own._thread
    assert thread is not None
    thread.join(5)
    assert not thread.is_alive()
    second_call()
    wait_for(lambda: sent, timeout=5, message="a send after the thread died")
    assert own._thread is not thread


def test_the_broadcast_loop_is_started_again_when_it_stopped():
    loop, _ = broadcast._send_loop.sender()
    thread = broadcast._send_loop._thread
    assert thread is not None
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    assert not thread.is_alive()
    new_loop, _ = broadcast._send_loop.sender()
    assert new_loop is not loop
    broadcast.broadcast_idle(timeout=5)  # the new loop answers


EXITING = """
    import time
    from switchboard.background import BackgroundThread

    class Printer(BackgroundThread):
        thread_name = "printer"
        interval = 60  # after its first send the thread waits: the rest waits for exit

        def _reset(self):
            super()._reset()
            self.waiting = []

        def add(self, item):
            with self._lock:
                self.waiting.append(item)
            self.wake()

        def flush(self):
            with self._lock:
                items, self.waiting = self.waiting, []
            for item in items:
                print("sent", item, flush=True)

    printer = Printer()
    printer.add("first")
    while printer.waiting:
        time.sleep(0.01)
    time.sleep(0.1)
    printer.add("second")
    printer.add("third")
    print("exiting", flush=True)
"""


def test_what_waits_is_sent_when_the_process_exits():
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(EXITING)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["sent first", "exiting", "sent second", "sent third"]


def test_every_fork_local_state_is_one_fork_local():
    assert isinstance(pool._background, ForkLocal)
    assert isinstance(delivery_clients, ForkLocal)
    assert isinstance(bursts._post_threads, ForkLocal)


# The pooled-session loop of sync callers (consent.pool), used from a child
# forked by os.fork() and by a fork that bypassed it (a C library calling
# fork() directly: no at-fork hook runs, the child still believes the
# parent's loop thread alive).
FORKING = """
    import ctypes, os, sys
    import django

    django.setup()
    from consent import pool

    async def pid(_pool):
        return os.getpid()

    assert pool.pool_submit(pid).result(5) == os.getpid()  # the parent's loop runs
    fork = os.fork if sys.argv[1] == "os.fork" else ctypes.CDLL(None).fork
    read, write = os.pipe()
    child = fork()
    if child == 0:
        answered = "nothing"
        try:
            answered = "own loop" if pool.pool_submit(pid).result(10) == os.getpid() else "parent"
        finally:
            os.write(write, answered.encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        print(pipe.read())
    os.waitpid(child, 0)
"""


@pytest.mark.parametrize("fork", ["os.fork", "libc fork"])
def test_a_forked_child_runs_its_own_pooled_session_loop(fork):
    done = subprocess.run(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", textwrap.dedent(FORKING), fork],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["own loop"]


def _fork_handling_elsewhere() -> list[str]:
    found = []
    for package in ["config", "switchboard", "outbox", "consent", "subscriptions", "hooks"]:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "switchboard" / "background.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                # A fork hook, or a comparison with the process id (the
                # "has this process forked?" check).
                hook = isinstance(node, ast.Attribute) and node.attr == "register_at_fork"
                compared = isinstance(node, ast.Compare) and any(
                    isinstance(part, ast.Call)
                    and isinstance(part.func, ast.Attribute)
                    and part.func.attr == "getpid"
                    for part in [node.left, *node.comparators]
                )
                if hook or compared:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_fork_local_resets_state_after_a_fork():
    """Per-process state is a ``ForkLocal``: one at-fork hook, one pid check
    for forks that bypass it, one place to read."""
    assert _fork_handling_elsewhere() == []
