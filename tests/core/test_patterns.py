"""Event-type patterns and filters (docs/host-integration.md): the tables consent and
subscriptions rely on."""

from __future__ import annotations

import pytest

from switchboard.patterns import (
    EventFilter,
    PatternError,
    Patterns,
    event_labels,
    pattern_check,
    pattern_covers,
    pattern_in_words,
    pattern_matches,
    patterns_covered,
)


@pytest.mark.parametrize(
    ("pattern", "name", "matches"),
    [
        ("github.push", "github.push", True),
        ("github.push", "github.push.forced", False),
        ("github.*", "github.push", True),
        ("github.*", "github.issue.opened", True),
        ("github.*", "github", False),
        ("github.*", "githubx.push", False),
        ("github.issue.*", "github.issue.opened", True),
        ("github.issue.*", "github.push", False),
        ("*", "anything.at.all", True),
        ("*", "x", True),
    ],
)
def test_matching(pattern, name, matches):
    assert pattern_matches(pattern, name) is matches
    assert Patterns([pattern]).matches(name) is matches  # the index agrees


@pytest.mark.parametrize(
    ("approved", "requested", "covered"),
    [
        ("github.*", "github.issue.*", True),
        ("github.issue.*", "github.*", False),  # not the reverse
        ("github.*", "github.push", True),
        ("github.push", "github.*", False),
        ("github.push", "github.push", True),
        ("github.issue.*", "github.issue.*", True),
        ("*", "github.*", True),
        ("*", "*", True),
        ("*", "slack.message", True),
        ("github.*", "*", False),
        ("github.*", "githubx.*", False),
        ("github.*", "github", False),
    ],
)
def test_coverage(approved, requested, covered):
    assert pattern_covers(approved, requested) is covered


def test_every_requested_pattern_must_be_covered_by_one_approved():
    assert patterns_covered(["github.issue.*", "slack.message"], ["github.*", "slack.*"]) == []
    assert patterns_covered(["github.*", "slack.message"], ["github.issue.*", "slack.*"]) == [
        "github.*"
    ]


@pytest.mark.parametrize(
    "bad", ["", "github.", "*.push", "git*", "github.*.x", ".x", "a..b", "a b"]
)
def test_malformed_patterns_are_refused(bad):
    with pytest.raises(PatternError):
        pattern_check(bad)


@pytest.mark.parametrize("good", ["github.push", "github.*", "*", "a-b_c:d/e.f", "alert.fired"])
def test_wellformed_patterns_pass(good):
    assert pattern_check(good) == good


def test_patterns_in_plain_words():
    assert pattern_in_words("github.issue.*") == "all github issue events"
    assert pattern_in_words("*") == "all events"
    assert pattern_in_words("slack.message") == "slack.message events"


def test_a_filter_ands_its_fields_ors_its_tags_and_defaults_priority_to_normal():
    f = EventFilter.from_json(
        {
            "event_types": ["github.*", "slack.message"],
            "tags": ["ci", "deploy"],
            "priority": ["normal", "high"],
        }
    )
    assert f.matches("github.push", ["ci"], "high")
    assert f.matches("github.push", ["deploy", "x"], None)  # no priority counts as normal
    assert not f.matches("github.push", ["ci"], "low")
    assert not f.matches("github.push", ["other"], "high")
    assert not f.matches("jira.issue", ["ci"], "high")
    assert EventFilter.from_json(None).matches("anything", [], None)
    assert EventFilter.from_json({"priority": ["critical"]}).matches("a", [], "critical")
    assert not EventFilter.from_json({"tags": ["ci"]}).matches("a", [], None)


def test_labels_come_from_metadata_or_data():
    assert event_labels({"metadata": {"tags": ["a"], "priority": "high"}}) == (["a"], "high")
    assert event_labels({"data": {"tags": ["b", 3], "priority": "low"}}) == (["b"], "low")
    assert event_labels({"data": {"summary": "x"}}) == ([], None)
