"""What several tests of lab/ share: a scripted cost profile, the exact target marginals and a
chi-square test against them, and a pair without an end-of-text token."""
import copy

import numpy as np
import torch
from scipy import stats

from lab.core import sampling
from lab.pairs.load import ModelPair
from lab.speed.costs import CostProfile


def scripted(c: float, per_position: float, positions: int = 17, unit: float = 0.05) -> CostProfile:
    """A cost profile as lab.speed.costs measures one: a draft call c target calls, a verify pass over n
    positions 1 + per_position·(n − 1)."""
    return CostProfile(pair="scripted", draft_seconds=c * unit,
                       verify_seconds=tuple(unit * (1 + per_position * (n - 1)) for n in range(1, positions + 1)),
                       prefill_seconds=unit * 3, prefill_tokens=64, spread=0.0, load=0.0, cores=2, threads=2,
                       busy=False)


def exact_marginals(pair, prompt_ids, settings):
    """Exact target p(x1) and p(x2) = Σ p(x1) p(x2 | x1), by enumeration over the vocabulary."""
    with torch.inference_mode():
        p1 = sampling.probabilities(pair.target(input_ids=torch.tensor([prompt_ids])).logits[0, -1], settings)
        V = p1.shape[0]
        batch = torch.tensor([prompt_ids + [x] for x in range(V)])
        p2_given = sampling.probabilities(pair.target(input_ids=batch).logits[:, -1], settings)   # (V, V)
    return p1.numpy(), (p1[:, None] * p2_given).sum(0).numpy()


def chi_square_pvalue(samples, expected_probs):
    counts = np.bincount(samples, minlength=len(expected_probs))
    expected = expected_probs * len(samples)
    big = expected >= 5                                    # pool the rare cells into one
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    if exp[-1] == 0:
        assert obs[-1] == 0, "sampled a token the target gives probability 0"
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


def without_eos(pair):
    """The same pair with no end-of-text token, so every sample has two tokens."""
    tok = copy.deepcopy(pair.tokenizer)
    tok.eos_token = None
    return ModelPair(target=pair.target, draft=pair.draft, tokenizer=tok)


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
