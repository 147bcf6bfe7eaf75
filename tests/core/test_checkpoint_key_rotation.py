"""Rotating the deployment's checkpoint key (docs/transparency.md): checkpoints
signed before keep verifying with the key that signed them, the proof
between an old and a new checkpoint holds, and ``switchboard-verify`` checks
a pair signed by two keys when given both."""

from __future__ import annotations

import base64

import pytest

from switchboard.env import generate_ed25519_seed
from switchboard.models import AuditCheckpoint
from switchboard.services.ledger_chain import ledger_verify
from switchboard.services.ledger_checkpoints import checkpoint_issue
from tests.core import rfc9162
from tests.core.test_ledger_chain import _verify_command
from tests.core.test_transparency_log import _b64, _checked_checkpoint, _record, _verify_cli


def test_checkpoints_signed_before_a_key_rotation_keep_verifying(personas, settings, tmp_path):
    api, host = personas.acme_api, personas.acme
    settings.AUDIT_CHECKPOINT_SIGNING_KEY = generate_ed25519_seed()  # key A
    _record(host, 3)
    checkpoint_issue(host.id)
    old = _checked_checkpoint(api)
    settings.AUDIT_CHECKPOINT_SIGNING_KEY = generate_ed25519_seed()  # rotated to key B
    _record(host, 2, start=3)
    checkpoint_issue(host.id)
    new = _checked_checkpoint(api)

    key_a, key_b = old["key"]["vkey"], new["key"]["vkey"]
    assert key_a != key_b and old["key"]["name"] == new["key"]["name"]
    # Each note verifies with the key that signed it, and only with that one.
    assert rfc9162.note_checkpoint(old["note"], key_a)[1] == old["tree_size"]
    assert rfc9162.note_checkpoint(new["note"], key_b)[1] == new["tree_size"]
    for note, other in ((old["note"], key_b), (new["note"], key_a)):
        with pytest.raises(AssertionError):
            rfc9162.note_checkpoint(note, other)
    # The old checkpoint keeps the public key that signed it.
    kept = AuditCheckpoint.objects.get(host=host, tree_size=old["tree_size"])
    assert kept.public_key == old["key"]["public_key"]

    proof = api.get(f"/audit/proof/consistency?from={old['tree_size']}&to={new['tree_size']}")
    assert proof.status_code == 200, proof.content
    assert rfc9162.consistency_holds(
        old["tree_size"],
        new["tree_size"],
        base64.b64decode(old["root_hash"]),
        base64.b64decode(new["root_hash"]),
        _b64(proof.json()["hashes"]),
    )
    assert ledger_verify(host_id=host.id).ok
    code, out = _verify_command("--host", host.name)
    assert code == 0 and "ok" in out, out
    assert api.get("/audit/verify").json()["ok"] is True

    # The auditor gives both keys; either alone leaves one note unverified.
    files = {"old": tmp_path / "old.note", "new": tmp_path / "new.note", "proof": tmp_path / "p"}
    files["old"].write_text(old["note"])
    files["new"].write_text(new["note"])
    files["proof"].write_text(proof.content.decode())
    pair = ["--old", str(files["old"]), "--new", str(files["new"]), "--proof", str(files["proof"])]
    ran = _verify_cli("consistency", *pair, "--key", key_a, "--key", key_b)
    assert ran.returncode == 0, ran.stderr
    assert f"ok: the tree of {new['tree_size']} extends the tree of {old['tree_size']}" in (
        ran.stdout
    )
    ran = _verify_cli("consistency", *pair, "--key", key_b)
    assert ran.returncode == 1 and f"FAILED: {files['old']}: note: no signature" in ran.stderr
    ran = _verify_cli("consistency", *pair, "--key", key_a)
    assert ran.returncode == 1 and f"FAILED: {files['new']}: note: no signature" in ran.stderr
    # A key of another log is no help: the note's log must be the key's name.
    stranger = personas.bravo
    _record(stranger, 1)
    checkpoint_issue(stranger.id)
    bravo_key = _checked_checkpoint(personas.bravo_api)["key"]["vkey"]
    ran = _verify_cli("consistency", *pair, "--key", bravo_key)
    assert ran.returncode == 1 and f"{files['old']}: no --key is named" in ran.stderr
    ran = _verify_cli("consistency", *pair, "--key", bravo_key, "--key", key_a, "--key", key_b)
    assert ran.returncode == 0, ran.stderr
