"""Conversation context against the reference MCP server, a real process over HTTP."""

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from consent.models import Grant, HostPolicy, Injection, ServerConversationState
from consent.services import (
    conversation_reenable,
    host_policy_update,
    injections_purge_due,
    user_consent_erase,
)
from outbox.models import HostDelivery
from switchboard.models import AuditEntry
from switchboard.services.servers import server_register, server_update
from tests.consent.support import allow_all, open_request
from tests.factories import SYSTEM
from tests.live import start_refserver

pytestmark = pytest.mark.processes


@pytest.fixture
def ref(personas, refserver):
    """The reference server registered (and synced) for Acme."""
    server = server_register(host=personas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    assert server.status == "active" and server.conversation_events, server.last_error_detail
    return server


def consent(personas, server, user=None):
    return allow_all(open_request(personas, server, ["conversation:read"], user=user))


def send(personas, conversation="c1", **body):
    payload = {"user": "alice", "message_id": "m1", "content": "What about the database?", **body}
    started = time.monotonic()
    answer = personas.acme_api.post(f"/conversations/{conversation}/messages", payload)
    return answer, time.monotonic() - started


def messages(refserver):
    return refserver.received()["userMessages"]


def test_without_consent_the_server_receives_nothing(personas, refserver, ref):
    answer, _ = send(personas)
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["items"] == [] and body["context"] == ""
    assert body["skipped"] == [{"server": ref.id, "reason": "no_consent", "detail": None}]
    assert messages(refserver) == []


def test_with_consent_it_receives_exactly_the_message_and_context_is_merged(
    personas, refserver, ref
):
    consent(personas, ref)
    history = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
    ]
    answer, _ = send(personas, message_id="m-42", recent_history=history)
    body = answer.json()
    assert answer.status_code == 200 and body["skipped"] == []
    [received] = messages(refserver)
    assert received["messageId"] == "m-42"
    assert received["content"] == "What about the database?"
    assert received["recentHistory"] == history

    [item] = body["items"]
    assert item["server"] == ref.id and item["truncated"] is False
    assert item["context"].startswith("[refserver] Context for message m-42")
    relevances = [m["relevance"] for m in item["structured_context"]["memories"]]
    assert relevances == sorted(relevances, reverse=True)
    assert item["chars"] == len(item["context"]) + sum(
        len(m["content"]) for m in item["structured_context"]["memories"]
    )
    # Each piece is wrapped with its source, marked untrusted.
    assert body["context"].count("<external-context ") == 1 + len(relevances)
    assert f'server_id="{ref.id}"' in body["context"] and 'trust="untrusted"' in body["context"]
    assert 'source="memory-bank:database"' in body["context"]
    assert item["trust"] == "untrusted"  # case 48: the same field as on events and hooks

    [row] = Injection.objects.filter(user=personas.alice)
    assert (row.outcome, row.message_id, row.chars) == ("ok", "m-42", item["chars"])
    assert "PostgreSQL 16" in row.text


def test_the_server_sees_the_users_own_credentials_when_the_host_gave_them(
    personas, refserver, ref
):
    personas.acme_api.put(
        f"/users/alice/servers/{ref.id}/credentials", {"headers": {"Authorization": "Bearer alice"}}
    )
    grant = consent(personas, ref).grants.get()
    assert grant.identity == "user"  # as the consent page said
    send(personas, message_id="as-alice")
    consent(personas, ref, user=personas.bob)
    send(personas, user="bob", message_id="as-host")
    principals = {m["messageId"]: m["principal"] for m in messages(refserver)}
    assert principals == {"as-alice": "Bearer alice", "as-host": "anonymous"}


