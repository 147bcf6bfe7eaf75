"""requirements.lock (what ``make`` and CI install, with hashes) holds every
dependency pyproject.toml names, at a version it allows: a dependency added
to pyproject.toml without ``make lock`` fails here, not on a fresh clone."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = project["dependencies"] + project["optional-dependencies"]["test"]
    return [Requirement(line) for line in names]


def _pinned() -> dict[str, set[str]]:
    pinned: dict[str, set[str]] = {}
    for name, version in PIN.findall((ROOT / "requirements.lock").read_text()):
        pinned.setdefault(canonicalize_name(name), set()).add(version)
    return pinned


def test_every_dependency_of_pyproject_is_pinned_in_the_lock_at_an_allowed_version():
    pinned = _pinned()
    missing = [str(r) for r in _declared() if canonicalize_name(r.name) not in pinned]
    assert not missing, f"not in requirements.lock (run make lock): {missing}"
    outside = [
        f"{r} (locked {sorted(pinned[canonicalize_name(r.name)])})"
        for r in _declared()
        if not any(
            r.specifier.contains(v, prereleases=True) for v in pinned[canonicalize_name(r.name)]
        )
    ]
    assert not outside, (
        f"requirements.lock pins versions pyproject.toml refuses (run make lock): {outside}"
    )


def test_every_pin_carries_hashes():
    """pip installs the lock with --require-hashes: a pin without one fails there."""
    text = (ROOT / "requirements.lock").read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    unhashed = [e.split()[0] for e in entries if e.strip() and "--hash=sha256:" not in e]
    assert not unhashed, unhashed
