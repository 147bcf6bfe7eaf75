"""The pure evaluation engine: which fired hooks are let through: consent
and the priority policy, flood control."""

from __future__ import annotations

import pytest

from hooks.engine import FloodState, Limits, Permissions, admit, effective_priority, render, select
from tests.hooks.engine_support import (
    COMMIT,
    NOW,
    approve_all,
    facts,
    fired_texts,
    reasons,
    run,
    server,
)

# --- consent and priority --------------------------------------------------------


class TestConsentAndPriority:
    def test_a_hook_fires_only_when_its_exact_declaration_was_approved(self):
        compiled = server([COMMIT])
        f = facts(tool_name="Bash", tool_input="git commit")
        assert reasons(run(compiled, f, Permissions())) == ["no_consent"]
        assert reasons(
            run(compiled, f, Permissions(approved={"srv_a": frozenset({"srv_a:other"})}))
        ) == ["not_approved"]
        assert run(compiled, f, approve_all(compiled)).fired

    def test_muting_a_hook_or_a_whole_server(self):
        compiled = server([COMMIT])
        hid = compiled.buckets["post_tool_use"].every[0].hook_id
        f = facts(tool_name="Bash", tool_input="git commit")
        base = approve_all(compiled)
        for muted in ({("srv_a", hid)}, {("srv_a", "")}):
            perms = Permissions(approved=base.approved, muted=frozenset(muted))
            assert reasons(run(compiled, f, perms)) == ["muted"]

    def test_servers_excluded_by_the_host_never_fire(self):
        compiled = server([COMMIT])
        perms = Permissions(
            approved=approve_all(compiled).approved, blocked_servers=frozenset({"srv_a"})
        )
        assert reasons(run(compiled, facts(tool_name="Bash", tool_input="git commit"), perms)) == [
            "disabled_by_host"
        ]

    @pytest.mark.parametrize(
        ("trusted", "as_required", "expected", "why"),
        [
            (True, True, "required", ()),
            (False, True, "important", ("untrusted_server",)),
            (True, False, "important", ("not_approved_as_required",)),
            (False, False, "important", ("untrusted_server", "not_approved_as_required")),
        ],
    )
    def test_required_needs_trust_and_approval_as_required(
        self, trusted, as_required, expected, why
    ):
        assert effective_priority(
            declared="required", trusted=trusted, approved_as_required=as_required
        ) == (expected, why)

    def test_the_host_policy_may_waive_trust_for_required(self):
        assert effective_priority(
            declared="required",
            trusted=False,
            approved_as_required=True,
            required_trusted_only=False,
        ) == ("required", ())

    def test_the_user_can_downgrade_any_priority(self):
        assert effective_priority(
            declared="required", trusted=True, approved_as_required=True, user_cap="suggestion"
        ) == ("suggestion", ("user_downgrade",))
        assert effective_priority(
            declared="suggestion", trusted=True, approved_as_required=True, user_cap="important"
        ) == ("suggestion", ())

    def test_the_answer_keeps_declared_and_effective_priority(self):
        hook = dict(COMMIT, priority="required")
        compiled = server([hook], trusted=False)
        result = run(
            compiled,
            facts(tool_name="Bash", tool_input="git commit"),
            approve_all(compiled, as_required=True),
        )
        (fired,) = result.fired
        assert fired.candidate.hook.priority == "required"
        assert fired.candidate.effective_priority == "important"
        assert fired.candidate.downgraded == ("untrusted_server",)

    def test_per_hook_and_per_server_caps_combine_to_the_lower(self):
        compiled = server([dict(COMMIT, priority="important")])
        hid = compiled.buckets["post_tool_use"].every[0].hook_id
        perms = Permissions(
            approved=approve_all(compiled).approved,
            caps={("srv_a", ""): "important", ("srv_a", hid): "suggestion"},
        )
        (fired,) = run(compiled, facts(tool_name="Bash", tool_input="git commit"), perms).fired
        assert fired.candidate.effective_priority == "suggestion"

    def test_order_is_priority_then_server_priority_then_declaration_order(self):
        a = server(
            [
                {"event": "session_start", "context": "a-suggestion", "priority": "suggestion"},
                {"event": "session_start", "context": "a-important", "priority": "important"},
            ],
            sid="srv_a",
            priority=20,
        )
        b = server(
            [
                {"event": "session_start", "context": "b-suggestion-1", "priority": "suggestion"},
                {"event": "session_start", "context": "b-suggestion-2", "priority": "suggestion"},
                {"event": "session_start", "context": "b-required", "priority": "required"},
            ],
            sid="srv_b",
            priority=10,
            trusted=True,
        )
        result = run(
            [a, b],
            facts("session_start"),
            approve_all(a, b, as_required=True),
            limits=Limits(max_hooks_per_event=10),
        )
        assert fired_texts(result) == [
            "b-required",
            "a-important",
            "b-suggestion-1",
            "b-suggestion-2",
            "a-suggestion",
        ]


