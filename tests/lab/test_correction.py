import numpy as np

from lab.core import montecarlo as mc
from lab.experiments.correction import distances, exact_distance


def test_exact_and_monte_carlo_are_over_the_same_bins():
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(500) * 0.2), rng.dirichlet(np.ones(500) * 0.2)
    shown = list(np.argsort(-p)[:8])
    counts = mc.simulate(p, q, "target", 400_000, seed=1)
    d = distances(p, q, counts, shown, "target")
    assert d["bins"] == 9 and d["n"] == 400_000
    assert abs(d["mc"] - d["exact"]) < 3 * d["noise"]
    # over the whole vocabulary the exact distance is another (larger) number: not what is compared
    whole = mc.total_variation(mc.output_distribution(p, q, "target"), p)
    assert whole > d["exact"] + 0.01
    assert exact_distance(p, q, "residual", shown) < 1e-12
    assert np.isclose(d["others_p"], 1 - p[shown].sum())
