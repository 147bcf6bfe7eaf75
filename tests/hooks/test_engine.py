"""The pure evaluation engine: matchers, templates, priority policy, flood control."""

from __future__ import annotations

import pytest

from hooks.engine import (
    FloodState,
    Limits,
    Permissions,
    ToolFailure,
    admit,
    budget,
    compile_server,
    effective_priority,
    evaluate,
    event_facts,
    render,
    select,
    serialize_tool_value,
    substitute,
    substitute_args,
)

NOW = 1_000_000.0


def server(declarations, *, sid="srv_a", name="alpha", trusted=False, priority=100, valid=True):
    rows = [(f"{sid}:{i:016x}", raw, valid) for i, raw in enumerate(declarations)]
    return compile_server(
        server_id=sid, name=name, trusted=trusted, priority=priority, declarations=rows
    )


def approve_all(*servers, as_required=False, **extra):
    approved = {
        s.server_id: frozenset(h.hook_id for b in s.buckets.values() for h in b.every)
        for s in servers
    }
    return Permissions(
        approved=approved, approved_as_required=approved if as_required else {}, **extra
    )


def facts(event="post_tool_use", **kwargs):
    kwargs.setdefault("session_id", "sess-1")
    built, _ = event_facts(event=event, **kwargs)
    return built


def run(servers, f, permissions=None, state=None, limits=None, now=NOW, tool_results=None):
    servers = servers if isinstance(servers, list) else [servers]
    return evaluate(
        servers,
        f,
        permissions or approve_all(*servers),
        state or FloodState(),
        limits or Limits(),
        now,
        tool_results,
    )


def fired_texts(result):
    return [f.text for f in result.fired]


def reasons(result):
    return [s.reason for s in result.suppressed]


START_HOOK_TEXT = {"event": "session_start", "context": "", "priority": "suggestion"}
COMMIT = {
    "event": "post_tool_use",
    "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
    "context": "You just committed.",
    "priority": "suggestion",
}


# --- matchers ----------------------------------------------------------------------


