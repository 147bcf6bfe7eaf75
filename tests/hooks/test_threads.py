"""The thread-scoped capability refresh: signals, coalescing,
rate limits, thread validation, and a refresh run against the reference
server (in-process here; through Celery in test_live.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from hooks.models import RefreshKind, RefreshStatus, ThreadRefresh, ThreadSnapshot
from hooks.services import thread_claim, thread_refresh_request, thread_refresh_run
from hooks.services.refresh import refreshes_recover_lost
from switchboard.mcp import McpSyncClient, McpTarget
from switchboard.models import AuditEntry
from switchboard.services.servers import server_register
from tests.factories import SYSTEM
from tests.hooks.conftest import START_HOOK, hooked_server

pytestmark = pytest.mark.django_db


def signal(personas, thread="t-1", **kwargs):
    return thread_refresh_request(
        host_id=personas.acme.id,
        thread_id=thread,
        user=personas.alice,
        trigger="api",
        actor=SYSTEM,
        **kwargs,
    )


def login_output(refserver, thread):
    """What a host gets back from the reference server's login tool."""
    result = McpSyncClient(McpTarget(url=refserver.mcp_url)).call_tool(
        name="login", arguments={"thread_id": thread}
    )
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


class TestSignals:
    def test_a_burst_of_signals_becomes_one_refresh(self, personas):
        thread_claim(host_id=personas.acme.id, thread_id="t-1")
        answers = [signal(personas).status for _ in range(5)]
        assert answers == ["scheduled"] + ["coalesced"] * 4
        (refresh,) = ThreadRefresh.objects.filter(thread_id="t-1", kind=RefreshKind.REFRESH)
        assert (refresh.status, refresh.signals) == ("scheduled", 5)
        assert AuditEntry.objects.filter(kind="thread.refresh_scheduled").count() == 1

    def test_signals_beyond_the_rate_limit_are_refused_with_a_retry_time(self, personas, settings):
        settings.THREAD_REFRESH_MAX_SIGNALS = 3
        settings.THREAD_REFRESH_SIGNAL_WINDOW = 60
        thread_claim(host_id=personas.acme.id, thread_id="t-1")
        answers = [signal(personas) for _ in range(5)]
        assert [a.status for a in answers] == [
            "scheduled",
            "coalesced",
            "coalesced",
            "rate_limited",
            "rate_limited",
        ]
        assert 1 <= answers[3].retry_after <= 61
        assert AuditEntry.objects.filter(kind="thread.refresh_rate_limited").count() == 1

    def test_refreshes_are_spaced_by_the_minimum_interval(self, personas, settings):
        settings.THREAD_REFRESH_COALESCE = 0
        settings.THREAD_REFRESH_MIN_INTERVAL = 30
        thread_claim(host_id=personas.acme.id, thread_id="t-1")
        first = ThreadRefresh.objects.get(pk=signal(personas).refresh_id)
        assert thread_refresh_run(refresh_id=first.id) == "completed"
        second = ThreadRefresh.objects.get(pk=signal(personas).refresh_id)
        first.refresh_from_db()
        assert second.due_at >= first.started_at + timedelta(seconds=30)
        assert thread_refresh_run(refresh_id=second.id) == "skipped"  # not due yet

    def test_a_refresh_runs_once_however_often_its_task_arrives(self, personas, settings):
        settings.THREAD_REFRESH_COALESCE = 0
        thread_claim(host_id=personas.acme.id, thread_id="t-1")
        refresh_id = signal(personas).refresh_id
        assert thread_refresh_run(refresh_id=refresh_id) == "completed"
        assert thread_refresh_run(refresh_id=refresh_id) == "skipped"

    def test_a_refresh_whose_worker_died_fails_and_is_asked_again(self, personas, settings):
        settings.THREAD_REFRESH_LEASE = 60
        thread_claim(host_id=personas.acme.id, thread_id="t-1")
        refresh = ThreadRefresh.objects.get(pk=signal(personas).refresh_id)
        ThreadRefresh.objects.filter(pk=refresh.pk).update(
            status=RefreshStatus.RUNNING, started_at=timezone.now() - timedelta(seconds=120)
        )
        assert refreshes_recover_lost() == 1
        refresh.refresh_from_db()
        assert refresh.status == "failed" and refresh.errors == {"_refresh": "lease_expired"}
        assert ThreadRefresh.objects.filter(thread_id="t-1", status="scheduled").count() == 1


