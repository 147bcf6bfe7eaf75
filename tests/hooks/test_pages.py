"""The hooks pages: per-server declarations with the user's controls, and
the timelines; each checked with alice (owner), bob (same host), charlie
(other host) and staff."""

from __future__ import annotations

import pytest
from django.test import Client

from hooks.models import HookPreference
from hooks.services import lifecycle_records_write
from switchboard.models import AuditEntry
from switchboard.services.users import staff_create
from tests.factories import SYSTEM
from tests.hooks.conftest import BROKEN_HOOK, COMMIT_HOOK, approve, hook_id_of, hooked_server

pytestmark = pytest.mark.django_db

XSS_HOOK = {
    "event": "session_end",
    "context": "<script>alert('x')</script> bye",
    "priority": "suggestion",
}


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def fire(personas, server, session="s-1", user="alice"):
    answer = personas.acme_api.post(
        f"/sessions/{session}/lifecycle",
        {
            "user": user,
            "event": "post_tool_use",
            "servers": [server.id],
            "tool_name": "Bash",
            "tool_input": "git commit",
        },
    ).json()
    lifecycle_records_write()  # what the worker does once the answer is out
    return answer


@pytest.fixture
def server(personas):
    return hooked_server(personas.acme, [COMMIT_HOOK, BROKEN_HOOK, XSS_HOOK], name="Annal")


class TestServerPage:
    def test_the_user_sees_declarations_verbatim_with_their_state(self, personas, server):
        approve(personas.alice, server, COMMIT_HOOK)
        fire(personas, server)
        page = browser(personas.alice).get(f"/hooks/servers/{server.id}/")
        assert page.status_code == 200
        html = page.content.decode()
        commit_id = hook_id_of(server, COMMIT_HOOK)
        assert commit_id in html
        assert "approved" in html and "not approved" in html
        assert "invalid — never fires" in html and "$.priority" in html
        assert "&lt;script&gt;" in html and "<script>alert" not in html
        assert "priority-suggestion" in html
        assert html.count("never") >= 2  # the hooks that did not fire yet

    def test_another_user_of_the_host_sees_their_own_state(self, personas, server):
        approve(personas.alice, server, COMMIT_HOOK)
        html = browser(personas.bob).get(f"/hooks/servers/{server.id}/").content.decode()
        assert ">approved<" not in html and "not approved" in html

    def test_a_user_of_another_host_gets_404(self, personas, server):
        assert browser(personas.charlie).get(f"/hooks/servers/{server.id}/").status_code == 404

    def test_staff_see_the_page_without_controls(self, personas, server):
        html = browser(personas.auditor).get(f"/hooks/servers/{server.id}/").content.decode()
        assert "Your controls" not in html and hook_id_of(server, COMMIT_HOOK) in html

    def test_anonymous_visitors_are_asked_to_sign_in(self, server):
        assert Client().get(f"/hooks/servers/{server.id}/").status_code == 401

    def test_the_hooks_home_lists_servers_with_hooks(self, personas, server):
        approve(personas.alice, server, COMMIT_HOOK)
        html = browser(personas.alice).get("/hooks/").content.decode()
        assert "Annal" in html and "1 invalid" in html
        assert "Annal" not in browser(personas.charlie).get("/hooks/").content.decode()


