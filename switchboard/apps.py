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
