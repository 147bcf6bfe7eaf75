"""`--dialect`: what differs between the digest's sketch (the default), the
Final extension SEP-3415 and the dialect ChatGPT's servers speak — exactly
the differences docs/events-client.md §8 describes, so a client can be tested
against each.

| | sketch | sep-3415 | chatgpt |
|---|---|---|---|
| events capability | every location | `extensions` only | top-level only |
| typed errors | -32011…-32015 | -32023…-32027 | -32011…-32015; unknown event -32602 |
| `resultType` on events results | absent | `"complete"` | absent |
| unsubscribe without `delivery.mode` | accepted | accepted | -32602 |
| unsubscribe of an unknown one | -32011 | -32023 | `{}` |
| `gap`, `terminated`, `deliveryStatus` | sent | sent | never |
| receiver answers 410 | subscription gone | that delivery dropped | subscription gone |
"""

from __future__ import annotations

from typing import Any

SKETCH = "sketch"
SEP = "sep-3415"
CHATGPT = "chatgpt"
DIALECTS = (SKETCH, SEP, CHATGPT)

_SEP_CODES = {-32011: -32023, -32012: -32024, -32013: -32025, -32014: -32026, -32015: -32027}


def code(dialect: str, sketch_code: int) -> int:
    """The number this dialect uses for a sketch-numbered typed error."""
    return _SEP_CODES.get(sketch_code, sketch_code) if dialect == SEP else sketch_code


def error_object(dialect: str, err: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC error object (e.g. in a `terminated` envelope) renumbered."""
    number = err.get("code")
    return {**err, "code": code(dialect, number)} if isinstance(number, int) else err


def events_locations(dialect: str, default: list[str]) -> list[str]:
    if dialect == SEP:
        return ["extensions"]
    if dialect == CHATGPT:
        return ["toplevel"]
    return list(default)


def sends_envelopes(dialect: str) -> bool:
    """`gap` and `terminated` exist (not in the ChatGPT dialect)."""
    return dialect != CHATGPT


def gone_ends_subscription(dialect: str) -> bool:
    """A receiver's 410 ends the whole subscription (SEP: only that delivery)."""
    return dialect != SEP
