"""Chapter 7's comparison of accept + correct against p, on one support for every number.

A Monte-Carlo histogram over a whole vocabulary mostly measures sampling noise in the tail, so the
Monte-Carlo is compared over K + 1 bins: the K tokens on the chart and one bin for all the others
(lab.core.montecarlo.bin_tail). The exact distance is computed over the very same bins, so the two
numbers a page shows side by side can be compared.

    d = distances(p, q, counts, shown_ids, "residual")
    d["mc"], d["noise"], d["exact"], d["bins"]      # TV of the sample, its noise, TV exact, K + 1
"""
from __future__ import annotations

import numpy as np

from lab.core import montecarlo as mc


def exact_distance(p, q, rule: str, shown_ids) -> float:
    """TV between the rule's exact output and p, over the shown tokens plus one bin for the rest."""
    out = mc.output_distribution(p, q, rule)
    p = np.asarray(p, dtype=np.float64) / np.sum(p)
    return mc.total_variation(mc.bin_tail(out, shown_ids), mc.bin_tail(p, shown_ids))


def distances(p, q, counts, shown_ids, rule: str) -> dict:
    """The Monte-Carlo's TV to p, the TV sampling noise alone gives, and the exact TV, all over the
    same K + 1 bins; with the shares of the "all others" bin (sampled, p)."""
    n = int(np.sum(counts))
    p = np.asarray(p, dtype=np.float64) / np.sum(p)
    target = mc.bin_tail(p, shown_ids)
    sampled = mc.bin_tail(np.asarray(counts) / n, shown_ids)
    return dict(mc=mc.total_variation(sampled, target), noise=mc.noise_level(target, n),
                exact=exact_distance(p, q, rule, shown_ids), n=n, bins=len(target),
                others_sampled=float(sampled[-1]), others_p=float(target[-1]))
