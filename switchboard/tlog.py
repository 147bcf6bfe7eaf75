"""The transparency log's arithmetic: RFC 9162 Merkle trees and C2SP signed
notes, with no Django in sight.

The console (``services/ledger_tree.py``, ``services/ledger_checkpoints.py``)
and the auditors' ``switchboard-verify`` both use this module, so it imports
only the standard library and ``cryptography`` (Ed25519). SHA-256 is
``hashlib``'s; nothing here is a cryptographic primitive of its own.

Trees (RFC 9162 §2.1): leaf hash = SHA-256(0x00 ‖ leaf), node hash =
SHA-256(0x01 ‖ left ‖ right); a tree of n leaves splits at k, the largest
power of two below n. Proofs are built over ``leaves`` (the leaf hashes, in
order) and verified with the RFC's own iterative algorithms.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# The C2SP signed-note signature type of Ed25519 keys.
_ED25519_TYPE = b"\x01"
# A signed note's signature lines start with an em dash and a space.
_SIGNATURE_PREFIX = "\u2014 "

# Fields of an entry's canonical content, in order (``content_hash``).
CONTENT_FIELDS = (
    "host_id",
    "kind",
    "actor_kind",
    "actor_id",
    "actor_label",
    "user_id",
    "user_external_id",
    "server_id",
    "subject_type",
    "subject_id",
    "summary",
)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- trees --------------------------------------------------------------------------


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n ≥ 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def root_hash(leaves: Sequence[bytes]) -> bytes:
    """MTH(D[n]) over leaf hashes (SHA-256 of nothing for the empty tree)."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    return _subtree(leaves, 0, len(leaves))


def _subtree(leaves: Sequence[bytes], lo: int, hi: int) -> bytes:
    if hi - lo == 1:
        return leaves[lo]
    k = _split(hi - lo)
    return node_hash(_subtree(leaves, lo, lo + k), _subtree(leaves, lo + k, hi))


def frontier_append(frontier: list[bytes], size: int, leaf: bytes) -> list[bytes]:
    """The compact range of a tree of ``size`` leaves (the roots of its
    perfect subtrees, largest first) after appending ``leaf``: O(log n)."""
    out = [*frontier, leaf]
    grown = size  # merge while the lowest bits of the old size are ones
    while grown & 1:
        right = out.pop()
        out[-1] = node_hash(out[-1], right)
        grown >>= 1
    return out


def frontier_root(frontier: Sequence[bytes]) -> bytes:
    """The root of the tree whose compact range is ``frontier``."""
    if not frontier:
        return hashlib.sha256(b"").digest()
    root = frontier[-1]
    for left in reversed(frontier[:-1]):
        root = node_hash(left, root)
    return root


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """PATH(m, D[n]) of RFC 9162 §2.1.3.1, ``leaves`` being D[n]."""
    if not 0 <= index < len(leaves):
        raise ValueError("index outside the tree")
    return _path(leaves, index, 0, len(leaves))


def _path(leaves: Sequence[bytes], m: int, lo: int, hi: int) -> list[bytes]:
    if hi - lo == 1:
        return []
    k = _split(hi - lo)
    if m < k:
        return [*_path(leaves, m, lo, lo + k), _subtree(leaves, lo + k, hi)]
    return [*_path(leaves, m - k, lo + k, hi), _subtree(leaves, lo, lo + k)]


def consistency_proof(leaves: Sequence[bytes], old_size: int) -> list[bytes]:
    """PROOF(m, D[n]) of RFC 9162 §2.1.4.1, ``leaves`` being D[n]."""
    if not 0 < old_size <= len(leaves):
        raise ValueError("old size outside the tree")
    return _subproof(leaves, old_size, 0, len(leaves), True)


def _subproof(leaves: Sequence[bytes], m: int, lo: int, hi: int, whole: bool) -> list[bytes]:
    n = hi - lo
    if m == n:
        return [] if whole else [_subtree(leaves, lo, hi)]
    k = _split(n)
    if m <= k:
        return [*_subproof(leaves, m, lo, lo + k, whole), _subtree(leaves, lo + k, hi)]
    return [*_subproof(leaves, m - k, lo + k, hi, False), _subtree(leaves, lo, lo + k)]


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes
) -> bool:
    """RFC 9162 §2.1.3.2."""
    if index >= size or index < 0:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not (fn & 1 or fn == 0):
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """RFC 9162 §2.1.4.2."""
    if old_size <= 0 or old_size > new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        path = [old_root, *path]
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while not (fn & 1 or fn == 0):
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0


