"""The test tiers (loaded as a plugin, ``-p tests.tiers``).

The fast tier (``make test-fast``) is every test that starts no process and
no browser: ``-m "not processes and not browser"``. Those markers are put on
here, at collection, on every test that uses a fixture starting one (directly
or through another fixture), so a new live test cannot land in the fast tier
by forgetting a marker.

A test could still start a process without such a fixture (a helper called in
its body, ``request.getfixturevalue``). So while an unmarked test runs (its
setup, call and teardown), starting a process that keeps running fails it,
naming the marker. Commands a test runs to completion (``subprocess.run``,
``subprocess.call`` and the helpers built on them) are not servers and stay
allowed: they end before the test does.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

# Fixtures that start real server processes (tests/live.py, tests/mcp/conftest.py,
# tests/refserver/conftest.py, tests/ops/test_traces_live.py): daphne + Celery
# worker + beat, session workers, a pair with production timings, the
# reference MCP server, a traced daphne, worker, beat and session worker.
PROCESS_FIXTURES = frozenset(
    {
        "live_stack",
        "production_timings",
        "session_workers",
        "refserver_process",
        "refserver_session",
        "traced_processes",
    }
)
# Fixtures that launch Chromium (tests/live.py).
BROWSER_FIXTURES = frozenset({"browser"})

# The markers a test gets for each kind of fixture it uses.
_MARKS = (("processes", PROCESS_FIXTURES), ("browser", BROWSER_FIXTURES))


def markers_for(fixturenames: Iterator[str] | list[str] | tuple[str, ...]) -> set[str]:
    """The tier markers a test using ``fixturenames`` (its whole closure) needs."""
    names = set(fixturenames)
    return {marker for marker, fixtures in _MARKS if names & fixtures}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # tryfirst: before ``-m`` deselects by marker.
    for item in items:
        for marker in markers_for(getattr(item, "fixturenames", ())):
            if item.get_closest_marker(marker) is None:
                item.add_marker(marker)


# --- the guard -----------------------------------------------------------------

_running: list[pytest.Item] = []


class UnmarkedProcessError(AssertionError):
    """A test not marked ``processes`` or ``browser`` started a process."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


# Popen's callers that wait for the command to end: ``run`` (and so
# ``check_output``, ``getoutput``) and ``call`` (and so ``check_call``).
_RUN_TO_COMPLETION = {subprocess.run.__code__, subprocess.call.__code__}


def _may_start_process(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(marker) for marker, _ in _MARKS)


def _guarded_init(original):
    def __init__(self, args, *posargs, **kwargs):
        if _running and sys._getframe(1).f_code not in _RUN_TO_COMPLETION:
            item = _running[-1]
            if not _may_start_process(item):
                raise UnmarkedProcessError(
                    f"{item.nodeid} starts a process ({args!r}) but is not marked "
                    "processes (or browser): use the live fixtures (tests/live.py), which "
                    "mark it, or mark it @pytest.mark.processes; the fast tier "
                    "(make test-fast) runs no process"
                )
        original(self, args, *posargs, **kwargs)

    __init__.tiers_guard = True  # type: ignore[attr-defined]
    return __init__


def pytest_configure(config: pytest.Config) -> None:
    if not getattr(subprocess.Popen.__init__, "tiers_guard", False):
        subprocess.Popen.__init__ = _guarded_init(subprocess.Popen.__init__)  # type: ignore[method-assign]
