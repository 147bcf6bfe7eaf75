"""Task event sources over the API (docs/conformance.md case 49, docs/host-integration.md "Task event sources"):
handing a task over, what is refused and how, and what a refused
subscription leaves (the task is watched all the same). The end-to-end
case 49, with the reference server and real processes, is in
``test_task_sources_live.py``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from subscriptions.models import Subscription, TaskWatch
from subscriptions.services.task_sources import task_watch_check, task_watches_check_due
from switchboard.models import AuditEntry
from switchboard.services.server_block import server_block
from tests.subscriptions.support import SYSTEM, approve_events, make_event_server


@pytest.fixture
def personas(session_beat_aside, tpersonas, tasks_sent):
    """Committed personas: right before tasks/get leaves, consent is read
    again on a connection of its own (``consent.enforce``), which sees only
    committed rows, as the worker's would. Tasks are recorded, not sent:
    these tests call the services themselves. A live stack's beat, if one
    runs, stays aside meanwhile (``session_beat_aside``)."""
    return tpersonas


@pytest.fixture
def server(personas):
    return make_event_server(personas.acme)


def hand_over(api, server, *, task_id="task-1", **extra):
    body = {
        "user": "alice",
        "server": server.id,
        "task_id": task_id,
        "event_source": {
            "name": "build.finished",
            "input": {"repo": "acme/app"},
            "initialCursor": "41",
        },
    }
    return api.post("/tasks", json={**body, **extra})


def test_the_event_source_becomes_a_subscription_from_the_initial_cursor(personas, server):
    approve_events(personas.alice, server, ["build.finished"])
    answer = hand_over(personas.acme_api, server, poll_interval_ms=2000)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["task_id"] == "task-1" and body["status"] == "working"
    assert body["user"] == "alice" and body["server"] == server.id
    assert body["subscription_error"] is None and body["ended_at"] is None
    assert body["next_check_at"] is not None  # tasks/get is due
    sub = body["subscription"]
    # arguments = input, cursor = initialCursor (case 49)
    assert sub["event"] == "build.finished" and sub["arguments"] == {"repo": "acme/app"}
    assert sub["cursor"] == "41" and sub["status"] == "pending"
    watch = TaskWatch.objects.get(pk=body["id"])
    assert watch.owns_subscription and watch.poll_interval_ms == 2000
    assert personas.acme_api.get(f"/tasks/{body['id']}").json() == body


def test_the_same_task_again_answers_the_watch_already_there(personas, server):
    first = hand_over(personas.acme_api, server)
    again = hand_over(personas.acme_api, server)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert TaskWatch.objects.count() == 1 and Subscription.objects.count() == 1


def test_a_refused_subscription_is_recorded_and_the_task_still_watched(personas, server):
    answer = hand_over(
        personas.acme_api,
        server,
        event_source={"name": "no.such.event", "input": {}},
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["subscription"] is None
    assert body["subscription_error"]["code"] == "unknown_event"
    assert body["subscription_error"]["field"] == "event"
    assert body["next_check_at"] is not None and body["ended_at"] is None
    assert not Subscription.objects.exists()


def test_input_that_fails_the_event_types_schema_is_a_refused_subscription_too(personas, server):
    body = hand_over(
        personas.acme_api,
        server,
        event_source={"name": "build.finished", "input": {"repo": 7}},
    ).json()
    assert body["subscription"] is None
    assert body["subscription_error"]["code"] == "invalid_arguments"
    assert body["subscription_error"]["field"] == "arguments.repo"


def test_a_task_sharing_a_live_subscription_does_not_own_it(personas, server):
    mine = hand_over(personas.acme_api, server, task_id="task-1").json()
    other = hand_over(personas.acme_api, server, task_id="task-2").json()
    assert other["subscription"]["id"] == mine["subscription"]["id"]
    owners = dict(TaskWatch.objects.values_list("task_id", "owns_subscription"))
    assert owners == {"task-1": True, "task-2": False}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"task_id": ""}, "task_id"),
        ({"event_source": {"input": {}}}, "event_source.name"),
        ({"event_source": {"name": "build.finished", "input": []}}, "event_source.input"),
        ({"poll_interval_ms": -1}, "poll_interval_ms"),
        ({"poll_interval_ms": "soon"}, "poll_interval_ms"),
    ],
)
def test_bad_input_is_a_422_naming_the_field_and_nothing_is_kept(personas, server, change, field):
    answer = hand_over(personas.acme_api, server, **change)
    assert answer.status_code == 422, answer.content
    assert field in answer.content.decode()
    assert not TaskWatch.objects.exists()


def test_unknown_user_server_or_task_is_a_404(personas, server):
    assert hand_over(personas.acme_api, server, user="nobody").status_code == 404
    other_hosts = make_event_server(personas.bravo)
    assert hand_over(personas.acme_api, other_hosts).status_code == 404
    missing = personas.acme_api.get("/tasks/tsk_nothere")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "task_not_found"


def test_a_blocked_server_refuses_the_whole_hand_over(personas, server):
    server_block(server=server, actor=SYSTEM)
    answer = hand_over(personas.acme_api, server)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "server_blocked"
    assert not TaskWatch.objects.exists()


def test_a_server_the_console_does_not_reach_itself_is_refused(personas):
    from tests.factories import make_server

    host_managed = make_server(personas.acme, url="")
    answer = hand_over(personas.acme_api, host_managed)
    assert answer.status_code == 422
    assert answer.json()["error"] == {
        "code": "server_not_reachable",
        "field": "server",
        "message": "the console can only follow tasks on servers it reaches itself "
        "(this one has no url)",
    }
    assert not TaskWatch.objects.exists()


def test_turned_off_the_hand_over_is_refused_and_nothing_is_kept(personas, server, settings):
    settings.TASK_EVENT_SOURCES = False
    answer = hand_over(personas.acme_api, server)
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["code"] == "task_event_sources_off" and "TASK_EVENT_SOURCES" in error["message"]
    assert not TaskWatch.objects.exists() and not Subscription.objects.exists()


def test_the_list_is_the_hosts_own_newest_first_and_paginated(personas, server):
    for n in range(3):
        hand_over(personas.acme_api, server, task_id=f"task-{n}")
    make_event_server(personas.bravo)
    first = personas.acme_api.get("/tasks?limit=2").json()
    assert [t["task_id"] for t in first["items"]] == ["task-2", "task-1"]
    rest = personas.acme_api.get(f"/tasks?limit=2&cursor={first['next_cursor']}").json()
    assert [t["task_id"] for t in rest["items"]] == ["task-0"] and rest["next_cursor"] is None
    assert personas.bravo_api.get("/tasks").json()["items"] == []
    assert personas.acme_api.get("/tasks?user=bob").json()["items"] == []


# --- watching: tasks/get against the reference server, run in-process ----------------


@pytest.fixture
def ref(personas, refserver):
    from switchboard.services.servers import server_register

    server = server_register(host=personas.acme, name="Ref", url=refserver.mcp_url, actor=SYSTEM)
    approve_events(personas.alice, server, ["deploy.progress"])
    return server


def server_task(refserver, service="api", poll_interval_ms=500) -> dict:
    return refserver.control(
        "POST", "tasks", {"service": service, "poll_interval_ms": poll_interval_ms}
    )


def hand_over_task(personas, server, created: dict) -> TaskWatch:
    answer = personas.acme_api.post(
        "/tasks",
        json={
            "user": "alice",
            "server": server.id,
            "task_id": created["task"]["taskId"],
            "event_source": created["eventSource"],
        },
    )
    assert answer.status_code == 201, answer.content
    return TaskWatch.objects.get(pk=answer.json()["id"])


def check(watch: TaskWatch) -> str:
    watch.refresh_from_db()
    return task_watch_check(watch_id=watch.pk, due=watch.next_check_at.isoformat())


def get_calls(refserver, task_id: str) -> int:
    return next(
        t["getCalls"] for t in refserver.control("GET", "tasks")["tasks"] if t["taskId"] == task_id
    )


def test_a_working_task_is_asked_again_on_its_poll_interval(personas, ref, refserver):
    created = server_task(refserver)
    watch = hand_over_task(personas, ref, created)
    before = timezone.now()
    assert check(watch) == "working"
    watch.refresh_from_db()
    assert watch.last_checked_at >= before and watch.poll_interval_ms == 500
    # 0.5 s, clamped by the poll floor.
    wait = (watch.next_check_at - watch.last_checked_at).total_seconds()
    assert wait == pytest.approx(max(0.5, settings.SUBSCRIPTION_POLL_FLOOR), abs=0.05)
    assert get_calls(refserver, created["task"]["taskId"]) == 1


def test_a_stale_due_time_does_nothing(personas, ref, refserver):
    created = server_task(refserver)
    watch = hand_over_task(personas, ref, created)
    stale = (watch.next_check_at - timedelta(seconds=1)).isoformat()
    assert task_watch_check(watch_id=watch.pk, due=stale) == "not_due"
    assert get_calls(refserver, created["task"]["taskId"]) == 0


def test_a_terminal_task_ends_the_watch_and_revokes_its_subscription(personas, ref, refserver):
    created = server_task(refserver)
    watch = hand_over_task(personas, ref, created)
    refserver.control("POST", "tasks/status", {"taskId": watch.task_id, "status": "cancelled"})
    assert check(watch) == "cancelled"
    watch.refresh_from_db()
    assert watch.ended_at and watch.next_check_at is None and watch.status == "cancelled"
    sub = Subscription.objects.get(pk=watch.subscription_id)
    assert sub.status == "revoked"
    assert AuditEntry.objects.filter(kind="task.ended", subject_id=watch.pk).exists()
    assert check_ended_is_final(watch)


def check_ended_is_final(watch: TaskWatch) -> bool:
    """An ended watch is never claimed again, whatever due time is passed."""
    return task_watch_check(watch_id=watch.pk, due=timezone.now().isoformat()) == "not_due"


def test_a_task_the_server_no_longer_knows_ends_as_not_found(personas, ref, refserver):
    created = server_task(refserver)
    created["task"]["taskId"] = "no-such-task"
    watch = hand_over_task(personas, ref, created)
    assert check(watch) == "ended"
    watch.refresh_from_db()
    assert watch.ended_at and watch.last_error.startswith("task_not_found")
    assert watch.status == "working"  # the last status known; never made up
    assert Subscription.objects.get(pk=watch.subscription_id).status == "revoked"


def test_a_failing_tasks_get_is_retried_with_backoff_and_never_ends_the_watch(
    personas, ref, refserver
):
    created = server_task(refserver)
    watch = hand_over_task(personas, ref, created)
    refserver.control("POST", "behaviour", {"method": "tasks/get", "fail": "error", "times": 2})
    assert check(watch) == "retry"
    watch.refresh_from_db()
    first_wait = (watch.next_check_at - watch.last_checked_at).total_seconds()
    assert watch.check_failures == 1 and "Injected failure" in watch.last_error
    assert check(watch) == "retry"
    watch.refresh_from_db()
    second_wait = (watch.next_check_at - watch.last_checked_at).total_seconds()
    assert watch.check_failures == 2 and second_wait > first_wait  # backing off
    assert watch.ended_at is None
    assert check(watch) == "working"  # the server answers again
    watch.refresh_from_db()
    assert watch.check_failures == 0 and watch.last_error == ""


def test_the_last_task_sharing_a_subscription_ends_it(personas, ref, refserver):
    first = hand_over_task(personas, ref, server_task(refserver))
    second = hand_over_task(personas, ref, server_task(refserver))
    assert first.subscription_id == second.subscription_id
    for watch in (first, second):
        refserver.control("POST", "tasks/status", {"taskId": watch.task_id, "status": "completed"})
    assert check(first) == "completed"
    sub = Subscription.objects.get(pk=first.subscription_id)
    assert sub.status == "pending"  # the second task still runs
    second.refresh_from_db()
    assert second.owns_subscription
    assert check(second) == "completed"
    assert Subscription.objects.get(pk=first.subscription_id).status == "revoked"


def test_a_subscription_the_host_made_itself_outlives_the_task(personas, ref, refserver):
    mine = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": ref.id,
            "event": "deploy.progress",
            "arguments": {"service": "api"},
        },
    ).json()
    watch = hand_over_task(personas, ref, server_task(refserver))
    assert watch.subscription_id == mine["id"] and not watch.owns_subscription
    refserver.control("POST", "tasks/status", {"taskId": watch.task_id, "status": "completed"})
    assert check(watch) == "completed"
    assert Subscription.objects.get(pk=mine["id"]).status == "pending"


def test_a_blocked_server_is_not_asked_and_the_watch_ends(personas, ref, refserver):
    created = server_task(refserver)
    watch = hand_over_task(personas, ref, created)
    server_block(server=ref, actor=SYSTEM)
    assert check(watch) == "ended"
    watch.refresh_from_db()
    assert watch.ended_at and watch.last_error.startswith("server_gone")
    assert get_calls(refserver, created["task"]["taskId"]) == 0


def test_turned_off_nothing_is_asked(personas, ref, refserver, settings):
    # The rows are committed: the watch is due only inside this transaction
    # (not before a minute on its own), where no sweep but this test's can
    # see it, whatever else runs on the database.
    created = server_task(refserver, poll_interval_ms=60_000)
    watch = hand_over_task(personas, ref, created)
    with transaction.atomic():
        TaskWatch.objects.filter(pk=watch.pk).update(next_check_at=timezone.now())
        settings.TASK_EVENT_SOURCES = False
        assert task_watches_check_due() == 0
        assert check(watch) == "off"
        assert get_calls(refserver, created["task"]["taskId"]) == 0
        settings.TASK_EVENT_SOURCES = True
        assert task_watches_check_due() == 1  # due, and dispatched once turned on


def test_the_subscription_page_names_its_tasks_and_their_status(personas, server):
    from django.test import Client

    body = hand_over(personas.acme_api, server).json()
    TaskWatch.objects.filter(pk=body["id"]).update(status="input_required")
    client = Client()
    client.force_login(personas.alice)
    page = client.get(f"/subscriptions/{body['subscription']['id']}/").content.decode()
    assert "For task" in page and "<code>task-1</code>" in page
    assert 'data-task-status="input_required"' in page and "Waiting for input" in page
    # A subscription no task asked for says nothing of tasks.
    other = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "ticket.created",
            "arguments": {},
        },
    ).json()
    assert "For task" not in client.get(f"/subscriptions/{other['id']}/").content.decode()
