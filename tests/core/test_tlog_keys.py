"""Verifier keys (C2SP ``<name>+<key id>+<base64 key>``) whose base64 holds a
``+`` of its own: only the first two ``+`` separate fields. Found when the
deployment's key changed and the transparency-log tests failed with it."""

import base64

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from switchboard import tlog
from tests.core.rfc9162 import note_checkpoint


def _key_whose_verifier_has_a_plus() -> Ed25519PrivateKey:
    while True:
        key = Ed25519PrivateKey.generate()
        encoded = base64.b64encode(b"\x01" + tlog.public_key_bytes(key)).decode()
        if "+" in encoded:
            return key


def test_a_verifier_key_whose_base64_holds_a_plus_is_read_by_both_verifiers():
    key = _key_whose_verifier_has_a_plus()
    name = "console.example/audit/host-1"
    vkey = tlog.verifier_key(name, tlog.public_key_bytes(key))
    assert vkey.count("+") > 2

    verifier = tlog.parse_verifier_key(vkey)
    assert verifier.name == name
    assert verifier.public_key == tlog.public_key_bytes(key)

    root = bytes(32)
    note = tlog.sign_note(tlog.checkpoint_body(name, 7, root), name, key)
    assert note_checkpoint(note, vkey) == (name, 7, root)
