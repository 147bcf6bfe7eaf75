"""Which events dialect a server speaks, and one error vocabulary for both
(docs/events-client.md §8).

- **SEP-3415** (the Final extension, ``io.modelcontextprotocol/events``): the
  capability sits under ``capabilities.extensions``; typed errors are
  -32023…-32027 (provisional numbers).
- **ChatGPT** (OpenAI's MCP Events, ``mcp-webhook-events``, the sketch-era
  servers): a top-level ``capabilities.events`` (some sketch servers put it
  under ``experimental``); typed errors are -32011…-32015.

Detection is by where the capability sits (case 50). A server that shows it in
both places is SEP, unconfirmed: its first typed error confirms that or flips
it. One found in a single place is settled by that place: afterwards a code
of the other dialect is *unexpected* — logged, never guessed at (case 52).
Staff can override the detection per server.

The typed codes mean events errors only on answers to ``events/*``
requests: the Final text calls -32023…-32027 general-purpose, so the same
number from ``initialize``, ``tools/call`` or anything else says nothing
about events (``classify(..., method=)``, ``is_events_answer``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

log = logging.getLogger(__name__)

SEP = "sep-3415"
CHATGPT = "chatgpt"
AUTO = "auto"
DIALECTS = (SEP, CHATGPT)
OVERRIDES = (AUTO, SEP, CHATGPT)


class EventsError(StrEnum):
    """What a JSON-RPC error from an ``events/*`` call means, whatever its number."""

    INVALID_PARAMS = "invalid_params"
    NOT_FOUND = "not_found"
    FORBIDDEN = "forbidden"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    UNSUPPORTED = "unsupported"
    CALLBACK_ENDPOINT = "callback_endpoint"
    NOT_OFFERED = "not_offered"  # -32601: the server has no events at all
    HEADER_MISMATCH = "header_mismatch"  # -32020: a bug in our request headers
    MISSING_CLIENT_CAPABILITY = "missing_client_capability"  # -32021
    UNSUPPORTED_PROTOCOL_VERSION = "unsupported_protocol_version"  # -32022
    UNEXPECTED = "unexpected"  # a code outside the server's dialect: not mapped
    OTHER = "other"  # any other JSON-RPC error (-32603, …)


# Codes every dialect shares (JSON-RPC and the core protocol, BASE basic/index).
_COMMON = {
    -32602: EventsError.INVALID_PARAMS,
    -32601: EventsError.NOT_OFFERED,
    -32020: EventsError.HEADER_MISMATCH,
    -32021: EventsError.MISSING_CLIENT_CAPABILITY,
    -32022: EventsError.UNSUPPORTED_PROTOCOL_VERSION,
}
_TYPED = {
    SEP: {
        -32023: EventsError.NOT_FOUND,
        -32024: EventsError.FORBIDDEN,
        -32025: EventsError.RESOURCE_EXHAUSTED,
        -32026: EventsError.UNSUPPORTED,
        -32027: EventsError.CALLBACK_ENDPOINT,
    },
    CHATGPT: {
        -32011: EventsError.NOT_FOUND,
        -32012: EventsError.FORBIDDEN,
        -32013: EventsError.RESOURCE_EXHAUSTED,
        -32014: EventsError.UNSUPPORTED,
        -32015: EventsError.CALLBACK_ENDPOINT,
        -32016: EventsError.NOT_FOUND,  # an older draft's "subscription not found"
    },
}
# The legacy range, to which SEP servers must give no meaning (BASE basic/index).
_LEGACY = range(-32019, -31999)
_RESERVED = range(-32099, -32019)


def dialect_of_code(code: int) -> str | None:
    """The dialect a typed error code belongs to, if it belongs to one."""
    for dialect, codes in _TYPED.items():
        if code in codes:
            return dialect
    return None


def is_events_answer(method: str | None) -> bool:
    """Whether an error came back on an ``events/*`` request. None: it did
    by nature (an error inside a webhook ``terminated`` envelope)."""
    return method is None or method.startswith("events/")


def classify(code: int, *, dialect: str, method: str | None = None) -> EventsError:
    """The meaning of ``code`` from a server of ``dialect``; a typed code of
    the other dialect (or an unknown one in a reserved range) is UNEXPECTED.
    On an answer to anything but ``events/*`` (``method``) only the codes of
    JSON-RPC and the core protocol mean something: the rest is OTHER."""
    if not is_events_answer(method):
        known = _COMMON.get(code)
        return known if known not in (None, EventsError.NOT_OFFERED) else EventsError.OTHER
    if code in _COMMON:
        return _COMMON[code]
    if dialect not in DIALECTS:
        # Not detected yet (a server registered before detection, or one the
        # host declares by hand): the code speaks for itself.
        dialect = dialect_of_code(code) or dialect
    typed = _TYPED.get(dialect, {})
    if code in typed:
        return typed[code]
    if dialect_of_code(code) is not None or code in _LEGACY or code in _RESERVED:
        log.warning("events error %s is not a code of the %s dialect: not mapped", code, dialect)
        return EventsError.UNEXPECTED
    return EventsError.OTHER


@dataclass(frozen=True)
class Detection:
    dialect: str  # "" = no events capability: no events/* call at all
    confirmed: bool  # settled; a contradicting code is unexpected, not a flip
    evidence: str  # what it rests on, for the server page and the ledger


def detect(locations: Iterable[str]) -> Detection:
    """Classify (case 50), from where the events capability was found."""
    found = set(locations)
    elsewhere = found & {"toplevel", "experimental", "discover"}
    if "extensions" in found and elsewhere:
        return Detection(SEP, False, "capability under extensions and at the top level")
    if "extensions" in found:
        return Detection(SEP, True, "capability under extensions")
    if elsewhere:
        where = "experimental" if elsewhere == {"experimental"} else "the top level"
        return Detection(CHATGPT, True, f"capability at {where}")
    return Detection("", True, "no events capability")


def confirm(current: Detection, code: int) -> Detection:
    """Confirm (docs/events-client.md §8): the first typed error settles an unconfirmed dialect,
    flipping it when the code belongs to the other one."""
    if current.confirmed or not current.dialect:
        return current
    proves = dialect_of_code(code)
    if proves is None:
        return current
    if proves != current.dialect:
        log.warning("events error %s flips the dialect %s to %s", code, current.dialect, proves)
        return Detection(proves, True, f"error {code} answered")
    return Detection(current.dialect, True, f"{current.evidence}; error {code} answered")
