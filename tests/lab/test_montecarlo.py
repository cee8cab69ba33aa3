import numpy as np
import pytest
import torch

from lab.core import montecarlo as mc
from lab.core.sampling import residual


def random_pair(v=12, seed=0):
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(v) * 0.7), rng.dirichlet(np.ones(v) * 0.7)
    return p, q


@pytest.mark.parametrize("seed", range(5))
def test_residual_rule_reproduces_p_exactly(seed):
    p, q = random_pair(seed=seed)
    assert np.allclose(mc.output_distribution(p, q, "residual"), p)


@pytest.mark.parametrize("rule", ["target", "draft", "keep"])
def test_other_rules_are_biased(rule):
    p, q = random_pair()
    assert mc.total_variation(mc.output_distribution(p, q, rule), p) > 0.05


def test_closed_forms():
    p, q = random_pair(seed=3)
    r = mc.rejection_mass(p, q)
    assert r == pytest.approx(np.clip(q - p, 0, None).sum())
    assert np.allclose(mc.output_distribution(p, q, "keep"), q)
    assert np.allclose(mc.output_distribution(p, q, "target"), np.minimum(p, q) + r * p)
    assert np.allclose(mc.output_distribution(p, q, "draft"), np.minimum(p, q) + r * q)


def test_residual_matches_lab_sampling():
    p, q = random_pair(seed=4)
    ref = residual(torch.tensor(p), torch.tensor(q)).numpy()
    assert np.allclose(mc.correction_source(p, q, "residual"), ref)


@pytest.mark.parametrize("rule", list(mc.RULES))
def test_simulation_converges_to_the_exact_output(rule):
    p, q = random_pair(seed=1)
    n = 200_000
    counts = mc.simulate(p, q, rule, n, seed=7)
    assert counts.sum() == n
    exact = mc.output_distribution(p, q, rule)
    assert mc.total_variation(counts / n, exact) < 4 * mc.noise_level(exact, n)


def test_simulation_is_seeded():
    p, q = random_pair()
    assert (mc.simulate(p, q, "residual", 1000, seed=3) == mc.simulate(p, q, "residual", 1000, seed=3)).all()


def test_equal_distributions_never_reject():
    p = np.array([0.5, 0.3, 0.2])
    assert mc.rejection_mass(p, p) == 0
    assert np.allclose(mc.output_distribution(p, p, "residual"), p)


def test_bin_tail_and_noise():
    d = np.array([0.5, 0.2, 0.2, 0.1])
    assert np.allclose(mc.bin_tail(d, [0, 2]), [0.5, 0.2, 0.3])
    assert mc.noise_level(d, 10_000) < mc.noise_level(d, 100)


def test_rejects_bad_input():
    with pytest.raises(ValueError):
        mc.output_distribution([0.5, 0.5], [1.0], "residual")
    with pytest.raises(ValueError):
        mc.simulate([0.5, 0.5], [0.5, 0.5], "nonsense", 10)