# --- flood control -----------------------------------------------------------------


def many(n, *, sid="srv_a", text="x", **kw):
    return server(
        [
            {"event": "session_start", "context": f"{text}{i}", "priority": "suggestion"}
            for i in range(n)
        ],
        sid=sid,
        **kw,
    )


class TestFloodControl:
    def test_the_number_of_hooks_per_event_is_capped(self):
        compiled = many(4)
        result = run(compiled, facts("session_start"), limits=Limits(max_hooks_per_event=2))
        assert fired_texts(result) == ["x0", "x1"]
        assert reasons(result) == ["event_hook_cap", "event_hook_cap"]
        assert result.suppressed[0].detail == {"limit": 2}

    def test_a_hook_in_cooldown_is_suppressed_with_the_time_left(self):
        compiled = many(1)
        hid = compiled.buckets["session_start"].every[0].hook_id
        state = FloodState(last_fired={hid: NOW - 10})
        result = run(compiled, facts("session_start"), state=state, limits=Limits(cooldown=60))
        assert reasons(result) == ["cooldown"]
        assert result.suppressed[0].detail == {"retry_after": 50.0}
        assert run(compiled, facts("session_start"), state=state, limits=Limits(cooldown=10)).fired

    def test_the_session_rate_limit_counts_recent_firings_only(self):
        compiled = many(3)
        state = FloodState(recent=[NOW - 100, NOW - 5, NOW - 1])
        limits = Limits(session_rate_limit=4, session_rate_window=60)
        result = run(compiled, facts("session_start"), state=state, limits=limits)
        assert fired_texts(result) == ["x0", "x1"]
        assert reasons(result) == ["session_rate_limit"]

    def test_total_characters_per_event_are_capped(self):
        a = many(2, sid="srv_a", text="a" * 30)
        b = many(1, sid="srv_b", text="b" * 30, priority=200)
        limits = Limits(max_chars_per_event=70, max_chars_per_server=1000)
        result = run([a, b], facts("session_start"), limits=limits)
        assert [len(t) for t in fired_texts(result)] == [31, 31]
        assert reasons(result) == ["event_char_cap"]
        assert result.suppressed[0].detail == {"chars": 31, "used": 62, "limit": 70}

    def test_characters_per_server_are_capped(self):
        a = many(2, sid="srv_a", text="a" * 30)
        b = many(1, sid="srv_b", text="b" * 30, priority=200)
        limits = Limits(max_chars_per_event=1000, max_chars_per_server=40)
        result = run([a, b], facts("session_start"), limits=limits)
        assert fired_texts(result) == ["a" * 30 + "0", "b" * 30 + "0"]
        assert reasons(result) == ["server_char_cap"]

    def test_a_smaller_later_hook_may_still_fit_the_budget(self):
        compiled = server(
            [
                {"event": "session_start", "context": "L" * 50, "priority": "important"},
                {"event": "session_start", "context": "s", "priority": "suggestion"},
            ]
        )
        result = run(compiled, facts("session_start"), limits=Limits(max_chars_per_event=10))
        assert fired_texts(result) == ["s"] and reasons(result) == ["event_char_cap"]

    def test_empty_context_is_reported(self):
        compiled = server([{"event": "session_end", "context": "", "priority": "suggestion"}])
        assert reasons(run(compiled, facts("session_end"))) == ["empty_context"]

    def test_admit_orders_reasons_cooldown_before_rate_before_cap(self):
        compiled = many(3)
        candidates, _ = select([compiled], facts("session_start"), approve_all(compiled))
        first = candidates[0].hook.hook_id
        admitted, suppressed = admit(
            candidates,
            FloodState(last_fired={first: NOW}, recent=[NOW]),
            Limits(session_rate_limit=2, cooldown=60),
            NOW,
        )
        assert [c.text for c in render(admitted, facts("session_start"))] == ["x1"]
        assert [s.reason for s in suppressed] == ["cooldown", "session_rate_limit"]
