"""Test data built through our own services (never by poking rows)."""

from __future__ import annotations

from dataclasses import dataclass

from django.test import Client

from switchboard.actors import Actor
from switchboard.models import Host, McpServer, User
from switchboard.services.hosts import host_create
from switchboard.services.users import staff_create, user_upsert

SYSTEM = Actor.system("tests")


class ApiClient:
    """Django's test client with a host's API key and JSON bodies."""

    def __init__(self, key: str):
        self.key = key
        self.client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")

    def _call(self, method: str, path: str, json=None, **extra):
        kwargs = {"content_type": "application/json"} if json is not None else {}
        if json is not None:
            import json as _json

            kwargs["data"] = _json.dumps(json)
        return getattr(self.client, method)(f"/api/v1{path}", **kwargs, **extra)

    def get(self, path, **extra):
        return self._call("get", path, **extra)

    def put(self, path, json=None, **extra):
        return self._call("put", path, json=json if json is not None else {}, **extra)

    def post(self, path, json=None, **extra):
        return self._call("post", path, json=json if json is not None else {}, **extra)

    def patch(self, path, json=None, **extra):
        return self._call("patch", path, json=json if json is not None else {}, **extra)

    def delete(self, path, **extra):
        return self._call("delete", path, **extra)


@dataclass
class Personas:
    acme: Host
    acme_key: str
    bravo: Host
    bravo_key: str
    alice: User
    bob: User
    charlie: User
    admin: User
    auditor: User
    acme_api: ApiClient
    bravo_api: ApiClient


def make_user(host: Host, external_id: str, name: str = "") -> User:
    user, _ = user_upsert(
        host=host, external_id=external_id, actor=SYSTEM, display_name=name or external_id
    )
    return user


def make_server(host: Host, name: str = "Server", url: str = "") -> McpServer:
    return McpServer.objects.create(host=host, name=name, url=url, status="host_managed")


def make_personas() -> Personas:
    acme, acme_key = host_create(
        name="Acme", actor=SYSTEM, allowed_origins=["https://chat.acme.test"]
    )
    bravo, bravo_key = host_create(name="Bravo", actor=SYSTEM)
    return Personas(
        acme=acme,
        acme_key=acme_key,
        bravo=bravo,
        bravo_key=bravo_key,
        alice=make_user(acme, "alice", "Alice"),
        bob=make_user(acme, "bob", "Bob"),
        charlie=make_user(bravo, "charlie", "Charlie"),
        admin=staff_create(host=acme, email="admin@acme.test", role="admin", actor=SYSTEM),
        auditor=staff_create(host=acme, email="auditor@acme.test", role="auditor", actor=SYSTEM),
        acme_api=ApiClient(acme_key),
        bravo_api=ApiClient(bravo_key),
    )


def in_thread(fn, /, *args, **kwargs):
    """Run ``fn`` in a fresh thread: Playwright's sync API keeps an event loop
    in the test thread, where our sync services (which use async_to_sync to
    broadcast) must not run — just as in production, where they run in
    worker threads."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    def call():
        try:
            return fn(*args, **kwargs)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call).result()
