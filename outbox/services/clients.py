"""Keep-alive HTTP clients for the sender: one per (endpoint URL, vetted
addresses), per process, the least recently used closed beyond CLIENTS_MAX.

Why: a new ``httpx.Client`` per POST paid for the client and a TCP (and, for
https, TLS) handshake on every row; behind a burst, one worker process sends
row after row to the same endpoint (several at once: its POST threads share
the client, which is thread-safe), so the connections are reused instead.

What stays as it was: every send still runs ``check_url`` first (the DNS
lookup and the vetting), and the key holds the addresses that lookup
approved, so a connection is only reused when it was opened to an address
approved again for this very send; when the name resolves elsewhere the
send gets a new client pinned to the new addresses (the old one ages out).
Redirects are not followed, proxies and ``.netrc`` are ignored
(``trust_env=False``). A connection the endpoint closed while idle is
noticed by the pool before reuse (httpcore checks the socket) and replaced.

After a fork the child starts with no clients: sockets and TLS state are
not shared between processes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import httpx
from django.conf import settings

from switchboard.background import ForkLocal
from switchboard.mcp.netguard import CheckedTarget, httpx_transport

# Endpoints one process keeps a client for. Each keeps as many idle
# connections as the process has POSTs in flight (HOST_DELIVERY_CONCURRENCY).
CLIENTS_MAX = 32
# Idle connections are closed after this long (httpx's default): an
# endpoint's server often drops idle keep-alive connections soon after.
KEEPALIVE_EXPIRY = 5.0

_Key = tuple[str, tuple[str, ...], bool]


class _Clients(ForkLocal):
    # A forked child starts with none; it drops the parent's without closing
    # them (closing would shut down the parent's TLS sessions).
    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._clients: OrderedDict[_Key, httpx.Client] = OrderedDict()

    def get(self, url: str, target: CheckedTarget) -> httpx.Client:
        key = (url, target.addresses, target.private_allowed)
        evicted = []
        with self._lock:
            client = self._clients.get(key)
            if client is not None:
                self._clients.move_to_end(key)
                return client
            client = httpx.Client(
                transport=httpx_transport(
                    target,
                    limits=httpx.Limits(
                        max_connections=max(10, settings.HOST_DELIVERY_CONCURRENCY),
                        max_keepalive_connections=settings.HOST_DELIVERY_CONCURRENCY,
                        keepalive_expiry=KEEPALIVE_EXPIRY,
                    ),
                ),
                follow_redirects=False,
                trust_env=False,
            )
            self._clients[key] = client
            while len(self._clients) > CLIENTS_MAX:
                evicted.append(self._clients.popitem(last=False)[1])
        for old in evicted:
            old.close()
        return client

    def __len__(self) -> int:
        return len(self._clients)

    def close_all(self) -> None:
        with self._lock:
            clients, self._clients = list(self._clients.values()), OrderedDict()
        for client in clients:
            client.close()


clients = _Clients()
