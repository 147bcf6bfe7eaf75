"""The ledger proves itself (switchboard/README.md): a hash chain per host that finds an
edited, a deleted or a missing newest entry; a PostgreSQL trigger that
refuses UPDATE and DELETE; ``manage.py audit_verify`` and
``GET /api/v1/audit/verify``. Tampering is done with raw SQL, as a database
user would, with the trigger switched off for it."""

from __future__ import annotations

import json
import threading
import time
from io import StringIO

import pgtrigger
import pytest
from django.core.management import call_command
from django.db import (
    DatabaseError,
    IntegrityError,
    close_old_connections,
    connection,
    transaction,
)

from switchboard.actors import Actor
from switchboard.models import (
    LEDGER_PROTECTION,
    AuditChainHead,
    AuditEntry,
    AuditTreeLeaf,
    Host,
)
from switchboard.services.audit import audit_record
from switchboard.services.ledger_chain import ledger_verify
from tests.pg import postgresql_only


def _record(host, n: int) -> list[AuditEntry]:
    return [
        audit_record(
            host_id=host.id,
            kind="test.step",
            actor=Actor.system(),
            summary=f"step {i}",
            detail={"n": i, "nested": {"b": 1, "a": [1, 2]}},
        )
        for i in range(n)
    ]


def _raw(sql: str, params: list) -> None:
    """As a database user would: straight SQL, the trigger out of the way."""
    with pgtrigger.ignore(LEDGER_PROTECTION), connection.cursor() as cursor:
        cursor.execute(sql, params)


