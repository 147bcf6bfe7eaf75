"""``switchboard-verify``: an auditor's offline check of a host's ledger
against the checkpoints the console signed (docs/transparency.md).

Imports no Django: only the standard library and ``cryptography`` (through
``switchboard.tlog``). Exit 0 when everything holds, 1 naming the first
thing that does not, 2 for a usage error.

    switchboard-verify log --export FILE --checkpoint NOTE --key VKEY
    switchboard-verify consistency --old NOTE --new NOTE --proof FILE --key VKEY
    switchboard-verify inclusion --entry-hash HEX --proof FILE --checkpoint NOTE --key VKEY

``--key`` may be given more than once: after a key rotation the older note
is signed by the old key and the newer by the new one. Each note must verify
under one of the keys named as its log (its origin).
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from switchboard import tlog


class Failed(Exception):
    """What does not hold, said to the auditor."""


_STORED_ACTOR_KINDS = {"api_key": "host_key"}


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise Failed(f"{path}: {exc.strerror}") from exc


def _checkpoint(path: str, verifiers: list[tlog.Verifier]) -> tlog.Checkpoint:
    """The note's checkpoint, signed by one of the keys named as its log."""
    # A note ends with one newline; a file saved by a shell tool (`jq -r`,
    # `echo`) has one more. Blank lines at its end are the file's, not the
    # note's, and no signature covers them; anything else stays and is refused.
    note = _read(path).rstrip("\n") + "\n"
    origin = note.split("\n", 1)[0]
    named = [verifier for verifier in verifiers if verifier.name == origin]
    if not named:
        raise Failed(f"{path}: no --key is named {origin!r}, the note's log")
    problems = []
    for verifier in named:
        try:
            return tlog.open_checkpoint(note, verifier)
        except tlog.NoteError as exc:
            problems.append(str(exc))
    raise Failed(f"{path}: " + "; ".join(problems))


