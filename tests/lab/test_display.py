"""What the pages draw of p and q: regions, the top-k union, the greedy display rule."""
import numpy as np
import pytest

from lab.experiments.display import regions, shown_settings, top_k_union
from lab.core.sampling import SamplingSettings


def test_regions_split_p_and_q_exactly():
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(50)), rng.dirichlet(np.ones(50))
    r = regions(p, q)
    assert np.allclose(r["agree"] + r["eager"], q) and np.allclose(r["agree"] + r["shy"], p)
    assert (r["eager"] * r["shy"] == 0).all()              # a token is too eager or too shy, not both
    assert np.isclose(r["shy"].sum(), r["eager"].sum())    # what one side lacks the other has extra


def test_top_k_union_keeps_either_models_favourites_and_drops_tokens_nobody_picks():
    p = np.array([0.5, 0.3, 0.2, 0.0, 0.0])
    q = np.array([0.1, 0.0, 0.0, 0.9, 0.0])
    assert top_k_union(p, q, k=1) == [0, 3]
    assert top_k_union(p, q, k=3) == [0, 1, 2, 3]          # token 4: zero under both, left out
    assert top_k_union(p, None, k=5) == [0, 1, 2]


@pytest.mark.parametrize("settings, shown", [
    (SamplingSettings(0.0, 5, 0.9), SamplingSettings(1.0, 5, 0.9)),    # greedy: one-hot, so T = 1
    (SamplingSettings(0.7, 0, 1.0), SamplingSettings(0.7, 0, 1.0)),    # sampling: as the student set
])
def test_greedy_is_shown_at_temperature_one(settings, shown):
    assert shown_settings(settings) == shown
