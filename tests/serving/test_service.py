import asyncio
from dataclasses import replace

import pytest

from lab.core.request import Request
from lab.speed.measure import run_to_end
from serving.service import ModelService, Owner
from lab.pairs.tiny import tiny_pair


@pytest.fixture
def service():
    pair = tiny_pair()
    return ModelService(lambda: pair, cache_size=4, max_pending=3)


def test_identical_requests_computed_once_and_cache_bounded(service):
    ids = service.pair.tokenizer.encode("the cat sat")
    a = service.submit(service.generation, Request(ids, max_new_tokens=5)).result(10)
    b = service.submit(service.generation, Request(ids, max_new_tokens=5)).result(10)
    assert a is b
    later = {n: service.submit(service.generation, Request(ids, max_new_tokens=n)).result(10) for n in range(6, 12)}
    for n in range(8, 12):                                    # the 4 most recent are kept
        assert service.submit(service.generation, Request(ids, max_new_tokens=n)).result(10) is later[n]
    assert service.submit(service.generation, Request(ids, max_new_tokens=7)).result(10) is not later[7]   # a 5th is not
    c = service.submit(service.generation, Request(ids, max_new_tokens=5)).result(10)
    assert c is not a and c.new_ids == a.new_ids             # evicted, recomputed, same answer


def test_a_generation_as_a_long_job_goes_a_round_at_a_time_into_the_same_cache(service):
    from lab.core.engine import generate
    ids = service.pair.tokenizer.encode("the cat sat")
    steps = service.generation_steps(Request(ids, max_new_tokens=12, gamma=2))
    n_steps = 0
    with pytest.raises(StopIteration) as stop:
        while True:
            next(steps)
            n_steps += 1
    trace = stop.value.value
    assert n_steps == len(trace.rounds) > 1                          # one step per round
    assert trace.new_ids == generate(service.pair, Request(ids, max_new_tokens=12, gamma=2)).new_ids
    assert service.generation(Request(ids, max_new_tokens=12, gamma=2)) is trace   # cached under the same key
    assert service.submit(service.generation_steps, Request(ids, max_new_tokens=12, gamma=2)).result(10) is trace


def test_an_auto_policy_on_the_worker_prices_with_the_services_own_profile(service):
    """The service hands its decoders the pair's cost profile it holds (serving.serviceprofiles: measured
    here or adopted from another serving process): with drafting nearly free an auto policy guesses
    far more than with a draft call dearer than a target call."""
    from lab.core.engine import generate
    from tests.lab.helpers import scripted
    ids = service.pair.tokenizer.encode("the cat sat on the mat and the cat sat on the")
    drafted = {}
    request = Request(ids, max_new_tokens=40, drafter="model", policy="auto:8")
    for name, profile in (("cheap", scripted(c=0.01, per_position=0.0)), ("dear", scripted(c=1.2, per_position=0.02))):
        service.clear()                                   # the generation priced anew
        service.profiles.adopt(service.pair_for("aligned"), profile)
        got = service.generation(request)
        alone = generate(service.pair, request, profile=profile)
        assert [r.gamma for r in got.rounds] == [r.gamma for r in alone.rounds]
        drafted[name] = got.drafted
    assert drafted["cheap"] > 2 * max(1, drafted["dear"])


def test_a_parked_generation_ends_early_when_another_job_finished_it(service):
    ids = service.pair.tokenizer.encode("a dog ran")
    parked = service.generation_steps(Request(ids, max_new_tokens=12, gamma=2))
    next(parked)                                                     # one round done, then parked
    done = service.generation(Request(ids, max_new_tokens=12, gamma=2))       # another job runs it through
    with pytest.raises(StopIteration) as stop:
        next(parked)
    assert stop.value.value is done


def _own_rounds(pair, ids, settings, seed, max_new_tokens):
    from lab.core.engine import Decoder
    d = Decoder(pair, Request(ids, gamma=3, settings=settings, seed=seed, max_new_tokens=max_new_tokens), keep_rows=False)
    out = []
    while not d.done:
        out.append(d.step())
    return out


