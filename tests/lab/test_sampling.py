import numpy as np
import pytest
import torch

from lab.core.sampling import SamplingSettings, accept_probability, probabilities, residual


def output_distribution(p, q):
    """Exact P(output = x) of one position: accept x ~ q with min(1, p/q), else draw the residual."""
    accept = torch.tensor([accept_probability(p, q, x) if q[x] > 0 else 0.0 for x in range(len(p))],
                          dtype=torch.float64)
    kept = q * accept
    return kept + (1 - kept.sum()) * residual(p, q)


def random_distribution(rng, n, zeros=0):
    x = rng.dirichlet(np.full(n, 0.5))
    x[rng.choice(n, zeros, replace=False)] = 0
    return torch.tensor(x / x.sum(), dtype=torch.float64)


@pytest.mark.parametrize("seed", range(20))
def test_accept_and_residual_reproduce_p_exactly(seed):
    rng = np.random.default_rng(seed)
    p, q = random_distribution(rng, 12, zeros=seed % 4), random_distribution(rng, 12, zeros=(seed // 4) % 3)
    assert torch.allclose(output_distribution(p, q), p, atol=1e-12)


def test_hand_made_two_token_case():
    p = torch.tensor([0.6, 0.4], dtype=torch.float64)
    q = torch.tensor([0.8, 0.2], dtype=torch.float64)
    assert accept_probability(p, q, 0) == pytest.approx(0.75)   # draft too eager about A
    assert accept_probability(p, q, 1) == 1.0                  # draft too shy about B: always keep
    assert residual(p, q).tolist() == pytest.approx([0.0, 1.0])
    assert output_distribution(p, q).tolist() == pytest.approx([0.6, 0.4])


def test_residual_guarded_when_q_covers_p():
    p = torch.tensor([0.5, 0.5, 0.0], dtype=torch.float64)
    assert residual(p, p.clone()).tolist() == p.tolist()       # no division by zero
    assert accept_probability(p, p, 2) == 0.0                 # a token q never proposes


def test_greedy_is_one_hot_on_argmax():
    logits = torch.tensor([[0.1, 2.0, -1.0], [3.0, 0.0, 2.9]])
    probs = probabilities(logits, SamplingSettings(temperature=0))
    assert probs.tolist() == [[0, 1, 0], [1, 0, 0]]


def test_warpers_match_transformers_generate_semantics():
    logits = torch.tensor([[2.0, 1.0, 0.5, 0.0, -1.0]])
    p = probabilities(logits, SamplingSettings(temperature=0.5, top_k=3))
    assert (p[0, 3:] == 0).all() and p[0, :3].sum() == pytest.approx(1.0)
    expected = torch.softmax(logits[0, :3].double() / 0.5, -1)
    assert torch.allclose(p[0, :3], expected)
    top_p = probabilities(logits, SamplingSettings(temperature=1.0, top_p=0.6))
    assert top_p[0, 0] > 0 and top_p[0, 1] > 0 and (top_p[0, 2:] == 0).all()


@pytest.mark.parametrize("kwargs", [dict(temperature=-1), dict(temperature=float("nan")),
                                    dict(top_k=-3), dict(top_k=2.5), dict(top_p=0), dict(top_p=1.5)])
def test_bad_settings_raise(kwargs):
    with pytest.raises(ValueError):
        SamplingSettings(**kwargs)
