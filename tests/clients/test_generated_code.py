"""The generated clients are never stale: regenerating them from the API's own
OpenAPI document (clients/generate.py --check, both generators into a
temporary folder) changes no checked-in file. After a change to the API, run
``.venv/bin/python clients/generate.py`` and commit what it writes.

The generators: ``openapi-python-client`` from the project's ``test`` extra, and
``@hey-api/openapi-ts`` with ``typescript`` from clients/typescript's
package-lock.json (``npm ci`` there; .ci/test runs it, and so does this test
when they are missing)."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from tests.clients.support import CLIENTS, REPO, TYPESCRIPT_CLIENT

# The document is the API's, whatever database the run uses. Both generators
# run as processes (node, the Python generator): minutes, so the check runs in
# the tier that starts processes, not in `make test-fast`.
pytestmark = [pytest.mark.django_db, pytest.mark.processes]


@pytest.fixture(scope="module")
def generators() -> None:
    if not (TYPESCRIPT_CLIENT / "node_modules" / ".bin" / "openapi-ts").exists():
        npm = shutil.which("npm")
        assert npm, "npm is required to check the TypeScript client (Debian's nodejs and npm)"
        import subprocess

        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=TYPESCRIPT_CLIENT,
            check=True,
            timeout=600,
        )


def _check(*extra: str):
    import subprocess

    return subprocess.run(
        [sys.executable, str(CLIENTS / "generate.py"), "--check", *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_the_checked_in_clients_are_what_the_api_document_generates(generators):
    done = _check()
    assert done.returncode == 0, (
        "the generated clients are stale: run `.venv/bin/python clients/generate.py`\n"
        + done.stdout
        + done.stderr
    )


def test_the_check_fails_when_the_document_changes(generators, tmp_path):
    """The check itself: a new field in one schema makes both clients stale."""
    document = json.loads((CLIENTS / "openapi.json").read_text(encoding="utf-8"))
    document["components"]["schemas"]["UserIn"]["properties"]["nickname"] = {"type": "string"}
    changed = tmp_path / "openapi.json"
    changed.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    done = _check("--document", str(changed))
    assert done.returncode == 1, done.stdout + done.stderr
    stale = done.stdout.splitlines()
    assert "stale: clients/openapi.json (differs from the API's document)" in stale
    assert "stale: clients/python/switchboard_client/generated/models/user_in.py (differs)" in stale
    assert "stale: clients/typescript/src/generated/types.gen.ts (differs)" in stale
    assert "stale: clients/typescript/dist/generated/types.gen.d.ts (differs)" in stale
