"""The engine against references: plain greedy decoding, transformers' assisted generation, and
the exact target distribution (chi-square on seeded samples)."""
import copy

import numpy as np
import pytest
import torch

from lab.core.request import Request
from lab.core import engine
from lab.core.engine import Decoder, generate
from lab.pairs.load import ModelPair
from lab.core.sampling import SamplingSettings
from lab.pairs.tiny import tiny_pair
from tests.lab.helpers import chi_square_pvalue, exact_marginals, without_eos

FAMILIES = ["llama", "gpt2"]
PROMPT = "the cat sat on the"


@pytest.fixture(scope="module", params=FAMILIES)
def pair(request):
    return tiny_pair(request.param)


def ids_of(pair, text=PROMPT):
    return pair.tokenizer.encode(text)


@pytest.mark.parametrize("gamma", range(1, 9))
def test_greedy_equals_plain_greedy(pair, gamma):
    plain = generate(pair, Request(ids_of(pair), mode="plain", max_new_tokens=40))
    spec = generate(pair, Request(ids_of(pair), gamma=gamma, max_new_tokens=40))
    assert spec.new_ids == plain.new_ids
    assert 0 < spec.accepted < spec.drafted            # both kept and rejected drafts happened
    assert spec.target_calls == len(spec.rounds) < plain.target_calls


@pytest.mark.parametrize("gamma", [1, 3, 5, 8])
def test_greedy_equals_transformers_assisted_generation(pair, gamma):
    ids = ids_of(pair)
    out = pair.target.generate(
        torch.tensor([ids]), assistant_model=pair.draft, do_sample=False, max_new_tokens=30,
        num_assistant_tokens=gamma, num_assistant_tokens_schedule="constant",
        assistant_confidence_threshold=0.0, pad_token_id=1, eos_token_id=None)
    ours = generate(pair, Request(ids, gamma=gamma, max_new_tokens=30))
    assert len(ours.new_ids) == 30                      # no EOS on this prompt, so lengths compare
    assert ours.new_ids == out[0, len(ids):].tolist()


def test_round_trace_is_consistent(pair):
    decoder = Decoder(pair, Request(ids_of(pair), gamma=4, settings=SamplingSettings(temperature=1.0), seed=3))
    for _ in range(6):
        r = decoder.step()
        assert r.p_rows.shape == (r.gamma + 1, len(pair.tokenizer)) and r.q_rows.shape[0] == r.gamma
        assert r.emitted_ids == [d.token_id for d in r.guesses[: r.n_accepted]] + [r.extra_token_id]
        for d in r.guesses:
            assert d.accept_probability == pytest.approx(min(1.0, d.p / d.q))
            assert d.p == pytest.approx(r.p_rows[d.index, d.token_id], rel=1e-5)
            if d.accepted is not None:
                assert d.accepted == (d.uniform < d.accept_probability)
        assert [d.accepted for d in r.guesses] == [True] * r.n_accepted + (
            [False] + [None] * (r.gamma - r.n_accepted - 1) if r.n_accepted < r.gamma else [])
        assert r.extra_kind == ("bonus" if r.n_accepted == r.gamma else "correction")
        assert r.target_seconds > 0 and all(d.draft_seconds > 0 for d in r.guesses)
    # Both caches hold exactly the committed text minus its last token: the rollback worked.
    assert decoder.writer_model.length == len(decoder.ids) - 1
    assert decoder.draft_cache.length in (len(decoder.ids) - 1, len(decoder.ids) - 2)   # − 2: after a bonus
    assert decoder.writer_model.cache.get_seq_length() == len(decoder.ids) - 1


def self_drafting(pair):
    """A draft identical to the target: every greedy draft is accepted."""
    return ModelPair(target=pair.target, draft=pair.target, tokenizer=pair.tokenizer, name="self")


@pytest.mark.parametrize("max_new", [1, 2, 5, 6, 7, 11])
def test_stops_exactly_at_max_new_tokens_mid_round(pair, max_new):
    same = self_drafting(pair)
    spec = generate(same, Request(ids_of(pair), gamma=4, max_new_tokens=max_new))
    plain = generate(same, Request(ids_of(pair), mode="plain", max_new_tokens=max_new))
    assert len(spec.new_ids) == max_new and spec.new_ids == plain.new_ids
    assert spec.alpha in (None, 1.0) and spec.rounds[-1].stop_reason == "max_new_tokens"


