"""``switchboard-verify inclusion`` run as an auditor would, in a process of
its own with nothing but the repository on PYTHONPATH (no Django): an
honest proof from the API holds, a tampered one is refused naming what
failed; and the script imports no Django. (``log`` and ``consistency`` are
run by the tamper tests of ``test_transparency_log``, and on notes saved as
the auditors' guide saves them.)"""

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


def test_notes_saved_as_the_auditors_guide_saves_them_verify(personas, tmp_path):
    """docs/transparency.md's example session saves each note with
    ``jq -r .note > new.note``, which ends the file with one newline more than
    the note has. Run by hand against the demo console, every command of the
    session failed (``not a signature line: ''``). A line that is not blank
    after the signature is still refused."""
    api = personas.acme_api
    _record(personas.acme, 3)
    checkpoint_issue(personas.acme.id)
    old = _checked_checkpoint(api)
    _record(personas.acme, 2, start=3)
    checkpoint_issue(personas.acme.id)
    new = _checked_checkpoint(api)

    notes = {"old": tmp_path / "old.note", "new": tmp_path / "new.note"}
    for name, checkpoint in (("old", old), ("new", new)):
        notes[name].write_text(checkpoint["note"] + "\n")  # as `jq -r` prints it
    key = tmp_path / "console.vkey"
    key.write_text(new["key"]["vkey"] + "\n")
    proof = tmp_path / "proof.json"
    proof.write_text(
        api.get(
            f"/audit/proof/consistency?from={old['tree_size']}&to={new['tree_size']}"
        ).content.decode()
    )
    export = tmp_path / "ledger.jsonl"
    export.write_bytes(b"".join(api.get("/audit/export?format=jsonl").streaming_content))

    ran = _verify_cli("log", "--export", str(export), "--checkpoint", str(notes["new"]),
                      "--key", str(key))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert f"ok: {new['tree_size']} entries" in ran.stdout
    ran = _verify_cli("consistency", "--old", str(notes["old"]), "--new", str(notes["new"]),
                      "--proof", str(proof), "--key", str(key))  # fmt: skip
    assert ran.returncode == 0, ran.stderr

    notes["new"].write_text(new["note"] + "appended\n")
    ran = _verify_cli("log", "--export", str(export), "--checkpoint", str(notes["new"]),
                      "--key", str(key))  # fmt: skip
    assert ran.returncode == 1 and "not a signature line: 'appended'" in ran.stderr
