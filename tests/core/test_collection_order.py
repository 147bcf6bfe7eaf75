"""The order tests run in (tests/conftest.py): a module's test that uses no
database stays beside the module's other tests sharing its module-scoped
fixture, so the fixture (the scale-out test's nine processes) is set up once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCALE_OUT = "tests/reliability/test_scale_out.py"
# A transactional test of another module, which pytest-django runs before
# every test with no database.
OTHER = "tests/servers/test_kill_switch_live.py"


def test_a_test_with_no_database_runs_beside_its_modules_shared_fixture():
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         SCALE_OUT, OTHER],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert collected.returncode == 0, collected.stdout + collected.stderr
    order = [line.split("::")[0] for line in collected.stdout.splitlines() if "::" in line]
    assert order == [SCALE_OUT, SCALE_OUT, SCALE_OUT, OTHER], order
