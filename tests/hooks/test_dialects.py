"""Native hook event names (``dialect``) through the lifecycle API: each name
of each dialect is evaluated as the host guide's table says, names without a
normalized twin and unknown names are recorded and fire nothing, and a wrong
dialect is refused naming the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from hooks.dialects import NATIVE_EVENTS
from hooks.models import LifecycleEvent
from hooks.services import lifecycle_records_write
from switchboard.mcp import HOOK_EVENTS
from tests.hooks.conftest import approve, hook_id_of, hooked_server

pytestmark = pytest.mark.django_db

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "host-integration.md"

# The table, written out here on purpose: a change to hooks/dialects.py must
# be a change to this test too. None: a known event with no normalized twin.
EXPECTED = {
    "claude-code": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "PreToolUse": "pre_tool_use",
        "PostToolUse": "post_tool_use",
        "PostToolUseFailure": "post_tool_use",
        "UserPromptSubmit": "pre_request",
        "Stop": "post_request",
        **dict.fromkeys(
            [
                "Setup",
                "UserPromptExpansion",
                "PermissionRequest",
                "PermissionDenied",
                "PostToolBatch",
                "Notification",
                "SubagentStart",
                "SubagentStop",
                "StopFailure",
                "PreCompact",
                "PostCompact",
                "TeammateIdle",
                "TaskCreated",
                "TaskCompleted",
                "InstructionsLoaded",
                "ConfigChange",
                "CwdChanged",
                "FileChanged",
                "WorktreeCreate",
                "WorktreeRemove",
                "Elicitation",
                "ElicitationResult",
            ]
        ),
    },
    "codex": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "PreToolUse": "pre_tool_use",
        "PostToolUse": "post_tool_use",
        "UserPromptSubmit": "pre_request",
        "Stop": "post_request",
        **dict.fromkeys(
            ["PermissionRequest", "PreCompact", "PostCompact", "SubagentStart", "SubagentStop"]
        ),
    },
    "gemini-cli": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "BeforeTool": "pre_tool_use",
        "AfterTool": "post_tool_use",
        "BeforeAgent": "pre_request",
        "AfterAgent": "post_request",
        **dict.fromkeys(
            ["BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress", "Notification"]
        ),
    },
}

NAMES = [(dialect, name) for dialect, table in EXPECTED.items() for name in table]


def _one_hook_per_event():
    """Six static hooks, one per normalized event, each saying which it is."""
    return [
        {"event": event, "context": f"fired at {event}", "priority": "suggestion"}
        for event in HOOK_EVENTS
    ]


@pytest.fixture
def every_event_server(personas, settings):
    settings.HOOK_COOLDOWN = 0
    hooks = _one_hook_per_event()
    server = hooked_server(personas.acme, hooks)
    approve(personas.alice, server, *hooks)
    return server


def report(api, session, **body):
    body.setdefault("user", "alice")
    return api.post(f"/sessions/{session}/lifecycle", body)


def test_the_table_is_the_one_this_test_expects():
    assert NATIVE_EVENTS == EXPECTED


def test_the_host_guide_shows_the_same_table():
    text = GUIDE.read_text()
    shown: dict[str, dict[str, str | None]] = {}
    row = re.compile(rf"^\| `({'|'.join(EXPECTED)})` \| (.+?) \| (.+?) \|$", re.MULTILINE)
    for dialect, names, normalized in row.findall(text):
        target = re.fullmatch(r"`([a-z_]+)`", normalized.strip())
        for name in re.findall(r"`([A-Za-z]+)`", names):
            shown.setdefault(dialect, {})[name] = target.group(1) if target else None
    assert shown == EXPECTED


@pytest.mark.parametrize(("dialect", "name"), NAMES)
def test_each_native_name_is_read_as_the_table_says(personas, every_event_server, dialect, name):
    server = every_event_server
    session = f"s-{dialect}-{name}"
    answer = report(
        personas.acme_api,
        session,
        dialect=dialect,
        event=name,
        servers=[server.id],
        tool_name="Bash",
        tool_input={"command": "ls"},
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    normalized = EXPECTED[dialect][name]
    record = LifecycleEvent.objects.get(pk=body["event_id"])
    assert (record.dialect, record.native_event) == (dialect, name)
    if normalized is None:
        assert body["native"] == {
            "dialect": dialect,
            "event": name,
            "normalized": None,
            "reason": "no_normalized_twin",
        }
        assert body["injections"] == [] and body["suppressed"] == []
        assert record.event == "" and record.injected == 0
        return
    assert body["native"] == {
        "dialect": dialect,
        "event": name,
        "normalized": normalized,
        "reason": None,
    }
    # Exactly the hook declared for the normalized twin fired.
    hook = {"event": normalized, "context": f"fired at {normalized}", "priority": "suggestion"}
    (injection,) = body["injections"]
    assert injection["hook_id"] == hook_id_of(server, hook)
    assert injection["text"] == f"fired at {normalized}"
    assert record.event == normalized and record.injected == 1


def test_an_unknown_name_is_recorded_and_fires_nothing(personas, every_event_server):
    answer = report(
        personas.acme_api,
        "s-unknown",
        dialect="codex",
        event="AfterToolUse",  # SEP-2282's draft name; Codex's reference has none such
        servers=[every_event_server.id],
        thread_id="t-1",
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["native"] == {
        "dialect": "codex",
        "event": "AfterToolUse",
        "normalized": None,
        "reason": "unknown_event",
    }
    assert body["injections"] == [] and body["suppressed"] == [] and body["notices"] == []
    record = LifecycleEvent.objects.get(pk=body["event_id"])
    assert record.event == "" and record.native_event == "AfterToolUse"
    assert record.thread_id == "t-1" and record.session.session_id == "s-unknown"
    assert record.pending is not None
    # The records writer turns it into a timeline entry like any event's.
    assert lifecycle_records_write() >= 1
    record.refresh_from_db()
    assert record.pending is None
    assert not record.firings.exists()
    # The user's timeline shows it under its own name.
    page = Client()
    page.force_login(personas.alice)
    html = page.get("/hooks/timeline/").content.decode()
    assert "codex <code>AfterToolUse</code>: no normalized event, recorded, nothing fired" in html


def test_a_normalized_name_under_a_dialect_is_not_guessed_at(personas, every_event_server):
    body = report(
        personas.acme_api,
        "s-normal",
        dialect="claude-code",
        event="session_start",
        servers=[every_event_server.id],
    ).json()
    assert body["native"]["reason"] == "unknown_event" and body["injections"] == []


@pytest.mark.parametrize("dialect", ["cursor", "Claude-Code", "", 7])
def test_a_wrong_dialect_is_refused_naming_the_field(personas, dialect):
    answer = report(personas.acme_api, "s-wrong", dialect=dialect, event="SessionStart")
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["field"] == "dialect"
    assert "claude-code" in error["message"]
    assert not LifecycleEvent.objects.exists()


def test_without_a_dialect_native_names_stay_refused(personas):
    answer = report(personas.acme_api, "s-plain", event="SessionStart")
    assert answer.status_code == 422
    assert answer.json()["error"]["field"] == "event"


def test_an_unmapped_event_is_refused_like_any_for_a_foreign_session(personas):
    assert report(personas.acme_api, "s-taken", event="session_start").status_code == 200
    answer = report(
        personas.bravo_api, "s-taken", user="charlie", dialect="codex", event="PreCompact"
    )
    assert answer.status_code == 404
    assert answer.json()["error"]["field"] == "session_id"
    assert LifecycleEvent.objects.count() == 1
