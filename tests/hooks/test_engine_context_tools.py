"""The pure evaluation engine: context tools' results, injected or suppressed."""

from __future__ import annotations

from hooks.engine import Limits, ToolFailure, budget, render, select
from tests.hooks.engine_support import approve_all, facts, run, server

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
