import numpy as np
import pytest
import torch

from lab.core.sampling import residual
from lab.experiments.twotokens import rounds, running_share, student_seed, thresholds


@pytest.mark.parametrize("p_a, q_a", [(0.6, 0.8), (0.2, 0.5), (0.9, 0.3)])
def test_a_rejected_token_is_corrected_to_the_other_one(p_a, q_a):
    p = torch.tensor([p_a, 1 - p_a], dtype=torch.float64)
    q = torch.tensor([q_a, 1 - q_a], dtype=torch.float64)
    r = rounds(p_a, q_a, 2000, np.random.default_rng(1))
    for x in (0, 1):
        if (r.x[~r.kept] == x).any():      # only a token with p(x) < q(x) is ever rejected
            assert residual(p, q)[1 - x] == 1.0
    assert (r.out[r.kept] == r.x[r.kept]).all() and (r.out[~r.kept] == 1 - r.x[~r.kept]).all()
    assert np.allclose(thresholds(p_a, q_a)[r.x] > r.u, r.kept)


def test_running_share_counts_earlier_rounds():
    out = np.array([0, 1, 0, 0])
    assert running_share(out).tolist() == [1.0, 0.5, 2 / 3, 0.75]
    assert running_share(out, before_rounds=4, before_a=0).tolist() == [1 / 5, 1 / 6, 2 / 7, 3 / 8]


def test_student_seed_is_stable_and_personal():
    assert student_seed(0, "alice") == student_seed(0, "alice")
    assert len({student_seed(0, "alice"), student_seed(0, "bob"), student_seed(1, "alice")}) == 3


def test_the_share_is_read_only_once_enough_rounds_make_its_noise_small():
    from lab.experiments.twotokens import SETTLED, share_settled, share_spread
    assert share_spread(0.6, 1) == pytest.approx(0.98, abs=0.001)        # one round: noise ±0.98, no result
    assert not share_settled(1) and not share_settled(SETTLED - 1) and share_settled(SETTLED)
    assert share_spread(0.5, SETTLED) <= 0.1
