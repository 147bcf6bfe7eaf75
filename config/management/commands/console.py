"""``manage.py console``: the whole of Switchboard on one machine.

Migrates, loads demo data, starts the reference MCP server and every process
of the ``Procfile`` (the web server, a Celery worker, beat), prints where to go, and on
Ctrl-C stops every child.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from config import supervisor as sv
from config.demo import demo_load
from switchboard.redis_resolve import resolve_redis_url


def _port_free_or_fail(port: int, *, variable: str, option: str) -> None:
    with socket.socket() as probe:
        # As the servers themselves bind: connections of a previous run that
        # are still closing (TIME_WAIT) do not make the port taken.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            suggestion = _free_port_near(port)
            raise CommandError(
                f"Port {port} is already in use (another Switchboard, or another program). "
                f"Choose a free one: {variable}={suggestion} make run "
                f"(or manage.py console {option} {suggestion})."
            ) from None


def _free_port_near(port: int) -> int:
    for candidate in range(port + 1, port + 50):
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return candidate
    return 0


class Command(BaseCommand):
    help = "Run the console with a demo MCP server and demo data (Ctrl-C stops everything)."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--refserver-port", type=int, default=int(os.environ.get("REFSERVER_PORT", "8765"))
        )
        parser.add_argument("--no-refserver", action="store_true")

    def handle(self, port, refserver_port, no_refserver, **options):
        # Fail now, with the fix, rather than after starting half the processes.
        _port_free_or_fail(port, variable="PORT", option="--port")
        if not no_refserver:
            _port_free_or_fail(refserver_port, variable="REFSERVER_PORT", option="--refserver-port")
        self._find_redis()
        call_command("migrate", interactive=False, verbosity=0)
        if "PUBLIC_BASE_URL" not in os.environ:
            # Links printed below must point at the port actually served.
            settings.PUBLIC_BASE_URL = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "REDIS_URL": settings.REDIS_URL,
            "DATABASE_URL": settings.DATABASE_URL,
            "PUBLIC_BASE_URL": settings.PUBLIC_BASE_URL,
            "ALLOW_PRIVATE_TARGETS": "1" if settings.ALLOW_PRIVATE_TARGETS else "0",
            "PYTHONUNBUFFERED": "1",
            # One scrape of the web process shows what every process did.
            **sv.metrics_dir_fresh(settings.VAR_DIR / "metrics"),
        }
        log_dir = settings.VAR_DIR / "logs"
        supervisor = sv.Supervisor(env=env, log_dir=log_dir)
        stopping = False

        def _stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, _stop)
        signal.signal(signal.SIGTERM, _stop)
        try:
            refserver_url = None
            if not no_refserver:
                child = supervisor.start("refserver", sv.refserver_argv(refserver_port))
                sv.wait_for_http(
                    f"http://127.0.0.1:{refserver_port}/healthz", process=child.process
                )
                refserver_url = f"http://127.0.0.1:{refserver_port}/mcp"
            # Exactly what production runs: every line of the Procfile.
            procfile_env = sv.procfile_env(
                {**env, "BIND": "127.0.0.1", "SWITCHBOARD_VAR_DIR": str(settings.VAR_DIR)},
                port=port,
            )
            started = {
                name: supervisor.start(name, sv.procfile_argv(command), extra_env=procfile_env)
                for name, command in sv.procfile_entries().items()
            }
            self.stdout.write(f"Started from the Procfile: {', '.join(started)}")
            web = started["web"]
            sv.wait_for_http(f"http://127.0.0.1:{port}/healthz", process=web.process, timeout=60)
            access = self._load_demo(refserver_url)
            self._announce(port, access, refserver_url, log_dir)
            while not stopping:
                dead = supervisor.dead_children()
                if dead:
                    names = ", ".join(f"{c.name} (exit {c.process.returncode})" for c in dead)
                    self.stderr.write(f"Stopping: {names} ended; see {log_dir}")
                    break
                time.sleep(0.5)
        finally:
            self.stdout.write("Stopping every process…")
            supervisor.stop_all()
            self.stdout.write("Stopped.")

    def _find_redis(self) -> None:
        """The Redis every process shares: REDIS_URL, else the local one, else
        the embedded server this starts (the settings only read REDIS_URL).
        When that is not the Redis the settings read, this command runs again
        with REDIS_URL set, so this process too (the demo data's broadcasts
        and tasks) uses the Redis its children get."""
        if os.environ.get("REDIS_URL"):
            return
        url, _ = resolve_redis_url(
            configured=None,
            embedded_port=settings.EMBEDDED_REDIS_PORT,
            workdir=settings.VAR_DIR / "redis",
        )
        os.environ["REDIS_URL"] = url
        if url != settings.REDIS_URL:
            self.stdout.write(f"Using the embedded Redis ({url}); starting again with it.")
            sys.stdout.flush()
            os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])

    def _load_demo(self, refserver_url):

        return demo_load(refserver_url=refserver_url)

    def _announce(self, port, access, refserver_url, log_dir):
        self.stdout.write(self.style.SUCCESS(f"Switchboard console: {settings.PUBLIC_BASE_URL}/"))
        self.stdout.write(f"  API docs:            {settings.PUBLIC_BASE_URL}/api/v1/docs")
        if refserver_url:
            self.stdout.write(f"  Reference MCP server: {refserver_url}")
        self.stdout.write(
            f"  Database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, "
            f"Redis: {settings.REDIS_URL}{self._embedded_or_not()}"
        )
        self.stdout.write(f"  Logs: {log_dir}")
        self.stdout.write(f"  Demo API key (host {access.host.name}): {access.api_key}")
        self.stdout.write(f"  Sign in as the demo admin: {access.admin_login_url}")
        self.stdout.write(f"  Sign in as the demo user:  {access.user_login_url}")
        self.stdout.write(
            "  Try organisation sign-in (SSO): in another terminal, "
            "`.venv/bin/python manage.py sso_demo` starts a test IdP, connects the demo "
            "host and prints whom to sign in as (README: Staff sign-in through your organisation)"
        )
        self.stdout.write("Press Ctrl-C to stop.")

    def _embedded_or_not(self) -> str:
        started_here = f"redis://127.0.0.1:{settings.EMBEDDED_REDIS_PORT}/0"
        return " (embedded)" if started_here == settings.REDIS_URL else ""
