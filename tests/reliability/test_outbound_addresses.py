"""docs/reliability.md row 8: the outbound address table, for every kind of URL a tenant
gives us: MCP server URLs (``POST /servers``, ``PATCH /servers/{id}``), the host endpoint
(``PUT /host/endpoint``) and MCPE webhook handlers (``POST /subscriptions``
with ``handler.url``), each through its real API entry point with
``ALLOW_PRIVATE_TARGETS`` off (tests/testenv.py turns it on for the suite).

DNS is outside our control, so names are answered by a patched
``getaddrinfo``; every other lookup (literals in decimal or octal form
included) goes to the system resolver, as it would in production.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from outbox.models import HostDelivery, HostEndpoint
from outbox.services import host_delivery_send
from switchboard.mcp import netguard
from switchboard.models import McpServer
from tests.subscriptions.test_mcpe import MCPE_CAPS

# name → what its (hostile) DNS answers
PRIVATE_NAMES = {
    "internal.corp.example": ["10.0.0.5"],
    "metadata.cloud.example": ["169.254.169.254"],
    "router.home.example": ["192.168.1.1"],
    "loopback.example": ["127.0.0.1"],
    "cgnat.example": ["100.64.0.9"],
    "v6-ula.example": ["fd00::1"],
    "v6-loopback.example": ["::1"],
    "v6-mapped.example": ["::ffff:10.0.0.5"],
    "one-of-two.example": ["93.184.215.14", "10.0.0.5"],  # every address must pass
}
PUBLIC_NAME = "public.example"
PUBLIC_ADDRESS = "93.184.215.14"

BLOCKED_HOSTS = [
    # IPv4 special ranges
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "192.0.2.1",
    "240.0.0.1",
    "224.0.0.1",
    "0.0.0.0",
    # other spellings of 127.0.0.1
    "2130706433",  # decimal
    "0177.0.0.1",  # octal
    "0x7f.0.0.1",  # hex
    "127.1",  # short form
    # IPv6 specials
    "[::1]",
    "[::]",
    "[fe80::1]",
    "[fc00::1]",
    "[fd12:3456::1]",
    "[ff02::1]",
    # IPv4 embedded in IPv6
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::ffff:169.254.169.254]",
    "[64:ff9b::a9fe:a9fe]",  # NAT64
    "[2002:7f00:1::]",  # 6to4
    # names resolving to private addresses
    *PRIVATE_NAMES,
]


def _name(host: str | bytes) -> str:
    """anyio (the async check) asks with the IDNA-encoded bytes."""
    return host.decode("idna") if isinstance(host, bytes) else host


@pytest.fixture
def resolver(monkeypatch):
    """Names of the table resolve as listed; everything else as the system says."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        host = _name(host)
        answers = {**PRIVATE_NAMES, PUBLIC_NAME: [PUBLIC_ADDRESS]}.get(host)
        if answers is None:
            return real(host, port, *args, **kwargs)
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (a, port) if ":" not in a else (a, port, 0, 0),
            )
            for a in answers
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def production_policy(settings, resolver):
    settings.ALLOW_PRIVATE_TARGETS = False


@pytest.fixture
def mcpe_server(personas):
    return McpServer.objects.create(
        host=personas.acme,
        name="Alerts",
        url="https://mcpe.example.test/mcp",
        status="active",
        capabilities=MCPE_CAPS,
    )


def _mcp_server(personas, mcpe_server, url):
    answer = personas.acme_api.post("/servers", json={"name": "Target", "url": url})
    stored = McpServer.objects.filter(url=url).exists()
    return answer, "url", stored


def _host_endpoint(personas, mcpe_server, url):
    answer = personas.acme_api.put("/host/endpoint", json={"url": url})
    stored = HostEndpoint.objects.filter(host=personas.acme, url=url).exists()
    return answer, "url", stored


def _mcpe_webhook_handler(personas, mcpe_server, url):
    from subscriptions.models import Subscription

    answer = personas.acme_api.post(
        "/subscriptions",
        json={
            "user": "alice",
            "server": mcpe_server.id,
            "handler": {"type": "webhook", "url": url},
        },
    )
    return answer, "handler.url", Subscription.objects.exists()


def _mcp_server_new_url(personas, mcpe_server, url):
    answer = personas.acme_api.patch(f"/servers/{mcpe_server.id}", json={"url": url})
    mcpe_server.refresh_from_db()
    return answer, "url", mcpe_server.url == url


