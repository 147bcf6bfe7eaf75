"""``switchboard-verify inclusion`` run as an auditor would, in a process of
its own with nothing but the repository on PYTHONPATH (no Django): an
honest proof from the API holds, a tampered one is refused naming what
failed; and the script imports no Django. (``log`` and ``consistency`` are
run by the tamper tests of ``test_transparency_log``.)"""

from __future__ import annotations

import base64
import json
import subprocess
import sys

from switchboard.models import AuditEntry
from switchboard.services.ledger_checkpoints import checkpoint_issue
from tests.core.test_transparency_log import ROOT, _checked_checkpoint, _record, _verify_cli


def test_switchboard_verify_inclusion_holds_an_honest_proof_and_refuses_a_tampered_one(
    personas, tmp_path
):
    api = personas.acme_api
    entries = _record(personas.acme, 6)
    checkpoint_issue(personas.acme.id)
    checkpoint = _checked_checkpoint(api)
    entry = AuditEntry.objects.get(pk=entries[2].pk)
    proof = api.get(
        f"/audit/proof/inclusion?entry={entry.id}&tree_size={checkpoint['tree_size']}"
    ).json()
    assert proof["hashes"]  # a tree of several leaves: there is a path to tamper with

    note, key = tmp_path / "checkpoint.note", tmp_path / "console.vkey"
    note.write_text(checkpoint["note"])
    key.write_text(checkpoint["key"]["vkey"])

    def verify(content_hash: str, document: dict) -> tuple[int, str, str]:
        path = tmp_path / "proof.json"
        path.write_text(json.dumps(document))
        ran = _verify_cli("inclusion", "--entry-hash", content_hash, "--proof", str(path),
                          "--checkpoint", str(note), "--key", str(key))  # fmt: skip
        return ran.returncode, ran.stdout, ran.stderr

    code, out, err = verify(entry.content_hash, proof)
    assert code == 0, err
    assert f"ok: leaf {entry.leaf_index} is in the tree of {checkpoint['tree_size']}" in out

    # One hash of the path changed: the path no longer leads to the root.
    first = bytearray(base64.b64decode(proof["hashes"][0]))
    first[0] ^= 1
    bent = {**proof, "hashes": [base64.b64encode(bytes(first)).decode(), *proof["hashes"][1:]]}
    code, out, err = verify(entry.content_hash, bent)
    assert code == 1 and not out
    assert f"FAILED: leaf {entry.leaf_index} is not in the tree of {checkpoint['tree_size']}" in err
    # The right path for another entry's content, or for another leaf.
    other = AuditEntry.objects.get(pk=entries[3].pk)
    code, _, err = verify(other.content_hash, proof)
    assert code == 1 and f"leaf {entry.leaf_index} is not in the tree" in err
    code, _, err = verify(entry.content_hash, {**proof, "leaf_index": other.leaf_index})
    assert code == 1 and f"leaf {other.leaf_index} is not in the tree" in err
    # A proof that is not one.
    code, _, err = verify(entry.content_hash, {"hashes": proof["hashes"]})
    assert code == 1 and "not an inclusion proof" in err


def test_switchboard_verify_imports_no_django_and_is_a_console_script():
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, switchboard.verify_cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert check.returncode == 0 and check.stdout.strip() == "[]", check.stderr
    scripts = (ROOT / "pyproject.toml").read_text()
    assert 'switchboard-verify = "switchboard.verify_cli:main"' in scripts
