"""The default drafting never loses by more than noise: on a pair whose guesses never match, the auto
policy falls back to plain steps (its speed-up, priced by a cost profile, within 3% of plain
decoding), resumes drafting once matches return, and stays exact (greedy: plain's tokens; sampling:
the target's distribution, χ²)."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from lab.core.adaptive import PROBE_EVERY, PROBE_MAX
from lab.core.engine import Decoder, generate
from lab.core.sampling import SamplingSettings
from lab.pairs.tiny import tiny_pair
from lab.speed import payoff
from lab.speed.timeline import schedule
from tests.lab.helpers import chi_square_pvalue, exact_marginals, scripted, without_eos

# The embedded pair's prices on a 2-core CPU: a draft call 0.16 target calls, each checked position 0.06.
PROFILE = scripted(c=0.16, per_position=0.06)
PROMPT = "red blue happy sad tree"


class Contrary(torch.nn.Module):
    """A scripted draft: the target itself, its logits turned upside down before position `until` (its
    guess there is the target's least likely token, so greedy never keeps one), the target's own after."""

    def __init__(self, target, until: int = 10 ** 9):
        super().__init__()
        self.target, self.until, self.config = target, until, target.config

    @property
    def device(self):
        return self.target.device

    def forward(self, input_ids, past_key_values=None, use_cache=True, **kwargs):
        start = past_key_values.get_seq_length() if past_key_values is not None else 0
        out = self.target(input_ids=input_ids, past_key_values=past_key_values, use_cache=use_cache)
        early = (torch.arange(start, start + input_ids.shape[1]) < self.until)[None, :, None]
        out.logits = torch.where(early, -out.logits, out.logits)
        return out


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def pair(request):
    return without_eos(tiny_pair(request.param))        # every decoding runs its full length


def decode(pair, drafter, n=96, **kwargs):
    ids = pair.tokenizer.encode(PROMPT)
    plain = generate(pair, ids, mode="plain", max_new_tokens=n)
    spec = generate(pair, ids, max_new_tokens=n, drafter=drafter, policy="auto:8", profile=PROFILE, **kwargs)
    return plain, spec


@pytest.mark.parametrize("drafter", ["model", "hybrid"])
def test_guesses_that_never_match_fall_back_to_plain_steps(pair, drafter):
    never = replace(pair, draft=Contrary(pair.target))
    plain, spec = decode(never, drafter)
    assert spec.new_ids == plain.new_ids
    model_rounds = [r for r in spec.rounds if r.draft_source == "model" and r.drafts]
    assert all(r.n_accepted == 0 for r in model_rounds)        # the draft model never matches
    assert schedule(plain, spec, PROFILE).decode_speedup >= 0.97
    drafted, rounds = payoff.rounds_of(spec)
    if drafter == "model":     # a few rounds to learn, then one-guess probes ever further apart
        assert model_rounds and drafted <= 2 + len(spec.rounds) // PROBE_EVERY
        gaps = np.diff([r.index for r in model_rounds][2:])
        assert list(gaps) == sorted(gaps) and max(gaps) <= PROBE_MAX + 1
        assert payoff.drafting_words(drafted, rounds) == f"drafted in {drafted} of {rounds} rounds; plain steps elsewhere"


def test_a_plain_draft_model_costs_the_constant_policy_far_more(pair):
    """The check above is not trivially met: drafting every round with these guesses is slow."""
    never = replace(pair, draft=Contrary(pair.target))
    ids = pair.tokenizer.encode(PROMPT)
    plain = generate(never, ids, mode="plain", max_new_tokens=48)
    constant = generate(never, ids, max_new_tokens=48, drafter="model", policy="constant:4")
    assert schedule(plain, constant, PROFILE).decode_speedup < 0.7


def test_drafting_resumes_when_matches_return(pair):
    switch = len(pair.tokenizer.encode(PROMPT)) + 30               # guesses right from new token 30 on
    later = replace(pair, draft=Contrary(pair.target, until=switch))
    plain, spec = decode(later, "model", n=160)
    assert spec.new_ids == plain.new_ids
    early = [r for r in spec.rounds if len(r.prefix_ids) < switch]
    late = [r for r in spec.rounds if len(r.prefix_ids) >= switch + 70]    # a probe (≤ PROBE_MAX on) and α back up
    assert sum(1 for r in early if r.drafts) <= 2 + len(early) // PROBE_EVERY
    assert late and sum(len(r.drafts) for r in late) >= 4 * len(late)   # long drafts again, all kept
    assert all(r.n_accepted == len(r.drafts) for r in late)
    assert spec.target_calls < 0.7 * plain.target_calls


def test_sampled_tokens_follow_the_target_distribution_through_fallback():
    """The auto policy's first round guesses (α = 0.5 to start) a token the target rarely wants; kept or
    corrected, and the plain step after a correction, every token follows the target's distribution."""
    pair = without_eos(tiny_pair("llama"))
    never = replace(pair, draft=Contrary(pair.target))
    settings = SamplingSettings(temperature=1.0)
    prompt = pair.tokenizer.encode(PROMPT)
    p1, p2 = exact_marginals(pair, prompt, settings)
    firsts, seconds, plain_second = [], [], 0
    for seed in range(800):
        d = Decoder(never, prompt, settings=settings, seed=seed, max_new_tokens=2, keep_rows=False,
                    drafter="model", policy="auto:8", profile=PROFILE)
        while not d.done:
            d.step()
        firsts.append(d.new_ids[0]); seconds.append(d.new_ids[1])
        plain_second += len(d.rounds) == 2 and not d.rounds[1].drafts
    assert plain_second > 100                           # both paths were sampled: a correction, then a plain step
    assert chi_square_pvalue(np.array(firsts), p1) > 0.001
    assert chi_square_pvalue(np.array(seconds), p2) > 0.001
