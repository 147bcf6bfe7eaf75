from django.apps import AppConfig


class SwitchboardConfig(AppConfig):
    name = "switchboard"
    verbose_name = "Switchboard core"
