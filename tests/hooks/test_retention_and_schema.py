"""What is kept how long, and the OpenAPI description of the lifecycle routes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from hooks.models import HookFiring
from hooks.services import hooks_forget_user, lifecycle_purge_expired, lifecycle_records_write
from tests.hooks.conftest import COMMIT_HOOK, approve, hooked_server

pytestmark = pytest.mark.django_db


def fire(personas, server, session="s-1"):
    answer = personas.acme_api.post(
        f"/sessions/{session}/lifecycle",
        {
            "user": "alice",
            "event": "post_tool_use",
            "servers": [server.id],
            "tool_name": "Bash",
            "tool_input": "git commit",
        },
    ).json()
    lifecycle_records_write()  # what the worker does once the answer is out
    return answer


def test_injected_text_is_erased_after_the_retention_and_the_row_stays(personas, settings):
    # Hook text is injected text: it follows INJECTION_TEXT_RETENTION (or the
    # host's own days), like a conversation's.
    settings.INJECTION_TEXT_RETENTION = 3600
    server = hooked_server(personas.acme, [COMMIT_HOOK])
    approve(personas.alice, server, COMMIT_HOOK)
    old = fire(personas, server, "old")["injections"][0]["firing_id"]
    new = fire(personas, server, "new")["injections"][0]["firing_id"]
    HookFiring.objects.filter(pk=old).update(created_at=timezone.now() - timedelta(hours=2))
    assert lifecycle_purge_expired() == 1
    erased, kept = HookFiring.objects.get(pk=old), HookFiring.objects.get(pk=new)
    assert (erased.text, erased.chars > 0, erased.purged_at is not None) == ("", True, True)
    assert kept.text == COMMIT_HOOK["context"]


def test_forgetting_a_user_erases_their_injected_text(personas):
    server = hooked_server(personas.acme, [COMMIT_HOOK])
    approve(personas.alice, server, COMMIT_HOOK)
    fire(personas, server)
    assert hooks_forget_user(user=personas.alice) == 1
    assert HookFiring.objects.get().text == ""


def test_the_openapi_document_describes_the_lifecycle_routes(personas, client):
    schema = client.get("/api/v1/openapi.json").json()
    paths = schema["paths"]
    lifecycle = paths["/api/v1/sessions/{session_id}/lifecycle"]["post"]
    assert "requestBody" in lifecycle and "200" in lifecycle["responses"]
    assert "/api/v1/hooks/supported-events" in paths
    refresh = paths["/api/v1/threads/{thread_id}/refresh"]["post"]
    assert {"202", "429"} <= set(refresh["responses"])
    out = schema["components"]["schemas"]["LifecycleOut"]["properties"]
    assert {"injections", "suppressed", "refresh"} <= set(out)
    item = schema["components"]["schemas"]["InjectionOut"]["properties"]
    assert {"server", "hook_id", "priority", "effective_priority", "text"} <= set(item)