def test_stops_at_eos_inside_accepted_drafts(pair):
    plain = generate(pair, Request(ids_of(pair), mode="plain", max_new_tokens=12))
    stop_word = plain.new_ids[6]                       # pretend this token is the end of text
    tok = copy.deepcopy(pair.tokenizer)
    tok.eos_token = tok.convert_ids_to_tokens(stop_word)
    same = ModelPair(target=pair.target, draft=pair.target, tokenizer=tok)
    spec = generate(same, Request(ids_of(pair), gamma=8, max_new_tokens=40))
    first = plain.new_ids.index(stop_word)
    assert spec.new_ids == plain.new_ids[: first + 1]
    assert spec.rounds[-1].stop_reason == "eos"
    assert spec.rounds[0].n_accepted == 8 and spec.rounds[0].emitted_ids == plain.new_ids[: first + 1]


def test_plain_decoding_by_the_draft(pair):
    t = generate(pair, Request(ids_of(pair), mode="plain", writer="draft", max_new_tokens=8))
    assert t.mode == "plain-draft" and t.target_calls == len(t.new_ids) and t.draft_calls == 0
    alone = Decoder(pair, Request(ids_of(pair), mode="plain", writer="draft"))
    assert alone.writer_model.model is pair.draft and alone.draft_cache is None     # the draft writes; no drafter
    assert Decoder(pair, Request(ids_of(pair), mode="plain")).writer_model.model is pair.target


@pytest.mark.parametrize("bad", [dict(gamma=0), dict(gamma=17), dict(gamma=2.5), dict(mode="beam"),
                                 dict(max_new_tokens=0)])
def test_bad_arguments(pair, bad):
    with pytest.raises(ValueError):
        Decoder(pair, Request(ids_of(pair), **bad))
    with pytest.raises(ValueError, match="empty"):
        Decoder(pair, Request([]))


# --- Under sampling, speculative output is distributed exactly as the target's -----------------

def speculative_samples(pair, prompt_ids, settings, n, gamma=3, drafter="model", policy="constant"):
    firsts, seconds = [], []
    for seed in range(n):
        d = Decoder(pair, Request(prompt_ids, settings=settings, gamma=gamma, seed=seed, max_new_tokens=2, drafter=drafter, policy=policy), keep_rows=False)
        while not d.done:
            d.step()
        firsts.append(d.new_ids[0]); seconds.append(d.new_ids[1])
    return np.array(firsts), np.array(seconds)


SETTINGS = [SamplingSettings(temperature=1.0), SamplingSettings(temperature=0.7, top_k=8),
            SamplingSettings(temperature=1.3, top_p=0.8)]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: s.describe())
def test_sampled_tokens_follow_the_target_distribution(settings):
    pair = without_eos(tiny_pair("llama"))
    prompt = ids_of(pair)
    p1, p2 = exact_marginals(pair, prompt, settings)
    firsts, seconds = speculative_samples(pair, prompt, settings, n=1500)
    assert chi_square_pvalue(firsts, p1) > 0.001
    assert chi_square_pvalue(seconds, p2) > 0.001


@pytest.mark.parametrize("drafter,policy", [("lookup", "constant"), ("hybrid", "constant"), ("hybrid", "auto")])
def test_lookup_and_hybrid_drafts_follow_the_target_distribution(drafter, policy):
    """Prompt lookup's q is one-hot ("the" occurred before: it proposes what followed), so the
    accept rule keeps x with probability p(x) and a rejection samples p without x."""
    pair = without_eos(tiny_pair("llama"))
    settings = SETTINGS[0]
    prompt = ids_of(pair)
    d = Decoder(pair, Request(prompt, settings=settings, drafter=drafter, max_new_tokens=2, policy=policy))
    assert d.step().draft_source == "lookup"
    p1, p2 = exact_marginals(pair, prompt, settings)
    firsts, seconds = speculative_samples(pair, prompt, settings, n=1500, drafter=drafter, policy=policy)
    assert chi_square_pvalue(firsts, p1) > 0.001
    assert chi_square_pvalue(seconds, p2) > 0.001


def test_chi_square_catches_a_wrong_correction(monkeypatch, drafter="model"):
    """The same check fails when corrections come from p instead of the residual: it has power."""
    pair = without_eos(tiny_pair("llama"))
    settings = SETTINGS[0]
    p1, _ = exact_marginals(pair, ids_of(pair), settings)
    monkeypatch.setattr(engine, "residual", lambda p, q: p)
    firsts, _ = speculative_samples(pair, ids_of(pair), settings, n=1500, drafter=drafter)
    assert chi_square_pvalue(firsts, p1) < 0.001
