"""The kill switch against the real stack (daphne, the Celery worker, Redis)
and the reference MCP server as a real process: after the block its
subscriptions are unsubscribed on the server and its conversation endpoint
receives nothing more."""

from __future__ import annotations

import pytest

from consent.models import ConsentRequest
from subscriptions.models import Subscription
from switchboard.services.servers import server_register
from tests.consent.support import allow_all
from tests.factories import SYSTEM
from tests.hostapi import Host
from tests.subscriptions.support import wait_for

pytestmark = pytest.mark.processes


def test_a_blocked_server_is_unsubscribed_and_hears_no_more_messages(live, tpersonas, refserver):
    ref = server_register(host=tpersonas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    host = Host(live, tpersonas.acme_key)
    asked = host(
        "POST",
        "/consent/requests",
        {
            "user": "alice",
            "server": ref.id,
            "scopes": ["conversation:read", "events"],
            "event_types": ["build.finished"],
        },
    )
    allow_all(ConsentRequest.objects.get(pk=asked["id"]))
    sub = host(
        "POST",
        "/subscriptions",
        {
            "user": "alice",
            "server": ref.id,
            "event": "build.finished",
            "arguments": {"repo": "a/b"},
        },
    )
    wait_for(
        lambda: Subscription.objects.get(pk=sub["id"]).status == "active", message="subscribed"
    )
    host.send("before")
    assert [m["messageId"] for m in refserver.received()["userMessages"]] == ["before"]

    stopped = host("POST", f"/servers/{ref.id}/block")
    assert stopped == {"blocked": True, "grants_suspended": 2, "subscriptions_revoked": 1}

    unsubscribed = lambda: refserver.control("GET", "received?kinds=unsubscribe")["unsubscribe"]  # noqa: E731
    wait_for(unsubscribed, message="the server was asked to unsubscribe")
    assert unsubscribed()[0]["name"] == "build.finished"
    answer = host.send("after")
    assert answer["skipped"] == [{"server": ref.id, "reason": "disabled", "detail": "blocked"}]
    assert [m["messageId"] for m in refserver.received()["userMessages"]] == ["before"]
