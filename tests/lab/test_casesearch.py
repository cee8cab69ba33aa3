from lab import engine
from lab.casesearch import SeedSearch, find_all_kept, keeps_all
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.sampling import SamplingSettings
from lab.tiny import tiny_pair

T1 = SamplingSettings(1.0)


def test_the_round_found_is_the_one_the_seeded_generation_makes():
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    found = find_all_kept(pair, ids, settings=T1, gamma=4, max_new_tokens=16, first_seed=3, max_seconds=1e9)
    assert found.seed is not None and found.seed >= 3 and found.tried == found.seed - 3 + 1
    trace = engine.generate(pair, ids, settings=T1, gamma=4, seed=found.seed, max_new_tokens=16,
                            keep_rows=True, drafter="model")
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
