"""An emit reaches exactly the open streams whose arguments match, found by
an index instead of a scan of every open stream (``StreamHub.candidates``)."""

from __future__ import annotations

import itertools
import random

from refserver.catalog import matches_filter
from refserver.streams import StreamHub

EVENT_TYPE = {"name": "deploy.status", "filterKeys": ["environment", "service"]}
KEYS = ("environment", "service")


def scanned(hub: StreamHub, name: str, tags: dict) -> list[int]:
    return [s.key for s in hub.matching(name) if matches_filter(EVENT_TYPE, s.arguments, tags)]


def indexed(hub: StreamHub, name: str, tags: dict) -> list[int]:
    return [
        s.key
        for s in hub.candidates(name, KEYS, tags)
        if matches_filter(EVENT_TYPE, s.arguments, tags)
    ]


def test_the_index_finds_what_a_scan_finds_as_streams_open_and_close():
    rng = random.Random(12)
    hub = StreamHub()
    values = ["prod", "staging", None, 1, 1.0, True]
    opened = []
    for n in range(300):
        arguments = {key: rng.choice(values) for key in KEYS if rng.random() < 0.7} | (
            {"verbose": True} if n % 3 == 0 else {}
        )
        name = "deploy.status" if n % 10 else "other"
        opened.append(hub.register(request_id=n, principal="p", name=name, arguments=arguments))
        if n % 7 == 0:
            hub.unregister(opened.pop(rng.randrange(len(opened))))
        if n % 25 == 0:
            for env, service in itertools.product(values + ["absent"], repeat=2):
                tags = {
                    k: v for k, v in (("environment", env), ("service", service)) if v != "absent"
                }
                assert indexed(hub, "deploy.status", tags) == scanned(hub, "deploy.status", tags), (
                    tags
                )


def test_an_unhashable_value_falls_back_to_the_scan():
    hub = StreamHub()
    listed = hub.register(
        request_id=1, principal="p", name="deploy.status", arguments={"environment": ["a"]}
    )
    plain = hub.register(
        request_id=2, principal="p", name="deploy.status", arguments={"environment": "b"}
    )
    assert indexed(hub, "deploy.status", {"environment": ["a"]}) == [listed.key]
    hub.unregister(listed)
    assert indexed(hub, "deploy.status", {"environment": "b"}) == [plain.key]
    assert indexed(hub, "deploy.status", {"environment": ["a"]}) == []
