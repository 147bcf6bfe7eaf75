"""POST /sessions/{id}/lifecycle and GET /hooks/supported-events, against
our own services and database (servers the host reaches itself)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from hooks.models import HookFiring, LifecycleEvent, LifecycleSession
from hooks.services import hook_preference_set, lifecycle_records_write
from hooks.tasks import sweep_records
from switchboard.mcp import HOOK_EVENTS
from switchboard.models import AuditEntry, HookDeclaration
from tests.factories import SYSTEM
from tests.hooks.conftest import (
    BRIEF_HOOK,
    BROKEN_HOOK,
    COMMIT_HOOK,
    PUSH_HOOK,
    START_HOOK,
    approve,
    hook_id_of,
    hooked_server,
)

pytestmark = pytest.mark.django_db


def lifecycle(api, session="sess-1", **body):
    body.setdefault("user", "alice")
    return api.post(f"/sessions/{session}/lifecycle", body)


def commit(api, server=None, session="sess-1", **extra):
    body = {
        "event": "post_tool_use",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -m 'fix'"},
        **extra,
    }
    if server is not None:
        body["servers"] = [server.id]
    return lifecycle(api, session, **body)


class TestSupportedEvents:
    def test_it_lists_the_six_sep_events(self, personas):
        response = personas.acme_api.get("/hooks/supported-events")
        assert response.status_code == 200
        assert response.json() == {"supported_events": list(HOOK_EVENTS)}
        assert len(HOOK_EVENTS) == 6

    def test_it_needs_an_api_key(self, client):
        assert client.get("/api/v1/hooks/supported-events").status_code == 401


class TestConsentAndPreferences:
    def test_the_commit_hook_fires_only_after_its_approval(self, personas):
        server = hooked_server(personas.acme, [COMMIT_HOOK, PUSH_HOOK])
        hook = hook_id_of(server, COMMIT_HOOK)
        before = commit(personas.acme_api, server).json()
        assert before["injections"] == []
        assert before["suppressed"] == [
            {"server": server.id, "hook_id": hook, "reason": "no_consent", "detail": {}}
        ]

        approve(personas.alice, server, PUSH_HOOK)  # another hook of the same server
        assert commit(personas.acme_api).json()["suppressed"][0]["reason"] == "not_approved"

        approve(personas.alice, server, COMMIT_HOOK)
        answer = commit(personas.acme_api, session="sess-2", servers=[server.id]).json()
        assert answer["suppressed"] == []
        (injection,) = answer["injections"]
        assert injection == {
            "server": server.id,
            "hook_id": hook,
            "priority": "suggestion",
            "effective_priority": "suggestion",
            "text": COMMIT_HOOK["context"],
            "trust": "untrusted",  # case 48: servers are untrusted unless staff say so
            "source": "context",
            "downgraded": [],
            "firing_id": injection["firing_id"],
        }

    def test_other_tools_and_inputs_do_not_match(self, personas):
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        status = lifecycle(
            personas.acme_api,
            event="post_tool_use",
            servers=[server.id],
            tool_name="Bash",
            tool_input={"command": "git status"},
        ).json()
        assert status["injections"] == [] and status["suppressed"] == []

    def test_muting_stops_a_hook_and_unmuting_restores_it(self, personas, settings):
        settings.HOOK_COOLDOWN = 0
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        hook = hook_id_of(server, COMMIT_HOOK)
        assert commit(personas.acme_api, server).json()["injections"]
        hook_preference_set(
            user=personas.alice, server=server, hook_id=hook, muted=True, actor=SYSTEM
        )
        muted = commit(personas.acme_api).json()
        assert muted["injections"] == []
        assert muted["suppressed"] == [
            {"server": server.id, "hook_id": hook, "reason": "muted", "detail": {}}
        ]
        hook_preference_set(
            user=personas.alice, server=server, hook_id=hook, muted=False, actor=SYSTEM
        )
        assert commit(personas.acme_api).json()["injections"]

    def test_a_revoked_grant_stops_firing_at_once(self, personas):
        from consent.services import grant_revoke

        server = hooked_server(personas.acme, [COMMIT_HOOK])
        grant = approve(personas.alice, server, COMMIT_HOOK)
        grant_revoke(grant=grant, actor=SYSTEM)
        assert commit(personas.acme_api, server).json()["suppressed"][0]["reason"] == "no_consent"

    def test_approval_is_per_user(self, personas):
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        answer = commit(personas.acme_api, server, session="bob-1", user="bob").json()
        assert answer["injections"] == []


class TestPriority:
    def push(self, api, server, session="sess-1"):
        return lifecycle(
            api,
            session,
            event="pre_tool_use",
            servers=[server.id],
            tool_name="Bash",
            tool_input={"command": "git push origin main"},
        ).json()

    def test_required_from_an_untrusted_server_comes_back_important(self, personas):
        server = hooked_server(personas.acme, [PUSH_HOOK], trust="untrusted")
        approve(personas.alice, server, PUSH_HOOK)
        (injection,) = self.push(personas.acme_api, server)["injections"]
        assert (injection["priority"], injection["effective_priority"]) == ("required", "important")
        assert injection["downgraded"] == ["untrusted_server"]

    def test_required_from_a_trusted_server_stays_required(self, personas):
        server = hooked_server(personas.acme, [PUSH_HOOK], trust="trusted")
        approve(personas.alice, server, PUSH_HOOK)
        (injection,) = self.push(personas.acme_api, server)["injections"]
        assert injection["effective_priority"] == "required"

    def test_the_user_can_downgrade_a_whole_server(self, personas):
        server = hooked_server(personas.acme, [PUSH_HOOK], trust="trusted")
        approve(personas.alice, server, PUSH_HOOK)
        hook_preference_set(
            user=personas.alice, server=server, hook_id="", max_priority="suggestion", actor=SYSTEM
        )
        (injection,) = self.push(personas.acme_api, server)["injections"]
        assert injection["effective_priority"] == "suggestion"
        assert injection["downgraded"] == ["user_downgrade"]


class TestTemplatesAndContextTools:
    def test_session_start_substitutes_known_variables_only(self, personas):
        server = hooked_server(personas.acme, [START_HOOK])
        approve(personas.alice, server, START_HOOK)
        answer = lifecycle(
            personas.acme_api,
            "s-42",
            event="session_start",
            servers=[server.id],
            project_name="apollo",
        ).json()
        assert (
            answer["injections"][0]["text"] == "Working on apollo in session s-42; {unknown} stays."
        )

    def test_a_context_tool_on_a_server_the_host_reaches_itself_is_suppressed(self, personas):
        server = hooked_server(personas.acme, [BRIEF_HOOK])
        approve(personas.alice, server, BRIEF_HOOK)
        answer = lifecycle(
            personas.acme_api, event="session_start", servers=[server.id], project_name="x"
        ).json()
        assert answer["injections"] == []
        assert answer["suppressed"][0]["reason"] == "context_tool_unreachable"


class TestFloodControl:
    def test_a_hook_in_cooldown_is_reported(self, personas, settings):
        settings.HOOK_COOLDOWN = 60
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        assert commit(personas.acme_api, server).json()["injections"]
        second = commit(personas.acme_api).json()
        assert second["injections"] == []
        (suppressed,) = second["suppressed"]
        assert suppressed["reason"] == "cooldown" and 0 < suppressed["detail"]["retry_after"] <= 60
        # the cooldown is per session
        assert commit(personas.acme_api, server, session="sess-other").json()["injections"]

    def test_the_session_rate_limit_holds_back_the_rest(self, personas, settings):
        settings.HOOK_COOLDOWN = 0
        settings.HOOK_SESSION_RATE_LIMIT = 2
        hooks = [dict(START_HOOK, context=f"hook {i}", event="pre_request") for i in range(3)]
        server = hooked_server(personas.acme, hooks)
        approve(personas.alice, server, *hooks)
        first = lifecycle(personas.acme_api, event="pre_request", servers=[server.id]).json()
        assert len(first["injections"]) == 2
        assert [s["reason"] for s in first["suppressed"]] == ["session_rate_limit"]
        assert lifecycle(personas.acme_api, event="pre_request").json()["injections"] == []

    def test_character_caps_are_reported(self, personas, settings):
        settings.HOOK_MAX_CHARS_PER_SERVER = 10
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        (suppressed,) = commit(personas.acme_api, server).json()["suppressed"]
        assert suppressed["reason"] == "server_char_cap"
        assert suppressed["detail"]["limit"] == 10


class TestBadInput:
    def test_an_unknown_event_is_refused_and_recorded(self, personas):
        response = lifecycle(personas.acme_api, event="after_lunch")
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "unknown_event"
        assert response.json()["error"]["field"] == "event"
        assert AuditEntry.objects.filter(host=personas.acme, kind="hook.event_rejected").exists()

    @pytest.mark.parametrize(
        "body", [{"event": 3}, {"user": "alice"}, {"event": "session_start", "servers": "x"}]
    )
    def test_malformed_fields_are_422(self, personas, body):
        response = personas.acme_api.post("/sessions/s/lifecycle", {"user": "alice", **body})
        assert response.status_code == 422

    def test_a_body_that_is_not_json_is_400(self, personas):
        response = personas.acme_api.client.post(
            "/api/v1/sessions/s/lifecycle", data="{nope", content_type="application/json"
        )
        assert response.status_code == 400

    def test_huge_tool_input_is_cut_and_said_so(self, personas, settings):
        settings.LIFECYCLE_TOOL_IO_MAX_CHARS = 100
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        answer = commit(
            personas.acme_api, server, tool_input={"command": "git commit " + "x" * 500}
        ).json()
        assert answer["injections"]  # the match is still found in the first 100 characters
        assert answer["notices"] == [
            {"field": "tool_input", "reason": "truncated", "size": 525, "limit": 100}
        ]

    def test_invalid_declarations_never_fire(self, personas):
        server = hooked_server(personas.acme, [BROKEN_HOOK])
        declaration = HookDeclaration.objects.get(server=server)
        assert not declaration.valid and declaration.problems
        answer = lifecycle(
            personas.acme_api, event="post_tool_use", servers=[server.id], tool_name="T"
        ).json()
        assert (answer["injections"], answer["suppressed"], answer["refresh"]) == ([], [], None)

    def test_an_unknown_user_is_404(self, personas):
        response = lifecycle(personas.acme_api, event="session_end", user="nobody")
        assert response.status_code == 404 and response.json()["error"]["field"] == "user"


class TestTenancy:
    def test_a_server_of_another_host_is_404(self, personas):
        theirs = hooked_server(personas.bravo, [COMMIT_HOOK])
        response = commit(personas.acme_api, theirs)
        assert response.status_code == 404
        assert response.json()["error"]["field"] == "servers"

    def test_a_session_belongs_to_the_host_that_used_it_first(self, personas):
        assert lifecycle(personas.acme_api, "shared", event="session_start").status_code == 200
        response = lifecycle(personas.bravo_api, "shared", event="session_start", user="charlie")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "session_not_found"

    def test_a_session_belongs_to_one_user(self, personas):
        lifecycle(personas.acme_api, "mine", event="session_start")
        response = lifecycle(personas.acme_api, "mine", event="session_start", user="bob")
        assert response.status_code == 403

    def test_a_session_belongs_to_one_thread(self, personas):
        lifecycle(personas.acme_api, "s", event="session_start", thread_id="t-1")
        response = lifecycle(personas.acme_api, "s", event="session_end", thread_id="t-2")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "session_thread_mismatch"

    def test_a_thread_of_another_host_is_404(self, personas):
        lifecycle(personas.acme_api, "s", event="session_start", thread_id="their-thread")
        response = lifecycle(
            personas.bravo_api, "b", event="session_start", user="charlie", thread_id="their-thread"
        )
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "thread_not_found"
        assert not LifecycleSession.objects.filter(session_id="b").exists()


class TestRecords:
    def test_a_firing_is_recorded_in_the_ledger_the_timeline_and_the_declaration(self, personas):
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        answer = commit(personas.acme_api, server).json()
        # The answer is out before its records: the event row carries them
        # until the records writer (a worker, here called as it would be) runs.
        assert not HookFiring.objects.exists()
        assert LifecycleEvent.objects.get(pk=answer["event_id"]).pending["firings"]
        assert lifecycle_records_write() == 1
        assert LifecycleEvent.objects.get(pk=answer["event_id"]).pending is None
        firing = HookFiring.objects.get(pk=answer["injections"][0]["firing_id"])
        assert firing.text == COMMIT_HOOK["context"] and firing.user == personas.alice
        event = LifecycleEvent.objects.get(pk=answer["event_id"])
        assert (event.event, event.tool_name, event.injected) == ("post_tool_use", "Bash", 1)
        entry = AuditEntry.objects.get(kind="hook.injected", subject_id=firing.id)
        assert entry.user_id == personas.alice.id and entry.server_id == server.id
        assert entry.detail["hook_id"] == firing.hook_id
        assert "text" not in entry.detail  # the text stays on the firing, erasable
        assert HookDeclaration.objects.get(server=server, hook_id=firing.hook_id).last_fired_at
        assert entry.at == event.created_at  # when it happened, not when it was written

    def test_records_are_written_once_and_in_each_users_order(self, personas, settings):
        settings.HOOK_COOLDOWN = 0
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        answers = [commit(personas.acme_api, server).json() for _ in range(3)]
        assert lifecycle_records_write() == 3
        assert lifecycle_records_write() == 0  # a second writer finds nothing left
        firing_ids = [a["injections"][0]["firing_id"] for a in answers]
        ledger = AuditEntry.objects.filter(kind="hook.injected").order_by("id")
        assert [e.subject_id for e in ledger] == firing_ids
        assert HookFiring.objects.count() == 3

    def test_records_whose_wake_up_was_lost_are_written_by_the_sweep(self, personas, settings):
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        answer = commit(personas.acme_api, server).json()
        settings.LIFECYCLE_RECORDS_SWEEP_AFTER = 5
        assert sweep_records() == 0  # too fresh: its own wake-up is on the way
        LifecycleEvent.objects.filter(pk=answer["event_id"]).update(
            created_at=timezone.now() - timedelta(seconds=6)
        )
        assert sweep_records() == 1
        assert HookFiring.objects.filter(pk=answer["injections"][0]["firing_id"]).exists()

    def test_the_answer_wakes_a_records_writer(
        self, personas, tasks_sent, django_capture_on_commit_callbacks
    ):
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        with django_capture_on_commit_callbacks(execute=True):
            commit(personas.acme_api, server)
        deadline = time.monotonic() + 5  # sent from the coalescing thread
        while ("hooks.write_records", (), None) not in tasks_sent:
            assert time.monotonic() < deadline, tasks_sent
            time.sleep(0.01)

    def test_the_servers_of_a_session_are_remembered(self, personas, settings):
        settings.HOOK_COOLDOWN = 0
        server = hooked_server(personas.acme, [COMMIT_HOOK])
        approve(personas.alice, server, COMMIT_HOOK)
        commit(personas.acme_api, server)
        assert commit(personas.acme_api).json()["injections"]
        assert LifecycleSession.objects.get(session_id="sess-1").server_ids == [server.id]


class TestQueries:
    def test_an_event_no_hook_applies_to_reads_no_consent(self, personas):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        server = hooked_server(personas.acme, [COMMIT_HOOK])
        commit(personas.acme_api, server)
        with CaptureQueriesContext(connection) as queries:
            answer = lifecycle(personas.acme_api, event="session_end")
        assert answer.status_code == 200
        sql = " ".join(q["sql"] for q in queries.captured_queries)
        assert "consent_grant" not in sql and "hooks_hookpreference" not in sql
        # The key, the session with its user, the event's row.
        assert len(queries.captured_queries) <= 3, [q["sql"][:80] for q in queries.captured_queries]
