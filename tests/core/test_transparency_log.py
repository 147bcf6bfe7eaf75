"""The ledger as a transparency log (docs/transparency.md): checkpoints and
proofs the API gives, checked by a second implementation of RFC 9162 and
C2SP signed notes (``tests/core/rfc9162.py``, which imports nothing of
ours); tampering a database user could do, found; ``switchboard-verify``
run as an auditor would, in a process of its own."""

from __future__ import annotations

import base64
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pgtrigger
import pytest
from django.db import connection
from django.utils import timezone

from outbox.models import HostDelivery
from outbox.services import host_delivery_send, host_endpoint_set
from switchboard.actors import Actor
from switchboard.models import (
    LEDGER_PROTECTION,
    TREE_LEAF_PROTECTION,
    AuditChainHead,
    AuditCheckpoint,
    AuditEntry,
    Host,
)
from switchboard.services.audit import audit_record
from switchboard.services.hosts import api_key_create
from switchboard.services.ledger_chain import chain_hash, content_hash, ledger_verify
from switchboard.services.ledger_checkpoints import (
    InconsistentTree,
    checkpoint_issue,
    checkpoints_issue_due,
)
from tests.core import rfc9162
from tests.factories import SYSTEM, ApiClient

ROOT = Path(__file__).resolve().parents[2]


def _record(host, n: int, *, start: int = 0) -> list[AuditEntry]:
    return [
        audit_record(
            host_id=host.id,
            kind="test.step",
            actor=Actor.system(),
            summary=f"step {i}",
            detail={"n": i},
        )
        for i in range(start, start + n)
    ]


def _b64(values) -> list[bytes]:
    return [base64.b64decode(value) for value in values]


def _all_entries(api) -> list[dict]:
    items, cursor = [], None
    while True:
        page = api.get("/audit?limit=200" + (f"&cursor={cursor}" if cursor else "")).json()
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items


def _checked_checkpoint(api) -> dict:
    """The newest checkpoint, its note verified with cryptography directly."""
    answer = api.get("/audit/checkpoint")
    assert answer.status_code == 200, answer.content
    checkpoint = answer.json()
    origin, size, root = rfc9162.note_checkpoint(checkpoint["note"], checkpoint["key"]["vkey"])
    assert origin == checkpoint["origin"] == checkpoint["key"]["name"]
    assert size == checkpoint["tree_size"]
    assert root == base64.b64decode(checkpoint["root_hash"])
    public = base64.b64decode(checkpoint["key"]["public_key"])
    assert checkpoint["key"]["vkey"].endswith(base64.b64encode(b"\x01" + public).decode())
    assert len(checkpoint["key"]["key_id"]) == 8
    return checkpoint


