"""The one backoff (``switchboard.backoff``): doubling from the base, capped,
and with jitter the equal jitter it documents; no other module computes a
backoff or a jitter, and the documents name the jitter it draws."""

from __future__ import annotations

import ast
import re
import statistics
from pathlib import Path

import pytest

from switchboard.backoff import backoff

ROOT = Path(__file__).resolve().parents[2]


def test_it_doubles_from_the_base_up_to_the_cap():
    waits = [backoff(n, base=1.5, cap=20) for n in range(0, 7)]
    assert waits == [1.5, 1.5, 3, 6, 12, 20, 20]


def test_a_long_run_of_failures_stays_at_the_cap():
    assert backoff(10_000, base=2, cap=300) == 300


@pytest.mark.parametrize("failures", [1, 3, 8])
def test_jitter_draws_between_half_the_delay_and_all_of_it(failures):
    delay = backoff(failures, base=1, cap=30)
    draws = [backoff(failures, base=1, cap=30, jitter=True) for _ in range(4000)]
    assert all(delay / 2 <= d <= delay for d in draws)
    # Spread over the whole upper half, evenly (uniform: mean 3/4 of the
    # delay, each quarter of the range about a quarter of the draws).
    assert statistics.mean(draws) == pytest.approx(0.75 * delay, rel=0.03)
    quarters = [0, 0, 0, 0]
    for d in draws:
        quarters[min(int((d - delay / 2) / (delay / 8)), 3)] += 1
    assert all(800 <= q <= 1200 for q in quarters)
    assert min(draws) < 0.55 * delay and max(draws) > 0.95 * delay


# What Switchboard ships (bench/ is not part of it; refserver/, examples/ and
# clients/ import nothing of ours, so they could not use the one backoff).
_SHIPPED = ["config", "switchboard", "outbox", "consent", "subscriptions", "hooks"]
_DRAWS = {"uniform", "random", "expovariate", "triangular", "gauss"}


def _waits_computed_elsewhere() -> list[str]:
    found = []
    for package in _SHIPPED:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "switchboard" / "backoff.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                # A power with a computed exponent (``2 ** failures``): a
                # doubling; a constant one (``2 ** 62``) is a bound.
                doubling = (
                    isinstance(node, ast.BinOp)
                    and isinstance(node.op, ast.Pow)
                    and not isinstance(node.right, ast.Constant)
                )
                drawn = (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute | ast.Name)
                    and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
                    in _DRAWS
                )
                if doubling or drawn:
                    where = path.relative_to(ROOT)
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_other_module_computes_a_backoff_or_a_jitter():
    """Every capped exponential wait and every jitter comes from
    ``backoff()``: one schedule to read, one overflow guard, one kind of
    jitter (the audit drain once had its own doubling, which overflowed)."""
    assert _waits_computed_elsewhere() == []


_DOCUMENTS = [
    ROOT / "README.md",
    ROOT / "ARCHITECTURE.md",
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted(p for p in ROOT.glob("*/README.md") if not p.parent.name.startswith(".")),
]
_JITTER_KIND = re.compile(r"\b(full|equal|decorrelated|partial)[\s-]+jitter", re.IGNORECASE)


def _jitter_kinds_documented() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(ROOT)), match.group(1).lower())
        for path in _DOCUMENTS
        for match in _JITTER_KIND.finditer(path.read_text())
    ]


def test_the_documents_name_the_jitter_backoff_draws():
    """``backoff()`` draws equal jitter; a document that names a kind names
    that one (the configuration reference once said "full jitter"), and the
    session worker's setting, the one jittered wait, names its kind."""
    kinds = _jitter_kinds_documented()
    assert ("docs/configuration.md", "equal") in kinds
    assert [doc for doc, kind in kinds if kind != "equal"] == []
    [row] = [
        line
        for line in (ROOT / "docs" / "configuration.md").read_text().splitlines()
        if line.startswith("| `SESSION_WORKER_BACKOFF_BASE`")
    ]
    assert "equal jitter" in row


# Loading the task modules as a worker does runs Django's checks first
# (Celery's Django fixup), and those reach the database.
@pytest.mark.django_db
def test_no_task_retries_on_celerys_own_backoff():
    """Celery's ``retry_backoff`` is a second capped exponential backoff,
    with full jitter by default; a task that retries waits ``backoff()``."""
    from config.celery import app

    app.loader.import_default_modules()  # the apps' task modules, as a worker loads them
    ours = {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}
    assert "outbox.send_host_delivery" in ours
    assert [name for name, task in ours.items() if getattr(task, "retry_backoff", False)] == []
