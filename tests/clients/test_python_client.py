"""The Python client (clients/python) against a live console: daphne, a Celery
worker and beat, and the reference MCP server. Everything a host does goes
through the generated calls and the hand-written layer; only what a *user* does
(approving the consent request) goes through our services, as the consent page
would."""

from __future__ import annotations

import json
import time

import pytest
import switchboard_client as swb
from switchboard_client.generated.api.audit import list_audit
from switchboard_client.generated.api.consent import (
    create_request,
    get_request,
    list_grants,
    post_message,
)
from switchboard_client.generated.api.host_endpoint import (
    list_deliveries,
    put_endpoint,
)
from switchboard_client.generated.api.host_endpoint import (
    test_endpoint as send_test_ping,
)
from switchboard_client.generated.api.lifecycle import lifecycle
from switchboard_client.generated.api.servers import list_servers, register_server
from switchboard_client.generated.api.subscriptions import (
    create_subscription,
    list_subscriptions,
    list_tasks,
)
from switchboard_client.generated.api.users import get_user, put_user
from switchboard_client.generated.models import (
    ConsentRequestIn,
    EndpointIn,
    LifecycleIn,
    MessageIn,
    ServerIn,
    ServerInCapabilitiesType0,
    SubscriptionIn,
    SubscriptionInArgumentsType0,
    UserIn,
)

from consent.models import ConsentRequest
from outbox.signing import sign_outbound, webhook_secret_new
from tests.clients.support import FaultInjector, RawEndpoint, wait_for
from tests.consent.support import allow_all

ACTOR = "dana@example.com via Support Console"


class Counted:
    """A list operation that counts the pages it was asked for."""

    def __init__(self, operation):
        self.operation = operation
        self.pages = 0

    def sync(self, *args, **kwargs):
        self.pages += 1
        return self.operation.sync(*args, **kwargs)


def _every_page(operation, *args, client, limit, **kwargs):
    counted = Counted(operation)
    items = list(swb.paginate(counted, *args, client=client, limit=limit, **kwargs))
    return items, counted.pages


def _ids(items) -> list[str]:
    return [item.id for item in items]


