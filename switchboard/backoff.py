"""The one capped exponential backoff (subscriptions, server syncs, the
session worker's reconnects, the audit drain)."""

from __future__ import annotations

import random

# 2**62 times any base is past every cap; a larger exponent would only risk
# an OverflowError converting the int to a float.
_EXPONENT_MAX = 62


def backoff(failures: int, *, base: float, cap: float, jitter: bool = False) -> float:
    """Seconds to wait after ``failures`` failures in a row: ``base`` after
    the first, doubling with each one after, never more than ``cap``.

    With ``jitter``, *equal jitter*: a uniform draw between half that delay
    and all of it. Many streams that failed together (a server restarting)
    come back spread over the upper half instead of all at once, and none
    comes back sooner than half the delay, so a server that stays down is
    not hammered (full jitter, a draw from zero, would retry some at once)."""
    exponent = min(max(failures - 1, 0), _EXPONENT_MAX)
    delay = min(base * 2.0**exponent, cap)
    if jitter:
        return random.uniform(delay / 2, delay)
    return delay
