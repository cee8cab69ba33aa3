"""Chapter 6's experiment: whole rounds at one position with two tokens, A and B.

Each round draws x ~ q, keeps it when u < min(1, p(x)/q(x)) (lab.core.sampling.accept_probability), and
otherwise writes the correction from the residual norm((p − q)+). With two tokens the residual of a
rejected x lies wholly on the other token (x was rejected only because p(x) < q(x)), so the output is
x when kept and the other token when not. The share of outputs that are A tends to p(A), whatever
q(A) is — the payoff of the rule.

    rng = student_rng(seed=0, owner="browser-id")      # reproducible, different per student
    r = rounds(0.6, 0.8, 1000, rng)                    # r.x, r.u, r.kept, r.out (0 = A, 1 = B)
    running_share(r.out)[-1]                           # ≈ 0.6
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
import torch

from lab.core.sampling import accept_probability

TOKENS = ("A", "B")
SETTLED = 100     # rounds before the share of A is read as a result: two standard errors ≤ 0.1 then


def thresholds(p_a: float, q_a: float) -> np.ndarray:
    """min(1, p(x)/q(x)) for x = A, B, through the lab's own accept rule."""
    p = torch.tensor([p_a, 1 - p_a], dtype=torch.float64)
    q = torch.tensor([q_a, 1 - q_a], dtype=torch.float64)
    return np.array([accept_probability(p, q, x) for x in range(2)])


def student_seed(seed: int, owner) -> int:
    """A seed of the student's own: their seed setting mixed with a stable hash of who they are
    (their browser's id), so two students get different draws and one student the same ones again."""
    who = getattr(owner, "browser", owner)
    return (int(seed) << 32) | zlib.crc32(str(who if who is not None else "").encode())


def student_rng(seed: int, owner) -> np.random.Generator:
    return np.random.default_rng(student_seed(seed, owner))


@dataclass
class Rounds:
    x: np.ndarray       # the proposed token per round (0 = A, 1 = B)
    u: np.ndarray       # its uniform draw
    kept: np.ndarray    # u < min(1, p(x)/q(x))
    out: np.ndarray     # the token the round wrote: x if kept, else the residual's (the other one)


def rounds(p_a: float, q_a: float, n: int, rng: np.random.Generator) -> Rounds:
    """n rounds of propose (x ~ q), accept (u < min(1, p/q)) and correct (from the residual)."""
    thr = thresholds(p_a, q_a)
    x = (rng.random(n) >= q_a).astype(int)          # 0 = A with probability q(A)
    u = rng.random(n)
    kept = u < thr[x]
    return Rounds(x, u, kept, np.where(kept, x, 1 - x))


def running_share(out: np.ndarray, before_rounds: int = 0, before_a: int = 0) -> np.ndarray:
    """The share of outputs that are A after each round (counting `before_a` A's in `before_rounds`
    earlier rounds)."""
    total = before_rounds + np.arange(1, len(out) + 1)
    return (before_a + np.cumsum(out == 0)) / total


def share_spread(p_a: float, total: int) -> float:
    """Two standard errors of the share of A after `total` rounds whose outputs are A with
    probability p(A): the sampling noise to expect around p(A)."""
    return 2 * (p_a * (1 - p_a) / total) ** 0.5


def share_settled(total: int) -> bool:
    """Whether `total` rounds are enough to read the share of A as a result (a single round writes
    A or B, a share of 1 or 0, which says nothing about p(A))."""
    return total >= SETTLED