def test_shared_rounds_equal_a_pages_own_decoder_and_are_computed_once(monkeypatch):
    from lab.core import engine
    from lab.core.sampling import SamplingSettings
    pair = tiny_pair()
    service = ModelService(lambda: pair, live_rounds=2)
    settings = SamplingSettings(temperature=1.0)
    ids = pair.tokenizer.encode("the cat sat")
    own = _own_rounds(pair, ids, settings, seed=5, max_new_tokens=12)
    steps = []
    real_step = engine.Decoder.step
    monkeypatch.setattr(engine.Decoder, "step", lambda self: steps.append(1) or real_step(self))

    def ask(i):
        return service.submit(service.round, Request(ids, settings=settings, gamma=3, seed=5, max_new_tokens=12),
                              i).result(timeout=60)
    first = [ask(i) for i in range(len(own))]          # one page walks the whole text
    second = [ask(i) for i in range(len(own))]         # a second page on the same prompt and settings
    assert [r.emitted_ids for r, _ in first] == [r.emitted_ids for r in own]
    assert [last for _, last in first] == [False] * (len(own) - 1) + [True]
    assert second == first and len(steps) == len(own)  # computed once
    with pytest.raises(IndexError):
        ask(len(own))


def test_an_evicted_generation_is_rebuilt_with_the_same_rounds():
    from lab.core.sampling import SamplingSettings
    pair = tiny_pair()
    service = ModelService(lambda: pair, live_rounds=1)
    settings = SamplingSettings(temperature=1.0)
    a, b = pair.tokenizer.encode("the cat sat"), pair.tokenizer.encode("a dog ran")

    def ask(ids, i):
        return service.submit(service.round, Request(ids, settings=settings, gamma=3, seed=1, max_new_tokens=12),
                              i).result(timeout=60)[0].emitted_ids
    got = [ask(a, 0), ask(b, 0), ask(a, 1), ask(b, 1)]  # each ask evicts the other prompt's decoder
    own_a = _own_rounds(pair, a, settings, 1, 12)
    own_b = _own_rounds(pair, b, settings, 1, 12)
    assert got == [own_a[0].emitted_ids, own_b[0].emitted_ids, own_a[1].emitted_ids, own_b[1].emitted_ids]


def test_monte_carlo_runs_on_the_worker_and_is_seeded(service):
    import numpy as np
    p, q = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5])

    async def run(seed):
        return await service.run_as("A", service.monte_carlo, p, q, "residual", 2000, seed=seed)
    a, b = asyncio.run(run(1)), asyncio.run(run(1))
    assert a.sum() == 2000 and (a == b).all()


def test_a_race_lays_out_both_writers(service):
    ids = service.pair.tokenizer.encode("the cat sat")
    race = service.submit(service.race, Request(ids, max_new_tokens=6)).result(timeout=60)
    assert len(race.draft_texts) == len(race.draft_target_p) == 6
    assert all(0 <= p <= 1 for p in race.draft_target_p) and race.end > 0


def test_many_tabs_asking_for_one_request_share_one_outcome(monkeypatch):
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    steps = []
    real = service.generation_steps

    def counted(request, **kwargs):           # each generation the outcome asks for, counted
        steps.append(request.mode)
        return (yield from real(request, **kwargs))
    monkeypatch.setattr(service, "generation_steps", counted)
    request = Request(tuple(pair.tokenizer.encode("the cat sat")), gamma=3, max_new_tokens=6)
    got = [service.submit(service.outcome, request, owner=Owner("b", f"t{i}")).result(60) for i in range(5)]
    assert all(o is got[0] for o in got) and steps == ["plain", "speculative"]


# --- the student's draft: aligned, weak or random (lab.pairs.variants) ------------------------------------

PROMPTS = ("the cat sat on the", "a dog ran under the big", "the sun was red and the moon")


def _alpha(service, variant, settings):
    """Accepted ÷ drafted over a few prompts and seeds (pooled)."""
    accepted = drafted = 0
    for text in PROMPTS:
        for seed in range(3):
            g = service.generation(Request(service.pair.tokenizer.encode(text), settings=settings, seed=seed,
                                           max_new_tokens=24, variant=variant))
            accepted, drafted = accepted + g.accepted, drafted + g.drafted
    return accepted / drafted