def test_a_message_costs_the_key_two_plan_reads_and_its_record(personas, refserver, ref, settings):
    """The query budget (ARCHITECTURE.md, *The hot path*): auth 1, the plan 2 (the user's own
    credentials come with the servers), the consent checks, then the record
    of what the server answered. Transaction control aside."""
    settings.API_KEY_LAST_USED_RESOLUTION = 60
    personas.acme_api.put(
        f"/users/alice/servers/{ref.id}/credentials", {"headers": {"Authorization": "Bearer alice"}}
    )
    consent(personas, ref)
    send(personas, message_id="warm")
    with CaptureQueriesContext(connection) as captured:
        answer, _ = send(personas, message_id="counted")
    assert answer.status_code == 200 and answer.json()["items"], answer.json()
    statements = [
        q["sql"].lstrip()
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]
    reads = [sql for sql in statements if sql.startswith("SELECT")]
    writes = [sql for sql in statements if not sql.startswith("SELECT")]
    # The key, then the plan's two, then the consent re-check right before
    # the message leaves (docs/reliability.md rows 10, 10b): one statement
    # for every server whose session is ready, counted in the budget. Last,
    # one statement for all the answers: they are forwarded only if their
    # consent still holds (a revoke or a block while the servers answered
    # stops them; consent.enforce).
    assert len(reads) == 5, reads
    assert "consent_grant" in reads[-2], reads[-2]
    assert "consent_grant" in reads[-1], reads[-1]
    assert len(writes) == 1 and "consent_injection" in writes[0], writes
    assert messages(refserver)[-1]["principal"] == "Bearer alice"


def test_a_message_on_an_open_session_still_pays_its_consent_check(personas, refserver, ref):
    """The test client runs each request on an event loop of its own, so its
    session is always new; daphne's loop keeps sessions open. There too the
    re-check right before the send is paid (one statement for all the
    servers), besides the plan's two reads and the forward check: a revoke
    can commit between the plan and the send even with no session to open."""
    from asgiref.sync import async_to_sync, sync_to_async

    from consent.services.conversation import conversation_message

    consent(personas, ref)

    async def send_twice(marks: list[int]):
        for message_id in ("opens-the-session", "on-the-open-session"):
            # Read on this test's thread, whose connection the service uses.
            marks.append(await sync_to_async(lambda: len(connection.queries_log))())
            await conversation_message(
                host=personas.acme,
                conversation_id="open",
                user_external_id="alice",
                message_id=message_id,
                content="What about the database?",
            )

    marks: list[int] = []
    with CaptureQueriesContext(connection):
        async_to_sync(send_twice)(marks)
        statements = [
            q["sql"].lstrip()
            for q in list(connection.queries_log)[marks[1] :]
            if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
        ]
    reads = [sql for sql in statements if sql.startswith("SELECT")]
    assert len(reads) == 4, "\n".join(
        r[:150] for r in reads
    )  # the plan's two, the pre-send check, the forward check
    assert all("consent_grant" in sql for sql in reads[-2:]), reads
    assert [m["messageId"] for m in messages(refserver)] == [
        "opens-the-session",
        "on-the-open-session",
    ]


def test_a_revoke_counts_for_the_very_next_message(personas, refserver, ref):
    grant = consent(personas, ref).grants.get()
    send(personas, message_id="before")
    personas.acme_api.delete(f"/grants/{grant.id}")
    answer, _ = send(personas, message_id="after")
    assert answer.json()["skipped"][0]["reason"] == "no_consent"
    assert [m["messageId"] for m in messages(refserver)] == ["before"]


def test_only_the_consenting_user_is_forwarded(personas, refserver, ref):
    consent(personas, ref, user=personas.bob)
    send(personas, user="alice", message_id="alice-1")
    send(personas, user="bob", message_id="bob-1")
    assert [m["messageId"] for m in messages(refserver)] == ["bob-1"]


def test_a_slow_server_times_out_within_the_budget_and_is_switched_off(
    personas, refserver, ref, settings
):
    settings.CONVERSATION_TIMEOUTS_TO_DISABLE = 2
    consent(personas, ref)
    refserver.control("POST", "behaviour", {"method": "conversation/userMessage", "delay_ms": 2000})
    for n in range(2):
        answer, elapsed = send(personas, message_id=f"slow-{n}")
        assert answer.status_code == 200
        assert elapsed < 0.5 + 0.3, elapsed
        assert answer.json()["skipped"] == [{"server": ref.id, "reason": "timeout", "detail": None}]
    assert Injection.objects.filter(outcome="timeout").count() == 2
    state = ServerConversationState.objects.get(server=ref)
    assert state.disabled_at is not None and state.consecutive_timeouts == 2

    answer, elapsed = send(personas, message_id="while-off")
    assert answer.json()["skipped"] == [
        {"server": ref.id, "reason": "disabled", "detail": "timeouts"}
    ]
    notice = HostDelivery.objects.filter(type="server.updated").order_by("-seq").first()
    assert notice.body["data"] == {"server_id": ref.id, "status": "disabled", "reason": "timeouts"}
    assert AuditEntry.objects.filter(kind="server.conversation_disabled", server_id=ref.id).exists()

    refserver.control("POST", "behaviour", {"method": "conversation/userMessage", "clear": True})
    assert conversation_reenable(server=ref, actor=SYSTEM) is True
    answer, _ = send(personas, message_id="back")
    assert answer.json()["skipped"] == [] and len(answer.json()["items"]) == 1


