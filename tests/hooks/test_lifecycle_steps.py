"""``lifecycle_event_handle``'s steps, each on its own, against our services
and the test database (the whole call is in test_lifecycle_api.py)."""

from __future__ import annotations

import time

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from consent.services import grant_revoke, host_policy_update
from hooks.engine import ToolFailure
from hooks.models import LifecycleEvent, LifecycleSession
from hooks.services.context_tools import LATE
from hooks.services.context_tools_step import context_tools_run
from hooks.services.flood_state import flood_state_apply, limits_from_settings
from hooks.services.lifecycle import event_evaluate, event_validate, hooks_consent
from hooks.services.lifecycle_data import LifecycleInput
from hooks.services.preferences import hook_preference_set
from hooks.services.records import event_record
from hooks.services.session_claim import session_claim, session_servers
from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.models import AuditEntry
from tests.factories import SYSTEM
from tests.hooks.conftest import (
    BRIEF_HOOK,
    COMMIT_HOOK,
    START_HOOK,
    approve,
    hook_id_of,
    hooked_server,
)

pytestmark = pytest.mark.django_db


def _input(server, event="session_start", session="steps-1", **extra) -> LifecycleInput:
    return LifecycleInput(
        session_id=session,
        user="alice",
        event=event,
        servers=[server.id],
        project_name="apollo",
        **extra,
    )


def _evaluated(personas, server, data):
    session, user = session_claim(host=personas.acme, data=data)
    servers = session_servers(host=personas.acme, session=session)
    evaluation = event_evaluate(
        host=personas.acme,
        user=user,
        session=session,
        data=data,
        servers=servers,
        limits=limits_from_settings(),
    )
    return session, user, servers, evaluation


def test_event_validate_refuses_an_unknown_event_and_records_it(personas):
    server = hooked_server(personas.acme, [START_HOOK])
    with pytest.raises(Invalid) as refused:
        event_validate(host=personas.acme, actor=SYSTEM, data=_input(server, event="lunch"))
    assert refused.value.code == "unknown_event"
    assert AuditEntry.objects.filter(kind="hook.event_rejected").count() == 1
    event_validate(host=personas.acme, actor=SYSTEM, data=_input(server))  # known: no error


def test_session_claim_creates_binds_and_then_only_reads(personas):
    server = hooked_server(personas.acme, [START_HOOK])
    data = _input(server, thread_id="t-1")
    session, user = session_claim(host=personas.acme, data=data)
    assert (session.user_id, session.thread_id, session.server_ids) == (
        personas.alice.id,
        "t-1",
        [server.id],
    )
    assert user == personas.alice
    with CaptureQueriesContext(connection) as captured:
        again, _ = session_claim(host=personas.acme, data=data)
    assert again.pk == session.pk
    assert len(captured.captured_queries) == 1  # the known session, with its user


def test_session_servers_are_the_sessions_own(personas):
    server = hooked_server(personas.acme, [START_HOOK])
    other = hooked_server(personas.acme, [START_HOOK], name="Other")
    session, _ = session_claim(host=personas.acme, data=_input(server))
    assert set(session_servers(host=personas.acme, session=session)) == {server.id}
    assert other.id not in session.server_ids


def test_event_evaluate_matches_selects_admits_and_renders(personas):
    server = hooked_server(personas.acme, [START_HOOK, COMMIT_HOOK])
    _, _, _, evaluation = _evaluated(personas, server, _input(server))
    # Not approved yet: matched, and suppressed for consent.
    assert evaluation.admitted == []
    assert [s.reason for s in evaluation.suppressed] == ["no_consent"]
    approve(personas.alice, server, START_HOOK)
    _, _, _, evaluation = _evaluated(personas, server, _input(server, session="steps-2"))
    (candidate,) = evaluation.admitted
    assert candidate.text is not None and "apollo" in candidate.text
    assert evaluation.suppressed == [] and evaluation.held == []


def test_hooks_consent_reads_nothing_when_no_hook_applies_and_fresh_otherwise(personas):
    server = hooked_server(personas.acme, [START_HOOK])
    with CaptureQueriesContext(connection) as captured:
        assert hooks_consent(user=personas.alice, host=personas.acme, server_ids=[]).approved == {}
    assert captured.captured_queries == []
    grant = approve(personas.alice, server, START_HOOK)
    fresh = hooks_consent(user=personas.alice, host=personas.acme, server_ids=[server.id])
    assert server.id in fresh.approved
    grant_revoke(grant=grant, actor=Actor.for_user(personas.alice))
    fresh = hooks_consent(user=personas.alice, host=personas.acme, server_ids=[server.id])
    assert server.id not in fresh.approved


