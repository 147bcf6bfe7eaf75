"""docs/conformance.md and the tests stay in step: every conformance case a
test cites is listed there, and every test listed there exists.

A test cites a case by its name (``test_43_…``, ``test_18_19_…``: numbers
below 100, so ``test_410_…``, an HTTP status, is no case) or in a comment or
docstring (``case 48``, ``cases 46-47``, ``Case 59``). No database, no process.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
TESTS = REPO / "tests"
PAGE = REPO / "docs" / "conformance.md"

_NAME_CASES = re.compile(r"^test_((?:\d{1,2}_)+)")
_CITED = re.compile(r"\b[Cc]ases? (\d+)(?:\s*(?:-|–|,|and|to)\s*(\d+))?")
_ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)\|(.*)\|\s*$")
_TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def cases_cited_in(source: str) -> set[int]:
    """The case numbers one test module cites, by test name or in words."""
    cited: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            match = _NAME_CASES.match(node.name)
            if match:
                cited |= {int(n) for n in match.group(1).strip("_").split("_")}
    for match in _CITED.finditer(source):
        first = int(match.group(1))
        if match.group(2) is None:
            cited.add(first)
        elif re.search(r"-|–|\bto\b", match.group(0)):
            cited |= set(range(first, int(match.group(2)) + 1))
        else:
            cited |= {first, int(match.group(2))}
    return cited


def listed_cases() -> dict[int, list[tuple[str, str]]]:
    """Case number → the tests docs/conformance.md names for it."""
    listed: dict[int, list[tuple[str, str]]] = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        row = _ROW.match(line)
        if row:
            listed[int(row.group(1))] = _TEST_REF.findall(row.group(3))
    return listed


def _test_names(path: Path) -> set[str]:
    return {
        node.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def test_every_case_a_test_cites_is_listed():
    listed = listed_cases()
    unlisted = sorted(
        f"case {case} ({path.relative_to(REPO)})"
        for path in TESTS.rglob("*.py")
        for case in cases_cited_in(path.read_text(encoding="utf-8"))
        if case not in listed
    )
    assert unlisted == [], f"cited by tests but not in docs/conformance.md: {unlisted}"


def test_every_test_the_page_names_exists():
    missing = sorted(
        f"case {case}: {file}::{name}"
        for case, tests in listed_cases().items()
        for file, name in tests
        if not (REPO / file).is_file() or name not in _test_names(REPO / file)
    )
    assert missing == [], f"docs/conformance.md names tests that do not exist: {missing}"


def test_the_cases_are_listed_in_order_once_with_a_test_or_a_reason():
    lines = [m for m in map(_ROW.match, PAGE.read_text(encoding="utf-8").splitlines()) if m]
    numbers = [int(m.group(1)) for m in lines]
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    for row in lines:
        assert _TEST_REF.search(row.group(3)) or "not spoken" in row.group(3), row.group(0)


def test_the_extraction_sees_names_and_words():
    """The parsing itself: a check that finds nothing would always pass."""
    source = (
        "def test_18_19_old_secret(): pass\n"
        "def test_410_disables(): pass\n"
        "async def test_7_missing(): pass\n"
        "# case 48: untrusted\n"
        '"""Case 59 and cases 46-47."""\n'
    )
    assert cases_cited_in(source) == {18, 19, 7, 48, 59, 46, 47}
    listed = listed_cases()
    assert listed[43] and all(file.startswith("tests/") for file, _ in listed[43])
