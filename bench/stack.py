"""What the benches that run the real processes share: a throwaway database
per run, the run's Celery queue and channel prefix cleaned after it, free
ports, the load average, a minimal HTTP/1.1 client and a browser's sign-in.

Imported by ``webhook_receiver.py``, ``hot_path.py`` and ``load.py`` and the
modules they are split into; the processes themselves are started by
``config.supervisor``, as the run command and the tests start them.
"""

from __future__ import annotations

import asyncio
import os
import socket
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pct(samples: list[float], q: float) -> float:
    """The q-th percentile (nearest rank); NaN for no samples."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def load_average() -> str:
    """The load average (1, 5, 15 min): every figure is printed with it."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# --- a database of the run's own ------------------------------------------------------


# Migrating a new database takes 5-10 s on a busy two-core machine (CI runs
# the load bench beside the test suite's own stack); copying a migrated one
# takes a fraction of a second. The first run with a given set of migrations
# keeps a copy of its freshly migrated database as a template (never
# connected to, so it can always be copied); later runs copy it. Its name
# carries a digest of every installed app's migration files, so a changed or
# added migration makes a new one (and the stale ones are dropped).
TEMPLATE_PREFIX = "switchboard_migrated_"
# Held (on the maintenance database) while a run looks for the template,
# copies it or makes it, so runs side by side neither migrate twice nor copy
# a template still being made.
TEMPLATE_LOCK = 0x5357_4254  # any constant of our own


def migrations_digest() -> str:
    """A digest of the migration files of every installed app (Django set up)."""
    import hashlib
    import importlib.util

    from django.apps import apps

    digest = hashlib.sha256()
    for app in sorted(apps.get_app_configs(), key=lambda a: a.label):
        spec = importlib.util.find_spec(f"{app.module.__name__}.migrations")
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = Path(next(iter(spec.submodule_search_locations)))
        for path in sorted(folder.glob("*.py")):
            digest.update(f"{app.label}/{path.name}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def database_create(env: dict[str, str]) -> None:
    """Create ``env["DATABASE_URL"]``'s database afresh, migrated, in this
    process (Django is set up with ``env``): a copy of the template of the
    current migrations, made first by migrating when there is none.

    Each run names its own database: with one fixed name, a run started
    beside another dropped its database under it."""
    import psycopg

    os.environ.update(env)
    import django

    django.setup()
    template = TEMPLATE_PREFIX + migrations_digest()
    base, _, name = env["DATABASE_URL"].rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (TEMPLATE_LOCK,))
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (template,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            return
        conn.execute(f'CREATE DATABASE "{name}"')
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        close_connections()  # a database is copied only with no one connected to it
        stale = conn.execute(
            "SELECT datname FROM pg_database WHERE starts_with(datname, %s) AND datname <> %s",
            (TEMPLATE_PREFIX, template),
        ).fetchall()
        for (old,) in stale:
            conn.execute(f'DROP DATABASE IF EXISTS "{old}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{template}" TEMPLATE "{name}" ALLOW_CONNECTIONS false')


def close_connections() -> None:
    """Django's connections, its pool's included (they keep the database open)."""
    from django.db import connections

    for connection in connections.all():
        connection.close()
        if hasattr(connection, "close_pool"):
            connection.close_pool()


def drop_database(env: dict[str, str]) -> None:
    import psycopg

    close_connections()
    base, _, name = env["DATABASE_URL"].rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def purge_queue(env: dict[str, str]) -> None:
    """The run's Celery queue and channel-layer keys, so nothing is left in Redis."""
    try:
        import redis

        client = redis.Redis.from_url(env["REDIS_URL"])
        client.delete(env["CELERY_QUEUE"])
        for key in client.scan_iter(f"{env['CHANNELS_PREFIX']}*"):
            client.delete(key)
    except Exception as exc:  # the bench results do not depend on it
        print(f"(could not purge the bench queue: {exc})")


# --- a minimal HTTP/1.1 client --------------------------------------------------------
# Raw keep-alive sockets: a full client (httpx) costs ~0.5-1 ms of CPU per
# request on this machine, which would sit inside every figure.


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    cookies: list[str]
    body: bytes


class Http:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Http:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def send(self, data: bytes) -> Answer:
        self.writer.write(data)
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers: dict[str, str] = {}
        cookies = []
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
                if name.strip().lower() == "set-cookie":
                    cookies.append(value.strip())
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
                body += (await self.reader.readexactly(size + 2))[:-2]
            await self.reader.readuntil(b"\r\n")
        else:
            body = b""
        return Answer(int(lines[0][9:12]), headers, cookies, body)

    def close(self) -> None:
        self.writer.close()


async def sign_in(port: int, login_path: str, attempts: int = 3) -> str:
    """Follow a one-time login link as a browser does; the session cookie.
    A server error rolls the link's use back, so it is tried again (and
    said: it is a finding, e.g. a deadlock with the ledger's writers)."""
    for attempt in range(1, attempts + 1):
        conn = await Http.open(port)
        try:
            answer = await conn.send(
                f"GET {login_path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
            )
        finally:
            conn.close()
        if answer.status == 302 and answer.cookies:
            return "; ".join(cookie.split(";", 1)[0] for cookie in answer.cookies)
        print(f"  signing in failed (attempt {attempt}): HTTP {answer.status}; see the server log")
        await asyncio.sleep(1)
    raise SystemExit("could not sign in")
