"""What removing a server takes with it, said in words before anyone confirms.

The core owns servers but not what the apps above it keep for them (consents,
subscriptions). Those apps register a counter here in their
``AppConfig.ready()``; the confirmation page lists every non-empty answer.
"""

from __future__ import annotations

from collections.abc import Callable

from switchboard.models import McpServer

# server -> a phrase such as "3 open consents of 2 users (revoked)", or "" for none
Counter = Callable[[McpServer], str]

_counters: dict[str, Counter] = {}


def retiring_counter_register(name: str, counter: Counter) -> None:
    _counters[name] = counter


def what_goes_with(server: McpServer) -> list[str]:
    """Everything removing ``server`` ends, one phrase per kind."""
    own = [
        plural(server.event_types.filter(removed_at__isnull=True).count(), "event type"),
        plural(
            server.hook_declarations.filter(removed_at__isnull=True).count(), "hook declaration"
        ),
    ]
    phrases = [p for p in own if p] + [counter(server) for counter in _counters.values()]
    return [phrase for phrase in phrases if phrase]


def plural(count: int, noun: str) -> str:
    if not count:
        return ""
    return f"{count} {noun}{'s' if count != 1 else ''}"
