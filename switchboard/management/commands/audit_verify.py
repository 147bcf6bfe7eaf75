from django.core.management.base import BaseCommand, CommandError
from django.utils.dateparse import parse_datetime

from switchboard.models import Host
from switchboard.services.ledger_chain import ledger_verify


class Command(BaseCommand):
    help = (
        "Check the ledger's hash chain and its transparency log (against every "
        "checkpoint issued) of every host (or one) and report the first entry "
        "that does not hold; exits with status 1 when one is broken."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", help="a host's name or id (default: every host)")
        parser.add_argument("--since", help="start at the first entry at or after this ISO time")

    def handle(self, host=None, since=None, **options):
        start = None
        if since:
            start = parse_datetime(since)
            if start is None:
                raise CommandError(f"--since: not an ISO date and time: {since!r}")
        hosts = Host.objects.order_by("name")
        if host:
            hosts = hosts.filter(name=host) | Host.objects.filter(pk=host)
            if not hosts.exists():
                raise CommandError(f"no host named {host!r}")
        broken = False
        for found in hosts:
            result = ledger_verify(host_id=found.id, since=start)
            if result.ok:
                self.stdout.write(f"{found.name}: ok, {result.checked} entries checked")
            else:
                broken = True
                first = result.first_broken or {}
                where = ""
                if first.get("checkpoint") is not None:
                    where = f", against checkpoint {first['checkpoint']}"
                self.stdout.write(
                    f"{found.name}: BROKEN at entry {first.get('id')} ({first.get('reason')}"
                    f"{where}), after {result.checked} entries that held"
                )
        if broken:
            raise SystemExit(1)
