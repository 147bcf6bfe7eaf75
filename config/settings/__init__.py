"""Django settings (``DJANGO_SETTINGS_MODULE=config.settings``), read from the
environment (every variable: docs/configuration.md), one module per topic.
Each part imports what it needs of another by name, so the order below does
not matter; a setting lives in exactly one part."""

from config.settings.base import *  # noqa: F403
from config.settings.events import *  # noqa: F403
from config.settings.limits import *  # noqa: F403
from config.settings.stores import *  # noqa: F403
from config.settings.timings import *  # noqa: F403
from config.settings.wiring import *  # noqa: F403
from config.settings.workers import *  # noqa: F403
