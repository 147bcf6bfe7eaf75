from django.core.management.base import BaseCommand, CommandError

from switchboard.actors import Actor
from switchboard.models import Host
from switchboard.services.users import login_link_create, staff_create


class Command(BaseCommand):
    help = "Create (or update) a staff account and print a one-time login link on the last line."

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--host", required=True)
        parser.add_argument("--role", required=True, choices=["admin", "auditor"])

    def handle(self, email, host, role, **options):
        found = Host.objects.filter(name=host).first() or Host.objects.filter(pk=host).first()
        if found is None:
            raise CommandError(f"no host named {host!r}")
        actor = Actor.system("manage.py create_staff")
        user = staff_create(host=found, email=email, role=role, actor=actor)
        url, link = login_link_create(user=user, actor=actor)
        self.stdout.write(
            f"{email} is {role} of {found.name}. One-time login link (until {link.expires_at:%H:%M:%S} UTC):"
        )
        self.stdout.write(url)
