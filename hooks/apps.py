from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"

    def ready(self) -> None:
        from hooks import receivers
        from switchboard import signals

        signals.user_erasing.connect(receivers.erase_user, dispatch_uid="hooks.erase_user")
