"""Outbound address guard: which URLs Switchboard may connect to, and pinning.

Every outbound connection Switchboard makes on behalf of a tenant (MCP
servers, host endpoints, webhook verification) targets a URL someone else
typed in, so it is an SSRF vector. The policy comes from the
``ALLOW_PRIVATE_TARGETS`` setting:

- False (production): only ``https`` URLs whose host resolves exclusively to
  public (globally routable) addresses.
- True (development/tests): ``http`` too, and loopback/private addresses.
  Unspecified (``0.0.0.0``, ``::``) and multicast addresses are refused even
  then: they are never a real unicast peer.

Checking the name and then letting the HTTP client resolve it again would
leave a DNS-rebinding window (the name answers a public IP to the check and
``127.0.0.1`` to the connect). So a check returns a ``CheckedTarget`` holding
the vetted addresses, and the transports built here (``httpx2`` for the MCP
SDK, ``httpx`` sync/async for everything else) connect to exactly those
addresses through a pinned network backend. The URL is not rewritten: the
``Host`` header, TLS SNI and certificate verification still use the hostname.
A pinned transport refuses any host other than the checked one, so a
redirect to another origin cannot escape the guard.

URLs are parsed with the same parser the HTTP clients use (``httpx2.URL``),
so the guard and the connection can never disagree about the host.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import anyio
import httpcore
import httpcore2
import httpx
import httpx2

__all__ = [
    "BlockedTarget",
    "CheckedTarget",
    "acheck_url",
    "address_problem",
    "check_url",
    "httpx2_async_transport",
    "httpx_async_transport",
    "httpx_transport",
    "private_targets_allowed",
    "redact_url",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_DEFAULT_PORTS = {"http": 80, "https": 443}
# RFC 6052 well-known NAT64 prefix: the last 32 bits are an IPv4 address that a
# NAT64 gateway would connect to, so they must pass the IPv4 checks too.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class BlockedTarget(Exception):
    """The URL may not be contacted. ``reason`` is a stable snake_case code.

    Reasons: ``invalid_url``, ``scheme_not_allowed``, ``unresolvable``,
    ``non_public_address``. The message names the host and, for address
    problems, the offending address; it never contains userinfo or a query.
    """

    def __init__(self, reason: str, message: str, *, url: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.url = url

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across Celery
        return (_rebuild_blocked, (self.reason, self.message, self.url))


def _rebuild_blocked(reason: str, message: str, url: str) -> BlockedTarget:
    return BlockedTarget(reason, message, url=url)


@dataclass(frozen=True)
class CheckedTarget:
    """A URL that passed the guard, with the addresses it may be reached at.

    ``host`` is the ASCII (IDNA) host as the HTTP client sees it, without
    brackets for IPv6 literals. ``addresses`` are the vetted IPs in resolver
    order; pinned transports try them in that order and nothing else.
    """

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]
    private_allowed: bool

    @property
    def safe_url(self) -> str:
        """The URL without userinfo, query or fragment: fit for logs and errors."""
        return redact_url(self.url)


def private_targets_allowed() -> bool:
    """``settings.ALLOW_PRIVATE_TARGETS``, read at call time (tests flip it).

    Outside a configured Django process the safe answer is False.
    """
    try:
        from django.conf import settings

        return bool(getattr(settings, "ALLOW_PRIVATE_TARGETS", False))
    except Exception:  # ImproperlyConfigured: no Django settings in this process
        return False


def redact_url(url: str) -> str:
    """``scheme://host[:port]/path``: drops userinfo, query and fragment.

    Used wherever a URL reaches a message, a log line or a repr, because
    tokens are routinely smuggled in query strings or userinfo.
    """
    try:
        parsed = httpx2.URL(url)
        host = parsed.host
        if ":" in host:
            host = f"[{host}]"
        port = f":{parsed.port}" if parsed.port else ""
        return f"{parsed.scheme}://{host}{port}{parsed.path}"
    except Exception:
        return "<invalid url>"


def address_problem(address: str | IPAddress, *, allow_private: bool) -> str | None:
    """Why ``address`` may not be contacted, or None if it may.

    Public means ``is_global`` (which already excludes private, loopback,
    link-local, shared/CGNAT, documentation, benchmarking and reserved
    ranges), checked again for the IPv4 address embedded in IPv4-mapped,
    6to4, Teredo and NAT64 forms, because those reach an IPv4 host.
    """
    try:
        ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    except ValueError:
        return f"{address!r} is not an IP address"
    if ip.is_unspecified:
        return f"{ip} is the unspecified address"
    if ip.is_multicast:
        return f"{ip} is a multicast address"
    if allow_private:
        return None
    embedded: list[ipaddress.IPv4Address] = []
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            embedded.append(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            embedded.append(ip.sixtofour)
        if ip.teredo is not None:
            embedded.extend(ip.teredo)
        if ip in _NAT64:
            embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    for candidate in (ip, *embedded):
        if candidate.is_unspecified or candidate.is_multicast:
            return f"{ip} embeds a non-unicast address ({candidate})"
        if not candidate.is_global:
            kind = _kind(candidate)
            via = "" if candidate is ip else f" (embeds {candidate})"
            return f"{ip} is a {kind} address{via}"
    return None


def _kind(ip: IPAddress) -> str:
    for attr, name in (
        ("is_loopback", "loopback"),
        ("is_link_local", "link-local"),
        ("is_private", "private"),
        ("is_reserved", "reserved"),
    ):
        if getattr(ip, attr):
            return name
    return "non-public"


def _parse(url: str, *, allow_private: bool) -> tuple[httpx2.URL, str, int]:
    try:
        parsed = httpx2.URL(url)
    except Exception:
        raise BlockedTarget("invalid_url", "The URL could not be parsed.") from None
    scheme = parsed.scheme
    allowed = ("http", "https") if allow_private else ("https",)
    if scheme not in allowed:
        shown = scheme or "(none)"
        raise BlockedTarget(
            "scheme_not_allowed",
            f"Scheme {shown!r} is not allowed; use {' or '.join(allowed)}.",
            url=redact_url(url),
        )
    host = parsed.raw_host.decode("ascii").strip("[]").lower()
    if not host:
        raise BlockedTarget("invalid_url", "The URL has no host.", url=redact_url(url))
    port = parsed.port or _DEFAULT_PORTS[scheme]
    return parsed, host, port


def _vet(
    url: str, host: str, port: int, scheme: str, infos: Iterable[Any], *, allow_private: bool
) -> CheckedTarget:
    addresses: list[str] = []
    for info in infos:
        address = str(info[4][0]).split("%", 1)[0]  # drop an IPv6 zone id
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise BlockedTarget("unresolvable", f"Host {host!r} has no address.", url=redact_url(url))
    for address in addresses:
        problem = address_problem(address, allow_private=allow_private)
        if problem:
            raise BlockedTarget(
                "non_public_address",
                f"Host {host!r} resolves to a forbidden address: {problem}.",
                url=redact_url(url),
            )
    return CheckedTarget(
        url=url,
        scheme=scheme,
        host=host,
        port=port,
        addresses=tuple(addresses),
        private_allowed=allow_private,
    )


def check_url(url: str, *, allow_private: bool | None = None) -> CheckedTarget:
    """Vet ``url`` (blocking DNS lookup); raise ``BlockedTarget`` if refused.

    ``allow_private`` defaults to ``settings.ALLOW_PRIVATE_TARGETS``. Every
    address the name resolves to must pass, not just the first one.
    """
    allow = private_targets_allowed() if allow_private is None else allow_private
    parsed, host, port = _parse(url, allow_private=allow)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise BlockedTarget(
            "unresolvable", f"Host {host!r} could not be resolved.", url=redact_url(url)
        ) from None
    return _vet(url, host, port, parsed.scheme, infos, allow_private=allow)


async def acheck_url(url: str, *, allow_private: bool | None = None) -> CheckedTarget:
    """``check_url`` for async code: the lookup runs off the event loop."""
    allow = private_targets_allowed() if allow_private is None else allow_private
    parsed, host, port = _parse(url, allow_private=allow)
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise BlockedTarget(
            "unresolvable", f"Host {host!r} could not be resolved.", url=redact_url(url)
        ) from None
    return _vet(url, host, port, parsed.scheme, infos, allow_private=allow)


# --- pinned transports ---------------------------------------------------------
#
# httpx/httpx2 transports do not take a network backend, but their connection
# pools (httpcore/httpcore2) do. The transports below are the stock ones with
# their pool swapped for one whose backend maps the checked host to the checked
# addresses; request/response conversion and exception mapping stay stock.


def _pin_lookup(pins: dict[tuple[str, int], Sequence[str]], host: str, port: int) -> Sequence[str]:
    addresses = pins.get((host.strip("[]").lower(), port))
    if not addresses:
        raise OSError(f"connection to {host}:{port} refused: not the checked target")
    return addresses


def _pinned_async_backend(core: Any) -> type:
    """The pinning async backend for one httpcore flavour (``httpcore`` under
    httpx, ``httpcore2`` under the MCP SDK's httpx2): same API, other classes."""

    class PinnedAsyncBackend(core.AsyncNetworkBackend):
        def __init__(self, pins: dict[tuple[str, int], Sequence[str]]) -> None:
            self._pins = pins
            self._inner = core.AnyIOBackend()

        async def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> Any:
            try:
                addresses = _pin_lookup(self._pins, host, port)
            except OSError as exc:
                raise core.ConnectError(str(exc)) from None
            last: Exception | None = None
            for address in addresses:
                try:
                    return await self._inner.connect_tcp(
                        address,
                        port,
                        timeout=timeout,
                        local_address=local_address,
                        socket_options=socket_options,
                    )
                except core.ConnectError as exc:
                    last = exc
            assert last is not None
            raise last

        async def connect_unix_socket(
            self, path: str, timeout: float | None = None, **_: Any
        ) -> Any:
            raise core.ConnectError("unix sockets are not allowed by netguard")

        async def sleep(self, seconds: float) -> None:
            await self._inner.sleep(seconds)

    PinnedAsyncBackend.__name__ = PinnedAsyncBackend.__qualname__ = (
        f"PinnedAsyncBackend_{core.__name__}"
    )
    return PinnedAsyncBackend


_PinnedAsyncBackend2 = _pinned_async_backend(httpcore2)
_PinnedAsyncBackend1 = _pinned_async_backend(httpcore)


class _PinnedSyncBackend1(httpcore.NetworkBackend):
    def __init__(self, pins: dict[tuple[str, int], Sequence[str]]) -> None:
        self._pins = pins
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            addresses = _pin_lookup(self._pins, host, port)
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from None
        last: Exception | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError as exc:
                last = exc
        assert last is not None
        raise last

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not allowed by netguard")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _pins(target: CheckedTarget) -> dict[tuple[str, int], Sequence[str]]:
    pins: dict[tuple[str, int], Sequence[str]] = {(target.host, target.port): target.addresses}
    if target.scheme == "http" and target.port == 80:
        # The SDK follows a same-host http -> https upgrade redirect; allow the
        # same vetted addresses on 443 so that works without a second lookup.
        pins[(target.host, 443)] = target.addresses
    return pins


@cache
def _shared_ssl_context(library: Any) -> ssl.SSLContext:
    """One verifying context per process and library: building one loads the
    CA bundle (tens of ms of CPU), and a context is safe to share."""
    return library.create_ssl_context(verify=True, trust_env=False)


def _ssl_context(library: Any, verify: Any) -> ssl.SSLContext:
    if verify is True:
        return _shared_ssl_context(library)
    return library.create_ssl_context(verify=verify, trust_env=False)


def _pinned(
    transport_class: Any,
    pool_class: Any,
    backend_class: type,
    library: Any,
    target: CheckedTarget,
    verify: Any,
    limits: Any,
) -> Any:
    """The one builder: ``library``'s stock ``transport_class`` with its pool
    swapped for ``pool_class`` on the pinning ``backend_class``."""
    limits = limits or library.Limits(max_connections=20, max_keepalive_connections=10)
    context = _ssl_context(library, verify)
    transport = transport_class(verify=context, trust_env=False, limits=limits)
    transport._pool = pool_class(  # noqa: SLF001 - see module comment
        ssl_context=context,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=backend_class(_pins(target)),
    )
    return transport


def httpx2_async_transport(
    target: CheckedTarget, *, verify: Any = True, limits: httpx2.Limits | None = None
) -> httpx2.AsyncHTTPTransport:
    """An ``httpx2`` transport (what the MCP SDK uses) pinned to ``target``."""
    return _pinned(
        httpx2.AsyncHTTPTransport,
        httpcore2.AsyncConnectionPool,
        _PinnedAsyncBackend2,
        httpx2,
        target,
        verify,
        limits,
    )


def httpx_async_transport(
    target: CheckedTarget, *, verify: Any = True, limits: httpx.Limits | None = None
) -> httpx.AsyncHTTPTransport:
    """An ``httpx.AsyncHTTPTransport`` pinned to ``target`` (e.g. host endpoint delivery).

    Use with ``httpx.AsyncClient(transport=..., trust_env=False)``.
    """
    return _pinned(
        httpx.AsyncHTTPTransport,
        httpcore.AsyncConnectionPool,
        _PinnedAsyncBackend1,
        httpx,
        target,
        verify,
        limits,
    )


def httpx_transport(
    target: CheckedTarget, *, verify: Any = True, limits: httpx.Limits | None = None
) -> httpx.HTTPTransport:
    """A sync ``httpx.HTTPTransport`` pinned to ``target`` (Celery tasks).

    Use with ``httpx.Client(transport=..., trust_env=False)``.
    """
    return _pinned(
        httpx.HTTPTransport,
        httpcore.ConnectionPool,
        _PinnedSyncBackend1,
        httpx,
        target,
        verify,
        limits,
    )
