from django.core.management.base import BaseCommand, CommandError

from switchboard.actors import Actor
from switchboard.models import Host
from switchboard.services.hosts import api_key_create


class Command(BaseCommand):
    help = "Add an API key to a host (by name or id) and print it alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("host")
        parser.add_argument("--name", default="")

    def handle(self, host, name, **options):
        found = Host.objects.filter(name=host).first() or Host.objects.filter(pk=host).first()
        if found is None:
            raise CommandError(f"no host named {host!r}")
        key, plaintext = api_key_create(
            host=found, name=name, actor=Actor.system("manage.py create_api_key")
        )
        self.stdout.write(f"New API key {key.prefix}… for {found.name}, shown only now:")
        self.stdout.write(plaintext)
