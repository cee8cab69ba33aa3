import pytest

from lab.core.request import Request
from lab.core import engine
from lab.experiments.casesearch import (EVIDENCE, MAX_SEEDS, OUT_OF_REACH, SeedSearch, find_all_kept, keeps_all,
                                        reach)
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.core.sampling import SamplingSettings
from lab.pairs.tiny import tiny_pair
from tests.lab.helpers import Contrary

T1 = SamplingSettings(1.0)


def test_the_round_found_is_the_one_the_seeded_generation_makes():
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    found = find_all_kept(pair, ids, settings=T1, gamma=4, max_new_tokens=16, first_seed=3, max_seconds=1e9)
    assert found.seed is not None and found.seed >= 3 and found.tried == found.seed - 3 + 1
    trace = engine.generate(pair, Request(ids, settings=T1, gamma=4, seed=found.seed, max_new_tokens=16, drafter="model"), keep_rows=True)
    r = trace.rounds[found.index]
    assert keeps_all(r, 4) and r.extra_kind == "bonus"
    assert not any(keeps_all(x, 4) for x in trace.rounds[:found.index])


def test_bounded_by_seeds_and_by_time():
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    # 15 drafts of 16 tokens can never all fit in one round with γ = 16: no case exists
    none = find_all_kept(pair, ids, settings=T1, gamma=16, max_new_tokens=16, max_seeds=3)
    assert (none.seed, none.tried, none.timed_out) == (None, 3, False) and none.rounds > 3
    ticks = iter(range(1000))                # one tick per round: the limit is checked before each
    found = find_all_kept(pair, ids, settings=T1, gamma=16, max_new_tokens=16, max_seconds=2.5,
                          clock=lambda: next(ticks))
    assert (found.seed, found.tried, found.timed_out, found.rounds) == (None, 0, True, 2)


def test_a_search_in_slices_goes_on_from_the_round_where_it_stopped():
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    whole = find_all_kept(pair, ids, settings=T1, gamma=8, max_new_tokens=16, max_seconds=1e9)
    assert whole.seed is not None and whole.seed > 0
    search = SeedSearch(pair, ids, settings=T1, gamma=8, max_new_tokens=16)
    ticks = iter(range(10_000))
    slices = []
    while not slices or slices[-1].timed_out:
        slices.append(search.run(max_seconds=1.5, clock=lambda: next(ticks)))   # one round a slice
    last = slices[-1]
    assert (last.seed, last.index, last.tried, last.rounds) == (whole.seed, whole.index, whole.tried, whole.rounds)
    assert len(slices) == whole.rounds and [s.rounds for s in slices] == list(range(1, whole.rounds + 1))
    assert search.run() is last


def test_a_search_whose_guesses_never_match_stops_when_the_round_is_out_of_reach():
    """A draft model whose guesses are the target's least likely tokens, which top-k = 2 gives no
    chance (p = 0 outside the target's two likeliest): the search stops once the guesses judged put
    a round keeping all γ out of reach of the seeds left (long before its time or its seeds run
    out), says so again when run again, and a pair whose guesses match never stops so."""
    from dataclasses import replace
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    never = replace(pair, draft=Contrary(pair.target))
    search = SeedSearch(never, ids, settings=SamplingSettings(1.0, top_k=2), gamma=4, max_new_tokens=16)
    found = search.run(max_seconds=1e9)
    assert found.out_of_reach and found.seed is None and not found.timed_out
    assert found.checked >= EVIDENCE and found.tried < MAX_SEEDS // 4 and found.kept == 0
    assert reach(found.kept, found.checked, 4, (MAX_SEEDS - found.tried) * 16) < OUT_OF_REACH
    assert search.run() == found
    matching = find_all_kept(pair, ids, settings=T1, gamma=8, max_new_tokens=16, max_seconds=1e9)
    assert matching.seed is not None and not matching.out_of_reach


