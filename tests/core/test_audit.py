import csv
import io
import json

import pytest
from django.test import Client

from switchboard.actors import Actor
from switchboard.models import AuditEntry
from switchboard.services.audit import audit_record


def test_the_ledger_is_append_only(personas):
    entry = AuditEntry.objects.filter(host=personas.acme).first()
    entry.summary = "rewritten"
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(host=personas.acme).update(summary="x")
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(host=personas.acme).delete()


def test_secrets_never_enter_the_ledger(personas):
    entry = audit_record(
        host_id=personas.acme.id,
        kind="test.secret",
        actor=Actor.system(),
        summary="with secrets",
        detail={
            "secret": "whsec_abc",
            "nested": {"Authorization": "Bearer x", "ok": 1},
            "headers": {"a": "b"},
        },
    )
    entry.refresh_from_db()
    dumped = json.dumps(entry.detail)
    assert "whsec_abc" not in dumped and "Bearer x" not in dumped and '"a": "b"' not in dumped
    assert entry.detail["nested"]["ok"] == 1


def test_api_filters_by_kind_user_and_time(personas):
    api = personas.acme_api
    items = api.get("/audit?kind=user.created").json()["items"]
    assert {i["user"] for i in items} == {"alice", "bob"}
    assert all(i["kind"] == "user.created" for i in items)
    prefixed = api.get("/audit?kind=user.").json()["items"]
    assert {i["kind"] for i in prefixed} <= {"user.created", "user.updated"}
    only_alice = api.get("/audit?user=alice").json()["items"]
    assert only_alice and all(i["user"] == "alice" for i in only_alice)
    assert api.get("/audit?since=2999-01-01T00:00:00Z").json()["items"] == []
    bad = api.get("/audit?since=yesterday")
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "since"


def test_export_streams_csv_and_jsonl_with_the_same_filters(personas):
    api = personas.acme_api
    response = api.get("/audit/export?format=csv&kind=user.created")
    assert response.status_code == 200 and response.streaming
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert {r["user"] for r in rows} == {"alice", "bob"}
    response = api.get("/audit/export?format=jsonl&user=alice")
    lines = [
        json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()
    ]
    assert lines and all(line["user"] == "alice" for line in lines)
    assert api.get("/audit/export?format=xml").status_code == 422


def test_export_walks_more_than_one_chunk(personas, settings):
    settings.AUDIT_EXPORT_CHUNK = 2
    for i in range(5):
        audit_record(
            host_id=personas.acme.id, kind="test.bulk", actor=Actor.system(), summary=f"bulk {i}"
        )
    response = personas.acme_api.get("/audit/export?format=jsonl&kind=test.bulk")
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert [json.loads(line)["summary"] for line in lines] == [
        f"bulk {i}" for i in reversed(range(5))
    ]


def test_csv_export_neutralises_formulas(personas):
    audit_record(
        host_id=personas.acme.id, kind="test.formula", actor=Actor.system(), summary="=HYPERLINK(1)"
    )
    response = personas.acme_api.get("/audit/export?format=csv&kind=test.formula")
    assert "'=HYPERLINK(1)" in b"".join(response.streaming_content).decode()


def test_staff_audit_page_filters_and_exports(personas):
    client = Client()
    client.force_login(personas.auditor, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get("/staff/audit/?kind=user.created&user=bob").content.decode()
    assert "User bob created" in page and "User alice created" not in page
    partial = client.get("/staff/audit/?kind=user.created", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and "User alice created" in partial
    export = client.get("/staff/audit/export.csv?kind=user.created&user=bob")
    assert b"bob" in b"".join(export.streaming_content)


def _staff(user) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_the_explorer_searches_summaries_and_filters_by_subscription(personas):
    for summary, subject in (
        ("Quarterly database migration finished", "sub_a"),
        ("Database backup failed", "sub_b"),
        ("Weekly report mailed", "sub_a"),
    ):
        audit_record(
            host_id=personas.acme.id,
            kind="test.explore",
            actor=Actor.system(),
            summary=summary,
            subject_type="subscription",
            subject_id=subject,
        )
    auditor = _staff(personas.auditor)

    def shown(query: str) -> str:
        return auditor.get(f"/staff/audit/?kind=test.explore&{query}").content.decode()

    page = shown("q=database")
    assert "Quarterly database migration" in page and "Database backup failed" in page
    assert "Weekly report" not in page
    page = shown("q=database+migration")  # every word
    assert "Quarterly database migration" in page and "Database backup failed" not in page
    page = shown("subscription=sub_a")
    assert "Weekly report" in page and "Database backup" not in page
    # The export is exactly what is filtered.
    export = auditor.get(
        "/staff/audit/export.jsonl?kind=test.explore&q=database&subscription=sub_a"
    )
    rows = [json.loads(line) for line in b"".join(export.streaming_content).splitlines()]
    assert [r["summary"] for r in rows] == ["Quarterly database migration finished"]


def test_details_are_for_auditors_only(personas):
    audit_record(
        host_id=personas.acme.id,
        kind="test.payload",
        actor=Actor.system(),
        summary="an event arrived",
        detail={"payload": "what the server sent"},
    )
    auditor, admin = _staff(personas.auditor), _staff(personas.admin)
    assert "what the server sent" in auditor.get("/staff/audit/?kind=test.payload").content.decode()
    assert (
        "what the server sent" not in admin.get("/staff/audit/?kind=test.payload").content.decode()
    )
    for who, sees in ((auditor, True), (admin, False)):
        for fmt in ("csv", "jsonl"):
            body = b"".join(
                who.get(f"/staff/audit/export.{fmt}?kind=test.payload").streaming_content
            )
            assert (b"what the server sent" in body) is sees, (fmt, sees)


def test_the_csv_export_carries_each_entrys_content_hash_and_leaf(personas):
    from switchboard.services.ledger_checkpoints import checkpoint_issue
    from tests.core import rfc9162

    checkpoint = checkpoint_issue(personas.acme.id)
    response = personas.acme_api.get("/audit/export?format=csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    stored = {
        str(entry.id): (entry.content_hash, entry.leaf_index)
        for entry in AuditEntry.objects.filter(host=personas.acme)
    }
    assert {row["id"]: (row["content_hash"], int(row["leaf_index"])) for row in rows} == stored
    # Enough to rebuild the host's tree: the leaves in order give the signed
    # root (the export records itself, so the export holds one more leaf).
    ordered = sorted(rows, key=lambda row: int(row["leaf_index"]))
    assert [int(row["leaf_index"]) for row in ordered] == list(range(len(rows)))
    assert len(rows) > checkpoint.tree_size
    leaves = [
        rfc9162.leaf(bytes.fromhex(row["content_hash"])) for row in ordered[: checkpoint.tree_size]
    ]
    assert rfc9162.mth(leaves).hex() == checkpoint.root_hash
    # The staff page's CSV has the same columns.
    client = Client()
    client.force_login(personas.auditor, backend="django.contrib.auth.backends.ModelBackend")
    staff = client.get("/staff/audit/export.csv")
    staff_rows = list(csv.DictReader(io.StringIO(b"".join(staff.streaming_content).decode())))
    now = {
        str(entry.id): (entry.content_hash, entry.leaf_index)
        for entry in AuditEntry.objects.filter(host=personas.acme)
    }
    assert (
        staff_rows
        and {row["id"]: (row["content_hash"], int(row["leaf_index"])) for row in staff_rows}.items()
        <= now.items()
    )
