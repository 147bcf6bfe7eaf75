"""docs/reliability.md row 7: Schemathesis over ``/api/v1/openapi.json`` against a real
daphne, every check and every phase (examples, coverage, fuzzing, stateful
with the links it infers), with a host's API key and without one.

The run is bounded by ``schemathesis.toml`` beside this file (examples per
operation, stateful steps); what that file configures, and why, is written
there. Any 500 or answer that does not match the schema fails the test with
Schemathesis' own report (each failure with a curl line to reproduce it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from switchboard.actors import Actor
from switchboard.services.hosts import host_create

CONFIG = Path(__file__).with_name("schemathesis.toml")
BUDGET = 240  # seconds per run, a hard stop; a run takes ~90 s with a key here


def _schemathesis(live, *headers: str, tmp_path: Path) -> subprocess.CompletedProcess:
    argv = [
        sys.executable,
        "-c",
        "import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())",
        "--config-file",
        str(CONFIG),
        "run",
        f"{live.base_url}/api/v1/openapi.json",
        "--checks",
        "all",
        "--workers",
        "1",
        "--request-timeout",
        "20",
        "--output-truncate",
        "false",
        "--report",
        "junit",
        "--report-dir",
        str(tmp_path),
    ]
    for header in headers:
        argv += ["-H", header]
    env = {**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_HOOKS": ""}
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=BUDGET, env=env, cwd=tmp_path
    )


def _assert_every_operation_ran(report: str) -> None:
    """A run that loaded no operations (or skipped some) would pass vacuously."""
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    tested = re.search(r"Tested: (\d+)", report)
    assert selected and tested, report[-3000:]
    assert int(tested.group(1)) == int(selected.group(2)) > 40, report[-3000:]


@pytest.mark.processes
@pytest.mark.timeout(BUDGET + 60)
def test_the_api_answers_every_generated_request_as_its_schema_says(live, tmp_path):
    """With a host's key: no 500, every answer matches the schema, bad input is refused."""
    _, key = host_create(name="Fuzz", actor=Actor.system("tests"))
    run = _schemathesis(live, f"Authorization: Bearer {key}", tmp_path=tmp_path)
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-4000:]
    _assert_every_operation_ran(run.stdout)


@pytest.mark.processes
@pytest.mark.timeout(BUDGET + 60)
def test_without_a_key_every_operation_refuses_as_its_schema_says(live, tmp_path):
    """No key (and the fuzzer's own wrong ones): 401 in the contract's shape, never more."""
    run = _schemathesis(live, tmp_path=tmp_path)
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-4000:]
    _assert_every_operation_ran(run.stdout)