# --- signed notes (C2SP signed-note, tlog-checkpoint) ---------------------------------


def key_id(name: str, public_key: bytes) -> bytes:
    """The C2SP key id: the first 4 bytes of SHA-256(name ‖ "\\n" ‖ 0x01 ‖ key)."""
    return hashlib.sha256(name.encode() + b"\n" + _ED25519_TYPE + public_key).digest()[:4]


def verifier_key(name: str, public_key: bytes) -> str:
    """``<name>+<key id hex>+<base64(0x01 ‖ key)>``."""
    encoded = base64.b64encode(_ED25519_TYPE + public_key).decode()
    return f"{name}+{key_id(name, public_key).hex()}+{encoded}"


def public_key_bytes(private_key: Ed25519PrivateKey) -> bytes:
    return private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def checkpoint_body(origin: str, size: int, root: bytes) -> str:
    return f"{origin}\n{size}\n{base64.b64encode(root).decode()}\n"


def sign_note(body: str, name: str, private_key: Ed25519PrivateKey) -> str:
    """The signed note: the body, a blank line, one signature line."""
    signature = private_key.sign(body.encode())
    blob = key_id(name, public_key_bytes(private_key)) + signature
    return f"{body}\n{_SIGNATURE_PREFIX}{name} {base64.b64encode(blob).decode()}\n"


class NoteError(ValueError):
    """A note, a key or a proof that does not hold; the message says which."""


@dataclass(frozen=True)
class Verifier:
    name: str
    key_id: bytes
    public_key: bytes


def parse_verifier_key(vkey: str) -> Verifier:
    parts = vkey.strip().split("+", 2)
    if len(parts) != 3:
        raise NoteError("verifier key: expected <name>+<key id hex>+<base64 key>")
    name, hex_id, encoded = parts
    try:
        raw = base64.b64decode(encoded, validate=True)
        wanted_id = bytes.fromhex(hex_id)
    except ValueError as exc:
        raise NoteError(f"verifier key: {exc}") from exc
    if len(raw) != 33 or raw[:1] != _ED25519_TYPE:
        raise NoteError("verifier key: not an Ed25519 key (type 0x01, 32 bytes)")
    if key_id(name, raw[1:]) != wanted_id:
        raise NoteError("verifier key: the key id does not match the name and key")
    return Verifier(name=name, key_id=wanted_id, public_key=raw[1:])


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes


def open_checkpoint(note: str, verifier: Verifier) -> Checkpoint:
    """The checkpoint a signed note holds, once a signature by ``verifier``
    checks out; raises ``NoteError`` naming what does not hold."""
    body, sep, signatures = note.partition("\n\n")
    if not sep:
        raise NoteError("note: no blank line before the signatures")
    body += "\n"
    signed = False
    for line in signatures.splitlines():
        if not line.startswith(_SIGNATURE_PREFIX):
            raise NoteError(f"note: not a signature line: {line!r}")
        name, _, encoded = line[len(_SIGNATURE_PREFIX) :].rpartition(" ")
        if name != verifier.name:
            continue
        try:
            blob = base64.b64decode(encoded, validate=True)
        except ValueError as exc:
            raise NoteError(f"note: signature is not base64: {exc}") from exc
        if blob[:4] != verifier.key_id:
            continue
        try:
            Ed25519PublicKey.from_public_bytes(verifier.public_key).verify(blob[4:], body.encode())
        except InvalidSignature as exc:
            raise NoteError("note: the signature does not verify") from exc
        signed = True
    if not signed:
        raise NoteError(
            f"note: no signature by {verifier.name} with key id {verifier.key_id.hex()}"
        )
    lines = body.split("\n")
    if len(lines) < 4:
        raise NoteError("checkpoint: expected origin, tree size and root hash lines")
    origin, size_text, root_text = lines[0], lines[1], lines[2]
    if origin != verifier.name:
        raise NoteError(f"checkpoint: origin {origin!r} is not the key's name {verifier.name!r}")
    if not size_text.isdigit():
        raise NoteError(f"checkpoint: tree size {size_text!r} is not a number")
    try:
        root = base64.b64decode(root_text, validate=True)
    except ValueError as exc:
        raise NoteError(f"checkpoint: root hash is not base64: {exc}") from exc
    if len(root) != 32:
        raise NoteError("checkpoint: root hash is not 32 bytes")
    return Checkpoint(origin=origin, size=int(size_text), root=root)
