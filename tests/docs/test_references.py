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


# A section number ("§4", "§7.2") is a section of a document, and a clone
# must be able to read that document: a file of the repository named just
# before it ("docs/events-client.md §8", "`docs/events-client.md` §8") or a
# public specification by its name ("RFC 9162 §2.1.3", "OpenID Connect Core
# 1.0 §5.3.2"). SEP-3415's sections have no numbers and are cited by title
# (SEP-3415 §"Dynamic event types"). A bare "§7.2 (14)", "spec §2.5" or
# "organisation API §4" is a section of a specification kept elsewhere.
_SECTION = re.compile(r"§\s*\d")
_PUBLIC_SPEC = re.compile(r"(?:\bRFC\s+\d+|\bOpenID\s+Connect\s+Core\s+1\.0)\s+$")
_REPO_FILE = re.compile(r"([\w./-]+\.md)`?\s+$")
# How far back the name of the document may start (it may end on the line before).
_LOOKBEHIND = 80


def _names_a_readable_document(before: str, here: Path | None) -> bool:
    if _PUBLIC_SPEC.search(before):
        return True
    named = _REPO_FILE.search(before)
    if named is None:
        return False
    relative = named.group(1)
    places = [REPO / relative] + ([here.parent / relative] if here is not None else [])
    return any(place.resolve().is_relative_to(REPO) and place.is_file() for place in places)


def references_in(text: str, *, here: Path | None = None) -> list[tuple[int, str, str]]:
    """(line, kind, what) for every reference a clone cannot resolve.
    ``here``: the file the text comes from, for a relative ``.md`` link."""
    found = []
    for kind, pattern in UNRESOLVABLE.items():
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((line, kind, " ".join(match.group(0).split())))
    for match in _SECTION.finditer(text):
        before = text[max(0, match.start() - _LOOKBEHIND) : match.start()]
        if not _names_a_readable_document(before, here):
            line = text.count("\n", 0, match.start()) + 1
            context = " ".join(text[max(0, match.start() - 30) : match.end() + 6].split())
            found.append((line, "a section of a document not in the repository", context))
    return sorted(found)


def test_nothing_refers_to_what_a_clone_does_not_have():
    found = [
        f"{path.relative_to(REPO)}:{line}: {kind} ({what!r})"
        for path in _files()
        if path.relative_to(REPO).as_posix() != PEERS_CONSTANT_MODULE
        for line, kind, what in references_in(
            path.read_text(encoding="utf-8", errors="replace"), here=path
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


@pytest.mark.parametrize(
    "text",
    [
        "Receiver answers of §7.3",
        "per events dialect (§7.2 (14)):",
        '"""``GET /metrics`` (organisation API §4): the Prometheus text',
        "A push subscription exists only while its request is open (spec §2.5)",
        "# The receiver refuses bodies over this many bytes (events spec §3).",
        "``httpx2.AsyncClient`` (guide §8)",
        "Event-type patterns (the MCPE proposal §5).",
        "see docs/nowhere.md §2",
        "the differences events-extension.md §7.2 lists",
        "(§4 item 2)",
    ],
)
def test_a_section_of_a_document_not_in_the_repository_is_seen(text):
    assert any(kind.startswith("a section") for _, kind, _ in references_in(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "see docs/events-client.md §8",
        "see `docs/events-client.md` §8",
        "[docs/events-client.md §10](../docs/events-client.md#10-mcpe-servers)",
        "Error table (docs/events-client.md §6 and, for the dialects,\ndocs/events-client.md §8).",
        '"""RFC 9162 §2.1.3: the entry\'s audit path',
        "(RFC 6455 §7.4.2)",
        "issued to us (OpenID Connect Core 1.0 §3.1.3.7)",
        'SEP-3415 §"Dynamic event types"',
    ],
)
def test_a_section_of_a_file_here_or_of_a_public_specification_is_left(text):
    assert not references_in(text), text


def test_a_relative_link_is_read_from_the_file_that_holds_it():
    readme = REPO / "subscriptions" / "README.md"
    assert not references_in("see events-client.md §8", here=REPO / "docs" / "README.md")
    assert references_in("see events-client.md §8", here=readme)
    assert not references_in("see ../docs/events-client.md §8", here=readme)


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
