"""The README's run command, end to end: start, check, Ctrl-C, nothing left."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from config.supervisor import procfile_entries
from tests.live import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.processes


def _processes_with_marker(marker: str) -> list[int]:
    """PIDs whose environment carries our marker: every child inherits it."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except (PermissionError, FileNotFoundError, ProcessLookupError):
            continue
    return found


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _read_until(process: subprocess.Popen, pattern: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    output = ""
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            if process.poll() is not None:
                break
            continue
        output += line
        if re.search(pattern, output):
            return output
    raise AssertionError(
        f"console did not print {pattern!r} in {timeout}s; output so far:\n{output}"
    )


def test_console_starts_everything_signs_in_and_stops_cleanly(tmp_path):
    port, ref_port = free_port(), free_port()
    marker = f"SWB_SMOKE_{uuid.uuid4().hex}"
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            # A newcomer's shell: no database, no development switches.
            if k not in ("DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "ALLOW_PRIVATE_TARGETS")
        },
        "SWITCHBOARD_VAR_DIR": str(tmp_path),  # a fresh machine: new secrets, new SQLite database
        "REDIS_URL": settings.REDIS_URL,
        "PYTHONUNBUFFERED": "1",
        marker: "1",
    }
    env.pop("PUBLIC_BASE_URL", None)
    console = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "console",
            "--port",
            str(port),
            "--refserver-port",
            str(ref_port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        # A fresh machine migrates a new database and starts every process
        # (the web server's workers each load Django) before the demo data;
        # on two busy cores that has taken two minutes.
        output = _read_until(console, r"Press Ctrl-C", timeout=240)
        assert f"http://127.0.0.1:{port}/" in output
        assert re.search(r"Demo API key \(host Demo Host\): swb_\w+", output)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            assert response.status == 200
        # Static files are served by the app itself, DEBUG or not.
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/static/css/switchboard.css", timeout=5
        ) as css:
            assert css.status == 200 and b".topbar" in css.read()
        user_link = re.search(r"Sign in as the demo user:\s+(\S+)", output).group(1)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(user_link, timeout=10) as response:
            # The demo user's link lands on a real consent request of the reference server.
            assert response.status == 200
            assert "asks for permission" in response.read().decode()
        with opener.open(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert "Hello, Dana Demo" in response.read().decode()
        # The demo's staff view shows the reference server with its event types and hooks.
        admin_link = re.search(r"Sign in as the demo admin:\s+(\S+)", output).group(1)
        staff = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        staff.open(admin_link, timeout=10).read()
        listing = staff.open(f"http://127.0.0.1:{port}/staff/servers/", timeout=10).read().decode()
        assert "Reference events server" in listing and "Active" in listing
        server_path = re.search(r'href="(/staff/servers/srv_\w+/)"', listing).group(1)
        detail = staff.open(f"http://127.0.0.1:{port}{server_path}", timeout=10).read().decode()
        assert "build.finished" in detail and "post_tool_use" in detail and "required" in detail
        # Health has charts on first run: the demo's recent deliveries and calls.
        health = staff.open(f"http://127.0.0.1:{port}/staff/health/", timeout=10).read().decode()
        assert "data-chart-empty" not in health and 'class="chart-bad"' in health
        assert "<td>Reference events server</td>" in health
        # console, refserver, and every process of the Procfile
        running = [_cmdline(pid) for pid in _processes_with_marker(marker)]
        entries = procfile_entries()
        assert {"web", "worker", "beat"} <= set(entries)
        assert f"Started from the Procfile: {', '.join(entries)}" in output
        for name, command in entries.items():
            program = " ".join(command.split()[:6]).split(" $")[0].split(" ${")[0]
            assert any(program.replace("python ", "", 1) in line for line in running), (
                name,
                running,
            )
    finally:
        # What a terminal does on Ctrl-C: SIGINT to the foreground process group.
        if console.poll() is None:
            os.killpg(console.pid, signal.SIGINT)
        remaining = console.communicate(timeout=60)[0]
    assert console.returncode == 0, remaining
    assert "Stopped." in remaining
    deadline = time.monotonic() + 10
    while _processes_with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_with_marker(marker) == []


def test_a_taken_port_is_refused_at_once_naming_the_fix(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
            "SWITCHBOARD_VAR_DIR": str(tmp_path),
            "REDIS_URL": settings.REDIS_URL,
        }
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "manage.py", "console", "--port", str(port)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode != 0
    assert f"Port {port} is already in use" in result.stderr
    assert "PORT=" in result.stderr and "make run" in result.stderr
    assert time.monotonic() - started < 30  # before migrating or starting anything
    assert "Started from the Procfile" not in result.stdout


def test_the_demo_keeps_printing_the_same_api_key(db, settings, tmp_path):
    from config.demo import DEMO_HOST, demo_load
    from switchboard.models import ApiKey

    settings.SECRETS_DIR = tmp_path
    first = demo_load().api_key
    second = demo_load().api_key
    assert first == second
    assert ApiKey.objects.filter(host__name=DEMO_HOST).count() == 1
    # A key revoked meanwhile is replaced, once.
    ApiKey.objects.filter(host__name=DEMO_HOST).update(revoked_at="2026-01-01T00:00:00Z")
    third = demo_load().api_key
    assert third != first and demo_load().api_key == third
    assert (tmp_path / "demo_api_key").stat().st_mode & 0o077 == 0


def test_the_demo_leaves_health_with_charts_of_recent_activity(db, settings, tmp_path):
    from django.test import Client

    from config.demo import DEMO_ADMIN, DEMO_USER, demo_history_add, demo_load
    from consent.models import Injection
    from outbox.models import DeliveryAttempt
    from switchboard.models import User
    from tests.factories import make_server

    settings.SECRETS_DIR = tmp_path
    host = demo_load().host
    # What make run registers (the reference server), without its process.
    server = make_server(host, "Reference events server", "http://127.0.0.1:9/mcp")
    user = User.objects.get(host=host, external_id=DEMO_USER)
    demo_history_add(host=host, user=user, server=server)
    counts = DeliveryAttempt.objects.count(), Injection.objects.count()
    demo_history_add(host=host, user=user, server=server)  # a second run adds nothing yet
    assert (DeliveryAttempt.objects.count(), Injection.objects.count()) == counts

    staff = Client()
    staff.force_login(User.objects.get(email=DEMO_ADMIN))
    html = staff.get("/staff/health/").content.decode()
    assert "data-chart-empty" not in html  # every chart has something to draw
    assert 'aria-label="Delivery attempts per minute' in html and 'class="chart-bad"' in html
    assert 'data-delivered="6"' in html and 'data-failed="2"' in html
    assert "<td>Reference events server</td><td>2</td><td>1</td><td>1</td>" in html
    assert "1370 characters in the last 14 days" in html


def test_a_port_still_closing_from_a_previous_run_counts_as_free():
    """Ctrl-C, then make run again at once: the old run's connections wait in
    TIME_WAIT, which does not stop the servers from binding, so it must not
    stop the check either."""
    import socket

    from config.management.commands.console import _port_free_or_fail

    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    served, _ = listener.accept()
    served.close()  # the server closes first: its side waits in TIME_WAIT
    client.close()
    listener.close()
    _port_free_or_fail(port, variable="PORT", option="--port")  # no CommandError