class TestPreferences:
    def post(self, user, server, **data):
        return browser(user).post(
            f"/hooks/servers/{server.id}/preferences", data, HTTP_HX_REQUEST="true"
        )

    def test_a_user_mutes_and_caps_a_hook(self, personas, server):
        hook = hook_id_of(server, COMMIT_HOOK)
        response = self.post(personas.alice, server, hook_id=hook, action="mute")
        assert response.status_code == 200
        assert "muted" in response.content.decode() and "Unmute" in response.content.decode()
        response = self.post(
            personas.alice, server, hook_id=hook, action="cap", max_priority="suggestion"
        )
        assert "you: at most suggestion" in response.content.decode()
        pref = HookPreference.objects.get(user=personas.alice, hook_id=hook)
        assert (pref.muted, pref.max_priority) == (True, "suggestion")
        assert AuditEntry.objects.filter(kind="hook.preference_changed").count() == 2

    def test_back_to_the_defaults_removes_the_preference(self, personas, server):
        hook = hook_id_of(server, COMMIT_HOOK)
        self.post(personas.alice, server, hook_id=hook, action="mute")
        self.post(personas.alice, server, hook_id=hook, action="unmute")
        assert not HookPreference.objects.exists()

    def test_muting_a_whole_server(self, personas, server):
        response = self.post(personas.alice, server, hook_id="", action="mute")
        assert "Unmute all" in response.content.decode()
        approve(personas.alice, server, COMMIT_HOOK)
        assert fire(personas, server)["suppressed"][0]["reason"] == "muted"

    def test_without_htmx_the_page_is_shown_again(self, personas, server):
        response = browser(personas.alice).post(
            f"/hooks/servers/{server.id}/preferences", {"hook_id": "", "action": "mute"}
        )
        assert response.status_code == 302 and response["Location"].endswith(f"/{server.id}/")

    def test_bad_requests_are_refused(self, personas, server):
        assert self.post(personas.alice, server, hook_id="", action="explode").status_code == 400
        assert self.post(personas.alice, server, hook_id="nope", action="mute").status_code == 422
        assert (
            self.post(
                personas.alice, server, hook_id="", action="cap", max_priority="required"
            ).status_code
            == 422
        )
        assert self.post(personas.charlie, server, hook_id="", action="mute").status_code == 404
        assert self.post(personas.admin, server, hook_id="", action="mute").status_code == 403
        assert Client().post(f"/hooks/servers/{server.id}/preferences").status_code == 401
        assert (
            browser(personas.alice).get(f"/hooks/servers/{server.id}/preferences").status_code
            == 405
        )


class TestTimelines:
    def test_a_user_sees_their_own_events_and_what_they_injected(self, personas, server):
        approve(personas.alice, server, COMMIT_HOOK)
        fire(personas, server)
        fire(personas, server, session="bob-s", user="bob")
        html = browser(personas.alice).get("/hooks/timeline/").content.decode()
        assert f'id="timeline-u-{personas.alice.id}"' in html
        assert COMMIT_HOOK["context"] in html
        assert html.count('class="lifecycle-entry"') == 1
        bob = browser(personas.bob).get("/hooks/timeline/").content.decode()
        assert COMMIT_HOOK["context"] not in bob and "no_consent" in bob

    def test_staff_see_the_hosts_timeline_sessions_and_users(self, personas, server):
        approve(personas.alice, server, COMMIT_HOOK)
        fire(personas, server)
        staff = browser(personas.admin)
        host = staff.get("/hooks/timeline/").content.decode()
        assert 'id="timeline-host"' in host and COMMIT_HOOK["context"] in host
        sessions = staff.get("/staff/hooks/sessions/").content.decode()
        assert "s-1" in sessions
        from hooks.models import LifecycleSession

        session = LifecycleSession.objects.get(session_id="s-1")
        detail = staff.get(f"/staff/hooks/sessions/{session.id}/").content.decode()
        assert f'id="timeline-s-{session.id}"' in detail and "Annal" in detail
        user = staff.get(f"/staff/hooks/users/{personas.alice.id}/").content.decode()
        assert COMMIT_HOOK["context"] in user

    def test_staff_pages_are_for_staff_of_the_same_host(self, personas, server):
        fire(personas, server)
        from hooks.models import LifecycleSession

        session = LifecycleSession.objects.get(session_id="s-1")
        assert browser(personas.alice).get("/staff/hooks/sessions/").status_code == 403
        other = staff_create(
            host=personas.bravo, email="admin@bravo.test", role="admin", actor=SYSTEM
        )
        assert browser(other).get(f"/staff/hooks/sessions/{session.id}/").status_code == 404
        assert browser(other).get(f"/staff/hooks/users/{personas.alice.id}/").status_code == 404
        assert "s-1" not in browser(other).get("/staff/hooks/sessions/").content.decode()

    def test_htmx_asks_for_the_list_only(self, personas, server):
        fire(personas, server)
        html = (
            browser(personas.alice).get("/hooks/timeline/", HTTP_HX_REQUEST="true").content.decode()
        )
        assert "<html" not in html and "lifecycle" in html
