"""Nothing in the repository points at what a clone does not have: no issue
numbers, no seed documents, no paths into the workplace's ``shared/``
folder or the specification files kept there. Code, docs and tests refer
instead to a file here (docs/conformance.md's cases, docs/reliability.md's
rows, a guide's section) or to a public specification by its name
(SEP-3415, SEP-2282, Standard Webhooks). No database, no process.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
SKIPPED_DIRS = {".git", ".venv", "var", "node_modules", "__pycache__", "vendor", "screenshots"}
SUFFIXES = {".py", ".md", ".html", ".txt", ".toml", ".yml", ".yaml", ".js", ".css", ".json", ".sh"}
NAMES = {"Makefile", "Procfile"}
# The one place a path outside the repository is allowed: a test that runs a
# third-party implementation kept beside the clone (CI has ``shared/peers/``
# next to it) names that folder in one constant, in this module.
PEERS_CONSTANT_MODULE = "tests/peers.py"
THIS = Path(__file__).resolve()

# Across line breaks and comment markers: "issue\n    # 15" is still issue 15.
_GAP = r"[\s#*>]+"
UNRESOLVABLE = {
    "an issue number": re.compile(rf"\bissues?{_GAP}\d+", re.IGNORECASE),
    # The seed documents are numbered 000, 001, …; "--seed 2282" is a random seed.
    "a seed document": re.compile(rf"\bseeds?{_GAP}00\d\b|\bseeds/\d", re.IGNORECASE),
    "a path outside the repository": re.compile(
        r"\.\./shared\b|\bshared/(?:spec|seeds|guides|peers|hooks)\b"
    ),
    "a specification file kept outside the repository": re.compile(
        r"\b(?:events-extension|host-api|organisation-api|mcp-sdk-extensions)\.md\b"
    ),
}


def _files() -> list[Path]:
    found = []
    for path in REPO.rglob("*"):
        relative = path.relative_to(REPO)
        if SKIPPED_DIRS & set(relative.parts) or not path.is_file() or path == THIS:
            continue
        if path.suffix in SUFFIXES or path.name in NAMES or relative.parts[0] == ".ci":
            found.append(path)
    return found


# In the documentation a section number belongs to a file of the repository
# ("docs/events-client.md §8"); a bare "§7.3" is a section of a specification
# kept elsewhere. (Code comments still cite such sections: not yet held.)
_BARE_SECTION = re.compile(r"(?<!\.md )(?<!\.md` )§\d")


def references_in(text: str, *, markdown: bool = False) -> list[tuple[int, str, str]]:
    """(line, kind, what) for every reference a clone cannot resolve."""
    found = []
    patterns = dict(UNRESOLVABLE)
    if markdown:
        patterns["a section of a specification kept outside the repository"] = _BARE_SECTION
    for kind, pattern in patterns.items():
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((line, kind, " ".join(match.group(0).split())))
    return sorted(found)


def test_nothing_refers_to_what_a_clone_does_not_have():
    found = [
        f"{path.relative_to(REPO)}:{line}: {kind} ({what!r})"
        for path in _files()
        if path.relative_to(REPO).as_posix() != PEERS_CONSTANT_MODULE
        for line, kind, what in references_in(
            path.read_text(encoding="utf-8", errors="replace"), markdown=path.suffix == ".md"
        )
    ]
    assert found == [], (
        "refer to something in the repository instead (docs/conformance.md case N, "
        "docs/reliability.md row N, a guide's section, a public spec by name):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "text",
    [
        "(issue 15, row 10)",
        "a connection of its own (issue\n    # 15 row 10)",
        '"""Issue 14: authentication is one query',
        "thread refresh (seed 004)",
        "copy /work/shared/seeds/003_957b2fb7ce0527ff.txt",
        "contract: `../shared/spec/host-api.md`",
        "the differences events-extension.md §7.2 lists",
        "guides/mcp-sdk-extensions.md §9",
    ],
)
def test_the_check_sees_each_kind_of_reference(text):
    assert references_in(text), text


def test_in_the_documentation_a_section_belongs_to_a_file_of_the_repository():
    assert references_in("Receiver answers of §7.3", markdown=True)
    assert not references_in("see docs/events-client.md §8", markdown=True)
    assert not references_in("see `docs/events-client.md` §8", markdown=True)


@pytest.mark.parametrize(
    "text",
    [
        "docs/reliability.md row 10",
        "docs/conformance.md case 48",
        "the issue is that",
        "random.Random(seed)",
        'SEP-3415 §"Unsubscribing"',
        "--seed 2282 is the default",
    ],
)
def test_the_check_leaves_references_a_clone_resolves(text):
    assert not references_in(text), text
