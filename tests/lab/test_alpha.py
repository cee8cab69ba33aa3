"""α, the per-guess acceptance rate (lab.core.trace.acceptance_rate): kept ÷ (kept + rejected), as the
lecture's E = (1 − α^(γ+1)) / (1 − α) assumes it, and the formula-vs-measurement reading derived from
its terms (lab.speed.gap) — on scripted rounds whose answers are known."""
import numpy as np
import pytest

from lab.core import analytic
from lab.core.trace import acceptance_rate
from tests.helpers import CHEAP, scripted_outcome as outcome, scripted_round as one, scripted_trace as trace


def by_definition(rounds) -> float | None:
    """α counted from each guess's own verdict: kept guesses ÷ guesses the target judged (kept or
    rejected); the ones dropped after a rejection were never judged."""
    kept = sum(d.accepted is True for r in rounds for d in r.drafts)
    rejected = sum(d.accepted is False for r in rounds for d in r.drafts)
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
    assert abs(o.predicted() - o.speedup) < 0.05 and o.gap() == ""


def test_rounds_all_or_nothing_are_named_with_their_numbers():
    # 8 rounds kept all 4 guesses, 8 kept none: α = 32 ÷ 40 = 0.8, E = 3.36, but a round gave 3.00
    o = outcome([one(i, 4, 4 if i % 2 else 0) for i in range(16)], CHEAP, draft=0.01)
    assert o.alpha == pytest.approx(0.8) and o.tokens_per_call == pytest.approx(3.0)
    assert o.gap_reasons() == ["the guesses were kept unevenly across rounds: 8 of 16 rounds kept every guess and "
                               "8 kept none, where independent guesses at α = 0.80 would give 6.6 and 3.2, so a "
                               "round gave 3.00 tokens, fewer than the 3.36 of independent guesses"]
    assert "kept in runs" not in o.gap()


def test_plain_steps_are_named_as_fewer_guesses_with_both_their_terms():
    # half the rounds are plain steps: the formula's rounds of γ = 4 guesses are not these
    o = outcome([one(i, 4, 2) if i % 2 else one(i, 0, 0) for i in range(10)], CHEAP, draft=0.01, drafter="hybrid")
    reasons = o.gap_reasons()
    assert any(r.startswith("the rounds made 2.0 guesses on average, not γ = 4 (5 plain steps without a guess)")
               for r in reasons)
    assert any(r.startswith("a round's guesses cost 0.20 (2.0 guesses), where the formula counts γc = 4·0.10 = 0.40")
               for r in reasons)
    assert not any("verify" in r for r in reasons)                 # a verify pass costs 1 call on CHEAP


def test_a_faster_run_below_break_even_says_why_from_its_rounds():
    # every round keeps 3 of 4 then misses: α = 0.75, E = 3.05, yet a round gives 4 tokens; at c = 0.55
    # the break-even α is 0.77, and the run is faster all the same — because of its even rounds
    o = outcome([one(i, 4, 3) for i in range(8)], CHEAP, draft=0.055)
    assert o.alpha == pytest.approx(0.75) and o.speedup > 1 and o.break_even() > o.alpha
    text = o.verdict()
    assert text.startswith(f"Faster here ({o.speedup:.2f}×)")
    assert f"though α = 0.75 is below the break-even α = {o.break_even():.2f}: " in text
    assert "0 of 8 rounds kept every guess and 0 kept none" in text and "more than the 3.05" in text
    assert "kept in runs" not in text
