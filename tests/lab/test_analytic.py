import numpy as np
import pytest

from lab.core import analytic

# Seed 002's table: (α, γ, α^(γ+1), E, net speed-up at c = 0.1).
SEED_TABLE = [(0.8, 4, 0.328, 3.36, 2.40), (0.9, 4, 0.590, 4.10, 2.93),
              (0.5, 4, 0.031, 1.94, 1.38), (0.8, 2, 0.512, 2.44, 2.03)]


@pytest.mark.parametrize("alpha, gamma, power, tokens, speed", SEED_TABLE)
def test_seed_table(alpha, gamma, power, tokens, speed):
    assert round(alpha ** (gamma + 1), 3) == power
    assert round(float(analytic.expected_tokens(alpha, gamma)), 2) == tokens
    assert round(float(analytic.speedup(alpha, gamma, 0.1)), 2) == speed


def test_expected_tokens_limits_and_vectorised():
    e = analytic.expected_tokens(np.array([0.0, 0.5, 1.0]), 4)
    assert e.tolist() == [1.0, 1.9375, 5.0]
    # E is the mean of a truncated geometric: check against the sum Σ_{k=0..γ} α^k.
    for a in np.linspace(0, 0.999, 17):
        assert analytic.expected_tokens(a, 6) == pytest.approx(sum(a ** k for k in range(7)))


def test_round_cost_and_slower_case():
    assert analytic.round_cost(5, 0.3) == pytest.approx(2.5)
    assert analytic.speedup(0.6, 5, 0.3) < 1          # chapter 10's question: slower


def test_break_even_alpha_is_the_root():
    for gamma, c in [(1, 0.05), (4, 0.1), (5, 0.3), (8, 0.2)]:
        a = float(analytic.break_even_alpha(gamma, c))
        assert analytic.speedup(a, gamma, c) == pytest.approx(1.0, abs=1e-8)
        assert analytic.speedup(a - 0.01, gamma, c) < 1 < analytic.speedup(min(1, a + 0.01), gamma, c)
    assert np.isnan(analytic.break_even_alpha(4, 1.2))   # a draft slower than the target never pays


def test_best_gamma_matches_brute_force():
    for alpha, c in [(0.8, 0.1), (0.5, 0.05), (0.95, 0.02), (0.3, 0.3)]:
        g, s = analytic.best_gamma(alpha, c, max_gamma=16)
        brute = max(range(1, 17), key=lambda k: analytic.speedup(alpha, k, c))
        assert int(g) == brute and s == pytest.approx(analytic.speedup(alpha, brute, c))


@pytest.mark.parametrize("call", [
    lambda: analytic.expected_tokens(1.2, 4), lambda: analytic.expected_tokens(-0.1, 4),
    lambda: analytic.expected_tokens(float("nan"), 4), lambda: analytic.expected_tokens(0.5, 0),
    lambda: analytic.expected_tokens(0.5, 2.5), lambda: analytic.speedup(0.5, 4, -1),
    lambda: analytic.speedup(0.5, 4, float("nan")), lambda: analytic.break_even_alpha(0, 0.1),
])
def test_out_of_range_raises_clear_value_error(call):
    with pytest.raises(ValueError, match=r"(α|γ|c) \("):
        call()
