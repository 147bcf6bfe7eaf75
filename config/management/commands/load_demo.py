from django.core.management.base import BaseCommand

from config.demo import demo_load


class Command(BaseCommand):
    help = "Load (or refresh) the demo host, user and admin; print a fresh API key and login links."

    def add_arguments(self, parser):
        parser.add_argument("--refserver-url", default=None)

    def handle(self, refserver_url, **options):
        access = demo_load(refserver_url=refserver_url)
        self.stdout.write(f"Demo host: {access.host.name} ({access.host.id})")
        self.stdout.write(f"Demo user login link:  {access.user_login_url}")
        self.stdout.write(f"Demo admin login link: {access.admin_login_url}")
        self.stdout.write("Demo API key (shown once):")
        self.stdout.write(access.api_key)
