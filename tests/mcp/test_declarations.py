"""SEP-2282 declarations: schema validation, problems with JSON paths, hook_id."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest
from jsonschema import Draft202012Validator

from switchboard.mcp import HOOK_EVENTS, hook_id, parse_declarations
from switchboard.mcp.capabilities import CLIENT_EXPERIMENTAL, hooks_client_settings
from switchboard.mcp.declarations import declarations_from_capability

# The three examples from SEP-2282's "Capability declaration" section.
SEP_EXAMPLES = [
    {
        "event": "post_tool_use",
        "matcher": {"tool_name": "Bash", "input_contains": "git commit"},
        "context": "You just committed work.",
        "priority": "suggestion",
    },
    {
        "event": "session_start",
        "context_tool": "search_memories",
        "context_tool_args": {"query": "recent work", "project": "{project_name}"},
        "priority": "important",
    },
    {"event": "session_end", "context": "This session is ending.", "priority": "suggestion"},
]


def test_sep_examples_are_valid() -> None:
    parsed = parse_declarations(server_id="srv_1", raw_list=SEP_EXAMPLES)
    assert [d.valid for d in parsed] == [True, True, True]
    assert all(d.problems == () for d in parsed)
    first, second, _ = parsed
    assert first.event == "post_tool_use" and first.matcher == {
        "tool_name": "Bash",
        "input_contains": "git commit",
    }
    assert first.context == "You just committed work." and first.context_tool is None
    assert second.context_tool == "search_memories"
    assert second.context_tool_args == {"query": "recent work", "project": "{project_name}"}
    assert second.priority == "important"
    assert [d.index for d in parsed] == [0, 1, 2]


@pytest.mark.parametrize(
    ("declaration", "expected"),
    [
        ({"event": "session_end", "context": "x"}, "$: 'priority' is a required property"),
        (
            {"event": "whenever", "context": "x", "priority": "suggestion"},
            "$.event: 'whenever' is not one of",
        ),
        (
            {"event": "session_end", "context": "x", "priority": "urgent"},
            "$.priority: 'urgent' is not one of",
        ),
        (
            {"event": "session_end", "context": "x", "context_tool": "t", "priority": "required"},
            "$: 'context' and 'context_tool' are mutually exclusive",
        ),
        (
            {"event": "session_end", "priority": "required"},
            "$: one of 'context' or 'context_tool' is required",
        ),
        (
            {
                "event": "pre_tool_use",
                "matcher": {"tool": "Bash"},
                "context": "x",
                "priority": "important",
            },
            "$.matcher: Additional properties are not allowed ('tool' was unexpected)",
        ),
        (
            {"event": "session_end", "context": 42, "priority": "suggestion"},
            "$.context: 42 is not of type 'string'",
        ),
        (
            {"event": "session_end", "context": "x", "priority": "suggestion", "colour": "red"},
            "$: Additional properties are not allowed ('colour' was unexpected)",
        ),
        (
            {
                "event": "session_end",
                "context": "x",
                "context_tool_args": {},
                "priority": "suggestion",
            },
            "$.context_tool_args: requires 'context_tool'",
        ),
        ("not an object", "$: 'not an object' is not of type 'object'"),
    ],
)
def test_invalid_declarations_are_kept_and_explained(declaration, expected: str) -> None:
    [parsed] = parse_declarations(server_id="srv_1", raw_list=[declaration])
    assert parsed.valid is False
    assert parsed.raw == declaration
    assert any(p.startswith(expected) for p in parsed.problems), parsed.problems
    assert parsed.hook_id.startswith("srv_1:")


def test_best_effort_fields_on_invalid_declarations() -> None:
    [parsed] = parse_declarations(
        server_id="s", raw_list=[{"event": 3, "matcher": "Bash", "priority": "required"}]
    )
    assert parsed.event is None and parsed.matcher is None and parsed.priority == "required"


def test_long_values_are_truncated_in_problems() -> None:
    [parsed] = parse_declarations(
        server_id="s", raw_list=[{"event": "x" * 5000, "context": "c", "priority": "suggestion"}]
    )
    assert all(len(p) <= 220 for p in parsed.problems)


def test_hook_id_is_server_prefixed_sha256_of_canonical_json() -> None:
    declaration = {"priority": "suggestion", "event": "session_end", "context": "Bye — ünïcode"}
    canonical = json.dumps(declaration, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = "srv_abc:" + hashlib.sha256(canonical.encode()).hexdigest()[:16]
    assert hook_id(server_id="srv_abc", declaration=declaration) == expected
    # Key order does not matter; any change in content does.
    reordered = dict(reversed(list(declaration.items())))
    assert hook_id(server_id="srv_abc", declaration=reordered) == expected
    changed = {**declaration, "priority": "important"}
    assert hook_id(server_id="srv_abc", declaration=changed) != expected
    assert hook_id(server_id="srv_other", declaration=declaration) != expected
    server, _, digest = expected.rpartition(":")
    assert server == "srv_abc" and len(digest) == 16 and int(digest, 16) >= 0


def test_non_list_declarations_yield_nothing() -> None:
    assert parse_declarations(server_id="s", raw_list={"event": "x"}) == []
    assert declarations_from_capability(server_id="s", hooks=None) == []
    assert (
        len(declarations_from_capability(server_id="s", hooks={"declarations": SEP_EXAMPLES})) == 3
    )


def test_as_dict_matches_the_host_api_shape() -> None:
    [parsed] = parse_declarations(server_id="s", raw_list=[SEP_EXAMPLES[1]])
    assert parsed.as_dict() == {
        "hook_id": parsed.hook_id,
        "event": "session_start",
        "matcher": None,
        "priority": "important",
        "valid": True,
        "problems": [],
        "context_tool": "search_memories",
        "context_tool_args": SEP_EXAMPLES[1]["context_tool_args"],
    }


def test_advertised_client_capability_matches_the_sep_schema() -> None:
    schema_file = resources.files("switchboard.mcp").joinpath(
        "schemas/client_hooks_capability.schema.json"
    )
    schema = json.loads(schema_file.read_text())
    Draft202012Validator(schema).validate(hooks_client_settings())
    Draft202012Validator(schema).validate(CLIENT_EXPERIMENTAL["hooks"])
    assert set(HOOK_EVENTS) == set(schema["properties"]["supported_events"]["items"]["enum"])
