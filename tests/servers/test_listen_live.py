"""Case 59 (docs/conformance.md): a SEP-3415 server that declares
``listChanged`` is listened to on one ``subscriptions/listen`` with
``eventsListChanged: true``, held by the session worker; a server that does
not acknowledge the field is left to periodic re-listing.

Real processes: reference servers in both dialects, the session worker,
the Celery worker that re-syncs."""

from __future__ import annotations

import time

import pytest

from switchboard.models import EventType, HeldStream, McpServer
from switchboard.services.servers import server_register
from tests.live import start_refserver
from tests.subscriptions.support import SYSTEM, wait_for

pytestmark = pytest.mark.processes


@pytest.fixture(scope="module")
def sep_server():
    supervisor, server = start_refserver(["--dialect", "sep-3415"], name="refserver-listen-sep")
    try:
        yield server
    finally:
        supervisor.stop_all()


@pytest.fixture(scope="module")
def chatgpt_server():
    supervisor, server = start_refserver(["--dialect", "chatgpt"], name="refserver-listen-gpt")
    try:
        yield server
    finally:
        supervisor.stop_all()


def listens(refserver) -> list[dict]:
    return refserver.control("GET", "received")["listen"]


def test_59_one_listen_per_sep_server_and_a_change_lists_it_again(
    live, tpersonas, sep_server, session_workers
):
    sep_server.reset()
    server = server_register(
        host=tpersonas.acme, name="Ref SEP", url=sep_server.mcp_url, actor=SYSTEM
    )
    assert server.events_dialect == "sep-3415"
    assert server.capabilities["events"]["listChanged"] is True
    first = session_workers.start()
    session_workers.start()  # a second worker must not open a second listen

    wait_for(lambda: listens(sep_server), timeout=30, message="a listen stream")
    wait_for(
        lambda: McpServer.objects.get(pk=server.pk).events_list_changes == "listen",
        message="the acknowledgement read",
    )
    time.sleep(3)  # several reconcile rounds of both workers
    [listen] = listens(sep_server)
    assert listen["notifications"] == {"eventsListChanged": True}
    assert listen["honoured"] == {"eventsListChanged": True}
    caps = tpersonas.acme_api.get(f"/servers/{server.id}").json()["capabilities"]
    assert caps["events"]["list_changes"] == "listen"
    held = HeldStream.objects.get(pk=f"listen:{server.pk}")
    assert held.state == "connected" and held.holder

    types = sep_server.control("GET", "event-types")["types"]
    added = {**types[0], "name": "release.published", "description": "A release went out."}
    sep_server.control("POST", "event-types", {"types": [*types, added]})
    wait_for(
        lambda: EventType.objects.filter(
            server=server, name="release.published", removed_at__isnull=True
        ).exists(),
        timeout=30,
        message="the new type listed without waiting for the hourly re-sync",
    )

    # The worker holding it dies: the other takes the listen over after the lease.
    holder_pid = int(held.holder.split(":")[1])
    victim = first if first.process.pid == holder_pid else session_workers.supervisor.children[1]
    session_workers.kill(victim)
    wait_for(lambda: len(listens(sep_server)) == 2, timeout=30, message="listened again")
    taken = HeldStream.objects.get(pk=f"listen:{server.pk}")
    assert taken.holder != held.holder


def test_59_an_acknowledgement_without_the_field_falls_back_to_relisting(
    live, tpersonas, sep_server, session_worker
):
    sep_server.reset()
    sep_server.control("POST", "config", {"listen_acks_events": False})
    server = server_register(
        host=tpersonas.acme, name="Ref SEP", url=sep_server.mcp_url, actor=SYSTEM
    )
    wait_for(
        lambda: McpServer.objects.get(pk=server.pk).events_list_changes == "relist",
        timeout=30,
        message="fell back to re-listing",
    )
    time.sleep(3)
    assert len(listens(sep_server)) == 1  # asked once, not in a loop
    assert McpServer.objects.get(pk=server.pk).next_sync_at is not None  # periodic re-list


def test_a_server_without_list_changed_is_never_sent_events_list_changed(
    live, tpersonas, chatgpt_server, session_worker
):
    chatgpt_server.reset()
    server = server_register(
        host=tpersonas.acme, name="Ref ChatGPT", url=chatgpt_server.mcp_url, actor=SYSTEM
    )
    assert server.events_dialect == "chatgpt"
    time.sleep(3)
    assert listens(chatgpt_server) == []
    assert not HeldStream.objects.filter(pk=f"listen:{server.pk}").exists()
