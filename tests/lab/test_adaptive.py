"""The auto draft length policy prices a round with the pair's measured cost profile (lab.core.adaptive,
lab.speed.costs): it drafts less, or nothing, where checking or drafting is expensive, drafts where both
are cheap, keeps the constants only before a profile exists, and the output stays the target's."""
from dataclasses import replace

import pytest

from lab.core.request import Request
from lab.speed import costs
from lab.core.adaptive import (BUDGET, DRAFT_COST, POSITION_COST, AutoSchedule, best_length, prices,
                               schedule_for)
from lab.core.drafting import DraftPolicy
from lab.core.engine import Decoder, generate
from lab.pairs.tiny import tiny_pair
from tests.lab.helpers import scripted

PROMPTS = ["the cat sat on the mat and the cat sat on the", "red blue happy sad tree"]




# checking 17 positions costs one call, drafting ~nothing: a target slow enough (1 s a call) that the
# engine's own milliseconds a round are nothing too
CHEAP = scripted(c=0.01, per_position=0.0, unit=1.0)
DEAR_VERIFY = scripted(c=0.05, per_position=0.6)     # every checked position costs 0.6 of a call
DEAR_DRAFT = scripted(c=1.2, per_position=0.02)      # a draft call costs more than a target call


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def pair(request):
    return tiny_pair(request.param)


def drafted(pair, profile, prompt, drafter="model", gamma=8):
    trace = generate(pair, Request(pair.tokenizer.encode(prompt), max_new_tokens=48, drafter=drafter, policy=f"auto:{gamma}"), profile=profile)
    return trace, sum(r.gamma for r in trace.rounds)


def test_prices_come_from_the_profile_else_the_constants():
    measured = prices(DEAR_VERIFY)
    assert measured.source == "profile" and measured.draft_call == pytest.approx(0.05)
    assert measured.verify_units(5) == pytest.approx(DEAR_VERIFY.verify_units(5)) == pytest.approx(3.4)
    fixed = prices(None)
    assert fixed.source == "constants" and fixed.draft_call == DRAFT_COST
    assert fixed.verify_units(5) == pytest.approx(1 + 4 * POSITION_COST)
    assert prices(DEAR_VERIFY, draft_cost=0.3).draft_call == 0.3          # "+cost:0.3" prices the call
    assert prices(DEAR_VERIFY, draft_cost=0.3).verify_units(5) == pytest.approx(3.4)
    short = prices(scripted(c=0.1, per_position=0.1, positions=3))         # past the measured positions
    assert short.verify_units(5) == pytest.approx(1.4)


def test_best_length_follows_the_verify_prices():
    flat, steep = (lambda n: 1.0), (lambda n: 1 + 0.6 * (n - 1))
    assert best_length(0.8, 8, 0.0, verify=flat) == 8
    assert best_length(0.8, 8, 0.0, verify=steep) == 1
    assert best_length(0.5, 8, 0.0, verify=steep) == 0       # 1.5 tokens for 1.6 calls: plain pays more
    assert best_length(0.99, 8, 1.2, verify=flat) == 0       # a draft call dearer than what it saves


def test_a_schedule_is_priced_with_the_profile_it_is_given():
    assert schedule_for(DraftPolicy(8, "auto"), DEAR_VERIFY).prices == prices(DEAR_VERIFY)
    assert schedule_for(DraftPolicy(8, "auto"), None).prices.source == "constants"
    assert schedule_for(DraftPolicy.parse("auto:8+cost:0.4"), CHEAP).draft_cost == 0.4
    cheap, dear = AutoSchedule(8, pricing=prices(CHEAP)), AutoSchedule(8, pricing=prices(DEAR_VERIFY))
    # α's lower bound 0.21 to start with; nothing to copy: the draft model, 2 calls (a 3rd would gain
    # 0.21^3 ≈ 0.01 tokens for 0.03 calls: 0.01 the call, 0.02 the engine's work per guess)
    assert cheap.caps([1, 2, 3]) == {"lookup": 0, "model": 2} and cheap.choice == "model"
    # a copy of 5 tokens ("5 6" came before): copied guesses beat the draft model's, so lookup alone
    # guesses, the whole copy: checking is nearly free, and lookup's α starts at a lower bound of 0.52
    assert cheap.caps([5, 6, 7, 8, 9, 5, 6]) == {"lookup": 5, "model": 0} and cheap.choice == "lookup"
    # dear verify passes: one opening probe of the untried draft model, then, that guess rejected, plain steps
    assert dear.caps([1, 2, 3]) == {"lookup": 0, "model": 1} and dear.choice == "probe"
    dear.update(1, 0, "model", [1, 2, 3, 4])
    assert dear.caps([1, 2, 3, 4]) == {"lookup": 0, "model": 0} and dear.choice == "plain"


