"""The audit drain (docs/host-integration.md §10) against a real HTTP sink that is
down for a while: every entry arrives once, in id order, each batch signed
(verified with the ``standardwebhooks`` library); the drain resumes where it
stopped and its lag returns to 0. OCSF output carries every field the
public OCSF schema requires of its classes. Creating, changing and deleting
a drain, exports and reads by auditors are ledger entries."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import override_settings
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from switchboard.models import AuditDrain, AuditEntry
from switchboard.services.audit import audit_record
from switchboard.services.audit_drain import audit_drain_run
from switchboard.services.ledger_checkpoints import checkpoint_issue, checkpoint_witness_payload
from tests.core import rfc9162
from tests.ops.ocsf_required import missing_required
from tests.subscriptions.support import SYSTEM


class Sink:
    """A SIEM's intake: answers ``down`` requests with 503, then 200."""

    def __init__(self, *, down: int = 0) -> None:
        self.down = down
        self.requests: list[tuple[int, dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with sink.lock:
                    status = 503 if sink.down > 0 else 200
                    sink.down -= 1
                    sink.requests.append((status, headers, body))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/siem"

    def accepted(self) -> list[tuple[dict[str, str], bytes]]:
        return [(h, b) for status, h, b in self.requests if status == 200]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def sink():
    sink = Sink(down=3)
    yield sink
    sink.close()


def drain_until_caught_up(host_id: str, *, timeout: float = 30) -> None:
    """What beat does every tick, until nothing is owed."""
    deadline = time.monotonic() + timeout
    while True:
        audit_drain_run(host_id=host_id)
        drain = AuditDrain.objects.get(host_id=host_id)
        if not AuditEntry.objects.filter(host_id=host_id, id__gt=drain.last_delivered_id).exists():
            return
        assert time.monotonic() < deadline, "the drain did not catch up"
        time.sleep(0.05)


@override_settings(AUDIT_DRAIN_RETRY_BASE=0.05, AUDIT_DRAIN_BATCH=200)
def test_a_drain_down_for_a_while_still_gets_every_entry_once_in_order(personas, sink):
    api = personas.acme_api
    before = AuditEntry.objects.filter(host=personas.acme).order_by("-id").first()
    put = api.put("/audit/drain", {"url": sink.url, "format": "jsonl"})
    assert put.status_code == 200, put.json()
    secret = put.json()["secret"]
    assert secret.startswith("whsec_") and put.json() == {
        "url": sink.url,
        "format": "jsonl",
        "secret": secret,
    }
    for n in range(450):
        audit_record(host_id=personas.acme.id, kind="test.drained", actor=SYSTEM, summary=f"#{n}")
    audit_record(host_id=personas.bravo.id, kind="test.other_host", actor=SYSTEM, summary="no")

    # The sink is down: the first batch fails, the drain says so.
    assert audit_drain_run(host_id=personas.acme.id) == 0
    state = api.get("/audit/drain").json()
    assert state["status"] == "failing" and state["last_error"] == "HTTP 503"
    assert state["lag_seconds"] > 0
    assert state["last_delivered_id"] == str(before.id)

    drain_until_caught_up(personas.acme.id)

    expected = list(
        AuditEntry.objects.filter(host=personas.acme, id__gt=before.id)
        .order_by("id")
        .values_list("id", "content_hash", "chain_hash")
    )
    assert len(expected) == 451  # the drain's creation, then the 450
    received = []
    verifier = Webhook(secret)
    for headers, body in sink.accepted():
        verifier.verify(body, headers, json_parse=False)  # raises on a bad signature
        lines = [json.loads(line) for line in body.decode().splitlines()]
        assert len(lines) <= 200
        assert headers["webhook-id"] == f"{lines[0]['id']}-{lines[-1]['id']}"
        received += [(int(e["id"]), e["content_hash"], e["chain_hash"]) for e in lines]
    assert received == expected  # every entry, once, in order, with its hashes
    headers, body = sink.accepted()[0]
    with pytest.raises(WebhookVerificationError):
        verifier.verify(body.replace(b"test.drained", b"test.forged", 1), headers, json_parse=False)
    # The three refused POSTs were the first batch, sent again unchanged.
    refused = [h["webhook-id"] for s, h, _ in sink.requests if s == 503]
    assert len(refused) == 3 and set(refused) == {sink.accepted()[0][0]["webhook-id"]}

    state = api.get("/audit/drain").json()
    assert state["status"] == "active" and "last_error" not in state
    assert state["lag_seconds"] == 0
    assert state["last_delivered_id"] == str(expected[-1][0])
    assert personas.bravo_api.get("/audit/drain").status_code == 404


@override_settings(AUDIT_DRAIN_RETRY_BASE=1.5)
@pytest.mark.parametrize(
    ("failures_before", "wait"),
    [(0, 1.5), (1, 3.0), (3, 12.0), (6, 60.0), (5000, 60.0)],
)
def test_a_failed_post_waits_the_one_backoff_doubling_to_60_s(
    personas, sink, failures_before, wait
):
    """The drain's schedule (docs/configuration.md): the base after the
    first failure, doubling, capped at 60 s, without jitter. A SIEM down
    for days (thousands of failures in a row) still gets the cap: the
    drain's own doubling once overflowed a float there and every run
    raised instead of recording the failure."""
    put = personas.acme_api.put("/audit/drain", {"url": sink.url, "format": "jsonl"})
    assert put.status_code == 200
    audit_record(host_id=personas.acme.id, kind="test.drained", actor=SYSTEM, summary="owed")
    AuditDrain.objects.filter(host=personas.acme).update(failures=failures_before)
    sink.down = 1
    assert audit_drain_run(host_id=personas.acme.id) == 0
    drain = AuditDrain.objects.get(host=personas.acme)
    assert drain.status == "failing" and drain.failures == failures_before + 1
    assert drain.next_attempt_at is not None
    assert (drain.next_attempt_at - drain.updated_at).total_seconds() == wait


def test_ocsf_events_carry_what_their_class_requires(personas, sink):
    sink.down = 0
    put = personas.acme_api.put("/audit/drain", {"url": sink.url, "format": "ocsf"})
    assert put.status_code == 200
    secret = put.json()["secret"]
    audit_record(host_id=personas.acme.id, kind="api_key.created", actor=SYSTEM, summary="key")
    audit_record(
        host_id=personas.acme.id,
        kind="consent.approved",
        actor=SYSTEM,
        user=personas.alice,
        subject_type="grant",
        subject_id="grt_1",
        summary="allowed",
    )
    drain_until_caught_up(personas.acme.id)
    events = []
    for headers, body in sink.accepted():
        Webhook(secret).verify(body, headers, json_parse=False)
        events += [json.loads(line) for line in body.decode().splitlines()]
    classes = {e["class_uid"] for e in events}
    assert classes == {6003, 3001}
    for event in events:
        assert missing_required(event) == [], event
        assert event["type_uid"] == event["class_uid"] * 100 + event["activity_id"]
    [account] = [e for e in events if e["class_uid"] == 3001]
    assert account["activity_id"] == 1 and account["unmapped"]["kind"] == "api_key.created"


def _record(host_id: str, n: int) -> None:
    for i in range(n):
        audit_record(host_id=host_id, kind="test.drained", actor=SYSTEM, summary=f"#{i}")


def drain_until_checkpoint(host_id: str, tree_size: int, *, timeout: float = 30) -> None:
    """Beat's ticks, until the drain has the checkpoint of ``tree_size`` and
    every entry."""
    deadline = time.monotonic() + timeout
    while True:
        drain_until_caught_up(host_id, timeout=timeout)
        if AuditDrain.objects.get(host_id=host_id).last_checkpoint_size >= tree_size:
            return
        assert time.monotonic() < deadline, "the drain did not send the checkpoint"
        time.sleep(0.05)


@override_settings(AUDIT_DRAIN_RETRY_BASE=0.05, AUDIT_DRAIN_BATCH=4)
def test_each_signed_checkpoint_reaches_the_drain_after_the_entries_it_covers(personas, sink):
    """A checkpoint travels in the drain as an ``audit.checkpoint`` event,
    once, after every entry it commits to, and it verifies there: its signed
    note (checked by the suite's own C2SP verifier) commits to the Merkle
    root of the entries the SIEM received."""
    host = personas.acme.id
    api = personas.acme_api
    before_the_drain = checkpoint_issue(host)  # the SIEM never gets older ones
    put = api.put("/audit/drain", {"url": sink.url, "format": "jsonl"})
    secret = put.json()["secret"]
    _record(host, 5)
    first = checkpoint_issue(host)
    _record(host, 3)
    second = checkpoint_issue(host)
    _record(host, 2)  # not covered yet
    vkey = api.get("/audit/checkpoint").json()["key"]["vkey"]

    # Down for three POSTs (entries first: the checkpoints wait for them).
    drain_until_checkpoint(host, second.tree_size)

    verifier = Webhook(secret)
    stream: list[tuple[str, dict]] = []
    for headers, body in sink.accepted():
        verifier.verify(body, headers, json_parse=False)
        lines = [json.loads(line) for line in body.decode().splitlines()]
        if headers["webhook-id"].startswith("checkpoint-"):
            assert all(line["kind"] == "audit.checkpoint" for line in lines)
            sizes = [line["tree_size"] for line in lines]
            assert headers["webhook-id"] == f"checkpoint-{sizes[0]}-{sizes[-1]}"
            stream += [("checkpoint", line) for line in lines]
        else:
            stream += [("entry", line) for line in lines]
    checkpoints = [line for what, line in stream if what == "checkpoint"]
    assert [c["tree_size"] for c in checkpoints] == [first.tree_size, second.tree_size]
    assert before_the_drain.tree_size not in {c["tree_size"] for c in checkpoints}

    # Each arrives after the entries it covers, as the host's endpoint gets it.
    entry_ids = [int(line["id"]) for what, line in stream if what == "entry"]
    assert entry_ids == sorted(entry_ids) and len(entry_ids) == len(set(entry_ids)) == 11
    everything = list(
        AuditEntry.objects.filter(host_id=host).order_by("id").values_list("id", "content_hash")
    )
    for checkpoint in checkpoints:
        position = stream.index(("checkpoint", checkpoint))
        delivered = [int(line["id"]) for what, line in stream[:position] if what == "entry"]
        assert int(checkpoint["last_entry_id"]) in delivered
        issued = first if checkpoint["tree_size"] == first.tree_size else second
        assert {k: checkpoint[k] for k in ("origin", "tree_size", "root_hash", "note")} == (
            checkpoint_witness_payload(issued)
        )
        # The note is signed, and commits to the tree of the entries so far.
        origin, size, root = rfc9162.note_checkpoint(checkpoint["note"], vkey)
        assert size == checkpoint["tree_size"] and origin == checkpoint["origin"]
        leaves = [rfc9162.leaf(bytes.fromhex(content)) for _, content in everything[:size]]
        assert rfc9162.mth(leaves) == root
    # The three refused POSTs were sent again, unchanged, and nothing twice.
    refused = [h["webhook-id"] for status, h, _ in sink.requests if status == 503]
    assert len(refused) == 3 and len(set(refused)) == 1
    ids = [h["webhook-id"] for h, _ in sink.accepted()]
    assert len(ids) == len(set(ids))

    # The OCSF drain carries them as API Activity with what the class requires.
    sink.requests.clear()
    api.put("/audit/drain", {"url": sink.url, "format": "ocsf"})
    _record(host, 1)
    third = checkpoint_issue(host)
    drain_until_checkpoint(host, third.tree_size)
    [(headers, body)] = [
        (h, b) for h, b in sink.accepted() if h["webhook-id"].startswith("checkpoint-")
    ]
    [event] = [json.loads(line) for line in body.decode().splitlines()]
    assert missing_required(event) == [], event
    assert event["class_uid"] == 6003 and event["api"]["operation"] == "audit.checkpoint"
    assert event["unmapped"]["note"] == third.note
    assert event["unmapped"]["tree_size"] == third.tree_size


def test_a_drain_is_validated_and_its_changes_are_ledger_entries(personas, sink):
    api = personas.acme_api
    bad = api.put("/audit/drain", {"url": sink.url, "format": "xml"})
    assert bad.status_code == 422
    bad = api.put("/audit/drain", {"url": "ftp://siem.example/x", "format": "jsonl"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "url"
    assert api.get("/audit/drain").status_code == 404
    assert api.delete("/audit/drain").status_code == 404

    first = api.put("/audit/drain", {"url": sink.url, "format": "jsonl"}).json()["secret"]
    second = api.put("/audit/drain", {"url": sink.url, "format": "ocsf"}).json()["secret"]
    assert first != second
    assert api.delete("/audit/drain").status_code == 204
    kinds = list(
        AuditEntry.objects.filter(host=personas.acme, kind__startswith="audit.drain")
        .order_by("id")
        .values_list("kind", flat=True)
    )
    assert kinds == ["audit.drain_created", "audit.drain_changed", "audit.drain_deleted"]
    texts = json.dumps(list(AuditEntry.objects.filter(kind__startswith="audit.").values("detail")))
    assert first not in texts and second not in texts  # secrets never reach the ledger


def test_exports_and_reads_by_auditors_are_ledger_entries(personas, client):
    def accesses() -> list[tuple[str, str]]:
        return list(
            AuditEntry.objects.filter(host=personas.acme, kind__in=["audit.read", "audit.exported"])
            .order_by("id")
            .values_list("kind", "actor_id")
        )

    export = personas.acme_api.get("/audit/export?format=jsonl&kind=consent.approved")
    assert export.status_code == 200
    b"".join(export.streaming_content)
    client.force_login(personas.auditor)
    assert client.get("/staff/audit/?kind=server.registered").status_code == 200
    # The page's own live re-reads are not a person reading.
    assert client.get("/staff/audit/", headers={"X-Live-Refresh": "1"}).status_code == 200
    download = client.get("/staff/audit/export.csv")
    b"".join(download.streaming_content)
    client.force_login(personas.admin)
    assert client.get("/staff/audit/").status_code == 200  # an admin's read is not recorded
    found = accesses()
    assert [kind for kind, _ in found] == ["audit.exported", "audit.read", "audit.exported"]
    assert found[1][1] == found[2][1] == personas.auditor.id
    read = AuditEntry.objects.get(kind="audit.read")
    assert read.detail == {"filters": {"kind": "server.registered"}}