class TestMatchers:
    def test_it_fires_when_tool_name_and_input_both_match(self):
        result = run(
            server([COMMIT]), facts(tool_name="Bash", tool_input={"command": "git commit -m x"})
        )
        assert fired_texts(result) == ["You just committed."]

    @pytest.mark.parametrize(
        ("tool_name", "tool_input"),
        [
            ("Bash", {"command": "git status"}),  # input does not contain it
            ("Edit", {"command": "git commit"}),  # other tool
            ("bash", {"command": "git commit"}),  # names are case-sensitive
            (None, {"command": "git commit"}),  # the host did not say which tool
        ],
    )
    def test_it_needs_every_matcher_condition(self, tool_name, tool_input):
        result = run(server([COMMIT]), facts(tool_name=tool_name, tool_input=tool_input))
        assert result.fired == () and result.suppressed == ()

    @pytest.mark.parametrize(
        ("pattern", "name", "hit"),
        [
            ("mcp__annal__*", "mcp__annal__store", True),
            ("mcp__annal__*", "mcp__other__store", False),
            ("Bas?", "Bash", True),
            ("Bas?", "Bashh", False),
            ("[BE]*", "Edit", True),
            ("*", "anything", True),
            ("Ba[", "Ba[", True),  # a malformed class is taken literally, never an error
            ("a.b", "axb", False),  # regex metacharacters are literal
        ],
    )
    def test_tool_name_is_a_glob(self, pattern, name, hit):
        hook = {
            "event": "pre_tool_use",
            "matcher": {"tool_name": pattern},
            "context": "x",
            "priority": "suggestion",
        }
        result = run(server([hook]), facts("pre_tool_use", tool_name=name))
        assert bool(result.fired) is hit

    def test_input_contains_searches_the_serialized_input(self):
        hook = {
            "event": "pre_tool_use",
            "matcher": {"input_contains": '"path":"/etc'},
            "context": "x",
            "priority": "suggestion",
        }
        assert run(
            server([hook]),
            facts("pre_tool_use", tool_name="Read", tool_input={"path": "/etc/passwd"}),
        ).fired
        # a string input is matched as it is
        assert run(
            server([hook]), facts("pre_tool_use", tool_name="Read", tool_input='{"path":"/etc/x"}')
        ).fired
        assert not run(
            server([hook]), facts("pre_tool_use", tool_name="Read", tool_input={"path": "/home"})
        ).fired

    def test_tool_server_matches_any_name_of_the_tools_server(self):
        hook = {
            "event": "post_tool_use",
            "matcher": {"tool_server": "github"},
            "context": "x",
            "priority": "suggestion",
        }
        assert run(server([hook]), facts(tool_name="t", tool_servers={"srv_9", "github"})).fired
        assert not run(server([hook]), facts(tool_name="t", tool_servers={"gitlab"})).fired
        assert not run(server([hook]), facts(tool_name="t")).fired

    def test_a_hook_without_matcher_fires_on_every_tool_use(self):
        hook = {"event": "post_tool_use", "context": "after any tool", "priority": "suggestion"}
        assert run(server([hook]), facts(tool_name="Anything")).fired
        assert run(server([hook]), facts()).fired

    def test_matchers_are_ignored_on_events_that_are_not_tool_use(self):
        hook = {
            "event": "session_start",
            "matcher": {"tool_name": "Nope"},
            "context": "hello",
            "priority": "suggestion",
        }
        compiled = server([hook])
        assert compiled.buckets["session_start"].every[0].matcher_ignored
        assert fired_texts(run(compiled, facts("session_start"))) == ["hello"]

    def test_only_declarations_for_the_event_apply(self):
        hooks = [
            {"event": "session_end", "context": "bye", "priority": "suggestion"},
            {"event": "session_start", "context": "hi", "priority": "suggestion"},
        ]
        assert fired_texts(run(server(hooks), facts("session_end"))) == ["bye"]
        assert fired_texts(run(server(hooks), facts("pre_request"))) == []

    def test_invalid_declarations_never_fire(self):
        compiled = server([COMMIT], valid=False)
        result = run(compiled, facts(tool_name="Bash", tool_input="git commit"), approve_all())
        assert result.fired == () and result.suppressed == ()

    def test_garbage_declarations_are_skipped_when_compiling(self):
        compiled = compile_server(
            server_id="s",
            name="s",
            trusted=False,
            priority=1,
            declarations=[("s:1", "not a dict", True), ("s:2", {"event": "nope"}, True)],
        )
        assert compiled.buckets == {}


# --- templates ---------------------------------------------------------------------


class TestTemplates:
    VARS = {"project_name": "demo", "tool_name": "Bash", "session_id": "s1"}

    def test_known_variables_are_substituted(self):
        assert substitute("{project_name}/{tool_name}@{session_id}", self.VARS) == "demo/Bash@s1"

    def test_unknown_variables_pass_through_unchanged(self):
        assert substitute("{unknown} {project_name} {{x}} {", self.VARS) == "{unknown} demo {{x}} {"

    def test_known_variables_without_a_value_pass_through(self):
        assert substitute("in {tool_output}", self.VARS) == "in {tool_output}"

    def test_substitution_is_a_single_pass(self):
        variables = {"tool_input": "{session_id}", "session_id": "s1"}
        assert substitute("{tool_input}", variables) == "{session_id}"

    def test_args_are_substituted_in_string_values_only(self):
        args = {
            "project": "{project_name}",
            "{project_name}": 1,
            "nested": [{"q": "{tool_name}"}, 3, None],
        }
        assert substitute_args(args, self.VARS) == {
            "project": "demo",
            "{project_name}": 1,
            "nested": [{"q": "Bash"}, 3, None],
        }

    def test_tool_variables_only_exist_on_tool_events(self):
        hook = {
            "event": "session_start",
            "context": "{tool_name} {project_name} {session_id}",
            "priority": "suggestion",
        }
        f = facts("session_start", tool_name="Bash", project_name="demo")
        assert fired_texts(run(server([hook]), f)) == ["{tool_name} demo sess-1"]

    def test_tool_output_only_exists_after_the_tool(self):
        for event in ("pre_tool_use", "post_tool_use"):
            hook = {
                "event": event,
                "context": "[{tool_input}] [{tool_output}]",
                "priority": "suggestion",
            }
            f = facts(event, tool_name="T", tool_input={"a": 1}, tool_output={"ok": True})
            expected = (
                '[{"a":1}] [{"ok":true}]'
                if event == "post_tool_use"
                else '[{"a":1}] [{tool_output}]'
            )
            assert fired_texts(run(server([hook]), f)) == [expected]

    def test_context_tool_arguments_are_substituted(self):
        hook = {
            "event": "session_start",
            "context_tool": "brief",
            "context_tool_args": {"project_name": "{project_name}"},
            "priority": "important",
        }
        f = facts("session_start", project_name="demo")
        candidates, _ = select([server([hook])], f, approve_all(server([hook])))
        (rendered,) = render(candidates, f)
        assert rendered.arguments == {"project_name": "demo"}
        assert rendered.text is None

    def test_only_admitted_candidates_are_rendered(self):
        compiled = server(
            [dict(START_HOOK_TEXT, context=f"{{project_name}} {i}") for i in range(3)]
        )
        f = facts("session_start", project_name="p")
        candidates, _ = select([compiled], f, approve_all(compiled))
        assert all(c.text is None for c in candidates)
        admitted, _ = admit(candidates, FloodState(), Limits(max_hooks_per_event=1), NOW)
        assert [c.text for c in render(admitted, f)] == ["p 0"]


