from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"

    def ready(self) -> None:
        from consent.connections import usage_counter_register
        from hooks import receivers
        from switchboard import signals

        usage_counter_register("hooks", receivers.hook_calls)

        signals.user_erasing.connect(receivers.erase_user, dispatch_uid="hooks.erase_user")
