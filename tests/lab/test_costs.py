"""lab.speed.costs: one robust cost profile per pair, measured once and shared; lab.speed.timing's pieces."""
import threading

import numpy as np
import pytest
import torch

from lab.core import analytic
from lab.speed import costs
from lab.speed.timing import fixed_threads, interleaved, robust
from lab.pairs.tiny import tiny_pair
from tests.helpers import made_profile


@pytest.fixture(autouse=True)
def fresh():
    costs.forget()
    yield
    costs.forget()


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
    assert not p.busy and p.why_busy() == ""
    monkeypatch.setattr(costs, "load_average", lambda: costs.cores() + 1.5)
    loaded = costs.measure_profile(tiny_pair(), positions=5)
    assert loaded.busy and "unreliable" in loaded.why_busy() and f"load {loaded.load:.1f}" in loaded.why_busy()


def test_noisy_runs_flag_the_profile_busy(monkeypatch):
    monkeypatch.setattr(costs, "interleaved", lambda calls, runs: {n: [0.01, 0.03, 0.03, 0.04, 0.01] for n in calls})
    monkeypatch.setattr(costs, "load_average", lambda: 0.0)
    p = costs.measure_profile(tiny_pair(), positions=3)
    assert p.spread == pytest.approx(2.0) and p.busy and "differed by 200%" in p.why_busy()


def test_a_real_profile_of_the_tiny_pair():
    p = costs.measure_profile(tiny_pair(), runs=2)
    assert p.max_positions == analytic.MAX_GAMMA + 1 and p.verify_units(1) == 1.0
    assert all(s > 0 for s in p.verify_seconds) and p.draft_seconds > 0 and p.prefill_seconds > 0
    assert p.prefill_tokens == costs.PREFILL_TOKENS and p.threads == torch.get_num_threads()


def test_the_profile_is_measured_once_for_two_callers(monkeypatch):
    started, release, calls = threading.Event(), threading.Event(), []

    def slow(pair):
        calls.append(pair)
        started.set()
        release.wait(5)
        return made_profile()
    monkeypatch.setattr(costs, "measure_profile", slow)
    pair, got = tiny_pair(), []
    first = threading.Thread(target=lambda: got.append(costs.profile(pair)))
    first.start()
    assert started.wait(5)
    second = threading.Thread(target=lambda: got.append(costs.profile(pair)))   # arrives mid-measurement
    second.start()
    release.set()
    first.join(5), second.join(5)
    assert len(calls) == 1 and len(got) == 2 and got[0] is got[1]
    assert costs.profile(pair) is got[0] and len(calls) == 1          # later callers share it too
    other = tiny_pair(seed=1)                                         # another pair: its own profile
    costs.profile(other)
    assert calls == [pair, other]


def test_a_busy_profile_is_measured_again_only_when_asked(monkeypatch):
    results = iter([made_profile(busy=True), made_profile(), made_profile(busy=True)])
    monkeypatch.setattr(costs, "measure_profile", lambda pair: next(results))
    pair = tiny_pair()
    busy = costs.profile(pair)
    assert busy.busy and costs.profile(pair) is busy
    calm = costs.profile(pair, retry_busy=True)
    assert not calm.busy and costs.profile(pair, retry_busy=True) is calm   # calm: kept


def test_a_class_retrying_a_fresh_busy_profile_shares_it(monkeypatch):
    import time
    results = iter([made_profile(busy=True, measured_at=time.monotonic()), made_profile()])
    monkeypatch.setattr(costs, "measure_profile", lambda pair: next(results))
    pair = tiny_pair()
    busy = costs.profile(pair)
    assert all(costs.profile(pair, retry_busy=True) is busy for _ in range(5))    # measured just now
    monkeypatch.setattr(costs.time, "monotonic", lambda: busy.measured_at + costs.RETRY_AFTER + 1)
    assert not costs.profile(pair, retry_busy=True).busy


def test_a_failed_measurement_is_not_shared(monkeypatch):
    outcomes = iter([RuntimeError("out of memory"), made_profile()])

    def flaky(pair):
        out = next(outcomes)
        if isinstance(out, Exception):
            raise out
        return out
    monkeypatch.setattr(costs, "measure_profile", flaky)
    pair = tiny_pair()
    with pytest.raises(RuntimeError):
        costs.profile(pair)
    assert costs.profile(pair).verify_seconds == (1.0,) * 5


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


def test_each_draft_of_a_service_has_its_own_shared_profile(monkeypatch):
    monkeypatch.setattr(costs, "measure_profile", lambda pair: made_profile(pair=pair.name))
    pairs = {"aligned": tiny_pair(), "random": tiny_pair(seed=2)}

    class Service:
        def pair_for(self, draft="aligned"):
            return pairs[draft]
    svc = Service()
    aligned = costs.of_service(svc)
    assert aligned is costs.profile(pairs["aligned"]) is costs.of_service(svc, "aligned")
    assert costs.of_service(svc, "random") is not aligned


def test_known_is_the_measured_profile_and_never_measures_or_loads(monkeypatch):
    from lab.pairs.variants import DraftVariants
    calls = []
    monkeypatch.setattr(costs, "measure_profile", lambda pair: calls.append(pair.name) or made_profile(pair=pair.name))

    class Service:        # serving.service.ModelService's pair and variants
        pair, variants = tiny_pair(), DraftVariants()
    svc = Service()
    assert costs.already_measured(svc) is None and costs.already_measured(svc, "random") is None
    assert calls == []
    aligned = costs.profile(svc.pair)
    assert costs.already_measured(svc) is aligned
    assert costs.already_measured(svc, "random") is None          # random: not loaded yet
    random_pair = svc.variants.pair(svc.pair, "random")
    assert costs.already_measured(svc, "random") is None and calls == [svc.pair.name]      # loaded, not measured
    assert costs.profile(random_pair) is costs.already_measured(svc, "random") is not aligned
