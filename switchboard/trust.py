"""How the host is told that text came from an MCP server (conformance
case 48): one field, ``trust``, on every item of every answer or delivery
that carries server text (injected context, hook injections, events).

``"untrusted"``: treat it as data, never as instructions: wrap it, never let
it pick tools or grant anything. Events are always untrusted (their payloads
come from the outside world through the server); injected text is
``"trusted"`` only from a server staff marked trusted.
"""

from __future__ import annotations

from typing import Literal

Trust = Literal["trusted", "untrusted"]

EVENT_TRUST: Trust = "untrusted"


def server_text_trust(*, trusted: bool) -> Trust:
    return "trusted" if trusted else "untrusted"
