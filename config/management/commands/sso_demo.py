"""Try organisation sign-in (OIDC) locally: start the test OpenID Provider
the suite uses (panva's oidc-provider, tests/oidc_provider), register the
console with it, connect the demo host, and print whom to sign in as.
Runs until Ctrl-C. Needs Node and npm; ``make run`` must be running."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config.demo import DEMO_HOST
from switchboard.actors import Actor
from switchboard.models import Host
from switchboard.sso.connections import ConnectionIn, sso_connection_save

PROVIDER_DIR = Path(settings.BASE_DIR) / "tests" / "oidc_provider"
PEOPLE = {
    "ada": ("ada@demo.test", ["switchboard-admins"]),
    "otto": ("otto@demo.test", ["switchboard-auditors"]),
    "nora": ("nora@demo.test", ["everyone"]),
}


class Command(BaseCommand):
    help = "Start a test IdP on loopback and connect the demo host to it (try SSO)."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=9400)

    def handle(self, *args, port: int, **options):
        host = Host.objects.filter(name=DEMO_HOST).first()
        if host is None:
            raise CommandError("No demo host: run `make run` (or manage.py load_demo) first.")
        if not (PROVIDER_DIR / "node_modules" / "oidc-provider").exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PROVIDER_DIR, check=True)
        issuer = f"http://127.0.0.1:{port}"
        provider = subprocess.Popen(["node", "server.mjs", str(port)], cwd=PROVIDER_DIR)
        try:
            self._wait(issuer)
            control = httpx.Client(base_url=issuer, timeout=10)
            client = control.post(
                "/reg",
                json={
                    "redirect_uris": [f"{settings.PUBLIC_BASE_URL}/sso/oidc/callback"],
                    "response_types": ["code"],
                    "grant_types": ["authorization_code"],
                },
            ).json()
            for sub, (email, groups) in PEOPLE.items():
                control.put(
                    f"/__test/accounts/{sub}",
                    json={"email": email, "email_verified": True, "groups": groups, "name": sub},
                )
            sso_connection_save(
                host=host,
                data=ConnectionIn(
                    issuer=issuer,
                    client_id=client["client_id"],
                    client_secret=client["client_secret"],
                    email_domains=["demo.test"],
                    role_claim="groups",
                    admin_values=["switchboard-admins"],
                    auditor_values=["switchboard-auditors"],
                    enabled=True,
                ),
                actor=Actor.system("sso_demo"),
            )
            self.stdout.write(self.style.SUCCESS(f"Test IdP: {issuer} (connected to {DEMO_HOST})"))
            self.stdout.write(
                f"Open {settings.PUBLIC_BASE_URL}/signin/ and sign in with your organisation:"
            )
            self.stdout.write("  ada@demo.test  → at the IdP, account `ada`  (admin)")
            self.stdout.write("  otto@demo.test → at the IdP, account `otto` (auditor)")
            self.stdout.write("  nora@demo.test → at the IdP, account `nora` (refused: no_role)")
            self.stdout.write("Press Ctrl-C to stop the IdP.")
            provider.wait()
        except KeyboardInterrupt:
            pass
        finally:
            provider.terminate()

    def _wait(self, issuer: str) -> None:
        for _ in range(300):  # Node takes a while on a busy machine
            try:
                if httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=1).is_success:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise CommandError("The test IdP did not start")
