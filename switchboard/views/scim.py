"""``/scim/v2/``: the host's IdP provisions its staff (docs/host-integration.md §11,
SCIM). Authenticated by the host's SCIM token; everything else 401 in
SCIM's error format."""

from __future__ import annotations

import json
import logging

from django.http import HttpResponse
from django.utils.crypto import constant_time_compare
from django.views.decorators.csrf import csrf_exempt
from scim2_models import SCIMException, UnauthorizedException
from scim2_server.requests import ScimRequest
from scim2_server.responses import ScimResponse
from scim2_server.service import ScimService

from switchboard.models import SsoConnection
from switchboard.sso.connections import scim_token_hash
from switchboard.sso.scim import scim_handler, scim_provider

log = logging.getLogger(__name__)
MAX_BODY = 1024 * 1024


def _connection(request) -> SsoConnection | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    hashed = scim_token_hash(token.strip())
    connection = SsoConnection.objects.filter(scim_token_hash=hashed).first()
    if connection is None or not constant_time_compare(connection.scim_token_hash, hashed):
        return None
    return connection


def _answer(response: ScimResponse) -> HttpResponse:
    body = b"" if response.body is None else json.dumps(response.body).encode()
    answer = HttpResponse(body, status=response.status.value)
    for name, value in response.headers.items():
        answer[name] = value
    return answer


@csrf_exempt
def scim(request, path: str = ""):
    connection = _connection(request)
    if connection is None:
        refused = _answer(ScimService(scim_provider()).error_response(UnauthorizedException()))
        refused["WWW-Authenticate"] = 'Bearer realm="scim"'
        return refused
    scim_request = ScimRequest(
        method=request.method,
        base_url=request.build_absolute_uri("/scim/v2"),
        path="/" + path.removesuffix(".scim"),
        query=request.GET.dict(),
        headers=dict(request.headers),
        body=request.body[: MAX_BODY + 1],
        subject=connection,
    )
    handler = scim_handler(connection)
    response: ScimResponse
    try:
        response = handler.handle(scim_request)
    except SCIMException as exc:
        response = handler.service.error_response(exc)
    except Exception as exc:  # a bug: logged with its traceback, answered in SCIM's format
        log.exception("SCIM request failed")
        response = handler.service.error_response(exc)
    response.headers.setdefault("Cache-Control", "no-cache")
    return _answer(response)
