"""Control routes for the MCPE server (`/control/mcpe/*`), plain JSON.

Same conventions as `refserver.control`: no auth, errors `{"error": text}`
with 400 (bad body) or 404 (unknown subscription).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from refserver.control import BadRequest, _body, guarded
from refserver.mcpe_hub import McpeHub, McpeSubscription
from refserver.mcpe_rules import TOOL_SCHEMAS, make_event


def build_mcpe_routes(hub: McpeHub) -> list[Route]:
    def subscription(body: dict[str, Any]) -> McpeSubscription:
        sub_id = body.get("subscriptionId")
        if not isinstance(sub_id, str):
            raise BadRequest("subscriptionId is required")
        sub = hub.subscriptions.get(sub_id)
        if sub is None:
            raise KeyError(f"subscription {sub_id!r}")
        return sub

    async def emit(request: Request) -> JSONResponse:
        body = await _body(request)
        event_type = body.get("type")
        if not isinstance(event_type, str) or not event_type:
            raise BadRequest("type is required")
        metadata = body.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise BadRequest("metadata must be an object")
        tags = (metadata or {}).get("tags")
        if tags is not None and not isinstance(tags, list):
            raise BadRequest("metadata.tags must be an array")
        count = body.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise BadRequest("count must be a positive integer")
        events = []
        outcome: dict[str, list[dict[str, str]]] = {"delivered": [], "queued": [], "dropped": []}
        for _ in range(count):
            event = make_event(event_type, body.get("data", {}), metadata)
            events.append(event)
            for key, refs in (await hub.publish(event)).items():
                outcome[key].extend(refs)
        return JSONResponse({"event": events[0] if count == 1 else events, **outcome})

    async def subscriptions(request: Request) -> JSONResponse:
        return JSONResponse({"subscriptions": [s.describe() for s in hub.subscriptions.values()]})

    async def sessions(request: Request) -> JSONResponse:
        return JSONResponse({"sessions": hub.describe_sessions()})

    async def calls(request: Request) -> JSONResponse:
        return JSONResponse({"calls": list(hub.calls)})

    async def dropped(request: Request) -> JSONResponse:
        return JSONResponse({"dropped": list(hub.dropped)})

    async def flush(request: Request) -> JSONResponse:
        return JSONResponse(await hub.flush(subscription(await _body(request))))

    async def expire(request: Request) -> JSONResponse:
        sub = subscription(await _body(request))
        sent = await hub.expire_now(sub)
        return JSONResponse({**sub.describe(), "notified": sent})

    async def forget(request: Request) -> JSONResponse:
        return JSONResponse({"forgotten": hub.forget()})

    async def delay(request: Request) -> JSONResponse:
        body = await _body(request)
        tool = body.get("tool")
        if tool not in TOOL_SCHEMAS:
            raise BadRequest(f"tool must be one of {sorted(TOOL_SCHEMAS)}")
        delay_ms = body.get("delay_ms")
        if not isinstance(delay_ms, int) or isinstance(delay_ms, bool) or delay_ms < 0:
            raise BadRequest("delay_ms must be a non-negative integer")
        hub.delay_set(tool, delay_ms)
        return JSONResponse({"tool": tool, "delay_ms": delay_ms})

    async def drop_sessions(request: Request) -> JSONResponse:
        return JSONResponse({"sessions": await hub.drop_sessions()})

    table: list[tuple[str, Any, list[str]]] = [
        ("/control/mcpe/emit", emit, ["POST"]),
        ("/control/mcpe/subscriptions", subscriptions, ["GET"]),
        ("/control/mcpe/sessions", sessions, ["GET"]),
        ("/control/mcpe/calls", calls, ["GET"]),
        ("/control/mcpe/dropped", dropped, ["GET"]),
        ("/control/mcpe/flush", flush, ["POST"]),
        ("/control/mcpe/expire", expire, ["POST"]),
        ("/control/mcpe/forget", forget, ["POST"]),
        ("/control/mcpe/drop-sessions", drop_sessions, ["POST"]),
        ("/control/mcpe/delay", delay, ["POST"]),
    ]
    return [Route(path, guarded(handler), methods=methods) for path, handler, methods in table]
