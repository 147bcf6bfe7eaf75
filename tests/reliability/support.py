"""Helpers of the fault suite: the session's worker and beat restarted with
other settings, and a log's task lines."""

from __future__ import annotations

import contextlib
import os
import re
from collections import Counter
from collections.abc import Iterator

from config import supervisor as sv
from tests.live import ARTIFACTS, LiveStack, log_offset, wait_for_worker


def _queue() -> str:
    return os.environ["CELERY_QUEUE"]


def start_worker(live: LiveStack, extra_env: dict[str, str] | None = None) -> sv.Child:
    """Start the worker and return once it takes tasks."""
    since = log_offset(live.supervisor, "worker")
    child = live.supervisor.start(
        "worker", sv.celery_worker_argv(queue=_queue()), extra_env=extra_env
    )
    wait_for_worker(child, since=since)
    return child


def start_beat(live: LiveStack, extra_env: dict[str, str] | None = None) -> sv.Child:
    return live.supervisor.start(
        "beat",
        sv.celery_beat_argv(schedule_path=str(ARTIFACTS / f"beat-{live.port}")),
        extra_env=extra_env,
    )


@contextlib.contextmanager
def workers_with(live: LiveStack, extra_env: dict[str, str]) -> Iterator[None]:
    """The session's worker and beat run with ``extra_env`` on top of the
    suite's settings for the block (e.g. a shorter claim lease), and come
    back as they were after it, whatever the test did to them."""
    for name in ("beat", "worker"):
        with contextlib.suppress(StopIteration):
            live.supervisor.stop(live.child(name))
    start_worker(live, extra_env)
    start_beat(live, extra_env)
    try:
        yield
    finally:
        for name in ("beat", "worker"):
            with contextlib.suppress(StopIteration):
                live.supervisor.stop(live.child(name))
        start_worker(live)
        start_beat(live)


def restart_if_dead(live: LiveStack, extra_env: dict[str, str] | None = None) -> None:
    """A worker a test killed is started again (the session's next tests need one)."""
    worker = next((c for c in live.supervisor.children if c.name == "worker"), None)
    if worker is not None and worker.process.poll() is None:
        return
    if worker is not None:
        live.supervisor.children.remove(worker)
    start_worker(live, extra_env)


_RECEIVED = re.compile(r"Task ([\w.]+)\[([0-9a-f-]+)\] received")
_SUCCEEDED = re.compile(r"Task ([\w.]+)\[([0-9a-f-]+)\] succeeded in [\d.e-]+s: (.*)")


def tasks_received(log_text: str, name: str) -> Counter:
    """How many times the worker received each task id of ``name`` (its INFO log)."""
    return Counter(task_id for task, task_id in _RECEIVED.findall(log_text) if task == name)


def tasks_returned(log_text: str, name: str) -> dict[str, list[str]]:
    """What each run of each task id of ``name`` returned (repr), in order."""
    runs: dict[str, list[str]] = {}
    for task, task_id, value in _SUCCEEDED.findall(log_text):
        if task == name:
            runs.setdefault(task_id, []).append(value.strip())
    return runs


class LogTail:
    """A child's log from now on (lines written before are not this test's)."""

    def __init__(self, child: sv.Child) -> None:
        assert child.log_path is not None
        self.path = child.log_path
        self.offset = self.path.stat().st_size

    def read(self) -> str:
        with open(self.path, encoding="utf-8", errors="replace") as log:
            log.seek(self.offset)
            return log.read()
