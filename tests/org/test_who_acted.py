"""Who acted (docs/host-integration.md §11): the ``Switchboard-Actor`` header beside
the key on the ledger entries a call causes, in the API, the explorer and
both exports; raw subscription arguments never in the ledger, and the
entries that held them before rewritten by a migration the chain survives."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.db import connection
from django.test import Client

from switchboard.models import AuditChainHead, AuditEntry
from switchboard.services.ledger_chain import ledger_verify
from switchboard.services.ledger_digest import canonical_sha256
from tests.subscriptions.support import make_event_server

ACTOR = "alice@acme.test via Support Console"
MARKER = "marker-7f3c-secret-repo"


def _subscribe(personas, server, **headers):
    return personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": server.id,
            "event": "build.finished",
            "arguments": {"repo": MARKER, "branch": "main"},
        },
        **headers,
    )


def test_the_actor_header_is_beside_the_key_in_the_ledger_explorer_and_exports(personas):
    server = make_event_server(personas.acme)
    answer = _subscribe(personas, server, HTTP_SWITCHBOARD_ACTOR=ACTOR)
    assert answer.status_code == 201, answer.content
    entry = AuditEntry.objects.get(host=personas.acme, kind="subscription.created")
    assert entry.actor_on_behalf_of == ACTOR and entry.actor_kind == "host_key"

    items = personas.acme_api.get("/audit?kind=subscription.created").json()["items"]
    actor = items[0]["actor"]
    assert actor["kind"] == "api_key" and actor["on_behalf_of"] == ACTOR
    assert actor["id"] == entry.actor_id and actor["label"].startswith("API key ")
    jsonl = personas.acme_api.get("/audit/export?format=jsonl&kind=subscription.created")
    line = json.loads(b"".join(jsonl.streaming_content).decode().splitlines()[0])
    assert line["actor"]["on_behalf_of"] == ACTOR
    exported = personas.acme_api.get("/audit/export?format=csv&kind=subscription.created")
    rows = list(csv.DictReader(io.StringIO(b"".join(exported.streaming_content).decode())))
    assert rows[0]["actor_on_behalf_of"] == ACTOR and rows[0]["actor_kind"] == "api_key"

    staff = Client()
    staff.force_login(personas.auditor, backend="django.contrib.auth.backends.ModelBackend")
    page = staff.get("/staff/audit/?kind=subscription.created").content.decode()
    assert "on behalf of alice@acme.test via Support Console" in page
    export = staff.get("/staff/audit/export.csv?kind=subscription.created")
    assert ACTOR in b"".join(export.streaming_content).decode()

    # Without the header: null, and the chain holds entries with and without it.
    personas.acme_api.put("/users/dora", json={"display_name": "Dora"})
    plain = personas.acme_api.get("/audit?user=dora").json()["items"][0]["actor"]
    assert plain["on_behalf_of"] is None
    assert ledger_verify(host_id=personas.acme.id).ok


@pytest.mark.parametrize("value", ["", "x" * 201, "tab\there"])
def test_a_bad_actor_header_is_refused_and_nothing_is_written(personas, value):
    server = make_event_server(personas.acme)
    before = AuditEntry.objects.count()
    answer = _subscribe(personas, server, HTTP_SWITCHBOARD_ACTOR=value)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_actor"
    assert AuditEntry.objects.count() == before


def test_no_raw_argument_value_enters_the_ledger(personas):
    server = make_event_server(personas.acme)
    assert _subscribe(personas, server).status_code == 201
    entry = AuditEntry.objects.get(host=personas.acme, kind="subscription.created")
    assert entry.detail["argument_keys"] == ["branch", "repo"]
    assert entry.detail["arguments_sha256"] == canonical_sha256({"repo": MARKER, "branch": "main"})
    # Anywhere in the table, in any column.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {AuditEntry._meta.db_table}")
        assert MARKER not in repr(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
def test_entries_holding_raw_arguments_are_rewritten_and_the_chain_survives():
    from django.utils import timezone

    from switchboard.services.ledger_chain import chain_hash, content_hash, detail_hash
    from tests.migrations import before, migrate, newest

    # Before the transparency log (0012 builds its tree from what is there),
    # as a deployment that had raw arguments in its ledger would be.
    old = migrate(before(("switchboard", "0011_audit_drain"), also_back=["consent"]))
    host = old.get_model("switchboard", "Host").objects.create(name="acme-raw-arguments")
    Entry = old.get_model("switchboard", "AuditEntry")
    Head = old.get_model("switchboard", "AuditChainHead")
    previous = ""
    for kind, detail in [
        ("subscription.created", {"arguments": {"repo": MARKER}, "mode": "webhook"}),
        ("user.created", {}),
    ]:
        entry = Entry(host=host, at=timezone.now(), kind=kind, actor_kind="system", summary=kind)
        entry.detail = detail
        entry.detail_hash = detail_hash(detail)
        entry.content_hash = content_hash(entry)
        entry.prev_hash = previous
        entry.chain_hash = previous = chain_hash(previous, entry.content_hash)
        entry.save(force_insert=True)
    Head.objects.create(host=host, entry_id=entry.pk, chain_hash=previous)
    migrate(newest())

    rewritten = AuditEntry.objects.get(host_id=host.id, kind="subscription.created")
    assert rewritten.detail == {
        "argument_keys": ["repo"],
        "arguments_sha256": canonical_sha256({"repo": MARKER}),
        "mode": "webhook",
    }
    notice = AuditEntry.objects.get(host_id=host.id, kind="ledger.inputs_redacted")
    assert notice.detail["entries"] == [rewritten.id]
    result = ledger_verify(host_id=host.id)
    assert result.ok and result.checked == 3, result.first_broken
    # The migration's own notice is a leaf of the tree like every entry.
    assert [e.leaf_index for e in AuditEntry.objects.filter(host_id=host.id).order_by("id")] == [
        0,
        1,
        2,
    ]
    assert AuditChainHead.objects.get(host_id=host.id).tree_size == 3
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {AuditEntry._meta.db_table}")
        assert MARKER not in repr(cursor.fetchall())
