from lab import engine
from lab.casesearch import Found, find_all_kept, keeps_all
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.sampling import SamplingSettings
from lab.tiny import tiny_pair

T1 = SamplingSettings(1.0)


def test_the_round_found_is_the_one_the_seeded_generation_makes():
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    found = find_all_kept(pair, ids, settings=T1, gamma=4, max_new_tokens=16, first_seed=3)
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
    assert find_all_kept(pair, ids, settings=T1, gamma=16, max_new_tokens=16, max_seeds=3) == Found(None, None, 3)
    ticks = iter(range(100))
    found = find_all_kept(pair, ids, settings=T1, gamma=16, max_new_tokens=16, max_seconds=1.5,
                          clock=lambda: next(ticks))
    assert found == Found(None, None, 1)     # deadline 1.5: seed 0 at t = 1, stop at t = 2
