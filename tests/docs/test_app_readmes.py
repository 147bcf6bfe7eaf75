"""Each part's README names every module it has, and no module it does not.

A module is a ``.py`` file outside ``migrations/`` and ``tests/`` (a
package's ``__init__.py`` excepted) or a package; the README names it by its
path inside the part, in backticks (`services/intake.py`, `services/receiver/`),
or by its path from the repository root (`subscriptions/services/intake.py`).
A path in backticks that ends in ``.py`` or ``/`` must exist, inside the part
or from the repository root. No database, no process.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
PARTS = [
    "config",
    "switchboard",
    "outbox",
    "consent",
    "hooks",
    "subscriptions",
    "refserver",
    "examples",
]
SKIPPED_DIRS = {"migrations", "tests", "__pycache__"}

_CODE = re.compile(r"`([^`\n]+)`")
# A relative path to a module or a package: no spaces, placeholders, globs or URLs.
_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*(\.py|/)$")


def modules_of(part: Path) -> set[str]:
    """Every module and package inside ``part``, as paths relative to it."""
    found: set[str] = set()
    for path in part.rglob("*"):
        relative = path.relative_to(part)
        if SKIPPED_DIRS & set(relative.parts):
            continue
        if path.is_dir() and (path / "__init__.py").is_file():
            found.add(f"{relative.as_posix()}/")
        elif path.suffix == ".py" and path.name != "__init__.py":
            found.add(relative.as_posix())
    return found


def names_in(readme_text: str) -> set[str]:
    """The module and package paths a README names in backticks."""
    return {
        token.strip()
        for token in _CODE.findall(readme_text)
        if _PATH.match(token.strip()) and ".." not in token
    }


def _named(module: str, part: str, names: set[str]) -> bool:
    return module in names or f"{part}/{module}" in names


@pytest.mark.parametrize("part", PARTS)
def test_every_module_is_named_in_its_parts_readme(part):
    readme = REPO / part / "README.md"
    names = names_in(readme.read_text(encoding="utf-8"))
    missing = sorted(m for m in modules_of(REPO / part) if not _named(m, part, names))
    assert missing == [], (
        f"{part}/README.md does not name these modules (add a line saying what each "
        f"holds): {missing}"
    )


@pytest.mark.parametrize("part", PARTS)
def test_every_module_a_readme_names_exists(part):
    readme = REPO / part / "README.md"
    gone = sorted(
        name
        for name in names_in(readme.read_text(encoding="utf-8"))
        if not (REPO / part / name).exists() and not (REPO / name).exists()
    )
    assert gone == [], f"{part}/README.md names modules that do not exist: {gone}"


def test_the_check_sees_modules_packages_and_names(tmp_path):
    """The extraction itself: a check that finds nothing would always pass."""
    part = tmp_path / "app"
    (part / "services" / "receiver").mkdir(parents=True)
    (part / "migrations").mkdir()
    for file in (
        "__init__.py",
        "models.py",
        "services/__init__.py",
        "services/common.py",
        "services/receiver/__init__.py",
        "services/receiver/sql.py",
        "migrations/__init__.py",
        "migrations/0001_initial.py",
    ):
        (part / file).write_text("", encoding="utf-8")
    assert modules_of(part) == {
        "models.py",
        "services/",
        "services/common.py",
        "services/receiver/",
        "services/receiver/sql.py",
    }
    text = (
        "| `models.py` | `services/common.py`, `app/services/receiver/sql.py` |\n"
        "`/webhooks/mcp/<token>` `<app>/receivers.py` `../outbox/README.md` `a b.py`\n"
    )
    names = names_in(text)
    assert names == {"models.py", "services/common.py", "app/services/receiver/sql.py"}
    assert _named("services/receiver/sql.py", "app", names)
    assert not _named("services/", "app", names)