def test_a_server_that_never_answers_does_not_hold_the_reply(personas, refserver, ref):
    consent(personas, ref)
    refserver.control("POST", "behaviour", {"method": "conversation/userMessage", "fail": "hang"})
    answer, elapsed = send(personas)
    assert answer.json()["skipped"][0]["reason"] == "timeout"
    assert elapsed < 0.8, elapsed


@pytest.fixture(scope="module")
def hanging_refserver():
    """A second reference server process, for a server that never answers
    beside one that does (the behaviour is per process)."""
    supervisor, server = start_refserver(name="refserver-hangs")
    try:
        yield server
    finally:
        supervisor.stop_all()


def test_a_server_that_never_answers_costs_the_budget_not_the_budget_and_the_record(
    personas, refserver, ref, hanging_refserver, settings
):
    """The budget is the host's wait for the reply: the fan-out stops waiting
    early enough for the consent check, the record and the reply to fit in
    it. Observable without timing the test: the reply says how much of the
    budget it used. (Kept large here so a loaded machine's record fits.)"""
    host_policy_update(host=personas.acme, actor=SYSTEM, conversation_budget_ms=2000)
    settings.CONVERSATION_REPLY_RESERVE = 1.0
    hanging_refserver.reset()
    hanging_refserver.control(
        "POST", "behaviour", {"method": "conversation/userMessage", "fail": "hang"}
    )
    hangs = server_register(
        host=personas.acme, name="Hangs", actor=SYSTEM, url=hanging_refserver.mcp_url
    )
    consent(personas, ref)
    consent(personas, hangs)
    answer, _ = send(personas, message_id="one-hangs")
    body = answer.json()
    assert answer.status_code == 200, body
    assert body["skipped"] == [{"server": hangs.id, "reason": "timeout", "detail": None}]
    assert [item["server"] for item in body["items"]] == [ref.id]
    assert body["budget_ms"] == 2000
    assert body["elapsed_ms"] <= body["budget_ms"], body
    outcomes = dict(Injection.objects.values_list("server_id", "outcome"))
    assert outcomes == {ref.id: "ok", hangs.id: "timeout"}


def test_garbage_is_an_error_and_never_passed_through(personas, refserver, ref):
    consent(personas, ref)
    refserver.control(
        "POST", "behaviour", {"method": "conversation/userMessage", "fail": "garbage"}
    )
    body = send(personas)[0].json()
    assert body["items"] == [] and body["context"] == ""
    assert body["skipped"] == [{"server": ref.id, "reason": "error", "detail": None}]
    row = Injection.objects.get()
    assert row.outcome == "error" and row.text == "" and row.error


def test_an_oversized_context_is_an_error(personas, refserver, ref, settings):
    settings.CONVERSATION_REPLY_MAX_CHARS = 100
    consent(personas, ref)
    body = send(personas)[0].json()
    assert body["skipped"] == [{"server": ref.id, "reason": "error", "detail": None}]
    assert Injection.objects.get().error == "oversized"


def test_caps_cut_per_server_and_per_message_in_priority_order(personas, refserver, ref):
    second = server_register(
        host=personas.acme, name="Ref two", actor=SYSTEM, url=refserver.mcp_url
    )
    server_update(server=second, actor=SYSTEM, priority=10)  # before "Ref" (100)
    consent(personas, ref)
    consent(personas, second)
    host_policy_update(
        host=personas.acme, actor=SYSTEM, max_chars_per_server=60, max_chars_per_message=60
    )
    body = send(personas)[0].json()
    [item] = body["items"]
    assert item["server"] == second.id and item["truncated"] is True and item["chars"] == 60
    assert body["skipped"] == [{"server": ref.id, "reason": "over_budget", "detail": None}]
    assert len(messages(refserver)) == 2  # both were asked; only the caps held one back
    assert Injection.objects.get(server=ref).outcome == "over_budget"


