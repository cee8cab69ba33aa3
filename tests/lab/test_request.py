"""lab.speed.request: one request's outcome, and sentences that follow its figures (scripted traces with a
scripted cost profile, so slower and faster are known), plus a live one on the tiny pair."""
import math

import pytest

from lab.core import analytic
from lab.core.engine import generate
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.core.request import Request
from lab.speed.verdicts import PROJECTED_C
from serving.service import ModelService
from lab.pairs.tiny import tiny_pair
from tests.helpers import scripted_outcome as _outcome, scripted_round as _round


from tests.helpers import CHEAP, DEAR
from uikit import verdicts


def test_a_slower_run_says_slower_and_why():
    # 8 rounds of 4 guesses, 1 kept and 1 rejected each (2 dropped): α = 1 ÷ (1 + 1) = 0.5, 16 tokens
    # for 8 target calls
    o = _outcome([_round(i, 4, 1) for i in range(8)], DEAR, draft=0.018)
    assert o.speedup < 1
    assert o.alpha == pytest.approx(0.5) and o.spec.kept_share == pytest.approx(0.25) and (o.target_calls, o.plain_calls) == (8, 16)
    assert o.c == pytest.approx(0.18) and o.mean_gamma == 4
    text = verdicts.verdict(o)
    assert text.startswith(f"Slower here ({o.speedup:.2f}×)") and "faster" not in text.lower()
    assert f"break-even α = {o.break_even():.2f}" in text and "costs 1.50 target calls" in text
    assert o.break_even() > o.alpha                           # the reason given is true
    assert o.profile.speedup(o.break_even(), 4, o.c) >= 1 > o.profile.speedup(o.break_even() - 0.01, 4, o.c)


def test_a_faster_run_says_faster_and_credits_the_copies():
    # 8 rounds of copied guesses, 4 of 4 kept: 40 tokens for 8 calls, each copy costing nothing
    o = _outcome([_round(i, 4, 4, "lookup") for i in range(8)], CHEAP, draft=0.02, drafter="lookup")
    assert o.speedup > 1 and o.c == 0.0 and o.sources["lookup"] == 8
    text = verdicts.verdict(o)
    assert text.startswith(f"Faster here ({o.speedup:.2f}×)") and "slower" not in text.lower()
    assert "8 of 8 rounds copied their guesses from the text" in text
    assert verdicts.who(o) == "copied from the text in 8 rounds"


def test_a_faster_model_run_credits_alpha_above_break_even():
    o = _outcome([_round(i, 4, 4) for i in range(8)], CHEAP, draft=0.01)
    assert o.speedup > 1 and "above the break-even" in verdicts.verdict(o) and "the draft model in 8 rounds" == verdicts.who(o)


def test_mixed_rounds_are_counted_by_source():
    rounds = [_round(0, 3, 3, "lookup"), _round(1, 2, 0), _round(2, 0, 0), _round(3, 4, 4, "lookup")]
    o = _outcome(rounds, CHEAP, draft=0.02, drafter="hybrid")
    assert verdicts.who(o) == "copied from the text in 2 rounds, the draft model in 1 round, no guess in 1 round"


def test_prediction_gap_and_projection_follow_the_formula():
    o = _outcome([_round(i, 4, 1) for i in range(8)], DEAR, draft=0.018)
    assert o.predicted() == pytest.approx(float(analytic.speedup(0.5, 4, 0.18)))
    # every round kept exactly one guess: 2 tokens a round where independent guesses at α = 0.5 give
    # 1.94, and a verify pass over 5 positions costs 1.5 calls where the formula counts 1
    assert verdicts.gap(o).startswith(f"The formula predicts {o.predicted():.2f}× from E = 1.94 tokens for a round of "
                              "1 + γc = 1.72; measured, a round gave 2.00 tokens for 2.22: ")
    # the one term that accounts for it: 2.00 tokens against 1.94 over 8 rounds is chance (under 4%)
    assert verdicts.gap(o).endswith(": a verify pass cost 1.50 target calls on average here, where the formula counts 1.")
    assert "kept in runs" not in verdicts.gap(o) and "unevenly" not in verdicts.gap(o)
    assert o.projection() == pytest.approx(2.0 / (1 + 4 * PROJECTED_C))   # 2 tokens a round, 4 guesses at 0.05
    assert "Projection, not a measurement" in verdicts.projection_sentence(o)
    copied = _outcome([_round(i, 4, 4, "lookup") for i in range(8)], CHEAP, draft=0.02, drafter="lookup")
    assert copied.projection() == pytest.approx(5.0)          # copies are free anywhere: E = γ + 1 at α = 1
    assert verdicts.gap(copied) == ""                                 # formula and figure agree when v = 1 and c = 0