def test_a_random_draft_accepts_far_less_than_the_aligned_one():
    from lab.core.sampling import GREEDY
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    # Greedy: the uniform draft's guess after token t is a seeded random token perm(t) (lab.pairs.draftmodels
    # .uniform_guesses), kept only where the target's own next token happens to be that one: α far below aligned.
    random_alpha, aligned_alpha = _alpha(service, "random", GREEDY), _alpha(service, "aligned", GREEDY)
    assert aligned_alpha > 0.1 and random_alpha < aligned_alpha / 10
    guesses = set()
    for text in PROMPTS:
        ids = pair.tokenizer.encode(text)
        g = service.generation(Request(ids, max_new_tokens=24, variant="random"))
        plain = service.generation(Request(ids, mode="plain", max_new_tokens=24))
        assert g.new_ids == plain.new_ids                  # the text is still exactly the target's
        guesses |= {d.token_id for r in g.rounds for d in r.guesses}
    assert len(guesses) > 5                              # random tokens, not token 0 (end of text) every time


def test_every_draft_shares_the_one_target_and_loads_once():
    from lab.pairs.variants import DraftVariants, with_draft
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    made = []
    service.variants = DraftVariants(make=lambda p, v: made.append(v) or with_draft(p, v))
    assert service.pair_for("aligned") is pair
    random = service.pair_for("random")
    assert random.target is pair.target and random.tokenizer is pair.tokenizer and random.draft is not pair.draft
    assert random.target.config.vocab_size == random.draft.config.vocab_size == len(pair.tokenizer)
    assert service.pair_for("random") is random and made == ["random"]     # loaded once per server
    assert random.draft_label == service.variants.label(pair, "random") == "random draft (uniform)"
    assert service.variants.label(pair) == pair.draft_label and made == ["random"]   # labels load nothing
    service.clear()                                                         # a new pair: loaded again
    assert service.pair_for("random") is not random and made == ["random", "random"]


def test_a_variant_the_pair_cannot_have_is_one_sentence():
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    assert service.variants.offered(pair) == {"aligned": "", "random": "", "weak": (
        "This pair has no weak draft (only the embedded SmolLM2 target has one); "
        "the aligned and the random draft are offered.")}
    with pytest.raises(ValueError, match="^This pair has no weak draft"):
        service.generation(Request(pair.tokenizer.encode("the cat"), variant="weak"))
    with pytest.raises(ValueError, match="There is no draft variant 'best'"):
        service.pair_for("best")


def test_cache_keys_hold_the_draft_variant():
    from lab.core.sampling import SamplingSettings
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    ids = pair.tokenizer.encode("the cat sat")
    spec = {d: service.generation(Request(ids, max_new_tokens=8, variant=d)) for d in ("aligned", "random")}
    drafted = {d: {x.token_id for r in g.rounds for x in r.guesses} for d, g in spec.items()}
    assert drafted["random"] != drafted["aligned"]       # each draft its own guesses, its own entry
    assert all(service.generation(Request(ids, max_new_tokens=8, variant=d)) is spec[d] for d in spec)   # each kept
    plain = [service.generation(Request(ids, mode="plain", max_new_tokens=8, variant=d))
             for d in ("aligned", "random")]
    assert plain[0] is plain[1]                            # the target writing alone: one entry for all drafts
    settings = SamplingSettings(temperature=1.0)
    asked = Request(ids, settings=settings, gamma=3, seed=2, max_new_tokens=8)
    rounds = {d: service.round(replace(asked, variant=d), 0)[0] for d in ("aligned", "random")}
    assert all(service.round(replace(asked, variant=d), 0)[0] is rounds[d] for d in rounds)                                                        # each kept
    assert rounds["random"].guesses[0].q == pytest.approx(1 / len(pair.tokenizer), rel=0.01)   # q uniform
    assert rounds["aligned"].guesses[0].q != pytest.approx(rounds["random"].guesses[0].q)       # its own draft's
    race = {d: service.race(Request(ids, max_new_tokens=6, variant=d)) for d in ("aligned", "random")}
    assert race["aligned"].draft_texts != race["random"].draft_texts
    measured = {d: run_to_end(service.outcome(Request(tuple(ids), gamma=3, max_new_tokens=6, variant=d)))
                for d in ("aligned", "random")}
    assert measured["random"].spec.new_ids == measured["aligned"].spec.new_ids     # the target's text either way
    assert measured["random"].alpha < measured["aligned"].alpha
