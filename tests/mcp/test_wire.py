"""Wire shapes: explicit nulls, aliases, fallbacks."""

from __future__ import annotations

from switchboard.mcp import wire


def dump(request) -> dict:
    # Exactly how the SDK serializes a request before sending it.
    return request.model_dump(by_alias=True, mode="json", exclude_none=True)


def test_poll_sends_null_cursor_and_omits_unset_options() -> None:
    params = wire.EventsPollParams(name="a", cursor=None)
    assert dump(wire.EventsPollRequest(params=params))["params"] == {
        "name": "a",
        "arguments": {},
        "cursor": None,
    }
    params = wire.EventsPollParams(name="a", cursor="c1", max_events=3, timeout_ms=100)
    assert dump(wire.EventsPollRequest(params=params))["params"] == {
        "name": "a",
        "arguments": {},
        "cursor": "c1",
        "maxEvents": 3,
        "timeoutMs": 100,
    }


def test_subscribe_ttl_null_is_sent_and_unset_is_omitted() -> None:
    delivery = wire.WebhookDelivery(url="https://x/hook", secret="whsec_abc")
    base = {"name": "n", "arguments": {"a": 1}, "delivery": delivery, "cursor": None}
    with_null = dump(
        wire.EventsSubscribeRequest(params=wire.EventsSubscribeParams(**base, ttl_ms=None))
    )
    without = dump(wire.EventsSubscribeRequest(params=wire.EventsSubscribeParams(**base)))
    assert with_null["params"]["ttlMs"] is None and "ttlMs" not in without["params"]
    assert with_null["params"]["delivery"] == {
        "mode": "webhook",
        "url": "https://x/hook",
        "secret": "whsec_abc",
    }
    assert "whsec_abc" not in repr(delivery)


def test_user_message_params_are_camel_case() -> None:
    params = wire.UserMessageParams(
        message_id="m1", content="hi", recent_history=[wire.HistoryItem(role="user", content="x")]
    )
    assert dump(wire.UserMessageRequest(params=params))["params"] == {
        "messageId": "m1",
        "content": "hi",
        "recentHistory": [{"role": "user", "content": "x"}],
    }


def test_descriptor_delivery_falls_back_to_delivery_modes() -> None:
    page = wire.EventsListResult.model_validate(
        {
            "events": [
                {"name": "a", "deliveryModes": ["poll"], "inputSchema": {"type": "object"}},
                {"name": "b", "delivery": ["push"], "x-extra": 1},
            ],
            "nextCursor": "p2",
        },
        by_name=False,
    )
    assert [e.delivery for e in page.events] == [["poll"], ["push"]]
    assert page.events[0].input_schema == {"type": "object"}
    assert page.events[1].model_extra == {"x-extra": 1}
    assert page.next_cursor == "p2"


def test_poll_result_defaults_and_legacy_interval() -> None:
    result = wire.EventsPollResult.model_validate({"events": [], "cursor": None}, by_name=False)
    assert (result.truncated, result.has_more) == (False, False)
    assert result.next_poll_delay_ms(5000) == 5000
    legacy = wire.EventsPollResult.model_validate(
        {"events": [], "cursor": "c", "nextPollSeconds": 30}, by_name=False
    )
    assert legacy.next_poll_delay_ms(5000) == 30_000
    more = wire.EventsPollResult.model_validate(
        {"events": [], "cursor": "c", "hasMore": True, "nextPollMs": 10}, by_name=False
    )
    assert more.next_poll_delay_ms(5000) == 0


def test_subscribe_result_distinguishes_absent_and_null_cursor() -> None:
    absent = wire.EventsSubscribeResult.model_validate(
        {"id": "s", "refreshBefore": None}, by_name=False
    )
    null = wire.EventsSubscribeResult.model_validate(
        {"id": "s", "refreshBefore": None, "cursor": None}, by_name=False
    )
    assert (absent.cursor_present, null.cursor_present) == (False, True)