def _edges(size: int) -> list[int]:
    """Leaf positions where a tree of ``size`` changes shape: both ends and
    either side of the split (the largest power of two below ``size``).
    Every size from 1 to 70 is a shape of its own; the proofs of each are
    asked for at those leaves."""
    split = 1
    while split * 2 < size:
        split *= 2
    picks = {0, size - 1, split - 1, split, size // 2}
    return sorted(i for i in picks if 0 <= i < size)


@pytest.mark.timeout(900)  # some 600 API calls; a loaded 2-core machine is slow
def test_every_tree_shape_from_1_to_70_gives_proofs_an_independent_verifier_accepts(db):
    # A host with no entry yet, so the first checkpoint is of one leaf; its
    # first entry is written as the services would.
    host = Host.objects.create(name="shapes")
    audit_record(host_id=host.id, kind="host.created", actor=SYSTEM, summary="Host shapes")
    checkpoint_issue(host.id)
    _, key = api_key_create(host=host, name="k", actor=SYSTEM)
    api = ApiClient(key)
    assert api.get("/audit/checkpoint").json()["tree_size"] == 1
    roots: dict[int, bytes] = {}
    for size in range(2, 71):
        if size > 2:
            _record(host, 1, start=size)
        assert checkpoint_issue(host.id).tree_size == size
        roots[size] = base64.b64decode(_checked_checkpoint(api)["root_hash"])
    roots[1] = rfc9162.note_checkpoint(
        AuditCheckpoint.objects.get(host=host, tree_size=1).note,
        _checked_checkpoint(api)["key"]["vkey"],
    )[2]

    entries = sorted(_all_entries(api), key=lambda item: item["leaf_index"])
    assert [item["leaf_index"] for item in entries] == list(range(70))
    leaves = [rfc9162.leaf(bytes.fromhex(item["content_hash"])) for item in entries]
    for size in range(1, 71):
        assert rfc9162.mth(leaves[:size]) == roots[size], size
        for item in [entries[i] for i in _edges(size)]:
            proof = api.get(f"/audit/proof/inclusion?entry={item['id']}&tree_size={size}").json()
            assert proof["leaf_index"] == item["leaf_index"]
            assert proof["tree_size"] == size
            hashes = _b64(proof["hashes"])
            assert rfc9162.inclusion_holds(
                item["leaf_index"], size, leaves[item["leaf_index"]], hashes, roots[size]
            ), (item["leaf_index"], size)
            # Another leaf's hash does not pass with the same path.
            if size > 1:
                other = leaves[(item["leaf_index"] + 1) % size]
                assert not rfc9162.inclusion_holds(
                    item["leaf_index"], size, other, hashes, roots[size]
                )
        for old in [i + 1 for i in _edges(size)]:
            proof = api.get(f"/audit/proof/consistency?from={old}&to={size}").json()
            hashes = _b64(proof["hashes"])
            assert rfc9162.consistency_holds(old, size, roots[old], roots[size], hashes), (
                old,
                size,
            )
            if old < size:  # the same proof does not pass for another old root
                assert not rfc9162.consistency_holds(old, size, roots[size], roots[size], hashes)


def test_bad_proof_requests_name_the_field(personas):
    api = personas.acme_api
    assert api.get("/audit/checkpoint").status_code == 404
    entries = _record(personas.acme, 3)
    first = checkpoint_issue(personas.acme.id)
    later = _record(personas.acme, 2)
    checkpoint_issue(personas.acme.id)

    def error(path):
        answer = api.get(path)
        return answer.status_code, answer.json()["error"].get("field")

    assert error(f"/audit/proof/inclusion?entry={entries[0].id}&tree_size=2") == (
        422,
        "tree_size",
    )
    assert error(f"/audit/proof/inclusion?entry={later[-1].id}&tree_size={first.tree_size}") == (
        422,
        "entry",
    )
    other = _record(personas.bravo, 1)[0]
    assert error(f"/audit/proof/inclusion?entry={other.id}&tree_size={first.tree_size}")[0] == 404
    assert error(f"/audit/proof/consistency?from={first.tree_size + 2}&to={first.tree_size}") == (
        422,
        "from",
    )
    assert error(f"/audit/proof/consistency?from=1&to={first.tree_size}") == (422, "from")
    assert error(f"/audit/proof/consistency?from={first.tree_size}&to=99999") == (422, "to")
    assert api.get("/audit/proof/consistency?to=3").status_code == 422


def test_beat_signs_checkpoints_only_when_the_switch_is_on(personas, settings):
    from switchboard.tasks import issue_ledger_checkpoints

    _record(personas.acme, 1)
    settings.AUDIT_CHECKPOINT_BEAT = False
    assert issue_ledger_checkpoints() == 0
    assert not AuditCheckpoint.objects.exists()
    settings.AUDIT_CHECKPOINT_BEAT = True
    assert issue_ledger_checkpoints() == 2  # acme and bravo


def test_checkpoints_come_at_most_once_an_interval_and_only_when_the_tree_grew(personas, settings):
    settings.AUDIT_CHECKPOINT_INTERVAL = 60
    _record(personas.acme, 2)
    assert checkpoints_issue_due() == 2  # acme and bravo (their creation is in their ledgers)
    assert checkpoints_issue_due() == 0  # nothing grew
    _record(personas.acme, 1)
    assert checkpoints_issue_due() == 0  # grew, but the interval has not passed
    settings.AUDIT_CHECKPOINT_INTERVAL = 0
    assert checkpoints_issue_due() == 1  # acme only: bravo did not grow
    sizes = list(
        AuditCheckpoint.objects.filter(host=personas.acme).values_list("tree_size", flat=True)
    )
    head = AuditChainHead.objects.get(host=personas.acme)
    assert sizes[0] == head.tree_size == AuditEntry.objects.filter(host=personas.acme).count()


def _raw(sql: str, params: list) -> None:
    """As a database user would: straight SQL, the triggers out of the way."""
    with pgtrigger.ignore(LEDGER_PROTECTION, TREE_LEAF_PROTECTION), connection.cursor() as cur:
        cur.execute(sql, params)


def _rechain(host_id: str) -> None:
    """Recompute everything the console itself would after an edit: each
    entry's content hash, the chain, the head (its chain hash, leaf count
    and compact range)."""
    from switchboard import tlog

    previous, frontier, size, last = "", [], 0, 0
    for entry in AuditEntry.objects.filter(host_id=host_id).order_by("id"):
        digest = content_hash(entry)
        linked = chain_hash(previous, digest)
        _raw(
            "UPDATE switchboard_auditentry SET content_hash=%s, prev_hash=%s, chain_hash=%s, "
            "leaf_index=%s WHERE id=%s",
            [digest, previous, linked, size, entry.id],
        )
        frontier = tlog.frontier_append(frontier, size, tlog.leaf_hash(bytes.fromhex(digest)))
        previous, size, last = linked, size + 1, entry.id
    AuditChainHead.objects.filter(host_id=host_id).update(
        entry_id=last,
        chain_hash=previous,
        tree_size=size,
        frontier=[f.hex() for f in frontier],
        frontier_size=size,
    )


def _verify_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "switchboard.verify_cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )


def _files(tmp_path, api, old: dict, new: dict) -> dict[str, str]:
    paths = {
        "old": tmp_path / "old.note",
        "new": tmp_path / "new.note",
        "key": tmp_path / "key.vkey",
        "proof": tmp_path / "proof.json",
        "export": tmp_path / "export.jsonl",
    }
    paths["old"].write_text(old["note"])
    paths["new"].write_text(new["note"])
    paths["key"].write_text(new["key"]["vkey"])
    proof = api.get(f"/audit/proof/consistency?from={old['tree_size']}&to={new['tree_size']}")
    paths["proof"].write_text(proof.content.decode())
    export = api.get("/audit/export?format=jsonl")
    paths["export"].write_bytes(b"".join(export.streaming_content))
    return {name: str(path) for name, path in paths.items()}


def test_an_edited_covered_entry_breaks_the_proofs_and_is_named(personas, tmp_path):
    api = personas.acme_api
    entries = _record(personas.acme, 6)
    checkpoint_issue(personas.acme.id)
    old = _checked_checkpoint(api)
    _record(personas.acme, 3, start=6)
    checkpoint_issue(personas.acme.id)
    new = _checked_checkpoint(api)

    (tmp_path / "honest").mkdir()
    honest = _files(tmp_path / "honest", api, old, new)
    ran = _verify_cli("log", "--export", honest["export"], "--checkpoint", honest["old"],
                      "--key", honest["key"])  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    ran = _verify_cli("log", "--export", honest["export"], "--checkpoint", honest["new"],
                      "--key", honest["key"])  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert f"ok: {new['tree_size']} entries" in ran.stdout
    ran = _verify_cli("consistency", "--old", honest["old"], "--new", honest["new"],
                      "--proof", honest["proof"], "--key", honest["key"])  # fmt: skip
    assert ran.returncode == 0, ran.stderr

    # The operator rewrites an entry both checkpoints cover, and every hash
    # the console keeps after it.
    target = entries[2]
    _raw("UPDATE switchboard_auditentry SET summary=%s WHERE id=%s", ["nothing", target.id])
    _rechain(personas.acme.id)
    assert ledger_verify(host_id=personas.acme.id).first_broken == {
        "id": target.id,
        "reason": "content_changed",
        "leaf_index": target.leaf_index,
    }
    answer = api.get("/audit/verify").json()
    assert answer["ok"] is False and answer["first_broken"]["id"] == target.id
    from tests.core.test_ledger_chain import _verify_command

    code, out = _verify_command("--host", personas.acme.name)
    assert code == 1 and f"BROKEN at entry {target.id}" in out

    # The consistency proof from the old checkpoint no longer verifies (or
    # is refused as inconsistent).
    proof = api.get(f"/audit/proof/consistency?from={old['tree_size']}&to={new['tree_size']}")
    if proof.status_code == 409:
        assert proof.json()["error"]["code"] == "inconsistent"
    else:
        assert not rfc9162.consistency_holds(
            old["tree_size"],
            new["tree_size"],
            base64.b64decode(old["root_hash"]),
            base64.b64decode(new["root_hash"]),
            _b64(proof.json()["hashes"]),
        )
    # The console refuses to sign over it.
    _record(personas.acme, 1, start=9)
    with pytest.raises(InconsistentTree):
        checkpoint_issue(personas.acme.id)

    # The auditor, with the notes the host kept, finds it in the new export.
    (tmp_path / "tampered").mkdir()
    tampered = _files(tmp_path / "tampered", api, old, new)
    ran = _verify_cli("log", "--export", tampered["export"], "--checkpoint", honest["old"],
                      "--key", honest["key"])  # fmt: skip
    assert ran.returncode == 1 and "do not give the checkpoint's root" in ran.stderr

    # Rewriting the leaf record too does not help: the signed roots catch it.
    _raw(
        "UPDATE switchboard_audittreeleaf SET content_hash=e.content_hash "
        "FROM switchboard_auditentry e WHERE e.id = switchboard_audittreeleaf.entry_id "
        "AND e.id = %s"
        if connection.vendor == "postgresql"
        else "UPDATE switchboard_audittreeleaf SET content_hash=(SELECT content_hash FROM "
        "switchboard_auditentry e WHERE e.id = switchboard_audittreeleaf.entry_id) "
        "WHERE entry_id = %s",
        [target.id],
    )
    broken = ledger_verify(host_id=personas.acme.id).first_broken
    assert broken is not None and broken["reason"] == "checkpoint_mismatch"
    assert broken["checkpoint"] == old["tree_size"]


def test_removing_the_newest_covered_entries_is_found(personas, tmp_path):
    api = personas.acme_api
    _record(personas.acme, 5)
    checkpoint_issue(personas.acme.id)
    old = _checked_checkpoint(api)
    newest = AuditEntry.objects.filter(host=personas.acme).order_by("-id")[:2]
    removed = sorted(entry.id for entry in newest)
    _raw("DELETE FROM switchboard_auditentry WHERE id IN (%s, %s)", removed)
    _rechain(personas.acme.id)
    assert ledger_verify(host_id=personas.acme.id).first_broken == {
        "id": removed[0],
        "reason": "covered_entries_missing",
        "leaf_index": old["tree_size"] - 2,
        "checkpoint": old["tree_size"],
    }
    # Both front ends name it: the command an operator runs, the host's API.
    from tests.core.test_ledger_chain import _verify_command

    code, out = _verify_command("--host", personas.acme.name)
    assert code == 1, out
    assert (
        f"BROKEN at entry {removed[0]} (covered_entries_missing, "
        f"against checkpoint {old['tree_size']})"
    ) in out
    answer = api.get("/audit/verify").json()
    assert answer["ok"] is False
    assert answer["first_broken"] == {
        "id": removed[0],
        "reason": "covered_entries_missing",
        "leaf_index": old["tree_size"] - 2,
        "checkpoint": old["tree_size"],
    }
    # The operator clears the leaf record too and writes on: the console
    # never signs over the gap, and refuses proofs against the checkpoint.
    _raw(
        "DELETE FROM switchboard_audittreeleaf WHERE entry_id IN (%s, %s)",
        removed,
    )
    _record(personas.acme, 4, start=5)
    broken = ledger_verify(host_id=personas.acme.id).first_broken
    assert broken is not None and broken["reason"] == "checkpoint_mismatch"
    code, out = _verify_command("--host", personas.acme.name)
    assert code == 1, out
    assert f"BROKEN at entry {broken['id']} (checkpoint_mismatch" in out
    assert api.get("/audit/verify").json()["first_broken"] == broken
    with pytest.raises(InconsistentTree):
        checkpoint_issue(personas.acme.id)
    survivor = AuditEntry.objects.filter(host=personas.acme).order_by("id").first()
    answer = api.get(f"/audit/proof/inclusion?entry={survivor.id}&tree_size={old['tree_size']}")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "inconsistent"
    (tmp_path / "x").mkdir()
    files = _files(tmp_path / "x", api, old, old)
    ran = _verify_cli("log", "--export", files["export"], "--checkpoint", files["old"],
                      "--key", files["key"])  # fmt: skip
    assert ran.returncode == 1 and "FAILED" in ran.stderr


def test_the_host_receives_checkpoints_that_verify(personas, receiver, client, settings):
    import svix.webhooks  # noqa: F401 - the receiver imports it on its first request

    # A loaded two-core machine can take longer than the tests' 2 s.
    settings.HOST_DELIVERY_TIMEOUT = 10
    _, receiver.secret = host_endpoint_set(host=personas.acme, url=receiver.url, actor=SYSTEM)
    _record(personas.acme, 3)
    checkpoint = checkpoint_issue(personas.acme.id)
    delivery = HostDelivery.objects.get(host=personas.acme, type="audit.checkpoint")
    sent = host_delivery_send(seq=delivery.seq)
    delivery.refresh_from_db()
    assert sent == "delivered", (delivery.last_error_category, receiver.rejected, delivery.status)
    got = receiver.accepted("audit.checkpoint")
    assert len(got) == 1 and not receiver.rejected
    data = got[0]["data"]
    vkey = personas.acme_api.get("/audit/checkpoint").json()["key"]["vkey"]
    origin, size, root = rfc9162.note_checkpoint(data["note"], vkey)
    assert (
        (origin, size)
        == (data["origin"], data["tree_size"])
        == (
            checkpoint.key_name,
            checkpoint.tree_size,
        )
    )
    assert base64.b64decode(data["root_hash"]) == root
    leaves = [
        rfc9162.leaf(bytes.fromhex(value))
        for value in AuditEntry.objects.filter(host=personas.acme)
        .order_by("id")
        .values_list("content_hash", flat=True)
    ]
    assert rfc9162.mth(leaves) == root

    # The staff audit page shows the newest checkpoint and when the host took one.
    client.force_login(personas.admin)
    page = client.get("/staff/audit/").content.decode()
    assert f"tree size {checkpoint.tree_size}" in page
    assert "received by the host" in page and "never received" not in page


def test_retention_purges_keep_every_proof_valid(personas, settings, tmp_path):
    from switchboard.services.ledger_retention import ledger_payloads_purge

    api = personas.acme_api
    settings.LEDGER_PAYLOAD_RETENTION = 3600
    past = timezone.now() - timedelta(hours=2)
    old_entries = [
        audit_record(
            host_id=personas.acme.id,
            kind="test.retained",
            actor=Actor.system(),
            summary=f"old {i}",
            detail={"payload": i},
            at=past,
        )
        for i in range(4)
    ]
    checkpoint_issue(personas.acme.id)
    old = _checked_checkpoint(api)
    assert ledger_payloads_purge() >= 4
    checkpoint_issue(personas.acme.id)  # the purge's own entry grew the tree
    new = _checked_checkpoint(api)
    assert new["tree_size"] > old["tree_size"]
    assert ledger_verify(host_id=personas.acme.id).ok
    proof = api.get(f"/audit/proof/consistency?from={old['tree_size']}&to={new['tree_size']}")
    assert rfc9162.consistency_holds(
        old["tree_size"],
        new["tree_size"],
        base64.b64decode(old["root_hash"]),
        base64.b64decode(new["root_hash"]),
        _b64(proof.json()["hashes"]),
    )
    purged = AuditEntry.objects.get(pk=old_entries[0].pk)
    assert purged.detail == {} and purged.detail_purged_at is not None
    inclusion = api.get(
        f"/audit/proof/inclusion?entry={purged.id}&tree_size={old['tree_size']}"
    ).json()
    assert rfc9162.inclusion_holds(
        purged.leaf_index,
        old["tree_size"],
        rfc9162.leaf(bytes.fromhex(purged.content_hash)),
        _b64(inclusion["hashes"]),
        base64.b64decode(old["root_hash"]),
    )
    (tmp_path / "x").mkdir()
    files = _files(tmp_path / "x", api, old, new)
    for note in ("old", "new"):
        ran = _verify_cli("log", "--export", files["export"], "--checkpoint", files[note],
                          "--key", files["key"])  # fmt: skip
        assert ran.returncode == 0, ran.stderr
