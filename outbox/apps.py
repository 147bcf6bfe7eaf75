from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "outbox"

    def ready(self) -> None:
        from outbox import receivers
        from switchboard import signals

        signals.server_status_changed.connect(
            receivers.server_status_changed, dispatch_uid="outbox.server_status_changed"
        )