def test_a_host_does_everything_through_the_python_client(live, tpersonas, refserver):
    client = swb.connect(live.base_url, tpersonas.acme_key)

    # A user, made for a person (Switchboard-Actor), and read back.
    as_dana = swb.acting_for(client, ACTOR)
    user = put_user.sync("erin", client=as_dana, body=UserIn(display_name="Erin"))
    assert (user.external_id, user.display_name) == ("erin", "Erin")
    assert get_user.sync("erin", client=client).id == user.id
    entries = list(swb.paginate(list_audit, client=client, user="erin", limit=200))
    assert [e.actor.on_behalf_of for e in entries if e.kind == "user.created"] == [ACTOR]

    # Typed errors: the code, the status and the field to blame.
    with pytest.raises(swb.NotFound) as missing:
        get_user.sync("nobody-here", client=client)
    assert (missing.value.status, missing.value.code) == (404, "user_not_found")
    with pytest.raises(swb.Invalid) as invalid:
        put_user.sync("erin", client=client, body=UserIn(display_name="x" * 201))
    assert (invalid.value.code, invalid.value.field) == ("invalid", "display_name")
    with pytest.raises(swb.BadRequest) as bad_cursor:
        list_servers.sync(client=client, cursor="not-a-cursor")
    assert bad_cursor.value.code == "invalid_cursor"

    # The reference server, and two host-managed servers so the lists have pages.
    server = register_server.sync(client=client, body=ServerIn(name="Ref", url=refserver.mcp_url))
    assert server.status == "active", server
    for name in ("Notes", "Tickets"):
        declared = ServerInCapabilitiesType0.from_dict(
            {"conversationEvents": {"onUserMessage": True}}
        )
        register_server.sync(client=client, body=ServerIn(name=name, capabilities=declared))

    # A consent request, decided by the user, read back settled.
    created = create_request.sync(
        client=client,
        body=ConsentRequestIn(
            user="alice",
            server=server.id,
            scopes=["conversation:read", "events", "hooks"],
            event_types=["build.finished"],
        ),
    )
    assert created.status == "pending" and created.consent_url.startswith(live.base_url)
    allow_all(ConsentRequest.objects.get(pk=created.id))
    assert get_request.sync(created.id, client=client).status == "approved"

    # A message with context from the reference server.
    answer = post_message.sync(
        "thread-py",
        client=client,
        body=MessageIn(user="alice", message_id="m-py-1", content="What about the database?"),
    )
    [item] = answer.items
    assert item.server == server.id and item.context.startswith("[refserver] Context for message")
    assert [m["messageId"] for m in refserver.received()["userMessages"]] == ["m-py-1"]

    # A lifecycle event.
    event = lifecycle.sync(
        "session-py", client=client, body=LifecycleIn(user="alice", event="session_start")
    )
    assert event.event_id

    # A subscription.
    subscription = create_subscription.sync(
        client=client,
        body=SubscriptionIn(
            user="alice",
            server=server.id,
            event="build.finished",
            arguments=SubscriptionInArgumentsType0.from_dict({"repo": "acme/app"}),
            ttl_ms=60000,
        ),
    )
    assert subscription.id.startswith("sub_") and subscription.event == "build.finished"

    # A delivery verified, a forged one refused, the previous secret honoured.
    endpoint = RawEndpoint()
    try:
        first = put_endpoint.sync(client=client, body=EndpointIn(url=endpoint.url)).secret
        rotated = put_endpoint.sync(client=client, body=EndpointIn(url=endpoint.url)).secret
        send_test_ping.sync(client=client)
        ping = wait_for(
            lambda: next(
                (d for d in endpoint.deliveries if json.loads(d.body)["type"] == "ping"), None
            ),
            message="the test ping",
        )
    finally:
        endpoint.close()
    assert swb.verify_delivery(ping.headers, ping.body, rotated)["type"] == "ping"
    assert swb.verify_delivery(ping.headers, ping.body, first)["type"] == "ping"
    forged_body = ping.body.replace(b'"ping"', b'"consent.updated"')
    with pytest.raises(swb.WebhookVerificationError):
        swb.verify_delivery(ping.headers, forged_body, rotated, previous_secret=first)
    with pytest.raises(swb.WebhookVerificationError):
        swb.verify_delivery(ping.headers, ping.body, webhook_secret_new())
    # Signed with the previous secret alone (as before the rotation reached it).
    body = '{"type":"ping","timestamp":"2026-11-24T15:07:01.123Z","data":{}}'
    old_only = sign_outbound(webhook_id="msg_previous", body=body, secrets_=[first])
    with pytest.raises(swb.WebhookVerificationError):
        swb.verify_delivery(old_only, body, rotated)
    assert swb.verify_delivery(old_only, body, rotated, previous_secret=first) == {
        "type": "ping",
        "timestamp": "2026-11-24T15:07:01.123Z",
        "data": {},
    }

    # Every list, paged one or a few items at a time to its end, is the whole list.
    lists = {
        "servers": (list_servers, (), {}),
        "grants": (list_grants, ("alice",), {}),
        "subscriptions": (list_subscriptions, (), {"user": "alice"}),
        "tasks": (list_tasks, (), {}),
        "deliveries": (list_deliveries, (), {}),
    }
    for name, (operation, args, filters) in lists.items():
        whole = operation.sync(*args, client=client, limit=200, **filters)
        assert whole.next_cursor is None, name
        paged, pages = _every_page(operation, *args, client=client, limit=1, **filters)
        if name == "deliveries":
            # The worker may still add host deliveries (newest first) while we
            # page: what was there is paged in order, once; nothing twice.
            known = set(_ids(whole.items))
            assert [i for i in _ids(paged) if i in known] == _ids(whole.items), name
            assert len(set(_ids(paged))) == len(paged), name
        else:
            assert _ids(paged) == _ids(whole.items), name
        assert pages >= len(whole.items), name
    assert len(list_servers.sync(client=client, limit=200).items) == 3
    assert len(list_grants.sync("alice", client=client, limit=200).items) == 3
    # The ledger grows while the worker writes; what was there stays in the paged list.
    before = set(_ids(list_audit.sync(client=client, limit=200).items))
    audit, pages = _every_page(list_audit, client=client, limit=7)
    assert len(audit) == len(set(_ids(audit))) and before <= set(_ids(audit))
    assert pages >= len(before) // 7


def test_429_and_503_are_retried_after_what_retry_after_asks(live, tpersonas):
    injector = FaultInjector(live.base_url)
    try:
        client = swb.connect(injector.url, tpersonas.acme_key)
        put_user.sync("frank", client=client, body=UserIn(display_name="Frank"))
        injector.hits.clear()
        injector.script = [(429, "1"), (503, "0")]
        started = time.monotonic()
        assert get_user.sync("frank", client=client).display_name == "Frank"
        assert [h.status for h in injector.hits] == [429, 503, 200]
        assert injector.hits[1].at - injector.hits[0].at >= 0.95  # Retry-After: 1
        assert time.monotonic() - started < 10

        # Out of retries, the last answer is the error, with its Retry-After.
        injector.script = [(429, "2"), (429, "2")]
        with pytest.raises(swb.RateLimited) as limited:
            get_user.sync("frank", client=swb.connect(injector.url, tpersonas.acme_key, retries=1))
        assert (limited.value.code, limited.value.retry_after) == ("rate_limited", 2.0)
    finally:
        injector.close()
