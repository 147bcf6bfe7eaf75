"""The reference server keeps what has settled out of the collector's scans
(``refserver.heap``) and collects everything once many streams closed."""

from __future__ import annotations

import gc

import pytest

from refserver import heap
from refserver.heap import HeapKeeper


class CollectorCalls:
    """Stands in for the ``gc`` module: records what the keeper asked."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def collect(self, generation: int = 2) -> int:
        self.calls.append(f"collect({generation})")
        return 0

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> CollectorCalls:
    calls = CollectorCalls()
    monkeypatch.setattr(heap, "gc", calls)
    return calls


def test_what_settled_is_frozen_when_more_streams_are_open(collector):
    open_streams = 1000
    keeper = HeapKeeper(lambda: open_streams)

    keeper.settle()
    assert collector.calls == ["collect(1)", "freeze"]

    collector.calls.clear()
    keeper.settle()  # a steady state costs nothing
    open_streams = 600  # some closed: not yet worth a full collection
    keeper.settle()
    assert collector.calls == []

    open_streams = 700
    keeper.settle()
    assert collector.calls == []  # still fewer than were frozen

    open_streams = 1200
    keeper.settle()
    assert collector.calls == ["collect(1)", "freeze"]


def test_once_half_the_streams_closed_everything_is_collected_once(collector):
    open_streams = 1000
    keeper = HeapKeeper(lambda: open_streams)
    keeper.settle()
    collector.calls.clear()

    open_streams = 500
    keeper.settle()
    assert collector.calls == ["unfreeze", "collect(2)", "freeze"]

    collector.calls.clear()
    keeper.settle()  # measured from the new level now
    open_streams = 600
    keeper.settle()
    assert collector.calls == ["collect(1)", "freeze"]


def test_no_streams_ever_open_costs_nothing(collector):
    keeper = HeapKeeper(lambda: 0)
    for _ in range(3):
        keeper.settle()
    assert collector.calls == []


def test_it_really_freezes():
    keeper = HeapKeeper(lambda: 1)
    try:
        keeper.settle()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