def test_luck_compares_a_round_with_its_generation():
    from lab.experiments.casesearch import luck
    from lab.core.trace import Candidate, Guess, RoundTrace

    def step(i, p, accepted):
        return Guess(index=i, token_id=i, text=f"t{i}", q=0.5, p=p, uniform=0.1 if accepted else 0.9,
                     accept_probability=min(1, p / 0.5), accepted=accepted, draft_seconds=0.0)

    def round_(kept, ps, extra_id=7, kind="correction"):
        guesses = [step(i, ps[i], i < kept if i <= kept else None) for i in range(len(ps))]
        return RoundTrace(index=0, prefix_ids=[1], gamma=len(ps), guesses=guesses, n_accepted=kept,
                          extra_token_id=extra_id, extra_text="o", extra_kind=kind,
                          extra_top=[Candidate(k, f"c{k}", 0.1) for k in range(5)], target_seconds=0.0,
                          emitted_ids=[], emitted_texts=[])
    all_kept = luck(round_(4, [0.5] * 4, kind="bonus"), 0.5)
    assert all_kept.lucky and all_kept.all_kept == 0.5 ** 4 and all_kept.expected_kept == 0.5 + 0.25 + 0.125 + 0.0625
    assert not luck(round_(4, [0.5] * 4, kind="bonus"), 0.9).lucky       # 0.9^4 = 66 %: nothing special
    hopeless = luck(round_(0, [0.0, 0.5, 0.5, 0.5]), 0.5)
    assert hopeless.hopeless == (0, 0.0) and not hopeless.lucky and hopeless.rare_correction == "o"
    assert luck(round_(1, [0.5, 0.3, 0.5, 0.5], extra_id=2), 0.5).rare_correction is None
    assert luck(round_(1, [0.5] * 4), None) is None


def test_a_round_cut_by_the_end_of_text_is_not_an_every_draft_kept_round():
    """Chapter 8 shows the bonus token of a round that kept every draft: a round whose kept drafts
    end the text (end-of-text, or the length limit) has none to show, so the search passes it by."""
    from dataclasses import replace
    from tests.helpers import scripted_round
    full = scripted_round(0, drafted=4, kept=4)
    assert keeps_all(full, 4)
    cut = replace(full, emitted_ids=full.emitted_ids[:4], emitted_texts=full.emitted_texts[:4], stop_reason="eos")
    assert not keeps_all(cut, 4) and not keeps_all(scripted_round(0, drafted=4, kept=3), 4)


def test_all_kept_happens_about_alpha_to_the_gamma_with_the_generations_alpha():
    """luck's α^γ is the share of rounds keeping all γ when α is the generation's per-guess rate
    (kept ÷ (kept + rejected)); kept ÷ drafted would make it far too small."""
    import numpy as np
    from lab.experiments.casesearch import luck
    from tests.helpers import scripted_round, scripted_trace
    rng, rounds = np.random.default_rng(11), []
    for i in range(3000):
        kept = 0
        while kept < 4 and rng.random() < 0.7:
            kept += 1
        rounds.append(scripted_round(i, 4, kept))
    t = scripted_trace(rounds)
    share = sum(r.n_accepted == 4 for r in rounds) / len(rounds)
    assert luck(rounds[0], t.alpha).all_kept == pytest.approx(share, abs=0.03)
    assert luck(rounds[0], t.kept_share).all_kept < share - 0.1


def _run(gen):
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value


def test_the_teaching_seed_is_the_first_whose_text_reaches_a_teaching_round_without_an_odd_draw():
    """Issue 49.4: chapters 5, 8, 9 open at the first seed (from the student's) whose generation reaches
    a round keeping some guesses and correcting one, with no rare correction or hopeless guess up to it."""
    from lab.core.drafting import LECTURE_POLICY
    from lab.experiments.casesearch import reads_oddly, teaches, teaching_seed_steps
    from serving.service import ModelService
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    s = SamplingSettings(0.7, 0, 0.9)

    def good(seed):
        rounds = engine.generate(pair, Request(ids, settings=s, gamma=4, seed=seed, max_new_tokens=16, drafter="model", policy=LECTURE_POLICY), keep_rows=False).rounds
        for r in rounds:
            if reads_oddly(r):
                return False
            if teaches(r):
                return True
        return False
    for first in (0, 5):
        seed = _run(teaching_seed_steps(service, ids, settings=s, gamma=4, max_new_tokens=16, first_seed=first,
                                        max_rounds=10_000))
        assert seed >= first and good(seed) and not any(good(k) for k in range(first, seed))
        assert _run(teaching_seed_steps(service, ids, settings=s, gamma=4, max_new_tokens=16,
                                        first_seed=first, max_rounds=0)) == seed     # kept by the service
    nothing = _run(teaching_seed_steps(service, ids, settings=s, gamma=4, max_new_tokens=16, first_seed=50,
                                       max_rounds=0))
    assert nothing == 50                       # no round tried: the student's own seed
