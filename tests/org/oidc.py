"""A real OpenID Provider for the SSO tests: panva's ``oidc-provider``
(OpenID Certified) run by ``tests/oidc_provider/server.mjs`` on loopback.

Clients register through Dynamic Client Registration; people sign in at its
form (``login`` = the account's ``sub``). The tests reach it as a browser
would (httpx here, Chromium in the browser test)."""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

from tests.live import free_port

PROVIDER_DIR = Path(__file__).resolve().parent.parent / "oidc_provider"


def npm_install() -> None:
    """``.ci/test`` installs it; a single test run does it when needed."""
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=PROVIDER_DIR,
            check=True,
        )


@dataclass
class OpenIdProvider:
    issuer: str
    process: subprocess.Popen
    control: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.control = httpx.Client(base_url=self.issuer, timeout=10)

    def register_client(self, redirect_uri: str, *, auth: str = "client_secret_basic"):
        answer = self.control.post(
            "/reg",
            json={
                "redirect_uris": [redirect_uri],
                "response_types": ["code"],
                "grant_types": ["authorization_code"],
                "token_endpoint_auth_method": auth,
            },
        )
        assert answer.status_code == 201, answer.text
        body = answer.json()
        return body["client_id"], body["client_secret"]

    def account(self, sub: str, *, email: str, groups: list[str], verified: bool = True) -> None:
        claims = {"email": email, "email_verified": verified, "groups": groups, "name": email}
        assert self.control.put(f"/__test/accounts/{sub}", json=claims).status_code == 200

    def misbehave(self, **changes) -> None:
        """The next ID tokens carry these changes (``{}``: behave again)."""
        assert self.control.put("/__test/misbehave", json=changes).status_code == 200

    def sign_in(self, authorize_url: str, login: str) -> str:
        """As a person at the IdP: open the authorization URL, sign in on its
        form; returns where the IdP sends the browser back (the callback URL)."""
        with httpx.Client(timeout=10) as browser:
            answer = browser.get(authorize_url)
            while answer.status_code in (302, 303):
                location = urljoin(self.issuer, answer.headers["location"])
                if not location.startswith(self.issuer):
                    return location
                if "/interaction/" in location:
                    browser.get(location)
                    answer = browser.post(f"{location}/login", data={"login": login})
                else:
                    answer = browser.get(location)
            raise AssertionError(f"the IdP did not send the browser back: {answer.status_code}")

    def close(self) -> None:
        self.control.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_provider() -> OpenIdProvider:
    npm_install()
    port = free_port()
    # A file, never a pipe nobody reads (it would fill and block the provider).
    log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
    process = subprocess.Popen(
        ["node", "server.mjs", str(port)], cwd=PROVIDER_DIR, stdout=log, stderr=subprocess.STDOUT
    )
    issuer = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"oidc-provider exited: {log.read().decode()}")
        try:
            if httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=1).is_success:
                return OpenIdProvider(issuer=issuer, process=process)
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("oidc-provider did not start within 30 s")


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"
