"""The default drafting's back-off has a bound by construction (lab.core.adaptive): on a pair whose
guesses never match, the auto policy's speed-up priced by a cost profile is within 3% of plain
decoding (its probes of the silenced draft model are paid from a budget); a round it does not draft
is exactly a plain step (one target call over one position, no draft-model call: the draft model
catches up in the round that next uses it); drafting resumes a few rounds after matches return; and
the output stays exact (greedy: plain's tokens; sampling: the target's distribution, χ²)."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from lab.core.request import Request
from lab.core.adaptive import BUDGET, AutoSchedule, prices
from lab.core.engine import Decoder, generate
from lab.core.sampling import SamplingSettings
from lab.pairs.tiny import tiny_pair
from lab.speed import payoff
from lab.speed.timeline import schedule
from tests.helpers import made_profile
from tests.lab.helpers import Contrary, chi_square_pvalue, exact_marginals, scripted, without_eos

PROMPT = "red blue happy sad tree"


def stepped(two: float = 1.15, slope: float = 0.035, c: float = 0.16, positions: int = 17, unit: float = 0.05):
    """A profile as the embedded pair's on a 2-core CPU: a pass over n ≥ 2 positions costs `two` +
    slope·(n − 2) one-position calls (a step up from one position to two), a draft call c."""
    units = [1.0] + [two + slope * (n - 2) for n in range(2, positions + 1)]
    return made_profile(verify=[unit * u for u in units], draft=c * unit, prefill=3 * unit)


PROFILE = stepped()                                   # the embedded pair's prices
DEAR = stepped(c=0.5)                                 # a draft call half a step: a failed probe costs 0.67


class Counted(torch.nn.Module):
    """A model that records the number of positions of every call it gets."""

    def __init__(self, model):
        super().__init__()
        self.model, self.config, self.calls = model, model.config, []

    @property
    def device(self):
        return self.model.device

    def forward(self, input_ids, **kwargs):
        self.calls.append(input_ids.shape[1])
        return self.model(input_ids=input_ids, **kwargs)


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def pair(request):
    return without_eos(tiny_pair(request.param))        # every decoding runs its full length


def decode(pair, drafter, n=96, profile=PROFILE, policy="auto:8", **kwargs):
    ids = pair.tokenizer.encode(PROMPT)
    plain = generate(pair, Request(ids, mode="plain", max_new_tokens=n))
    spec = generate(pair, Request(ids, max_new_tokens=n, drafter=drafter, policy=policy, **kwargs), profile=profile)
    return plain, spec


@pytest.mark.parametrize("n", [24, 96])
@pytest.mark.parametrize("profile", [PROFILE, DEAR], ids=["embedded", "dear"])
@pytest.mark.parametrize("drafter", ["model", "hybrid"])
def test_guesses_that_never_match_cost_at_most_the_budget(pair, drafter, profile, n):
    never = replace(pair, draft=Contrary(pair.target))
    plain, spec = decode(never, drafter, n, profile)
    assert spec.new_ids == plain.new_ids
    timed = schedule(plain, spec, profile)
    assert timed.decode_speedup >= 0.97
    model_rounds = [r for r in spec.rounds if r.draft_source == "model" and r.guesses]
    assert all(r.n_accepted == 0 and len(r.guesses) == 1 for r in model_rounds)   # one-guess probes, never kept
    if drafter == "model":
        # What the probes lose (their priced cost over a plain step) is within the budget, or one probe.
        probe = profile.c + profile.verify_units(2) - 1
        lost = len(model_rounds) * probe
        assert lost <= max(BUDGET * timed.decode_time("draft + verify"), probe) + 1e-9
        if n == 96 and profile is PROFILE:
            assert model_rounds                              # probed now and then all the same
        drafted, rounds = payoff.rounds_of(spec)         # what chapter 12 and the lecturer's line say
        assert drafted == len(model_rounds) and f"{rounds} rounds" in payoff.drafting_words(drafted, rounds)


@pytest.mark.parametrize("drafter", ["model", "hybrid"])
def test_confident_guesses_that_never_match_cost_at_most_the_budget(pair, drafter):
    """The same bound where the draft model sets its own length by its confidence ("+confidence"):
    the scripted draft is sure of its wrong guesses as often as the target is of its right ones."""
    never = replace(pair, draft=Contrary(pair.target))
    plain, spec = decode(never, drafter, 96, PROFILE, policy="auto:8+confidence:0.7")
    assert spec.new_ids == plain.new_ids
    assert schedule(plain, spec, PROFILE).decode_speedup >= 0.97
    assert all(r.n_accepted == 0 for r in spec.rounds if r.draft_source == "model")


def test_confident_probes_lose_at_most_the_budget_in_the_schedule_alone():
    """A draft model sure of every guess and never right: what the rounds lose stays within the
    budget, or one one-guess probe past it (the opening probe is not charged); once it is right and
    sure, it guesses long rounds within a few rounds."""
    s = AutoSchedule(8, pricing=prices(PROFILE), sources=("model",), threshold=0.7)
    text, guessed = [1, 2, 3], 0
    for _ in range(300):
        cap = s.caps(text)["model"]
        guessed += cap
        text = text + [9]
        s.update(cap, 0, "model" if cap else "none", text, sure=cap if cap else None)
        assert s.loss <= max(BUDGET * s.spent, s.round_cost("model", 1, text) - 1) + 1e-9
    assert guessed >= 3
    for i in range(40):
        cap = s.caps(text)["model"]
        text = text + [9] * (cap + 1)
        s.update(cap, cap, "model" if cap else "none", text, sure=cap if cap else None)
        if cap >= 4:
            break
    assert i <= 35


def test_the_bound_is_not_met_by_the_constant_policy(pair):
    """The check above is not trivially met: drafting every round with these guesses is slow."""
    never = replace(pair, draft=Contrary(pair.target))
    ids = pair.tokenizer.encode(PROMPT)
    plain = generate(never, Request(ids, mode="plain", max_new_tokens=48))
    constant = generate(never, Request(ids, max_new_tokens=48, drafter="model", policy="constant:4"))
    assert schedule(plain, constant, PROFILE).decode_speedup < 0.7


def test_a_round_that_does_not_draft_is_one_plain_step(pair):
    """Count the calls: a silent round calls the target once over one position and the draft model
    never; the round that next drafts with the model reads what it missed in its first call."""
    switch = len(pair.tokenizer.encode(PROMPT)) + 30
    target, draft = Counted(pair.target), Counted(Contrary(pair.target, until=switch))
    counted = replace(pair, target=target, draft=draft)
    d = Decoder(counted, Request(pair.tokenizer.encode(PROMPT), max_new_tokens=120, drafter="hybrid", policy="auto:8"), profile=PROFILE)
    target.calls.clear(), draft.calls.clear()                      # the prefill
    kinds, catch_ups = [], []
    while not d.done:
        before_t, before_d, start, read = len(target.calls), len(draft.calls), len(d.ids), d.draft_cache.length
        r = d.step()
        t_calls, d_calls = target.calls[before_t:], draft.calls[before_d:]
        assert t_calls == [len(r.guesses) + 1]                       # one target call over the guesses + 1
        if not r.guesses:
            kinds.append("silent")
            assert d_calls == [] and d.draft_cache.length == read         # no draft-model call, nothing read
        elif r.draft_source == "lookup":
            kinds.append("lookup")
            assert d_calls == []
        else:
            kinds.append("model")
            assert len(d_calls) == len(r.guesses)
            assert d_calls[0] == start - read                       # the catch-up, in the round that needs it
            catch_ups.append(d_calls[0])
    assert "silent" in kinds and "model" in kinds and max(catch_ups) > 2
    assert d.new_ids == generate(pair, Request(pair.tokenizer.encode(PROMPT), mode="plain", max_new_tokens=120)).new_ids


def test_drafting_resumes_within_a_few_rounds_when_matches_return(pair):
    switch = len(pair.tokenizer.encode(PROMPT)) + 30               # guesses right from new token 30 on
    later = replace(pair, draft=Contrary(pair.target, until=switch))
    plain, spec = decode(later, "model", n=160)
    assert spec.new_ids == plain.new_ids
    early = [r for r in spec.rounds if len(r.prefix_ids) < switch]
    after = [r for r in spec.rounds if len(r.prefix_ids) >= switch]
    assert sum(len(r.guesses) for r in early) <= 4                   # a few probes before the switch
    # The next probe comes once the budget allows one (a failed probe's cost ÷ BUDGET of time, at most),
    # and each kept probe pays for the next: within 35 rounds the draft model drafts several at once
    # (a failed probe costs about 0.35 of a step with the engine's work and its catch-up: 0.35 ÷ 2%).
    resumed = next(i for i, r in enumerate(after) if len(r.guesses) >= 3)
    assert resumed <= 35
    late = after[resumed:]
    assert sum(len(r.guesses) for r in late) >= 4 * len(late) and all(r.n_accepted == len(r.guesses) for r in late)
    assert spec.target_calls < 0.6 * plain.target_calls


def test_drafting_resumes_in_the_schedule_alone():
    """The same on the schedule: never kept for 200 rounds, then always kept."""
    s = AutoSchedule(8, pricing=prices(PROFILE), sources=("model",))
    text, probes = [1, 2, 3], 0
    for _ in range(200):
        cap = s.caps(text)["model"]
        probes += cap
        text = text + [9]
        s.update(cap, 0, "model" if cap else "none", text)
        assert s.loss <= max(BUDGET * s.spent, s.round_cost("model", 1, text) - 1) + 1e-9
    assert probes >= 3
    for i in range(40):
        cap = s.caps(text)["model"]
        text = text + [9] * (cap + 1)
        s.update(cap, cap, "model" if cap else "none", text)
        if cap >= 4:
            break
    assert i <= 35


def test_sampled_tokens_follow_the_target_distribution_through_the_back_off():
    """Priced so that a first guess pays at α's starting lower bound and not after a rejection: the
    first round guesses a token the target rarely wants, kept or corrected, and after a correction the
    round is a plain step; every token follows the target's distribution."""
    pair = without_eos(tiny_pair("llama"))
    never = replace(pair, draft=Contrary(pair.target))
    settings = SamplingSettings(temperature=1.0)
    prompt = pair.tokenizer.encode(PROMPT)
    borderline = scripted(c=0.13, per_position=0.0)
    p1, p2 = exact_marginals(pair, prompt, settings)
    firsts, seconds, plain_second = [], [], 0
    for seed in range(800):
        d = Decoder(never, Request(prompt, settings=settings, seed=seed, max_new_tokens=2, drafter="model", policy="auto:8"), keep_rows=False, profile=borderline)
        while not d.done:
            d.step()
        assert d.rounds[0].guesses
        firsts.append(d.new_ids[0]); seconds.append(d.new_ids[1])
        plain_second += len(d.rounds) == 2 and not d.rounds[1].guesses
    assert plain_second > 100                           # both paths were sampled: a correction, then a plain step
    assert chi_square_pvalue(np.array(firsts), p1) > 0.001
    assert chi_square_pvalue(np.array(seconds), p2) > 0.001