def test_the_thread_remembers_its_servers(personas, refserver, ref, settings):
    # Not a budget test (those are below): room for a slow connect on a busy machine.
    settings.CONVERSATION_BUDGET = 5
    HostPolicy.objects.filter(host=personas.acme).update(conversation_budget_ms=5000)
    other = server_register(host=personas.acme, name="Other", actor=SYSTEM, url=refserver.mcp_url)
    consent(personas, ref)
    consent(personas, other)
    first, _ = send(personas, conversation="t-1", servers=[ref.id])
    assert first.status_code == 200, first.json()
    # No list: the thread's servers. The second message reads the grant's last
    # use back from the message plan's raw SQL (a naive datetime on SQLite).
    second, _ = send(personas, conversation="t-1", message_id="m2")
    assert second.status_code == 200, second.json()
    assert [item["server"] for item in second.json()["items"]] == [ref.id]
    assert len(messages(refserver)) == 2
    assert (
        personas.bravo_api.post(
            "/conversations/t-1/messages", {"user": "charlie", "message_id": "x", "content": "hi"}
        ).status_code
        == 404
    )


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"user": "nobody"}, 404, "user"),
        ({"servers": ["srv_nope"]}, 404, "servers"),
        ({"content": "x" * 40_000}, 413, "content"),
        ({"recent_history": [{"role": "system", "content": "x"}]}, 422, "recent_history.0.role"),
        ({"recent_history": "nope"}, 422, "recent_history"),
        ({"message_id": ""}, 422, "message_id"),
    ],
)
def test_bad_messages_name_the_field(personas, body, status, field):
    answer, _ = send(personas, **body)
    assert answer.status_code == status, answer.json()
    assert answer.json()["error"]["field"] == field


def test_hosts_report_their_own_injections_only_with_consent(personas, ref):
    body = {
        "user": "alice",
        "message_id": "m9",
        "server": ref.id,
        "context": "from stdio",
        "latency_ms": 12,
    }
    refused = personas.acme_api.post("/conversations/c9/injections", body)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "no_consent"
    assert personas.bravo_api.post("/conversations/c9/injections", body).status_code == 404
    consent(personas, ref)
    created = personas.acme_api.post("/conversations/c9/injections", body)
    assert created.status_code == 201
    assert created.json()["source"] == "host" and created.json()["chars"] == len("from stdio")
    assert Injection.objects.get(pk=created.json()["id"]).text == "from stdio"
    assert AuditEntry.objects.filter(kind="conversation.injection_reported").count() == 1


def test_deleting_a_user_revokes_everything_and_erases_injected_text(personas, refserver, ref):
    consent(personas, ref)
    send(personas)
    assert personas.acme_api.delete("/users/alice").status_code == 204
    row = Injection.objects.get()
    assert row.text == "" and row.structured is None and row.purged_at is not None
    assert not Grant.objects.filter(user=personas.alice, status="active").exists()
    tombstone = AuditEntry.objects.get(kind="consent.user_erased")
    assert tombstone.detail == {"grants_revoked": 1, "requests_closed": 0, "injections_erased": 1}
    assert not AuditEntry.objects.filter(summary__contains="PostgreSQL").exists()
    assert send(personas)[0].status_code == 404  # the user is gone


def test_the_erase_service_alone_also_closes_open_requests(personas, ref):
    open_request(personas, ref, ["conversation:read"])
    counts = user_consent_erase(user=personas.alice, actor=SYSTEM)
    assert counts["requests_closed"] == 1 and counts["grants_revoked"] == 1


def test_injected_text_is_erased_after_the_retention(personas, refserver, ref, settings):
    consent(personas, ref)
    send(personas)
    assert injections_purge_due() == 0
    settings.INJECTION_TEXT_RETENTION = 0
    assert injections_purge_due() == 1
    row = Injection.objects.get()
    assert row.text == "" and row.outcome == "ok" and row.chars > 0


def test_a_server_without_conversation_events_is_skipped_as_not_supported(personas, ref):
    """Listed by the host, but it never asked to see messages: that is not a
    missing consent, and no consent could make it take part."""
    plain = server_register(
        host=personas.acme, name="Plain", actor=SYSTEM, capabilities={"tools": {}}
    )
    assert plain.conversation_events is False
    consent(personas, ref)
    answer, _ = send(personas, servers=[ref.id, plain.id])
    assert answer.status_code == 200, answer.json()
    assert answer.json()["skipped"] == [
        {"server": plain.id, "reason": "not_supported", "detail": None}
    ]
    assert [item["server"] for item in answer.json()["items"]] == [ref.id]
