"""A second, independent reading of RFC 9162 §2.1 and of C2SP signed notes,
for the tests only: it imports nothing of Switchboard's, and verifies by
walking the RFC's recursive definitions (MTH, PATH, SUBPROOF) backwards,
where ``switchboard.tlog`` uses the RFC's iterative verification
algorithms. If the two disagree, a test fails."""

from __future__ import annotations

import base64
import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def leaf(data: bytes) -> bytes:
    return sha(b"\x00" + data)


def node(left: bytes, right: bytes) -> bytes:
    return sha(b"\x01" + left + right)


def split(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) over leaf hashes, straight from the definition."""
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node(mth(leaves[:k]), mth(leaves[k:]))


def root_from_path(m: int, n: int, leaf_hash: bytes, path: list[bytes]) -> bytes | None:
    """The root PATH(m, D[n]) = ``path`` leads to, or None if the path has
    the wrong shape for (m, n). PATH appends the sibling last, so the
    walk takes siblings from the end."""
    if n == 1:
        return leaf_hash if not path else None
    if not path:
        return None
    k = split(n)
    sibling, rest = path[-1], path[:-1]
    if m < k:
        inner = root_from_path(m, k, leaf_hash, rest)
        return None if inner is None else node(inner, sibling)
    inner = root_from_path(m - k, n - k, leaf_hash, rest)
    return None if inner is None else node(sibling, inner)


def inclusion_holds(m: int, n: int, leaf_hash: bytes, path: list[bytes], root: bytes) -> bool:
    return 0 <= m < n and root_from_path(m, n, leaf_hash, path) == root


def _subproof_roots(
    m: int, n: int, proof: list[bytes], whole: bool, old_root: bytes
) -> tuple[bytes, bytes] | None:
    """(old subtree hash, new subtree hash) that SUBPROOF(m, D[n], whole) =
    ``proof`` stands for, or None if its shape is wrong."""
    if m == n:
        if whole:
            return (old_root, old_root) if not proof else None
        return (proof[0], proof[0]) if len(proof) == 1 else None
    if not proof:
        return None
    k = split(n)
    last, rest = proof[-1], proof[:-1]
    if m <= k:
        inner = _subproof_roots(m, k, rest, whole, old_root)
        return None if inner is None else (inner[0], node(inner[1], last))
    inner = _subproof_roots(m - k, n - k, rest, False, old_root)
    return None if inner is None else (node(last, inner[0]), node(last, inner[1]))


def consistency_holds(m: int, n: int, old_root: bytes, new_root: bytes, proof: list[bytes]) -> bool:
    if not 0 < m <= n:
        return False
    if m == n:
        return not proof and old_root == new_root
    roots = _subproof_roots(m, n, proof, True, old_root)
    return roots is not None and roots == (old_root, new_root)


def note_checkpoint(note: str, vkey: str) -> tuple[str, int, bytes]:
    """A C2SP signed note's checkpoint (origin, size, root), once its
    Ed25519 signature checks out with ``cryptography`` directly; raises
    AssertionError otherwise."""
    name, key_hex, key_b64 = vkey.split("+", 2)
    raw = base64.b64decode(key_b64)
    assert raw[0] == 1 and len(raw) == 33, "not an Ed25519 verifier key"
    public = raw[1:]
    key_id = sha(name.encode() + b"\n" + b"\x01" + public)[:4]
    assert key_id.hex() == key_hex, "key id does not match"
    text, signatures = note.split("\n\n", 1)
    body = text + "\n"
    lines = signatures.rstrip("\n").split("\n")
    ours = [line for line in lines if line.startswith(f"\u2014 {name} ")]
    assert ours, "no signature line by the key's name"
    blob = base64.b64decode(ours[0].rsplit(" ", 1)[1])
    assert blob[:4] == key_id, "signature's key id is not the key's"
    Ed25519PublicKey.from_public_bytes(public).verify(blob[4:], body.encode())
    origin, size, root_b64 = body.split("\n")[:3]
    return origin, int(size), base64.b64decode(root_b64)