class TestThreadValidation:
    def lifecycle(self, api, session="s-1", **body):
        return api.post(f"/sessions/{session}/lifecycle", {"user": "alice", **body})

    def test_a_signal_for_the_sessions_thread_is_scheduled(self, personas):
        output = {"content": [], "_meta": {"refreshThreadCapabilities": "t-1"}}
        answer = self.lifecycle(
            personas.acme_api,
            event="post_tool_use",
            thread_id="t-1",
            tool_name="login",
            tool_output=output,
        ).json()
        assert answer["refresh"] == {
            "thread_id": "t-1",
            "status": "scheduled",
            "reason": None,
            "retry_after": None,
        }

    def test_a_signal_for_another_thread_is_refused_and_recorded(self, personas):
        output = {"content": [], "_meta": {"refreshThreadCapabilities": "someone-elses"}}
        answer = self.lifecycle(
            personas.acme_api,
            event="post_tool_use",
            thread_id="t-1",
            tool_name="login",
            tool_output=output,
        ).json()
        assert answer["refresh"]["status"] == "refused"
        assert answer["refresh"]["reason"] == "foreign_thread"
        assert not ThreadRefresh.objects.filter(thread_id="someone-elses").exists()
        entry = AuditEntry.objects.get(kind="thread.refresh_refused")
        assert entry.detail["thread_id"] == "someone-elses" and entry.user_id == personas.alice.id

    def test_a_signal_from_a_session_without_thread_is_refused(self, personas):
        output = {"_meta": {"refreshThreadCapabilities": "t-9"}}
        answer = self.lifecycle(
            personas.acme_api, event="post_tool_use", tool_name="login", tool_output=output
        ).json()
        assert answer["refresh"]["reason"] == "session_has_no_thread"

    def test_only_post_tool_use_carries_the_signal(self, personas):
        output = {"_meta": {"refreshThreadCapabilities": "t-1"}}
        answer = self.lifecycle(
            personas.acme_api,
            event="pre_tool_use",
            thread_id="t-1",
            tool_name="x",
            tool_output=output,
        ).json()
        assert answer["refresh"] is None


class TestRefreshEndpoint:
    def test_it_schedules_then_coalesces(self, personas):
        server = hooked_server(personas.acme, [START_HOOK])
        api = personas.acme_api
        first = api.post("/threads/t-1/refresh", {"user": "alice", "servers": [server.id]})
        assert first.status_code == 202 and first.json() == {
            "thread_id": "t-1",
            "status": "scheduled",
        }
        second = api.post("/threads/t-1/refresh", {"user": "alice"})
        assert second.json()["status"] == "coalesced"

    def test_an_unknown_thread_is_404_and_recorded(self, personas):
        response = personas.acme_api.post("/threads/nope/refresh", {"user": "alice"})
        assert response.status_code == 404
        assert AuditEntry.objects.filter(kind="thread.refresh_refused", host=personas.acme).exists()

    def test_a_thread_of_another_host_is_404_and_recorded(self, personas):
        thread_claim(host_id=personas.acme.id, thread_id="acme-thread")
        response = personas.bravo_api.post("/threads/acme-thread/refresh", {"user": "charlie"})
        assert response.status_code == 404
        entry = AuditEntry.objects.get(kind="thread.refresh_refused", host=personas.bravo)
        assert entry.detail["reason"] == "unknown_or_foreign_thread"
        theirs = hooked_server(personas.bravo, [START_HOOK])
        response = personas.bravo_api.post(
            "/threads/acme-thread/refresh", {"user": "charlie", "servers": [theirs.id]}
        )
        assert response.status_code == 404

    def test_too_many_signals_answer_429_with_retry_after(self, personas, settings):
        settings.THREAD_REFRESH_MAX_SIGNALS = 1
        server = hooked_server(personas.acme, [START_HOOK])
        api = personas.acme_api
        assert (
            api.post("/threads/t-1/refresh", {"user": "alice", "servers": [server.id]}).status_code
            == 202
        )
        response = api.post("/threads/t-1/refresh", {"user": "alice"})
        assert response.status_code == 429
        assert int(response["Retry-After"]) >= 1
        assert response.json()["error"]["code"] == "rate_limited"

    def test_servers_and_users_of_another_host_are_404(self, personas):
        theirs = hooked_server(personas.bravo, [START_HOOK])
        api = personas.acme_api
        assert (
            api.post("/threads/t/refresh", {"user": "alice", "servers": [theirs.id]}).status_code
            == 404
        )
        assert api.post("/threads/t/refresh", {"user": "charlie"}).status_code == 404