def test_a_request_decoded_by_the_service_is_the_engines_and_its_figures_agree():
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    request = Request(tuple(ids), drafter="model", gamma=3, max_new_tokens=12)
    o = service.submit(service.outcome, request).result(60)
    assert service.submit(service.outcome, request).result(60) is o          # once per request
    reference = generate(pair, Request(ids, mode="plain", max_new_tokens=12))
    assert o.spec.new_ids == reference.new_ids and o.exact is True            # exactly the target's text
    assert o.spec.drafter == "model" and o.spec.gamma == 3
    assert o.plain_calls == len(reference.new_ids) and o.target_calls == o.spec.target_calls <= o.plain_calls
    assert o.speedup == pytest.approx(o.timed.decode_time("standard") / o.timed.decode_time("draft + verify"))
    lookup = service.submit(service.outcome, Request(tuple(ids), drafter="lookup", gamma=3,
                                                     max_new_tokens=12)).result(60)
    assert lookup.spec.drafter == "lookup" and lookup.spec.new_ids == reference.new_ids
    assert not math.isnan(lookup.speedup)


def test_a_speed_up_within_the_profiles_noise_is_level():
    """A profile whose repeated timings spread by 20% cannot tell 1.1× from 1×: the verdict says level,
    and names that noise; the same rounds on a steady profile say faster."""
    from dataclasses import replace
    from lab.speed.request import Outcome
    o = _outcome([_round(i, 4, 2) for i in range(8)], CHEAP, draft=0.04)
    assert 1.0 < o.speedup < 1.2 and o.verdict_word() == "faster" and verdicts.verdict(o).startswith("Faster here")
    noisy = Outcome.of(o.request, o.plain, o.spec, replace(o.profile, spread=0.2))
    assert noisy.speedup == o.speedup and noisy.noise == 0.2 and noisy.verdict_word() == "level"
    assert verdicts.verdict(noisy).startswith(f"Level with plain decoding here ({o.speedup:.2f}×, within this "
                                      "machine's timing noise (±20%)")
    assert "faster" not in verdicts.verdict(noisy).lower() and "slower" not in verdicts.verdict(noisy).lower()
    wild = Outcome.of(o.request, o.plain, o.spec, replace(o.profile, spread=2.4))
    said = verdicts.verdict(wild)
    assert wild.verdict_word() == "level" and said.startswith(f"Too noisy to tell here ({o.speedup:.2f}×)")
    assert "differ by up to 240%, so anything from 0.29× to 3.40× reads as level" in said
    assert said.endswith("Measure again when the machine is quieter.") and "±" not in said


def test_a_re_timing_that_changes_the_verdict_is_named_in_one_line():
    from dataclasses import replace
    from lab.speed.request import Outcome
    slower = _outcome([_round(i, 4, 1) for i in range(8)], DEAR, draft=0.018)
    assert verdicts.retimed(slower) == ""                                      # nothing before it
    cheap = replace(slower.profile, draft_seconds=0.001, verify_seconds=tuple(CHEAP))
    faster = Outcome.of(slower.request, slower.plain, slower.spec, cheap, earlier=slower)
    assert faster.verdict_word() == "faster" and faster.earlier_speedup == slower.speedup
    assert verdicts.retimed(faster) == (f"This machine re-timed: now {faster.speedup:.2f}× (faster), "
                                f"was {slower.speedup:.2f}× (slower).")
    same = Outcome.of(slower.request, slower.plain, slower.spec, replace(slower.profile, load=0.1), earlier=slower)
    assert verdicts.retimed(same) == ""                                        # re-timed, same verdict: nothing to say


def test_the_verdicts_break_even_is_the_one_the_read_out_gives_at_the_sliders():
    """Chapter 10 sets c to two decimals; the verdict's break-even is taken at that c, with the
    profile's verify cost, so its α is the one the read-out names."""
    from lab.speed.request import measured_break_even
    o = _outcome([_round(i, 4, 1) for i in range(8)], DEAR, draft=0.0183)
    assert o.break_even() == measured_break_even(o.profile, 4, round(o.c, 2))
    assert f"break-even α = {o.break_even():.2f}" in verdicts.verdict(o) and "with this machine's verify cost" in verdicts.verdict(o)
