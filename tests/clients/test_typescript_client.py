"""The TypeScript client (clients/typescript) against a live console, with Node's
own test runner: installed as a host installs it (``npm install
./clients/typescript`` into a fresh folder), then clients/typescript/test/live.test.mjs
runs there. What only a user does (allowing the reference server) is done here first,
through our services, as the consent page would."""

from __future__ import annotations

import json
import os
import re
import shutil

from consent.models import Scope
from consent.services import grant_approve, grant_request
from switchboard.actors import Actor
from switchboard.services.servers import server_register
from tests.clients.support import TYPESCRIPT_CLIENT, run
from tests.factories import SYSTEM


def _allowed_reference_server(personas, refserver):
    server = server_register(host=personas.acme, name="Ref", actor=SYSTEM, url=refserver.mcp_url)
    assert server.status == "active", server.last_error_detail
    as_alice = Actor.for_user(personas.alice)
    grant = grant_request(
        user=personas.alice, server=server, scope=Scope.CONVERSATION_READ, actor=SYSTEM
    )
    grant_approve(grant=grant, actor=as_alice)
    grant = grant_request(
        user=personas.alice,
        server=server,
        scope=Scope.EVENTS,
        actor=SYSTEM,
        event_types=["build.finished"],
    )
    grant_approve(grant=grant, actor=as_alice, event_types=["build.finished"])
    return server


def test_a_host_does_everything_through_the_typescript_client(live, tpersonas, refserver, tmp_path):
    server = _allowed_reference_server(tpersonas, refserver)
    host = tmp_path / "host"
    host.mkdir()
    (host / "package.json").write_text(json.dumps({"name": "host", "private": True}))
    npm = shutil.which("npm")
    assert npm, "npm is required (Debian's nodejs and npm; .ci/test installs them)"
    # --install-links: a copy with its own dependencies, as a host outside this
    # repository gets it (a plain folder install is a symlink whose dependencies
    # npm leaves to the folder).
    run(
        [npm, "install", "--install-links", "--no-audit", "--no-fund", "--loglevel=error"]
        + [str(TYPESCRIPT_CLIENT)],
        cwd=host,
    )
    assert not (host / "node_modules" / "@switchboard" / "client").is_symlink()
    installed = json.loads((host / "package.json").read_text())["dependencies"]
    assert "@switchboard/client" in installed, installed
    shutil.copy(TYPESCRIPT_CLIENT / "test" / "live.test.mjs", host / "live.test.mjs")

    env = {
        **os.environ,
        "SWB_URL": live.base_url,
        "SWB_KEY": tpersonas.acme_key,
        "SWB_SERVER": server.id,
    }
    output = run(["node", "--test", "--test-reporter=tap", "live.test.mjs"], cwd=host, env=env)
    # Node's runner exits non-zero on any failure (run() asserts 0); and every test ran.
    assert re.search(r"^# pass 5$", output, re.M), output
    assert re.search(r"^# fail 0$", output, re.M), output
