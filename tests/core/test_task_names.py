"""Every Celery task the code sends by name is one the workers have: a typo
in a name would only show on a worker, as a task nobody runs (the beat
sweepers would hide it as a delay). Services name tasks instead of importing
them (``switchboard.queue``), so this is the test that ties the two."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

from config.celery import app

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "switchboard", "outbox", "consent", "hooks", "subscriptions")
# Calls whose first argument is a task's name.
SENDERS = {"enqueue", "enqueue_each", "enqueue_coalesced", "send_task", "signature"}


def names_sent_in(source: str) -> set[str]:
    """Task names a module sends: string literals passed first to a sending
    call, and module constants that hold names (``*_TASK``, ``SEND_*``,
    including a dict of them)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if called in SENDERS and isinstance(first, ast.Constant):
                found.add(first.value)
        elif isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if not any(t.endswith("_TASK") or t.startswith("SEND_") for t in targets):
                continue
            values = node.value.values if isinstance(node.value, ast.Dict) else [node.value]
            found.update(v.value for v in values if isinstance(v, ast.Constant))
    return {name for name in found if isinstance(name, str)}


def names_sent() -> dict[str, str]:
    """Every name sent in the project's code: name -> the module that sends it."""
    sent: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in names_sent_in(path.read_text()):
                sent.setdefault(name, str(path.relative_to(ROOT)))
    return sent


def registered() -> set[str]:
    app.loader.import_default_modules()
    return set(app.tasks)


def test_the_scan_finds_a_name_however_it_is_sent():
    source = """
WRITE_TASK = "a.write"
SEND_ONE = "a.one"
_WHEN_DUE_TASK = {"x": "a.due"}
enqueue("a.enqueued", 1)
enqueue_each("a.each", [(1,)])
current_app.send_task("a.sent", args=[])
enqueue(WRITE_TASK)  # a constant: found where it is defined
"""
    assert names_sent_in(source) == {
        "a.write",
        "a.one",
        "a.due",
        "a.enqueued",
        "a.each",
        "a.sent",
    }


def test_every_task_sent_by_name_is_registered(db):  # importing the task modules reads the db
    sent = names_sent()
    # The scan sees the code (the named constants among what it found), so
    # an empty or partial scan cannot pass for a clean one.
    assert {
        "hooks.write_records",
        "outbox.send_host_delivery",
        "outbox.send_host_deliveries",
        "subscriptions.check_task",
        "subscriptions.refresh_when_due",
        "switchboard.sync_server",
    } <= set(sent)
    unknown = {name: where for name, where in sent.items() if name not in registered()}
    assert unknown == {}


def test_every_periodic_task_is_registered(db):
    periodic = {
        entry[0] if isinstance(entry, tuple) else entry
        for entry in settings.PERIODIC_TASKS.values()
    }
    assert len(periodic) == len(settings.PERIODIC_TASKS)
    assert sorted(periodic - registered()) == []
