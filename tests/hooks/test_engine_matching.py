"""The pure evaluation engine: what a hook matches (matchers) and the text
it injects (templates, a tool's value serialized)."""

from __future__ import annotations

import pytest

from hooks.engine import (
    FloodState,
    Limits,
    admit,
    compile_server,
    event_facts,
    render,
    select,
    serialize_tool_value,
    substitute,
    substitute_args,
)
from tests.hooks.engine_support import (
    COMMIT,
    NOW,
    START_HOOK_TEXT,
    approve_all,
    facts,
    fired_texts,
    run,
    server,
)

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