@pytest.mark.parametrize("prompt", PROMPTS)
def test_auto_drafts_less_where_checking_is_dear_and_more_where_cheap(pair, prompt):
    plain = generate(pair, Request(pair.tokenizer.encode(prompt), mode="plain", max_new_tokens=48))
    runs = {name: drafted(pair, profile, prompt, drafter="hybrid")
            for name, profile in (("cheap", CHEAP), ("constants", None), ("dear", DEAR_VERIFY))}
    for trace, _ in runs.values():
        assert trace.new_ids == plain.new_ids                  # exact whatever the prices
    assert runs["cheap"][1] >= runs["constants"][1] >= runs["dear"][1]
    assert runs["cheap"][1] > runs["dear"][1] and runs["cheap"][1] > 0


@pytest.mark.parametrize("prompt", PROMPTS)
def test_auto_stops_drafting_with_the_model_where_its_calls_are_dear(pair, prompt):
    plain = generate(pair, Request(pair.tokenizer.encode(prompt), mode="plain", max_new_tokens=48))
    trace, total = drafted(pair, DEAR_DRAFT, prompt)
    assert trace.new_ids == plain.new_ids
    # Nothing but one-token probes of a silenced draft model, paid from the budget: a failed one
    # costs more than a step (1.2 + the check of a second position), so over 48 tokens there is none.
    assert all(r.gamma <= 1 for r in trace.rounds)
    assert total * 1.2 <= BUDGET * len(trace.rounds) * 1.1
    _, cheap_total = drafted(pair, CHEAP, prompt)
    assert cheap_total > 2 * max(1, total)


def test_the_decisions_repeat_exactly_given_the_profile(pair):
    first, _ = drafted(pair, DEAR_VERIFY, PROMPTS[0], drafter="hybrid", gamma=6)
    again, _ = drafted(pair, DEAR_VERIFY, PROMPTS[0], drafter="hybrid", gamma=6)
    assert [(r.gamma, r.draft_source) for r in first.rounds] == [(r.gamma, r.draft_source) for r in again.rounds]


def test_a_decoder_prices_with_the_profile_its_caller_passes(pair):
    """The decoder reads no cache: a profile it is not handed does not price it (a server's model
    service hands it its own: tests/serving/test_serviceprofiles.py)."""
    ids = pair.tokenizer.encode(PROMPTS[0])
    assert Decoder(pair, Request(ids, policy="auto:8")).schedule.prices.source == "constants"    # none passed
    assert Decoder(pair, Request(ids, policy="auto:8"), profile=CHEAP).schedule.prices == prices(CHEAP)
    copy = replace(pair, drafter="hybrid", policy="auto:12")                             # same two models
    assert Decoder(copy, Request(ids), profile=DEAR_VERIFY).schedule.prices == prices(DEAR_VERIFY)


def test_measuring_a_prompt_set_measures_the_profile_first_and_auto_prices_with_it(monkeypatch):
    from lab.speed.measure import measure_set
    pair = tiny_pair("llama")
    prompts = {"story": [PROMPTS[1]], "edit": [PROMPTS[0]]}
    calls = []

    def tokens_per_call(measured, given=None):
        monkeypatch.setattr(costs, "measure_profile", lambda p: calls.append(p) or measured)
        report = measure_set(pair, prompts, Request((), max_new_tokens=24), draftings=[("model", "auto:8")], profile=given)
        rows = report["draftings"]["model (auto:8)"]["categories"]
        assert all(row["exact"] for row in rows.values())
        return [row["tokens_per_call"] for row in rows.values()]
    dear = tokens_per_call(DEAR_DRAFT)
    assert all(t < 1.2 for t in dear)                             # at most a probe now and then
    assert all(t > d + 0.1 for t, d in zip(tokens_per_call(CHEAP), dear))    # drafts kept where cheap
    assert calls == [pair, pair]                                  # each run measured it, once
    assert all(t < 1.2 for t in tokens_per_call(CHEAP, given=DEAR_DRAFT))    # the caller's profile prices
    measure_set(pair, prompts, Request((), max_new_tokens=8), draftings=[("model", "constant:4")])
    assert len(calls) == 2                                        # neither measured: nothing to price
