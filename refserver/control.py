"""The control surface: plain JSON over HTTP under /control, no auth.

Client tests drive the server through these routes (emit events, misbehave,
reshape capabilities, forget or reset state) and read back what it received.
Errors are `{"error": "<text>"}` with 400 (bad body) or 404 (unknown id or
event type).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from refserver import fanout
from refserver.delivery import SIGNING_MODES
from refserver.hooks import default_declarations
from refserver.state import FEATURES, LOCATIONS, RECORD_KINDS, Behaviour, State
from refserver.streams import StreamItem

FAIL_MODES = ("error", "hang", "garbage", "input_required")
DEFAULT_TERMINATION = {"code": -32012, "message": "Forbidden", "data": {"reason": "access_revoked"}}


class BadRequest(Exception):
    pass


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise BadRequest(f"invalid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadRequest("body must be a JSON object")
    return body


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def guarded(handler: Any) -> Any:
    """A control route whose bad input answers 400 and unknown ids 404."""

    async def endpoint(request: Request) -> JSONResponse:
        try:
            return await handler(request)
        except BadRequest as exc:
            return _error(400, str(exc))
        except (KeyError, LookupError) as exc:
            return _error(404, f"not found: {exc}")
        except (TypeError, ValueError) as exc:
            return _error(400, str(exc))

    return endpoint


def build_routes(state: State) -> list[Route]:
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "name": state.config.name})

    async def emit(request: Request) -> JSONResponse:
        body = await _body(request)
        name = body.get("name")
        if not isinstance(name, str):
            raise BadRequest("name is required")
        signing = body.get("signing", "valid")
        if signing not in SIGNING_MODES:
            raise BadRequest(f"signing must be one of {SIGNING_MODES}")
        tags = body.get("arguments")
        if tags is not None and not isinstance(tags, dict):
            raise BadRequest("arguments must be an object")
        count = int(body.get("count", 1))
        results = [
            fanout.emit(
                state,
                name=name,
                data=body.get("data", {}),
                tags=tags,
                event_id=body.get("eventId") if count == 1 else None,
                timestamp=body.get("timestamp"),
                signing=signing,
            )
            for _ in range(count)
        ]
        return JSONResponse(results[0] if count == 1 else {"emitted": results})

    def _subscription(body: dict[str, Any]) -> Any:
        sub_id = body.get("id")
        sub = state.subscriptions.by_id.get(sub_id) if isinstance(sub_id, str) else None
        if sub is None:
            raise KeyError(f"subscription {sub_id!r}")
        return sub

    async def gap(request: Request) -> JSONResponse:
        body = await _body(request)
        if "stream" in body or ("name" in body and "id" not in body):
            sent = state.streams.broadcast(StreamItem("gap"), body.get("name"))
            return JSONResponse({"streams": sent})
        return JSONResponse({"envelope": fanout.send_gap(state, _subscription(body))})

    async def terminate(request: Request) -> JSONResponse:
        body = await _body(request)
        err = body.get("error") or DEFAULT_TERMINATION
        if "stream" in body or ("name" in body and "id" not in body):
            sent = state.streams.broadcast(
                StreamItem("terminated", {"error": err}), body.get("name")
            )
            return JSONResponse({"streams": sent})
        return JSONResponse({"envelope": fanout.terminate(state, _subscription(body), err)})

    async def stream_error(request: Request) -> JSONResponse:
        body = await _body(request)
        err = body.get("error") or {
            "code": -32603,
            "message": "UpstreamError",
            "data": {"reason": "upstream_timeout"},
        }
        return JSONResponse(
            {
                "streams": state.streams.broadcast(
                    StreamItem("error", {"error": err}), body.get("name")
                )
            }
        )

    async def stream_drop(request: Request) -> JSONResponse:
        """End open streams without `terminated` (a server restart, a proxy timeout)."""
        body = await _body(request)
        return JSONResponse(
            {"streams": state.streams.broadcast(StreamItem("drop"), body.get("name"))}
        )

    async def expire(request: Request) -> JSONResponse:
        body = await _body(request)
        sub = _subscription(body)
        sub.refresh_before = datetime.now(UTC) - timedelta(seconds=1)
        return JSONResponse(sub.describe())

    async def behaviour(request: Request) -> JSONResponse:
        if request.method == "POST":
            body = await _body(request)
            if body.get("clear_all"):
                state.behaviours.clear()
            else:
                method = body.get("method")
                if not isinstance(method, str):
                    raise BadRequest("method is required")
                if body.get("clear"):
                    state.behaviours.pop(method, None)
                else:
                    fail = body.get("fail")
                    if fail is not None and fail not in FAIL_MODES:
                        raise BadRequest(f"fail must be one of {FAIL_MODES} or null")
                    times = body.get("times")
                    err = body.get("error")
                    if err is not None and not (
                        isinstance(err, dict) and isinstance(err.get("code"), int)
                    ):
                        raise BadRequest("error must be an object with an integer code")
                    state.behaviours[method] = Behaviour(
                        delay_ms=int(body.get("delay_ms", 0)),
                        fail=fail,
                        times=int(times) if times is not None else None,
                        error=err,
                    )
        return JSONResponse({m: b.describe() for m, b in state.behaviours.items()})

    async def capabilities(request: Request) -> JSONResponse:
        if request.method == "POST":
            body = await _body(request)
            caps = state.capabilities
            if "locations" in body:
                caps.locations = _parse_locations(body["locations"], caps.locations)
            if "declarations" in body:
                declarations = body["declarations"]
                if declarations == "default" or declarations is None:
                    caps.declarations = default_declarations()
                elif isinstance(declarations, list):
                    caps.declarations = declarations
                else:
                    raise BadRequest("declarations must be a list, 'default' or null")
            if isinstance(body.get("events"), dict):
                caps.events = body["events"]
            if isinstance(body.get("conversationEvents"), dict):
                caps.conversation_events = body["conversationEvents"]
            if "filter_by_supported_events" in body:
                state.config.filter_hooks_by_supported_events = bool(
                    body["filter_by_supported_events"]
                )
        return JSONResponse(
            {
                **state.capabilities.describe(),
                "filter_by_supported_events": state.config.filter_hooks_by_supported_events,
            }
        )

    async def event_types(request: Request) -> JSONResponse:
        if request.method == "POST":
            body = await _body(request)
            before = set(state.catalog.names())
            if body.get("reset"):
                state.catalog.reset()
            elif isinstance(body.get("types"), list):
                state.catalog.types = body["types"]
            else:
                raise BadRequest("send {types: [...]} or {reset: true}")
            state.catalog_version += 1
            removed = before - set(state.catalog.names())
            terminated = []
            for sub in list(state.subscriptions.by_id.values()):
                if sub.name in removed:
                    fanout.terminate(
                        state,
                        sub,
                        {
                            "code": -32011,
                            "message": "Event type removed",
                            "data": {"kind": "event", "name": sub.name},
                        },
                    )
                    terminated.append(sub.id)
            notified = await fanout.notify_list_changed(state)
            return JSONResponse(
                {
                    "types": state.catalog.types,
                    "terminated": terminated,
                    "notified": notified,
                    "version": state.catalog_version,
                }
            )
        return JSONResponse({"types": state.catalog.types, "version": state.catalog_version})

    async def config(request: Request) -> JSONResponse:
        if request.method == "POST":
            body = await _body(request)
            unknown = state.config.update(body)
            state.log.retention = state.config.log_retention
            if unknown:
                return JSONResponse(
                    {"config": state.config.to_dict(), "unknown": unknown}, status_code=400
                )
        return JSONResponse(state.config.to_dict())

    async def forget(request: Request) -> JSONResponse:
        dropped = list(state.subscriptions.by_id)
        state.forget()
        return JSONResponse({"forgotten": dropped})

    async def reset(request: Request) -> JSONResponse:
        state.reset()
        return JSONResponse({"ok": True})

    async def received(request: Request) -> JSONResponse:
        kinds = [k for k in request.query_params.get("kinds", "").split(",") if k]
        unknown = [k for k in kinds if k not in RECORD_KINDS]
        if unknown:
            raise BadRequest(f"unknown kinds {unknown}; known: {list(RECORD_KINDS)}")
        view = state.received_view(kinds)
        if request.query_params.get("clear"):
            for k in kinds or RECORD_KINDS:
                state.received[k].clear()
        return JSONResponse(view)

    async def subscriptions(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "subscriptions": [s.describe() for s in state.subscriptions.by_id.values()],
                "verifiedEndpoints": [
                    {"principal": p, "url": u} for p, u in sorted(state.subscriptions.verified)
                ],
                "streams": [s.describe() for s in state.streams.open.values()],
            }
        )

    async def event_log(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                name: {"head": str(state.log.head(name)), "events": [o.wire() for o in occurrences]}
                for name, occurrences in state.log.all().items()
            }
        )

    async def logins(request: Request) -> JSONResponse:
        if request.method == "POST":
            body = await _body(request)
            if body.get("clear"):
                state.logged_in_threads.clear()
                state.logged_in_any = False
            elif isinstance(body.get("thread_id"), str):
                state.logged_in_threads.add(body["thread_id"])
                state.logged_in_any = True
        return JSONResponse(
            {"threads": sorted(state.logged_in_threads), "any": state.logged_in_any}
        )

    table: list[tuple[str, Any, list[str]]] = [
        ("/healthz", healthz, ["GET"]),
        ("/control/emit", emit, ["POST"]),
        ("/control/gap", gap, ["POST"]),
        ("/control/terminate", terminate, ["POST"]),
        ("/control/stream-error", stream_error, ["POST"]),
        ("/control/stream-drop", stream_drop, ["POST"]),
        ("/control/expire", expire, ["POST"]),
        ("/control/behaviour", behaviour, ["GET", "POST"]),
        ("/control/capabilities", capabilities, ["GET", "POST"]),
        ("/control/event-types", event_types, ["GET", "POST"]),
        ("/control/config", config, ["GET", "POST"]),
        ("/control/forget", forget, ["POST"]),
        ("/control/reset", reset, ["POST"]),
        ("/control/received", received, ["GET"]),
        ("/control/subscriptions", subscriptions, ["GET"]),
        ("/control/events", event_log, ["GET"]),
        ("/control/logins", logins, ["GET", "POST"]),
    ]
    return [Route(path, guarded(handler), methods=methods) for path, handler, methods in table]


def _parse_locations(value: Any, current: dict[str, list[str]]) -> dict[str, list[str]]:
    """Accept a list (all features) or {feature: list}; validate names."""

    def check(locations: Any) -> list[str]:
        if not isinstance(locations, list) or any(loc not in LOCATIONS for loc in locations):
            raise BadRequest(f"locations must be a list drawn from {LOCATIONS}")
        return list(locations)

    if isinstance(value, list):
        return {feature: check(value) for feature in FEATURES}
    if isinstance(value, dict):
        updated = {k: list(v) for k, v in current.items()}
        for feature, locations in value.items():
            if feature not in FEATURES:
                raise BadRequest(f"unknown feature {feature!r}; known: {FEATURES}")
            updated[feature] = check(locations)
        return updated
    raise BadRequest("locations must be a list or an object")
