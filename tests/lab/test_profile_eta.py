"""The estimate of how long measuring a cost profile takes, from three quick calls."""
import pytest

from lab.speed import costs, profile_eta
from lab.speed.costs import POSITIONS, PREFILL_TOKENS, RUNS
from lab.pairs.tiny import tiny_pair
from tests.helpers import made_profile


def test_flat_calls_add_up_round_by_round():
    # every call 10 ms, a draft call 2 ms: 17 verify calls + a draft + a prefill per round, RUNS + 1 rounds
    seconds = profile_eta.profile_seconds(0.01, 0.01, 0.002)
    assert seconds == pytest.approx((RUNS + 1) * (POSITIONS * 0.01 + 0.002 + 0.01) + 2 * 0.01)


def test_calls_that_grow_with_positions_cost_more():
    one, longest = 0.01, 0.01 + 0.001 * (POSITIONS - 1)      # 1 ms more per position
    verify = sum(0.01 + 0.001 * (k - 1) for k in range(1, POSITIONS + 1))
    prefill = 0.01 + 0.001 * (PREFILL_TOKENS - 1)
    assert profile_eta.profile_seconds(one, longest, 0.0) == pytest.approx((RUNS + 1) * (verify + prefill) + 2 * prefill)


def test_the_estimate_comes_before_the_services_shared_profile(tiny_service):
    seen = []

    def profile_of():
        seen.append("profile")
        return tiny_service.profiles.of()
    got = profile_eta.profile_with_eta(tiny_service.pair, seen.append, profile_of)
    assert got is tiny_service.profiles.of() is tiny_service.profiles.already_measured()
    assert len(seen) == 2 and seen[0] > 0 and seen[1] == "profile"     # the estimate first, then the profile


def test_without_a_service_the_pair_is_measured_there_and_then(monkeypatch):
    pair, seen, measured = tiny_pair(), [], made_profile()
    monkeypatch.setattr(costs, "measure_profile", lambda p: seen.append(p) or measured)
    assert profile_eta.profile_with_eta(pair, seen.append) is measured
    assert len(seen) == 2 and seen[0] > 0 and seen[1] is pair          # the estimate, then the timing