@pytest.mark.processes
class TestRefreshRun:
    def setup_thread(self, personas, refserver, settings):
        settings.THREAD_REFRESH_COALESCE = 0
        settings.THREAD_REFRESH_MIN_INTERVAL = 0
        a = server_register(
            host=personas.acme,
            name="Auth",
            url=refserver.mcp_url,
            actor=SYSTEM,
            headers={"Authorization": "Bearer a"},
        )
        b = server_register(
            host=personas.acme,
            name="Repos",
            url=refserver.mcp_url,
            actor=SYSTEM,
            headers={"Authorization": "Bearer b"},
        )
        response = personas.acme_api.post(
            "/sessions/s-1/lifecycle",
            {
                "user": "alice",
                "event": "session_start",
                "thread_id": "t-1",
                "servers": [a.id, b.id],
            },
        )
        assert response.status_code == 200
        baseline = ThreadRefresh.objects.get(thread_id="t-1", kind=RefreshKind.BASELINE)
        assert thread_refresh_run(refresh_id=baseline.id) == "completed"
        assert ThreadSnapshot.objects.filter(thread_id="t-1").count() == 2
        refserver.control("GET", "received?clear=1")
        return a, b

    def test_login_refreshes_every_server_of_the_thread_and_tells_the_host(
        self, personas, refserver, settings
    ):
        from consent.services import grant_approve, grant_request
        from outbox.models import HostDelivery

        a, b = self.setup_thread(personas, refserver, settings)
        grant_approve(
            grant=grant_request(user=personas.alice, server=a, scope="hooks", actor=SYSTEM),
            actor=SYSTEM,
        )
        output = login_output(refserver, "t-1")
        refserver.control("GET", "received?clear=1")
        statuses = [
            personas.acme_api.post(
                "/sessions/s-1/lifecycle",
                {
                    "user": "alice",
                    "event": "post_tool_use",
                    "tool_name": "login",
                    "tool_server": a.id,
                    "tool_output": output,
                },
            ).json()["refresh"]["status"]
            for _ in range(3)
        ]
        assert statuses == ["scheduled", "coalesced", "coalesced"]
        refresh = ThreadRefresh.objects.get(thread_id="t-1", kind=RefreshKind.REFRESH)
        assert thread_refresh_run(refresh_id=refresh.id) == "completed"

        received = refserver.received()
        for kind in ("toolsList", "resourcesList"):
            calls = received[kind]
            assert sorted(c["principal"] for c in calls) == ["Bearer a", "Bearer b"]
            assert all(c["threadId"] == "t-1" and c["meta"].get("threadId") == "t-1" for c in calls)

        (delivery,) = HostDelivery.objects.filter(
            host=personas.acme, type="thread.capabilities_changed"
        )
        data = delivery.body["data"]
        assert data["thread_id"] == "t-1"
        by_server = {entry["server"]: entry for entry in data["servers"]}
        assert set(by_server) == {a.id, b.id}
        for entry in by_server.values():
            assert entry["tools_added"] == ["private_repos"]
            assert entry["resources_added"] == ["refserver://private/repos"]
            assert entry["tools_removed"] == entry["resources_removed"] == []
        assert by_server[a.id]["consented"] and by_server[a.id]["flagged_tools"] == []
        assert not by_server[b.id]["consented"] and by_server[b.id]["flagged_tools"] == [
            "private_repos"
        ]
        entry = AuditEntry.objects.get(kind="thread.capabilities_changed")
        assert entry.user_id == personas.alice.id and entry.detail["signals"] == 3

    def test_a_refresh_with_nothing_changed_is_still_delivered(self, personas, refserver, settings):
        from outbox.models import HostDelivery

        self.setup_thread(personas, refserver, settings)
        answer = thread_refresh_request(
            host_id=personas.acme.id,
            thread_id="t-1",
            user=personas.alice,
            trigger="api",
            actor=SYSTEM,
        )
        thread_refresh_run(refresh_id=answer.refresh_id)
        (delivery,) = HostDelivery.objects.filter(type="thread.capabilities_changed")
        assert all(
            not (
                e["tools_added"]
                or e["tools_removed"]
                or e["resources_added"]
                or e["resources_removed"]
            )
            for e in delivery.body["data"]["servers"]
        )

    def test_a_failing_server_is_reported_and_the_others_still_refreshed(
        self, personas, refserver, settings
    ):
        from outbox.models import HostDelivery

        a, b = self.setup_thread(personas, refserver, settings)
        refserver.control(
            "POST", "behaviour", {"method": "tools/list", "fail": "error", "times": 1}
        )
        answer = thread_refresh_request(
            host_id=personas.acme.id,
            thread_id="t-1",
            user=personas.alice,
            trigger="api",
            actor=SYSTEM,
        )
        thread_refresh_run(refresh_id=answer.refresh_id)
        servers = HostDelivery.objects.get(type="thread.capabilities_changed").body["data"][
            "servers"
        ]
        errors = [e.get("error") for e in servers]
        assert errors.count("mcp_error") == 1 and errors.count(None) == 1
