"""α, the per-guess acceptance rate (lab.core.trace.acceptance_rate): kept ÷ (kept + rejected), as the
lecture's E = (1 − α^(γ+1)) / (1 − α) assumes it, and the formula-vs-measurement reading derived from
its terms (lab.speed.gap) — on scripted rounds whose answers are known."""
import numpy as np
import pytest

from lab.core import analytic
from lab.core.trace import acceptance_rate
from tests.helpers import CHEAP, scripted_outcome as outcome, scripted_round as one, scripted_trace as trace
from uikit import verdicts


def by_definition(rounds) -> float | None:
    """α counted from each guess's own verdict: kept guesses ÷ guesses the target judged (kept or
    rejected); the ones dropped after a rejection were never judged."""
    kept = sum(d.accepted is True for r in rounds for d in r.guesses)
    rejected = sum(d.accepted is False for r in rounds for d in r.guesses)
    return kept / (kept + rejected) if kept + rejected else None


@pytest.mark.parametrize("rounds, alpha", [
    ([one(i, 4, 4) for i in range(3)], 1.0),                      # all kept: nothing rejected
    ([one(0, 4, 0)], 0.0),                                        # the first guess rejected, 3 dropped
    ([one(0, 4, 4), one(1, 4, 1), one(2, 4, 0), one(3, 3, 2)], 0.7),   # 7 kept, 3 rejected, 5 dropped
    ([one(0, 4, 1), one(1, 0, 0), one(2, 0, 0), one(3, 2, 2)], 0.75),  # plain steps count for nothing
])
def test_alpha_is_kept_over_kept_and_rejected(rounds, alpha):
    t = trace(rounds)
    assert t.alpha == pytest.approx(alpha) == by_definition(rounds)
    assert t.rejected == sum(r.n_accepted < r.gamma for r in rounds)
    assert t.kept_share == pytest.approx(t.accepted / t.drafted)       # the other figure, named apart


def test_alpha_leaves_out_the_dropped_guesses_that_kept_over_drafted_counts():
    t = trace([one(0, 4, 4), one(1, 4, 1), one(2, 4, 0), one(3, 3, 2)])
    assert (t.accepted, t.rejected, t.drafted) == (7, 3, 15)
    assert t.alpha == pytest.approx(7 / 10) and t.kept_share == pytest.approx(7 / 15)


def test_no_guess_no_alpha():
    assert trace([one(0, 0, 0), one(1, 0, 0)], "plain").alpha is None
    assert acceptance_rate(0, 0) is None and acceptance_rate(3, 1) == 0.75


def iid_rounds(rng, alpha: float, gamma: int, n: int):
    """n rounds of γ guesses, each kept with probability α given the ones before it were."""
    out = []
    for i in range(n):
        kept = 0
        while kept < gamma and rng.random() < alpha:
            kept += 1
        out.append(one(i, gamma, kept))
    return out


@pytest.mark.parametrize("alpha, gamma", [(0.3, 4), (0.48, 4), (0.6, 2), (0.8, 5), (0.9, 6)])
def test_E_of_alpha_matches_tokens_per_round_on_independent_guesses(alpha, gamma):
    """The lecture's premise holds here by construction, so E at the measured α must give the measured
    tokens per round (within 3% over 4000 rounds); E at kept ÷ drafted falls short of it."""
    t = trace(iid_rounds(np.random.default_rng(7), alpha, gamma, 4000))
    assert t.alpha == pytest.approx(alpha, abs=0.02)
    assert float(analytic.expected_tokens(t.alpha, gamma)) == pytest.approx(t.tokens_per_round, rel=0.03)
    assert float(analytic.expected_tokens(t.kept_share, gamma)) < 0.95 * t.tokens_per_round


def test_independent_rounds_leave_no_gap_to_explain():
    rounds = iid_rounds(np.random.default_rng(3), 0.6, 4, 400)
    o = outcome(rounds, CHEAP, draft=0.01)
    assert abs(o.predicted() - o.speedup) < 0.05 and verdicts.gap(o) == ""