KINDS: dict[str, Callable] = {
    "mcp_server": _mcp_server,
    "mcp_server_new_url": _mcp_server_new_url,
    "host_endpoint": _host_endpoint,
    "mcpe_webhook_handler": _mcpe_webhook_handler,
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("host", BLOCKED_HOSTS)
def test_a_non_public_target_is_refused(personas, mcpe_server, production_policy, kind, host):
    url = f"https://{host}/path"
    answer, field, stored = KINDS[kind](personas, mcpe_server, url)
    assert answer.status_code == 422, (url, answer.status_code, answer.content)
    error = answer.json()["error"]
    assert (error["code"], error["field"]) == ("blocked_target", field), error
    assert not stored


@pytest.mark.parametrize("kind", ["host_endpoint", "mcpe_webhook_handler"])
def test_a_name_resolving_to_public_addresses_is_accepted(
    personas, mcpe_server, production_policy, kind
):
    """The control: the same call with a public answer passes the guard (the MCP
    kind would connect at once, to the internet; its pass is shown by the
    rebinding test below)."""
    answer, _, stored = KINDS[kind](personas, mcpe_server, f"https://{PUBLIC_NAME}/path")
    assert answer.status_code in (200, 201), answer.content
    assert stored


@pytest.mark.parametrize("kind", KINDS)
def test_plain_http_is_refused_in_production(personas, mcpe_server, production_policy, kind):
    answer, field, stored = KINDS[kind](personas, mcpe_server, f"http://{PUBLIC_NAME}/path")
    assert answer.status_code == 422, answer.content
    assert answer.json()["error"]["field"] == field
    assert not stored


# --- rebinding between the check and the connection -------------------------------------
#
# The attacker's DNS answers the checked address to the guard and another one
# to every lookup after it. Loopback stands for "a public address" here (the
# policy allows private targets for these tests, so something local can
# answer); 127.0.0.2 for the address rebinding would send us to: nothing
# listens there, so a connection that resolved the name again fails.

REBIND_NAME = "rebind.example"


@pytest.fixture
def rebinding(monkeypatch, settings):
    settings.ALLOW_PRIVATE_TARGETS = True
    real = socket.getaddrinfo
    state = {"checked": False, "checks": 0, "late_lookups": 0}

    def getaddrinfo(host, port, *args, **kwargs):
        if _name(host) != REBIND_NAME:
            return real(host, port, *args, **kwargs)
        if state["checked"]:
            state["late_lookups"] += 1
            address = "127.0.0.2"
        else:
            address = "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    real_parse, real_vet = netguard._parse, netguard._vet

    def parse(url, **kwargs):  # a check starts: the attacker answers well
        state["checked"] = False
        return real_parse(url, **kwargs)

    def vet(*args, **kwargs):  # a check passed: from now on, the other address
        target = real_vet(*args, **kwargs)
        state["checked"] = True
        state["checks"] += 1
        return target

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(netguard, "_parse", parse)
    monkeypatch.setattr(netguard, "_vet", vet)
    return state


@pytest.mark.processes
def test_an_mcp_server_is_reached_at_the_checked_address(personas, refserver, rebinding):
    """The reference server refuses a Host it does not serve (the SDK's own
    rebinding guard answers 421), which is how we see the request arrived there
    with the name intact: a connection that looked the name up again would have
    gone to 127.0.0.2 and been refused."""
    url = f"http://{REBIND_NAME}:{refserver.port}/mcp"
    answer = personas.acme_api.post("/servers", json={"name": "Rebound", "url": url})
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert rebinding["checks"] >= 2, rebinding  # at registration, and before connecting
    assert rebinding["late_lookups"] == 0, rebinding
    assert body["last_error"] == "http_4xx", (body["status"], body["last_error"])
    log = refserver.child.log_path.read_text()
    assert f"{REBIND_NAME}:{refserver.port}" in log


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        type(self).seen.append(self.headers["host"])
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def host_receiver():
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], _Recorder.seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_host_delivery_goes_to_the_checked_address(
    personas, host_receiver, rebinding, tasks_sent
):
    port, seen = host_receiver
    url = f"http://{REBIND_NAME}:{port}/hook"
    assert personas.acme_api.put("/host/endpoint", json={"url": url}).status_code == 200
    assert personas.acme_api.post("/host/endpoint/test").status_code == 202
    delivery = HostDelivery.objects.get(host=personas.acme, type="ping")
    host_delivery_send(seq=delivery.seq)
    delivery.refresh_from_db()
    assert seen == [f"{REBIND_NAME}:{port}"], (seen, delivery.status)
    assert delivery.status == "delivered", delivery.status
    assert rebinding["checks"] >= 2  # at set time and before the POST