def _hashes(path: str) -> list[bytes]:
    try:
        document = json.loads(_read(path))
        return [base64.b64decode(item, validate=True) for item in document["hashes"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise Failed(f"{path}: not a proof (a JSON object with base64 'hashes')") from exc


def _same_instant(shown: Any, hashed: str) -> bool:
    """The export shows times to the millisecond; the hash covers them to
    the microsecond."""
    try:
        seen = datetime.fromisoformat(str(shown).replace("Z", "+00:00"))
        exact = datetime.fromisoformat(hashed)
    except ValueError:
        return False
    return timedelta(0) <= exact - seen < timedelta(milliseconds=1)


def _entry_leaf(row: dict[str, Any], line: int) -> tuple[int, bytes]:
    """An export row's leaf index and leaf hash, once its content hash is
    recomputed from its fields and its shown fields agree with them."""
    where = f"export line {line} (entry {row.get('id')})"
    try:
        hashed = row["hashed"]
        content_hash = row["content_hash"]
        index = int(row["leaf_index"])
    except (KeyError, TypeError, ValueError) as exc:
        raise Failed(f"{where}: no content_hash, leaf_index and hashed fields") from exc
    if tlog.sha256_hex(tlog.canonical_json(hashed)) != content_hash:
        raise Failed(f"{where}: content_hash is not the hash of its fields")
    actor = row.get("actor") or {}
    subject = row.get("subject") or {"type": "", "id": ""}
    shown = {
        "kind": row.get("kind"),
        "summary": row.get("summary"),
        # The API names the stored kind ``host_key`` as ``api_key``.
        "actor_kind": _STORED_ACTOR_KINDS.get(str(actor.get("kind")), actor.get("kind")),
        "actor_id": actor.get("id"),
        "actor_label": actor.get("label"),
        "user_external_id": row.get("user") or "",
        "server_id": row.get("server") or "",
        "subject_type": subject.get("type"),
        "subject_id": subject.get("id"),
    }
    # Hashed only when set (entries written before it existed still verify).
    if actor.get("on_behalf_of") or "actor_on_behalf_of" in hashed:
        shown["actor_on_behalf_of"] = actor.get("on_behalf_of") or ""
    for name, value in shown.items():
        if hashed.get(name) != value:
            raise Failed(f"{where}: {name} differs from what its content hash covers")
    if not _same_instant(row.get("at"), hashed.get("at", "")):
        raise Failed(f"{where}: at differs from what its content hash covers")
    detail = row.get("detail")
    # A detail retention erased ({}) or one left out of the export (None)
    # cannot be checked; its hash stays in the content hash.
    if detail and tlog.sha256_hex(tlog.canonical_json(detail)) != hashed.get("detail_sha256"):
        raise Failed(f"{where}: detail differs from what its content hash covers")
    return index, tlog.leaf_hash(bytes.fromhex(content_hash))


def verify_log(export: str, checkpoint_path: str, vkeys: list[str]) -> str:
    checkpoint = _checkpoint(checkpoint_path, _verifiers(vkeys))
    leaves: dict[int, bytes] = {}
    for number, text in enumerate(_read(export).splitlines(), start=1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except ValueError as exc:
            raise Failed(f"export line {number}: not JSON") from exc
        index, leaf = _entry_leaf(row, number)
        if index in leaves:
            raise Failed(f"export line {number}: leaf {index} appears twice")
        leaves[index] = leaf
    for index in range(checkpoint.size):
        if index not in leaves:
            raise Failed(f"the export lacks leaf {index}, which the checkpoint covers")
    root = tlog.root_hash([leaves[index] for index in range(checkpoint.size)])
    if root != checkpoint.root:
        raise Failed(
            f"the export's first {checkpoint.size} entries do not give the checkpoint's root"
        )
    return f"ok: {checkpoint.size} entries give the root signed by {checkpoint.origin}"


def verify_consistency(old_path: str, new_path: str, proof_path: str, vkeys: list[str]) -> str:
    verifiers = _verifiers(vkeys)
    old = _checkpoint(old_path, verifiers)
    new = _checkpoint(new_path, verifiers)
    if old.origin != new.origin:
        raise Failed("the checkpoints are of different logs")
    if not tlog.verify_consistency(old.size, new.size, old.root, new.root, _hashes(proof_path)):
        raise Failed(f"the tree of {new.size} does not extend the tree of {old.size}")
    return f"ok: the tree of {new.size} extends the tree of {old.size}"


def verify_inclusion(
    content_hash: str, proof_path: str, checkpoint_path: str, vkeys: list[str]
) -> str:
    checkpoint = _checkpoint(checkpoint_path, _verifiers(vkeys))
    try:
        document = json.loads(_read(proof_path))
        index = int(document["leaf_index"])
        leaf = tlog.leaf_hash(bytes.fromhex(content_hash))
    except (ValueError, KeyError, TypeError) as exc:
        raise Failed(f"{proof_path}: not an inclusion proof, or a bad --entry-hash") from exc
    if not tlog.verify_inclusion(
        index, checkpoint.size, leaf, _hashes(proof_path), checkpoint.root
    ):
        raise Failed(f"leaf {index} is not in the tree of {checkpoint.size}")
    return f"ok: leaf {index} is in the tree of {checkpoint.size}"


def _verifiers(vkeys: list[str]) -> list[tlog.Verifier]:
    verifiers = []
    for vkey in vkeys:
        text = _read(vkey).strip() if Path(vkey).is_file() else vkey
        try:
            verifiers.append(tlog.parse_verifier_key(text))
        except tlog.NoteError as exc:
            raise Failed(str(exc)) from exc
    return verifiers


_KEY: dict[str, Any] = {
    "required": True,
    "action": "append",
    "metavar": "VKEY",
    "help": "verifier key (or a file holding it); give it once per key, e.g. the old and "
    "the new key after a rotation: each note must verify under a key named as its log",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="switchboard-verify",
        description="Check a Switchboard ledger against its signed checkpoints, offline.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    log = commands.add_parser("log", help="an export gives a checkpoint's tree")
    log.add_argument("--export", required=True, help="JSONL export of the host's ledger")
    log.add_argument("--checkpoint", required=True, help="file holding a checkpoint's note")
    log.add_argument("--key", **_KEY)
    consistency = commands.add_parser("consistency", help="a newer checkpoint extends an older")
    consistency.add_argument("--old", required=True, help="file holding the older note")
    consistency.add_argument("--new", required=True, help="file holding the newer note")
    consistency.add_argument("--proof", required=True, help="the consistency endpoint's JSON")
    consistency.add_argument("--key", **_KEY)
    inclusion = commands.add_parser("inclusion", help="an entry is in a checkpoint's tree")
    inclusion.add_argument("--entry-hash", required=True, help="the entry's content_hash (hex)")
    inclusion.add_argument("--proof", required=True, help="the inclusion endpoint's JSON")
    inclusion.add_argument("--checkpoint", required=True, help="file holding the note")
    inclusion.add_argument("--key", **_KEY)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "log":
            message = verify_log(args.export, args.checkpoint, args.key)
        elif args.command == "consistency":
            message = verify_consistency(args.old, args.new, args.proof, args.key)
        else:
            message = verify_inclusion(args.entry_hash, args.proof, args.checkpoint, args.key)
    except Failed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    print(message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