def test_rounds_all_or_nothing_are_named_with_their_numbers():
    # 100 rounds kept all 4 guesses, 100 kept none: α = 400 ÷ 500 = 0.8, E = 3.36, but a round gave
    # 3.00 — further from E than 200 rounds of independent guesses stray (± 0.23)
    o = outcome([one(i, 4, 4 if i % 2 else 0) for i in range(200)], CHEAP, draft=0.01)
    assert o.alpha == pytest.approx(0.8) and o.tokens_per_call == pytest.approx(3.0)
    assert verdicts.reasons(o) == ["the guesses were kept unevenly across rounds: 100 of 200 rounds kept every guess "
                               "and 100 kept none, where independent guesses at α = 0.80 would give 82 and 40, so "
                               "a round gave 3.00 tokens, fewer than the 3.36 ± 0.23 of independent guesses"]
    assert "kept in runs" not in verdicts.gap(o)


def test_a_few_rounds_off_the_formula_are_called_chance_not_unevenness():
    # the same pattern over 16 rounds: independent guesses stray ± 0.80 over so few, so 3.00 is chance
    o = outcome([one(i, 4, 4 if i % 2 else 0) for i in range(16)], CHEAP, draft=0.01)
    assert verdicts.reasons(o) == ["chance: over 16 rounds, independent guesses at α = 0.80 give 3.36 ± 0.80 tokens "
                               "a round, and the 3.00 measured is within that"]


def test_kept_moments_are_those_of_independent_guesses():
    from lab.speed.gap import kept_moments
    rng = np.random.default_rng(5)
    kept = [r.n_accepted for r in iid_rounds(rng, 0.6, 4, 20000)]
    mean, var = kept_moments(0.6, 4)
    assert mean == pytest.approx(np.mean(kept), abs=0.03) and var == pytest.approx(np.var(kept), rel=0.03)
    assert mean == pytest.approx(float(analytic.expected_tokens(0.6, 4)) - 1)


def test_fewer_guesses_are_one_term_of_both_their_tokens_and_their_cost():
    # half the rounds are plain steps: fewer tokens a round (E 1.81, not 2.62) and cheaper rounds
    # (guesses 0.20, not 0.40): one term, their net effect on the speed-up
    o = outcome([one(i, 4, 2) if i % 2 else one(i, 0, 0) for i in range(10)], CHEAP, draft=0.01, drafter="hybrid")
    (reason,) = [r for r in verdicts.reasons(o) if r.startswith("the rounds made")]
    assert reason == ("the rounds made 2.0 guesses on average, not γ = 4 (5 plain steps without a guess), so the "
                      "formula at each round's own count gives E = 1.81 tokens, not 2.62, and their guesses cost "
                      "0.20 a round, not γc = 4·0.10 = 0.40")
    assert not any("verify" in r for r in verdicts.reasons(o))          # a verify pass costs 1 call on CHEAP


def test_the_terms_multiply_to_the_gap():
    """Every term is a factor on the speed-up; together they are measured ÷ predicted exactly."""
    from lab.speed.gap import terms
    from tests.helpers import DEAR
    rounds = [one(i, 4, 4 if i % 3 == 0 else 1) for i in range(11)] + [one(11, 2, 1), one(12, 0, 0)]
    o = outcome(rounds, DEAR, draft=0.017)
    product = float(np.prod([f for _, f, _ in terms(o)]))
    assert product == pytest.approx(o.speedup / o.predicted(), rel=0.01)     # α and c rounded as printed
    assert {name for name, _, _ in terms(o)} >= {"guesses", "verify"}


def test_a_faster_run_below_break_even_says_why_from_its_rounds():
    # every round keeps 3 of 4 then misses: α = 0.75, E = 3.05, yet a round gives 4 tokens — beyond
    # chance over 16 rounds; at c = 0.55 the break-even α is 0.77, and the run is faster all the same
    o = outcome([one(i, 4, 3) for i in range(16)], CHEAP, draft=0.055)
    assert o.alpha == pytest.approx(0.75) and o.speedup > 1 and o.break_even() > o.alpha
    text = verdicts.verdict(o)
    assert text.startswith(f"Faster here ({o.speedup:.2f}×)")
    assert f"though α = 0.75 is below the break-even α = {o.break_even():.2f}: " in text
    assert "0 of 16 rounds kept every guess and 0 kept none" in text and "more than the 3.05 ± 0.80" in text
    assert "kept in runs" not in text