class TestSerialization:
    def test_values_serialize_as_compact_json_keeping_order_and_unicode(self):
        assert serialize_tool_value({"b": 1, "a": "é"}) == '{"b":1,"a":"é"}'
        assert serialize_tool_value("raw") == "raw"
        assert serialize_tool_value(None) is None

    def test_huge_tool_io_is_cut_and_reported(self):
        f, notices = event_facts(
            event="post_tool_use",
            session_id="s",
            tool_name="T",
            tool_input="x" * 100,
            tool_output="y" * 10,
            max_io_chars=50,
        )
        assert f.tool_input == "x" * 50 and f.tool_output == "y" * 10
        assert notices == [{"field": "tool_input", "reason": "truncated", "size": 100, "limit": 50}]

    def test_tool_fields_are_dropped_on_other_events(self):
        f, _ = event_facts(
            event="session_end",
            session_id="s",
            tool_name="T",
            tool_input="i",
            tool_output="o",
            tool_servers=["x"],
        )
        assert (f.tool_name, f.tool_input, f.tool_output, f.tool_servers) == (
            None,
            None,
            None,
            frozenset(),
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


# --- context tools ----------------------------------------------------------------


class TestContextTools:
    HOOK = {
        "event": "session_start",
        "context_tool": "brief",
        "context_tool_args": {"p": "{project_name}"},
        "priority": "important",
    }

    def test_the_tool_result_is_injected(self):
        compiled = server([self.HOOK])
        hid = compiled.buckets["session_start"].every[0].hook_id
        result = run(
            compiled, facts("session_start", project_name="demo"), tool_results={hid: "the brief"}
        )
        (fired,) = result.fired
        assert (fired.text, fired.source) == ("the brief", "context_tool")

    def test_a_failed_tool_becomes_a_suppression_with_its_reason(self):
        compiled = server([self.HOOK])
        hid = compiled.buckets["session_start"].every[0].hook_id
        failure = ToolFailure("context_tool_timeout", {"timeout_seconds": 2})
        result = run(compiled, facts("session_start"), tool_results={hid: failure})
        assert result.fired == ()
        assert (result.suppressed[0].reason, dict(result.suppressed[0].detail)) == (
            "context_tool_timeout",
            {"timeout_seconds": 2},
        )

    def test_a_tool_result_counts_against_the_character_caps(self):
        compiled = server([self.HOOK])
        hid = compiled.buckets["session_start"].every[0].hook_id
        f = facts("session_start")
        fired, suppressed = budget(
            render(select([compiled], f, approve_all(compiled))[0], f),
            {hid: "z" * 100},
            Limits(max_chars_per_server=50),
        )
        assert fired == [] and suppressed[0].reason == "server_char_cap"