def test_permissions_read_grants_preferences_and_the_policy_in_one_statement(personas):
    server = hooked_server(personas.acme, [START_HOOK, COMMIT_HOOK])
    other = hooked_server(personas.acme, [START_HOOK], name="Other")
    approve(personas.alice, server, START_HOOK, COMMIT_HOOK)
    start, commit = hook_id_of(server, START_HOOK), hook_id_of(server, COMMIT_HOOK)
    hook_preference_set(user=personas.alice, server=server, hook_id=start, actor=SYSTEM, muted=True)
    hook_preference_set(
        user=personas.alice, server=server, hook_id=commit, actor=SYSTEM, max_priority="suggestion"
    )
    # No saved policy: the defaults.
    defaults = hooks_consent(user=personas.alice, host=personas.acme, server_ids=[server.id])
    assert defaults.blocked_servers == frozenset()
    assert defaults.required_trusted_only is True and defaults.context_tools_trusted_only is False
    host_policy_update(
        host=personas.acme,
        actor=SYSTEM,
        server_list_mode="deny",
        listed_server_ids=[other.id],
        required_hooks_trusted_only=False,
        context_tools_trusted_only=True,
    )
    with CaptureQueriesContext(connection) as captured:
        got = hooks_consent(
            user=personas.alice, host=personas.acme, server_ids=[server.id, other.id]
        )
    assert len(captured.captured_queries) == 1, captured.captured_queries
    assert got.approved == {server.id: frozenset({start, commit})}
    assert got.muted == frozenset({(server.id, start)})
    assert got.caps == {(server.id, commit): "suggestion"}
    assert got.blocked_servers == frozenset({other.id})
    assert got.required_trusted_only is False and got.context_tools_trusted_only is True


def test_context_tools_run_records_results_and_lets_a_revoke_win(personas):
    # The server has no url: the host reaches it itself, so the call's
    # outcome is known without a network (the live paths are in
    # test_context_tool_sessions.py and tests/consent/test_enforce_context_tools.py).
    server = hooked_server(personas.acme, [BRIEF_HOOK])
    approve(personas.alice, server, BRIEF_HOOK)
    data = _input(server)
    _, user, servers, evaluation = _evaluated(personas, server, data)
    context_tools_run(user=user, event=data.event, evaluation=evaluation, servers=servers)
    (result,) = evaluation.tool_results.values()
    assert isinstance(result, ToolFailure) and result.reason == "context_tool_unreachable"
    assert evaluation.late == []
    assert len(evaluation.admitted) == 1  # still allowed: budget() turns it into a suppression


def test_evaluation_names_the_late_hooks(personas):
    server = hooked_server(personas.acme, [BRIEF_HOOK])
    approve(personas.alice, server, BRIEF_HOOK)
    _, _, _, evaluation = _evaluated(personas, server, _input(server))
    (candidate,) = evaluation.admitted
    evaluation.tool_results = {candidate.hook.hook_id: ToolFailure(LATE, {"waited_seconds": 1})}
    assert evaluation.late == [{"server": server.id, "hook_id": candidate.hook.hook_id}]


def test_flood_state_apply_fires_once_within_the_cooldown(personas, settings):
    settings.HOOK_COOLDOWN = 60
    server = hooked_server(personas.acme, [START_HOOK])
    approve(personas.alice, server, START_HOOK)
    session, _, _, evaluation = _evaluated(personas, server, _input(server))
    limits = limits_from_settings()
    with transaction.atomic():
        session, fired, held = flood_state_apply(session, evaluation, limits, moment=timezone.now())
    assert len(fired) == 1 and held == []
    saved = LifecycleSession.objects.get(pk=session.pk)
    assert fired[0].candidate.hook.hook_id in saved.last_fired
    # The same evaluation again (a concurrent call decided before the first
    # committed): the fresh state under the lock holds it back.
    with transaction.atomic():
        _, fired, held = flood_state_apply(session, evaluation, limits, moment=timezone.now())
    assert fired == [] and [s.reason for s in held] == ["cooldown"]


def test_event_record_writes_the_row_with_what_is_left_to_write(personas):
    server = hooked_server(personas.acme, [START_HOOK])
    approve(personas.alice, server, START_HOOK)
    data = _input(server)
    session, user, _, evaluation = _evaluated(personas, server, data)
    with transaction.atomic():
        moment = timezone.now()
        session, fired, held = flood_state_apply(
            session, evaluation, limits_from_settings(), moment=moment
        )
        record, firings = event_record(
            host=personas.acme,
            actor=SYSTEM,
            user=user,
            session=session,
            data=data,
            evaluation=evaluation,
            fired=fired,
            suppressed=held,
            refresh=None,
            moment=moment,
            started=time.perf_counter(),
        )
    saved = LifecycleEvent.objects.get(pk=record.pk)
    assert (saved.event, saved.injected, saved.suppressed) == ("session_start", 1, [])
    assert len(firings) == 1 and saved.pending  # the worker writes the firing
