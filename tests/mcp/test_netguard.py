"""The outbound address guard: policy, and that connections go to the checked IP."""

from __future__ import annotations

import socket

import httpx
import httpx2
import pytest

from switchboard.mcp import netguard
from switchboard.mcp.netguard import BlockedTarget, CheckedTarget, address_problem, check_url
from tests.mcp.conftest import RefServer


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata (link-local)
        "100.64.0.1",  # shared address space (CGNAT)
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",  # reserved
        "255.255.255.255",
        "192.0.2.1",  # documentation
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::ffff:127.0.0.1",  # IPv4-mapped loopback
        "::ffff:169.254.169.254",
        "2002:7f00:1::",  # 6to4 embedding 127.0.0.1
        "2002:a9fe:a9fe::",  # 6to4 embedding 169.254.169.254
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "2001:db8::1",  # documentation
    ],
)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert address_problem(address, allow_private=False) is not None


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]
)
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(address, allow_private=False) is None


def test_allow_private_still_refuses_unspecified_and_multicast() -> None:
    assert address_problem("127.0.0.1", allow_private=True) is None
    assert address_problem("10.0.0.1", allow_private=True) is None
    assert address_problem("0.0.0.0", allow_private=True) is not None
    assert address_problem("::", allow_private=True) is not None
    assert address_problem("224.0.0.1", allow_private=True) is not None


def test_policy_follows_the_setting(settings) -> None:
    settings.ALLOW_PRIVATE_TARGETS = False
    with pytest.raises(BlockedTarget) as blocked:
        check_url("http://127.0.0.1:8000/mcp")
    assert blocked.value.reason == "scheme_not_allowed"
    with pytest.raises(BlockedTarget) as blocked:
        check_url("https://localhost/mcp")
    assert blocked.value.reason == "non_public_address"
    with pytest.raises(BlockedTarget) as blocked:
        check_url("https://[::ffff:127.0.0.1]/mcp")
    assert blocked.value.reason == "non_public_address"

    settings.ALLOW_PRIVATE_TARGETS = True
    checked = check_url("http://localhost:8000/mcp?token=x")
    assert checked.scheme == "http" and checked.host == "localhost" and checked.port == 8000
    assert checked.addresses and all(
        address_problem(a, allow_private=True) is None for a in checked.addresses
    )
    assert checked.safe_url == "http://localhost:8000/mcp"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://example.com/", "scheme_not_allowed"),
        ("file:///etc/passwd", "scheme_not_allowed"),
        ("https://", "invalid_url"),
        ("not a url at all", "scheme_not_allowed"),
        ("https://nonexistent.invalid/mcp", "unresolvable"),
    ],
)
def test_bad_urls(url: str, reason: str) -> None:
    with pytest.raises(BlockedTarget) as blocked:
        check_url(url, allow_private=True)
    assert blocked.value.reason == reason


def test_every_resolved_address_must_pass(monkeypatch) -> None:
    """A name answering one public and one private address is refused."""

    def fake_getaddrinfo(host, port, *args, **kwargs):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", port)),
        ]

    monkeypatch.setattr(netguard.socket, "getaddrinfo", fake_getaddrinfo)
    with pytest.raises(BlockedTarget) as blocked:
        check_url("https://mixed.example/", allow_private=False)
    assert "10.0.0.5" in str(blocked.value)


async def test_async_check_matches_sync() -> None:
    checked = await netguard.acheck_url("http://127.0.0.1:9/x", allow_private=True)
    assert checked.addresses == ("127.0.0.1",)
    with pytest.raises(BlockedTarget):
        await netguard.acheck_url("http://127.0.0.1:9/x", allow_private=False)


def test_redact_url_drops_credentials_and_query() -> None:
    assert (
        netguard.redact_url("https://user:pw@example.com:8443/a/b?key=secret#frag")
        == "https://example.com:8443/a/b"
    )


# --- pinning: the connection goes to the checked address, not a fresh lookup ----------


def _pinned(refserver: RefServer, host: str) -> CheckedTarget:
    """A target for a name that does not resolve at all, pinned to the refserver's IP.

    If any transport resolved the name again, the request would fail; if it
    succeeds, it went to the checked address.
    """
    port = int(refserver.base.rsplit(":", 1)[1])
    return CheckedTarget(
        url=f"http://{host}:{port}/healthz",
        scheme="http",
        host=host,
        port=port,
        addresses=("127.0.0.1",),
        private_allowed=True,
    )


def test_sync_httpx_transport_connects_to_the_pinned_address(refserver: RefServer) -> None:
    target = _pinned(refserver, "rebind.invalid")
    with httpx.Client(transport=netguard.httpx_transport(target), trust_env=False) as client:
        response = client.get(target.url)
        assert response.status_code == 200
        assert response.request.headers["host"] == f"rebind.invalid:{target.port}"
        # Any other host (e.g. a redirect target) is refused, not resolved.
        with pytest.raises(httpx.ConnectError, match="not the checked target"):
            client.get(f"http://127.0.0.1:{target.port}/healthz")


async def test_async_httpx_transport_connects_to_the_pinned_address(refserver: RefServer) -> None:
    target = _pinned(refserver, "rebind.invalid")
    transport = netguard.httpx_async_transport(target)
    async with httpx.AsyncClient(transport=transport, trust_env=False) as client:
        assert (await client.get(target.url)).status_code == 200
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://localhost:{target.port}/healthz")


async def test_httpx2_transport_connects_to_the_pinned_address(refserver: RefServer) -> None:
    target = _pinned(refserver, "rebind.invalid")
    transport = netguard.httpx2_async_transport(target)
    async with httpx2.AsyncClient(transport=transport, trust_env=False) as client:
        assert (await client.get(target.url)).status_code == 200
        with pytest.raises(httpx2.ConnectError):
            await client.get(f"http://localhost:{target.port}/healthz")


def test_rebinding_after_the_check_has_no_effect(refserver: RefServer, monkeypatch) -> None:
    """The resolver changes its answer after the check: the pinned IP is still used."""
    port = int(refserver.base.rsplit(":", 1)[1])
    answers = iter(["127.0.0.1", "203.0.113.7"])  # second answer: unroutable TEST-NET-3
    real = socket.getaddrinfo

    def rebinding_getaddrinfo(host, p, *args, **kwargs):
        if host == "rebinding.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), p))]
        return real(host, p, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding_getaddrinfo)
    target = check_url(f"http://rebinding.test:{port}/healthz", allow_private=True)
    assert target.addresses == ("127.0.0.1",)
    with httpx.Client(transport=netguard.httpx_transport(target), trust_env=False) as client:
        assert client.get(target.url, timeout=3).status_code == 200