def _verify_command(*args) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("audit_verify", *args, stdout=out)
    except SystemExit as exit:
        return int(exit.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_an_untouched_ledger_verifies(personas):
    _record(personas.acme, 5)
    result = ledger_verify(host_id=personas.acme.id)
    assert result.ok and result.checked == AuditEntry.objects.filter(host=personas.acme).count()
    code, out = _verify_command("--host", personas.acme.name)
    assert code == 0 and "ok" in out
    answer = personas.acme_api.get("/audit/verify").json()
    assert answer["ok"] is True and answer["checked"] == result.checked
    assert "first_broken" not in answer


def test_an_edited_entry_is_found(personas):
    entries = _record(personas.acme, 5)
    _raw(
        "UPDATE switchboard_auditentry SET summary = %s WHERE id = %s",
        ["nothing happened", entries[2].id],
    )
    result = ledger_verify(host_id=personas.acme.id)
    assert not result.ok
    assert result.first_broken == {"id": entries[2].id, "reason": "content_changed"}
    code, out = _verify_command()
    assert code == 1 and f"BROKEN at entry {entries[2].id}" in out
    answer = personas.acme_api.get("/audit/verify").json()
    assert answer["ok"] is False and answer["first_broken"]["id"] == entries[2].id
    # Another host's chain is its own, and holds.
    assert personas.bravo_api.get("/audit/verify").json()["ok"] is True


def test_a_deleted_entry_is_found_at_the_next_one(personas):
    entries = _record(personas.acme, 5)
    _raw("DELETE FROM switchboard_auditentry WHERE id = %s", [entries[1].id])
    result = ledger_verify(host_id=personas.acme.id)
    assert result.first_broken == {
        "id": entries[2].id,
        "reason": "previous_entry_missing_or_changed",
    }


def test_deleted_newest_entries_are_found(personas):
    entries = _record(personas.acme, 3)
    _raw("DELETE FROM switchboard_auditentry WHERE id = %s", [entries[-1].id])
    result = ledger_verify(host_id=personas.acme.id)
    assert result.first_broken == {"id": entries[-1].id, "reason": "newest_entries_missing"}


def test_verifying_from_a_moment_checks_the_link_before_it(personas):
    entries = _record(personas.acme, 4)
    assert ledger_verify(host_id=personas.acme.id, since=entries[2].at).checked == 2
    _raw("DELETE FROM switchboard_auditentry WHERE id = %s", [entries[1].id])
    broken = ledger_verify(host_id=personas.acme.id, since=entries[2].at)
    assert broken.first_broken == {
        "id": entries[2].id,
        "reason": "previous_entry_missing_or_changed",
    }


def test_the_database_refuses_to_change_or_remove_ledger_rows(personas):
    postgresql_only("the append-only trigger is PostgreSQL's")
    entry = _record(personas.acme, 1)[0]
    for sql in (
        "UPDATE switchboard_auditentry SET summary = 'x' WHERE id = %s",
        "DELETE FROM switchboard_auditentry WHERE id = %s",
    ):
        with (
            pytest.raises(DatabaseError, match="Cannot update or delete"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [entry.id])
    assert ledger_verify(host_id=personas.acme.id).ok


@pytest.mark.django_db(transaction=True)
def test_concurrent_writers_of_one_host_keep_one_chain(tpersonas):
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        try:
            for i in range(25):
                audit_record(
                    host_id=tpersonas.acme.id,
                    kind="test.concurrent",
                    actor=Actor.system(f"writer {worker}"),
                    summary=f"{worker}/{i}",
                )
        except BaseException as error:  # reported below, with the thread's cause
            errors.append(error)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    result = ledger_verify(host_id=tpersonas.acme.id)
    assert result.ok, result.first_broken
    assert result.checked >= 100
    # The tree the appends kept (sizes and leaf records, the compact range
    # brought up to date only when signing) gives the root of the entries.
    from switchboard import tlog
    from switchboard.services.ledger_checkpoints import checkpoint_issue
    from switchboard.services.ledger_tree import leaves

    checkpoint = checkpoint_issue(tpersonas.acme.id)
    assert checkpoint is not None and checkpoint.tree_size == result.checked
    assert checkpoint.root_hash == tlog.root_hash(leaves(tpersonas.acme.id, result.checked)).hex()


@pytest.mark.django_db(transaction=True)
def test_entries_written_before_the_chain_are_chained_by_the_migration():
    from django.utils import timezone

    from tests.migrations import before, migrate, newest

    old = migrate(before(("switchboard", "0007_server_block"), also_back=["consent"]))
    host = old.get_model("switchboard", "Host").objects.create(name="acme-before-chain")
    Entry = old.get_model("switchboard", "AuditEntry")
    for i in range(3):
        Entry.objects.create(
            host=host, at=timezone.now(), kind="old.step", actor_kind="system", summary=f"{i}"
        )
    migrate(newest())

    result = ledger_verify(host_id=host.id)
    assert result.ok and result.checked == 3
    audit_record(host_id=host.id, kind="new.step", actor=Actor.system(), summary="after")
    assert ledger_verify(host_id=host.id).checked == 4


def test_retention_erases_old_details_the_chain_still_holds_and_the_purge_is_recorded(
    personas, settings
):
    from datetime import timedelta

    from django.utils import timezone

    from switchboard.services.ledger_retention import ledger_payloads_purge

    settings.LEDGER_PAYLOAD_RETENTION = 3600
    past = timezone.now() - timedelta(hours=2)

    def write(host, summary, at=None):
        return audit_record(
            host_id=host.id,
            kind="test.retained",
            actor=Actor.system(),
            summary=summary,
            detail={"payload": summary},
            at=at,
        )

    old = [write(personas.acme, f"old {i}", at=past) for i in range(2)]
    fresh = write(personas.acme, "new")
    # Bravo keeps its details for 30 days: nothing of it is erased.
    personas.bravo.retention_days = {"ledger_details": 30}
    personas.bravo.save()
    kept = write(personas.bravo, "bravo old", at=past)

    assert ledger_payloads_purge() == 2
    for entry in old:
        entry.refresh_from_db()
        assert entry.detail == {} and entry.detail_purged_at is not None
    fresh.refresh_from_db()
    kept.refresh_from_db()
    assert fresh.detail == {"payload": "new"} and kept.detail == {"payload": "bravo old"}
    record = AuditEntry.objects.get(host=personas.acme, kind="retention.purged")
    assert record.detail["kind"] == "ledger_details" and record.detail["count"] == 2
    assert (record.detail["first"], record.detail["last"]) == (str(old[0].id), str(old[1].id))
    # The chain holds across the purge, and still finds an edit after it.
    assert ledger_verify(host_id=personas.acme.id).ok
    _raw("UPDATE switchboard_auditentry SET summary = 'x' WHERE id = %s", [old[0].id])
    assert ledger_verify(host_id=personas.acme.id).first_broken == {
        "id": old[0].id,
        "reason": "content_changed",
    }
    assert ledger_payloads_purge() == 0  # nothing left to erase


def test_staff_set_the_hosts_retention_on_the_policy_page(personas):
    from django.test import Client

    admin = Client()
    admin.force_login(personas.admin)
    page = admin.get("/staff/policy/").content.decode()
    assert 'id="retention-ledger_details"' in page and "default 365 days" in page
    assert 'id="retention-event_payloads"' in page and 'id="retention-injected_text"' in page
    admin.post("/staff/retention", {"ledger_details": "90", "event_payloads": "7"})
    personas.acme.refresh_from_db()
    assert personas.acme.retention_days == {"ledger_details": 90, "event_payloads": 7}
    change = AuditEntry.objects.get(kind="policy.retention_changed")
    assert change.detail["changed"]["event_payloads"] == {"from": None, "to": 7}
    refused = admin.post("/staff/retention", {"delivery_bodies": "0"}, follow=True)
    assert "between 1 and 36,500 days" in refused.content.decode()
    admin.post("/staff/retention", {"ledger_details": "", "event_payloads": "7"})
    personas.acme.refresh_from_db()
    assert personas.acme.retention_days == {"event_payloads": 7}
    auditor = Client()
    auditor.force_login(personas.auditor)
    assert auditor.post("/staff/retention", {"ledger_details": "5"}).status_code == 403


def test_the_summary_search_has_its_index_on_postgresql(db):
    postgresql_only("the full-text index is PostgreSQL's")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'audit_summary_fts'")
        (definition,) = cursor.fetchone()
    assert "gin" in definition and "to_tsvector" in definition


def test_the_scheduled_export_writes_new_entries_once_per_host(personas, settings, tmp_path):
    from switchboard.services.audit_files import ledger_files_export

    assert ledger_files_export() == 0  # off until a directory is set
    settings.AUDIT_EXPORT_DIR = str(tmp_path)
    first = ledger_files_export()
    assert first == AuditEntry.objects.count() and first > 0
    _record(personas.acme, 2)
    assert ledger_files_export() == 2  # only what is new
    assert ledger_files_export() == 0
    files = sorted((tmp_path / personas.acme.id).glob("*.jsonl"))
    lines = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    acme_ids = [int(row["id"]) for row in lines]
    assert acme_ids == sorted(acme_ids) and len(acme_ids) == len(set(acme_ids))
    assert acme_ids == list(
        AuditEntry.objects.filter(host=personas.acme).order_by("id").values_list("id", flat=True)
    )
    assert lines[-1]["detail"] == {"n": 1, "nested": {"a": [1, 2], "b": 1}}  # details for the SIEM
    assert not list(tmp_path.rglob("*.partial"))


@pytest.mark.django_db(transaction=True)
def test_a_row_locked_before_writing_the_ledger_does_not_deadlock_with_a_commit(tpersonas):
    """Found by the hot-path bench: a transaction that locked a user's row
    and then waited for the host's ledger chain, against one that held the
    chain and, at COMMIT, checked a foreign key to that user (PostgreSQL
    checks them at commit, with a KEY SHARE lock): a deadlock. Locks we take
    never change keys, so they are FOR NO KEY UPDATE, which KEY SHARE passes."""
    postgresql_only("the deadlock is between PostgreSQL row locks")
    from switchboard.services.users import login_link_consume, login_link_create

    _, token = login_link_create_token(tpersonas.alice)
    holding = threading.Event()
    release = threading.Event()
    errors: list[BaseException] = []

    def ledger_then_fk():
        # Holds the chain (its ledger entry) and inserts a row pointing at
        # the user, then commits once the other side is waiting.
        try:
            with transaction.atomic():
                login_link_create(user=tpersonas.alice, actor=Actor.system(), next_path="/")
                holding.set()
                release.wait(10)
        except BaseException as error:
            errors.append(error)
        finally:
            close_old_connections()

    def lock_then_ledger():
        try:
            holding.wait(10)
            with transaction.atomic():
                login_link_consume(token=token)  # locks the link (and its user), then the ledger
        except BaseException as error:
            errors.append(error)
        finally:
            close_old_connections()

    first = threading.Thread(target=ledger_then_fk)
    second = threading.Thread(target=lock_then_ledger)
    first.start()
    second.start()
    holding.wait(10)
    _wait_until_a_backend_waits_for_a_lock()  # the consumer queued on the chain head
    release.set()
    first.join(20)
    second.join(20)
    assert not errors, errors
    assert ledger_verify(host_id=tpersonas.acme.id).ok


def _wait_until_a_backend_waits_for_a_lock(timeout: float = 10) -> None:
    """PostgreSQL's own word that another session is blocked on a lock."""
    from tests.pg import admin_connect

    deadline = time.monotonic() + timeout
    with admin_connect() as admin:
        while True:
            (waiting,) = admin.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone()
            if waiting:
                return
            assert time.monotonic() < deadline, "no session ever waited for the lock"
            time.sleep(0.01)


def login_link_create_token(user):
    """A fresh login link and its token (the URL's last part)."""
    from switchboard.services.users import login_link_create

    url, link = login_link_create(user=user, actor=Actor.system(), next_path="/")
    return link, url.rstrip("/").rsplit("/", 1)[-1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("table", "covering"),
    [
        ("switchboard_auditentry", "audit_host_idx"),
        ("switchboard_audittreeleaf", "audit_tree_leaf_unique"),
    ],
)
def test_the_ledger_tables_keep_no_index_their_host_indexes_cover(table, covering):
    """Every append writes each index of both tables (on PostgreSQL under the
    host's lock), so an index on ``host_id`` alone, redundant beside the
    composite one that starts with it, is gone (migration 0020)."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    assert constraints[covering]["columns"][0] == "host_id"
    host_only = [
        name
        for name, found in constraints.items()
        if found["index"] and found["columns"] == ["host_id"]
    ]
    assert host_only == []


def _host_keys(table: str) -> list[str]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return [name for name, found in constraints.items() if found["foreign_key"]]


@pytest.mark.django_db
def test_the_ledgers_host_is_checked_once_by_the_chain_head():
    """Entries and leaves keep no foreign key of their own (migration 0021):
    an append writes them only from the host's locked head row, whose key
    already proves the host exists, and their checks ran at commit, on the
    path every writer of the host waits on."""
    assert _host_keys("switchboard_auditentry") == []
    assert _host_keys("switchboard_audittreeleaf") == []
    assert len(_host_keys("switchboard_auditchainhead")) == 1


@pytest.mark.django_db(transaction=True)
def test_an_append_for_a_host_that_does_not_exist_writes_nothing():
    with pytest.raises(IntegrityError):
        audit_record(host_id="hst_nobody", kind="test.step", actor=Actor.system(), summary="lost")
    assert not AuditEntry.objects.filter(host_id="hst_nobody").exists()
    assert not AuditTreeLeaf.objects.filter(host_id="hst_nobody").exists()
    assert not AuditChainHead.objects.filter(host_id="hst_nobody").exists()


@pytest.mark.django_db(transaction=True)
def test_a_host_with_a_ledger_cannot_be_deleted_behind_the_consoles_back():
    """What the entries' own keys guarded, the head's key still does: with
    only a ledger referring to it, a host cannot be deleted in the
    database."""
    host = Host.objects.create(name="ledger only")
    audit_record(host_id=host.id, kind="test.step", actor=Actor.system(), summary="kept")
    with pytest.raises(IntegrityError), connection.cursor() as cursor:
        cursor.execute("DELETE FROM switchboard_host WHERE id = %s", [host.id])
    assert Host.objects.filter(id=host.id).exists()
    assert ledger_verify(host_id=host.id).ok
