"""lab.speed.costs: one robust cost profile per pair (shared by a cache, lab.speed.profilecache, tested in
test_profilecache.py; a server's is its model service's, tests/serving/test_serviceprofiles.py);
lab.speed.timing's pieces."""

import numpy as np
import pytest
import torch

from lab.core import analytic
from lab.speed import costs
from lab.speed.timing import fixed_threads, interleaved, robust
from lab.pairs.tiny import tiny_pair
from tests.helpers import made_profile
from uikit.verdicts import why_busy


def test_robust_keeps_the_fastest_run_and_the_spread_of_the_median():
    assert robust([3.0, 1.0, 2.0, 5.0, 1.0]) == (1.0, 1.0)     # median 2 is 100% above the fastest
    assert robust([2.0, 2.0, 2.0]) == (2.0, 0.0)


def test_interleaved_warms_up_then_runs_every_call_in_turn():
    order = []
    calls = {"a": lambda: order.append("a") or 1.0, "b": lambda: order.append("b") or 2.0}
    times = interleaved(calls, runs=2)
    assert order == ["a", "b"] * 3                              # one uncounted warm-up round
    assert times == {"a": [1.0, 1.0], "b": [2.0, 2.0]}


def test_threads_are_fixed_while_timing_and_restored():
    before = torch.get_num_threads()
    with fixed_threads(1) as n:
        assert n == 1 and torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_busy_when_runs_differ_or_the_load_passes_the_cores():
    assert not costs.is_busy(0.1, 1.0, 2)
    assert costs.is_busy(0.6, 1.0, 2)              # the median run 60% above the fastest
    assert costs.is_busy(0.1, 2.5, 2)              # more waiting work than cores


def test_a_profile_keeps_the_fastest_of_interleaved_runs(monkeypatch):
    def fake(calls, runs):
        assert runs == costs.RUNS
        return {name: ([0.010, 0.002, 0.003, 0.004, 0.002] if name == "draft" else [0.02, 0.01, 0.01, 0.01, 0.05])
                for name in calls}
    monkeypatch.setattr(costs, "interleaved", fake)
    monkeypatch.setattr(costs, "load_average", lambda: 0.5)
    p = costs.measure_profile(tiny_pair(), positions=5)
    assert p.draft_seconds == 0.002 and p.verify_seconds == (0.01,) * 5 and p.prefill_seconds == 0.01
    assert p.c == pytest.approx(0.2) and p.spread == pytest.approx(0.0)
    assert not p.busy and why_busy(p) == ""
    monkeypatch.setattr(costs, "load_average", lambda: costs.cores() + 1.5)
    loaded = costs.measure_profile(tiny_pair(), positions=5)
    assert loaded.busy and "unreliable" in why_busy(loaded) and f"load {loaded.load:.1f}" in why_busy(loaded)


def test_noisy_runs_flag_the_profile_busy(monkeypatch):
    monkeypatch.setattr(costs, "interleaved", lambda calls, runs: {n: [0.01, 0.03, 0.03, 0.04, 0.01] for n in calls})
    monkeypatch.setattr(costs, "load_average", lambda: 0.0)
    p = costs.measure_profile(tiny_pair(), positions=3)
    assert p.spread == pytest.approx(2.0) and p.busy and "differed by 200%" in why_busy(p)


def test_a_real_profile_of_the_tiny_pair():
    p = costs.measure_profile(tiny_pair(), runs=2)
    assert p.max_positions == analytic.MAX_GAMMA + 1 and p.verify_units(1) == 1.0
    assert all(s > 0 for s in p.verify_seconds) and p.draft_seconds > 0 and p.prefill_seconds > 0
    assert p.prefill_tokens == costs.PREFILL_TOKENS and p.threads == torch.get_num_threads()


def test_with_verify_passes_of_one_unit_the_profile_is_the_lecture():
    p = made_profile(verify=[0.5] * 5, draft=0.05)                      # every pass as dear as one position
    assert p.c == pytest.approx(0.1)
    assert p.speedup(0.8, 4) == pytest.approx(float(analytic.speedup(0.8, 4, 0.1)))


def test_measured_verify_costs_enter_the_round_cost():
    p = made_profile(verify=[1.0, 1.2, 1.5, 2.0, 3.0], draft=0.2)
    assert np.allclose(p.round_cost([1, 2, 4]), [1.2 + 0.2, 1.5 + 0.4, 3.0 + 0.8])
    assert p.round_cost(2, c=0.0) == pytest.approx(1.5)
    assert p.speedup(0.5, 2) == pytest.approx(float(analytic.expected_tokens(0.5, 2)) / 1.9)
    assert [v.ratio for v in p.verify_costs(3)] == [1.0, 1.2, 1.5]


def test_prefill_is_read_from_the_measured_points():
    p = made_profile(verify=[1.0, 1.2, 1.5, 2.0, 3.0], prefill=7.0)      # 8 tokens: 7 units
    assert p.prefill_units(0) == 0.0 and p.prefill_units(3) == 1.5
    assert p.prefill_units(8) == pytest.approx(7.0)                # the measured prefill
    assert p.prefill_units(11) == pytest.approx(7.0 + 3 * (7.0 - 3.0) / 3)   # on the same line
    with pytest.raises(ValueError):
        p.verify_units(6)

