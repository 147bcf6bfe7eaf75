from django.apps import AppConfig


class ConfigConfig(AppConfig):
    """Installed only for its management commands (console, load_demo)."""

    name = "config"
    label = "config"
