from django.core.management.base import BaseCommand, CommandError

from switchboard.actors import Actor
from switchboard.models import Host
from switchboard.services.hosts import host_create


class Command(BaseCommand):
    help = "Create a host (tenant) and print its first API key alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument(
            "--origin",
            action="append",
            default=[],
            help="An origin consent return_urls may point at (repeatable)",
        )

    def handle(self, name, origin, **options):
        if Host.objects.filter(name=name).exists():
            raise CommandError(
                f"a host named {name!r} already exists; use create_api_key to add a key"
            )
        host, key = host_create(
            name=name, actor=Actor.system("manage.py create_host"), allowed_origins=origin
        )
        self.stdout.write(f"Created host {host.name} ({host.id}). Its API key, shown only now:")
        self.stdout.write(key)
