"""What the ledger keeps of user-supplied inputs: their keys and a hash.

Subscription ``arguments`` and tool inputs can hold anything a user typed
(queries, paths, names). The ledger travels further than the rows they live
on (exports, drains, retention of years), so it records only the sorted
top-level keys and the SHA-256 of the RFC 8785 canonical JSON, which proves
a value without holding it. The values stay on their rows, under their own
retention.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

# detail key → the prefix of the two keys that replace it.
DIGESTED = {"arguments": "argument", "tool_input": "tool_input"}


def canonical_sha256(value: Any) -> str:
    return hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def input_digest(value: Any, *, prefix: str) -> dict[str, Any]:
    """``{<prefix>_keys, <prefix>s_sha256}`` as the contract names them
    (``argument_keys`` / ``arguments_sha256``, ``tool_input_keys`` /
    ``tool_input_sha256``)."""
    keys = sorted(value) if isinstance(value, dict) else []
    hash_name = "arguments_sha256" if prefix == "argument" else f"{prefix}_sha256"
    return {f"{prefix}_keys": keys, hash_name: canonical_sha256(value)}


def inputs_digested(detail: dict[str, Any]) -> dict[str, Any]:
    """``detail`` with every raw input (at any depth) replaced by its digest."""
    out: dict[str, Any] = {}
    for key, value in detail.items():
        if key in DIGESTED:
            out.update(input_digest(value, prefix=DIGESTED[key]))
        elif isinstance(value, dict):
            out[key] = inputs_digested(value)
        elif isinstance(value, list):
            out[key] = [inputs_digested(v) if isinstance(v, dict) else v for v in value]
        else:
            out[key] = value
    return out
