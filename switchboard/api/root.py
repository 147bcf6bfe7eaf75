"""The one NinjaAPI, mounted at /api/v1/, and the contract's error format."""

from __future__ import annotations

import json
import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser

from switchboard.api.auth import ApiKeyAuth
from switchboard.errors import DomainError

log = logging.getLogger(__name__)


class MalformedInput(ValueError):
    """Input refused before validation; its message is the answer's."""


def _nul_in(value: Any, path: str) -> str | None:
    """Where a NUL character hides in a JSON value, or None. PostgreSQL
    stores no NUL in text or jsonb, so one would fail the write (a 500)
    instead of the request."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if "\x00" in key:
                return where
            if found := _nul_in(item, where):
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            if found := _nul_in(item, f"{path}[{index}]"):
                return found
    return None


class ObjectBodyParser(Parser):
    """Every body this API takes is a JSON object. ninja's schemas also
    validate from attributes, so without this a list (``[null, null]``) passed
    as an object with every field at its default. No string in a body or a
    query may hold a NUL character (``_nul_in``)."""

    def parse_body(self, request):
        try:
            data = json.loads(request.body)
        except ValueError as exc:
            raise MalformedInput(f"the request body is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise MalformedInput("the request body must be a JSON object")
        if where := _nul_in(data, ""):
            raise MalformedInput(f"{where}: text must not contain NUL (\\u0000) characters")
        return data

    def parse_querydict(self, data, list_fields, request):
        for key, values in data.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                # ninja does not wrap errors here: HttpError is answered as it stands.
                raise HttpError(400, f"{key}: text must not contain NUL (\\u0000) characters")
        return super().parse_querydict(data, list_fields, request)


class HostApi(NinjaAPI):
    """Operation ids are the view's own name (``put_user``, ``list_servers``),
    not ninja's module-qualified default: the generated clients in
    ``clients/`` name their functions after them. A test holds them unique."""

    def get_openapi_operation_id(self, operation) -> str:
        return operation.view_func.__name__


api = HostApi(
    title="Switchboard host API",
    version="1",
    description="Consent, conversation context, lifecycle hooks and MCP event subscriptions for MCP hosts.",
    urls_namespace="api",
    auth=ApiKeyAuth(),
    parser=ObjectBodyParser(),
)


def _error(request, status: int, code: str, message: str, field: str | None = None, headers=None):
    body = {"code": code, "message": message}
    if field:
        body["field"] = field
    response = api.create_response(request, {"error": body}, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid",
    429: "rate_limited",
    503: "unavailable",
}


@api.exception_handler(DomainError)
def _domain_error(request, exc: DomainError):
    return _error(request, exc.status, exc.code, exc.message, exc.field, exc.headers)


def _field_of(loc: list) -> str:
    parts = [
        str(part) for part in loc if part not in ("body", "query", "path", "header", "payload")
    ]
    return ".".join(parts)


@api.exception_handler(ValidationError)
def _validation_error(request, exc: ValidationError):
    first = exc.errors[0] if exc.errors else {}
    field = _field_of(list(first.get("loc", [])))
    message = first.get("msg", "invalid value")
    # A body that is not a JSON object at all is malformed (400), not invalid (422).
    if first.get("type") in ("model_attributes_type", "dict_type") and not field:
        return _error(request, 400, "malformed", "the request body must be a JSON object")
    if first.get("type") == "missing":
        message = "this field is required"
    return _error(request, 422, "invalid", f"{field or 'request'}: {message}", field or None)


@api.exception_handler(AuthenticationError)
def _auth_error(request, exc):
    return _error(
        request, 401, "unauthorized", "a valid API key is required (Authorization: Bearer swb_…)"
    )


@api.exception_handler(HttpError)
def _http_error(request, exc: HttpError):
    code = _STATUS_CODES.get(exc.status_code, "error")
    message = str(exc)
    if exc.status_code == 400:
        code = "malformed"
        # ninja answers "Cannot parse request body" for anything the parser
        # raises; our parser's own reason says what is wrong and where.
        if isinstance(exc.__cause__, MalformedInput):
            message = str(exc.__cause__)
    return _error(request, exc.status_code, code, message)


@api.exception_handler(Http404)
def _not_found(request, exc):
    return _error(request, 404, "not_found", "no such object for this host")


@api.exception_handler(RequestDataTooBig)
def _too_big(request, exc):
    return _error(request, 413, "too_large", "the request body is larger than this API accepts")


@api.exception_handler(Exception)
def _unexpected(request, exc):
    log.exception("unhandled API error")
    return _error(
        request, 500, "internal_error", "something went wrong on our side; it has been logged"
    )
