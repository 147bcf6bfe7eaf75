from django.apps import AppConfig


class SwitchboardConfig(AppConfig):
    name = "switchboard"
    verbose_name = "Switchboard core"

    def ready(self) -> None:
        from switchboard import receivers  # noqa: F401  (connects them)
        from switchboard.selectors import servers_cached  # noqa: F401  (connects its receivers)
        from switchboard.services.server_listen import LISTEN_KIND
        from switchboard.sessions.registry import held_kind_register

        held_kind_register(LISTEN_KIND)
        # Every process (web, worker, beat, session worker) sets Django up
        # before it serves: tracing starts here when configured.
        from switchboard.telemetry import tracing_setup

        tracing_setup()
