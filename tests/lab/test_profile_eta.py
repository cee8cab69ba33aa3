"""The estimate of how long measuring a cost profile takes, from three quick calls."""
import pytest

from lab.speed import costs, profile_eta
from lab.speed.costs import POSITIONS, PREFILL_TOKENS, RUNS
from lab.pairs.tiny import tiny_pair


def test_flat_calls_add_up_round_by_round():
    # every call 10 ms, a draft call 2 ms: 17 verify calls + a draft + a prefill per round, RUNS + 1 rounds
    seconds = profile_eta.profile_seconds(0.01, 0.01, 0.002)
    assert seconds == pytest.approx((RUNS + 1) * (POSITIONS * 0.01 + 0.002 + 0.01) + 2 * 0.01)


def test_calls_that_grow_with_positions_cost_more():
    one, longest = 0.01, 0.01 + 0.001 * (POSITIONS - 1)      # 1 ms more per position
    verify = sum(0.01 + 0.001 * (k - 1) for k in range(1, POSITIONS + 1))
    prefill = 0.01 + 0.001 * (PREFILL_TOKENS - 1)
    assert profile_eta.profile_seconds(one, longest, 0.0) == pytest.approx((RUNS + 1) * (verify + prefill) + 2 * prefill)


def test_the_estimate_comes_before_the_shared_profile():
    pair, seen = tiny_pair(), []
    got = profile_eta.profile_with_eta(pair, seen.append)
    assert got is costs.profile(pair)
    assert len(seen) == 1 and seen[0] > 0
