"""Requests are routed by path (config/handlers.py): the host API past the
pages' middleware, static files before it. Pages must keep every protection
and the API must take the lean chain, through the real ASGI application
(config.asgi, what daphne and uvicorn serve) and the real WSGI one
(config.wsgi, what gunicorn serves); Django's test client builds its own
handler, with the whole MIDDLEWARE list, so it cannot show either."""

from __future__ import annotations

import inspect
import re
from urllib.parse import urlsplit

import httpx
import pytest
from asgiref.sync import async_to_sync
from django.urls import URLPattern, URLResolver, get_resolver
from ninja.openapi.views import default_home
from ninja.operation import Operation, PathView

from config.api import api
from config.asgi import application as asgi_application
from config.handlers import Routes
from config.wsgi import application as wsgi_application
from switchboard.actors import Actor
from switchboard.api.auth import ApiKeyAuth
from switchboard.api.middleware import API_PREFIX
from switchboard.services.users import login_link_create

BASE = "http://127.0.0.1"


class Browser:
    """One browser (one cookie jar) against an ASGI or WSGI application."""

    def __init__(self, kind: str):
        self.kind = kind
        self._wsgi = httpx.Client(
            transport=httpx.WSGITransport(app=wsgi_application), base_url=BASE
        )
        self.cookies = self._wsgi.cookies  # one jar: the ASGI calls copy it in and out

    def request(self, method: str, path: str, **kwargs) -> httpx.Response:
        if self.kind == "wsgi":
            return self._wsgi.request(method, path, **kwargs)
        return async_to_sync(self._asgi)(method, path, **kwargs)

    async def _asgi(self, method: str, path: str, **kwargs) -> httpx.Response:
        transport = httpx.ASGITransport(app=asgi_application)
        async with httpx.AsyncClient(
            transport=transport, base_url=BASE, cookies=self.cookies
        ) as client:
            answer = await client.request(method, path, **kwargs)
            self.cookies.clear()  # as the answer left it: set and deleted cookies alike
            self.cookies.update(client.cookies)
            return answer


def _page_protections(answer: httpx.Response) -> None:
    assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "same-origin"


@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_pages_keep_every_protection_and_the_api_takes_the_lean_chain(tpersonas, kind):
    browser = Browser(kind)
    url, _ = login_link_create(user=tpersonas.admin, actor=Actor.system(), next_path="/staff/")
    signed_in = browser.request("GET", urlsplit(url).path)
    assert signed_in.status_code == 302
    assert "sessionid=" in signed_in.headers["Set-Cookie"]
    _page_protections(signed_in)
    settings_page = browser.request("GET", "/staff/sign-in/")
    assert settings_page.status_code == 200 and "csrftoken" in browser.cookies
    _page_protections(settings_page)

    # A page's POST without the CSRF token is refused, a Bearer key beside the
    # session cookie changes nothing (the route, not the header, decides).
    bearer = {"Authorization": f"Bearer {tpersonas.acme_key}"}
    refused = browser.request("POST", "/staff/sign-in/scim-token", headers=bearer)
    assert refused.status_code == 403
    _page_protections(refused)
    # With the token it goes through, and its message shows on the next page.
    token = {"X-CSRFToken": browser.cookies["csrftoken"]}
    done = browser.request("POST", "/staff/sign-in/scim-token", headers=token)
    assert done.status_code == 302, done.text
    shown = browser.request("GET", done.headers["Location"])
    assert "Connect an identity provider first." in shown.text
    assert "Connect an identity provider first." not in browser.request("GET", "/staff/").text

    # The API's docs page is a browser's page: the page chain.
    docs = browser.request("GET", "/api/v1/docs")
    assert docs.status_code == 200
    _page_protections(docs)

    # Static files are still served, with the headers they had.
    script = browser.request("GET", "/static/js/live.js")
    assert script.status_code == 200 and script.content
    assert script.headers["X-Content-Type-Options"] == "nosniff"

    # The API: the key is the caller, the session cookie (sent along) is never
    # read, no cookie is set and no page policy is added; the API's own
    # middleware and the security headers remain.
    listed = browser.request("GET", "/api/v1/servers", headers=bearer)
    assert listed.status_code == 200 and "items" in listed.json()
    assert "Set-Cookie" not in listed.headers
    assert "Content-Security-Policy" not in listed.headers
    assert "Cookie" not in listed.headers.get("Vary", "")
    assert listed.headers["X-Content-Type-Options"] == "nosniff"
    assert listed.headers["X-Frame-Options"] == "DENY"
    assert listed.headers["Referrer-Policy"] == "same-origin"
    unknown = browser.request("GET", "/api/v1/no-such-thing", headers=bearer)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    assert "Content-Security-Policy" not in unknown.headers
    nul = browser.request("GET", "/api/v1/servers/a%00b", headers=bearer)
    assert nul.status_code == 400
    forged_host = browser.request("GET", "/api/v1/servers", headers={**bearer, "Host": "evil.test"})
    assert forged_host.status_code == 400
    # Without a key, the session cookie of a signed-in admin gets nothing.
    assert browser.request("GET", "/api/v1/servers").status_code == 401


def _under_api(resolver: URLResolver, prefix: str = "/") -> list[tuple[str, object]]:
    found: list[tuple[str, object]] = []
    for entry in resolver.url_patterns:
        path = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if path.startswith(API_PREFIX) or API_PREFIX.startswith(path):
                found += _under_api(entry, path)
        elif isinstance(entry, URLPattern) and path.startswith(API_PREFIX):
            found.append((path, entry.callback))
    return found


def test_every_route_the_lean_chain_serves_authenticates_by_the_api_key_alone(db):
    """The lean chain has no sessions and no CSRF; that is safe only while
    every route it serves ignores cookies. A route taking another
    authentication (a session, a cookie) must be routed to the pages'
    chain in config/handlers.py first, and this test will say so."""
    routes = Routes()
    served: dict[int, Operation] = {}  # several URL names may share one PathView
    for path, callback in _under_api(get_resolver()):
        if routes.kind_of(re.sub(r"<[^>]+>", "x", path)) != "api":
            continue
        if path == API_PREFIX:  # ninja's root: always 404, it names the docs page
            assert callback.func is default_home  # type: ignore[attr-defined]
            continue
        # ninja's view for a path is a closure over its PathView.
        path_view = inspect.getclosurevars(callback).nonlocals.get("self")  # type: ignore[arg-type]
        assert isinstance(path_view, PathView), f"{path} is not an API operation"
        served |= {id(operation): operation for operation in path_view.operations}
    documented = api.get_openapi_schema()["paths"]
    assert len(served) == sum(len(methods) for methods in documented.values()) > 40
    for operation in served.values():
        name = operation.view_func.__name__
        assert operation.auth_callbacks, f"{name} takes no key"
        assert all(isinstance(auth, ApiKeyAuth) for auth in operation.auth_callbacks), (
            f"{name} authenticates by {operation.auth_callbacks}"
        )
    assert {routes.kind_of("/api/v1/docs"), routes.kind_of("/api/v1/openapi.json")} == {"pages"}
    assert routes.kind_of("/scim/v2/Users") == routes.kind_of("/staff/keys/") == "pages"
