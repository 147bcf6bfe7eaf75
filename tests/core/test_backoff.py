"""The one backoff (``switchboard.backoff``): doubling from the base, capped,
and with jitter the equal jitter it documents."""

from __future__ import annotations

import statistics

import pytest

from switchboard.backoff import backoff


def test_it_doubles_from_the_base_up_to_the_cap():
    waits = [backoff(n, base=1.5, cap=20) for n in range(0, 7)]
    assert waits == [1.5, 1.5, 3, 6, 12, 20, 20]


def test_a_long_run_of_failures_stays_at_the_cap():
    assert backoff(10_000, base=2, cap=300) == 300


@pytest.mark.parametrize("failures", [1, 3, 8])
def test_jitter_draws_between_half_the_delay_and_all_of_it(failures):
    delay = backoff(failures, base=1, cap=30)
    draws = [backoff(failures, base=1, cap=30, jitter=True) for _ in range(4000)]
    assert all(delay / 2 <= d <= delay for d in draws)
    # Spread over the whole upper half, evenly (uniform: mean 3/4 of the
    # delay, each quarter of the range about a quarter of the draws).
    assert statistics.mean(draws) == pytest.approx(0.75 * delay, rel=0.03)
    quarters = [0, 0, 0, 0]
    for d in draws:
        quarters[min(int((d - delay / 2) / (delay / 8)), 3)] += 1
    assert all(800 <= q <= 1200 for q in quarters)
    assert min(draws) < 0.55 * delay and max(draws) > 0.95 * delay
