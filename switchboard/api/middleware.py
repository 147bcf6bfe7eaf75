"""Every error under ``/api/v1/`` is JSON in the contract's shape.

django-ninja formats what its routes raise; some answers never reach a route:
a path that matches none (Django's 404), a method a route does not take
(405), a CSRF or permission refusal, a crash before the view. Hosts parse
``{"error": {...}}`` for every status, so those are rewritten here, in one
place, and pages keep their HTML error pages.

Being outermost, it also notes when the request reached Django
(``request.received_at``, monotonic): a budget the host sets for its answer
(the conversation fan-out's) counts from there, the API key's lookup and
the thread hops before the view included, not from the view's first line.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils.decorators import sync_and_async_middleware

API_PREFIX = "/api/v1/"

_CODES = {
    400: ("bad_request", "the request is malformed"),
    401: ("unauthorized", "a valid API key is required (Authorization: Bearer swb_…)"),
    403: ("forbidden", "this key may not do that"),
    404: ("not_found", "no such API path; see /api/v1/docs"),
    405: ("method_not_allowed", "this path does not take that method"),
    413: ("too_large", "the request body is larger than this API accepts"),
    500: ("internal_error", "something went wrong on our side; it has been logged"),
}


def _as_json(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if (
        not request.path.startswith(API_PREFIX)
        or response.status_code < 400
        or response.get("Content-Type", "").startswith("application/json")
    ):
        return response
    code, message = _CODES.get(response.status_code, ("error", "the request failed"))
    if response.status_code == 405 and response.get("Allow"):
        message = f"{message}; it takes {response['Allow']}"
    rewritten = JsonResponse(
        {"error": {"code": code, "message": message}},
        status=response.status_code,
        json_dumps_params={"ensure_ascii": False},
    )
    for header in ("Allow", "Retry-After", "WWW-Authenticate"):
        if response.get(header):
            rewritten[header] = response[header]
    return rewritten


@sync_and_async_middleware
def api_errors_as_json(
    get_response: Callable[[HttpRequest], HttpResponse]
    | Callable[[HttpRequest], Awaitable[HttpResponse]],
):
    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponse:
            request.received_at = time.monotonic()  # type: ignore[attr-defined]
            return _as_json(request, await get_response(request))  # type: ignore[misc]

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponse:
        return _as_json(request, get_response(request))  # type: ignore[arg-type]

    return middleware


@sync_and_async_middleware
def nul_in_url_refused(
    get_response: Callable[[HttpRequest], HttpResponse]
    | Callable[[HttpRequest], Awaitable[HttpResponse]],
):
    """A NUL character in the URL's path is a 400, for pages and API alike.
    PostgreSQL stores no NUL, so an id holding one would fail the lookup (a
    500) instead of the request. (Queries and bodies are checked by the API's
    parser, which can say which field; forms refuse NUL themselves.)"""

    def refused(request: HttpRequest) -> HttpResponse | None:
        if "\x00" in request.path:
            return HttpResponseBadRequest("A URL may not contain NUL characters.")
        return None

    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponse:
            return refused(request) or await get_response(request)  # type: ignore[misc]

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponse:
        return refused(request) or get_response(request)  # type: ignore[return-value]

    return middleware
