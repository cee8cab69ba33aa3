"""The analytic model of speculative decoding (Leviathan, Kalman & Matias, 2023, §3.1 and §3.3).

Acceptances are treated as independent with rate α; a verify pass over γ + 1 positions costs one
target call; a draft call costs c target calls. It predicts shapes, not benchmarks.
All functions take scalars or numpy arrays and broadcast.

>>> round(float(expected_tokens(0.8, 4)), 2), round(float(speedup(0.8, 4, 0.1)), 2)
(3.36, 2.4)
>>> bool(speedup(0.6, 5, 0.3) < 1)      # chapter 10's question: drafting is slower here
True
"""
from __future__ import annotations

import numpy as np

MAX_GAMMA = 16      # the longest draft anywhere in the lab: the formulas, the engine and its policies


def _alpha(alpha) -> np.ndarray:
    a = np.asarray(alpha, dtype=float)
    if np.isnan(a).any() or (a < 0).any() or (a > 1).any():
        raise ValueError("α (the acceptance rate) must be a number between 0 and 1.")
    return a


def _gamma(gamma) -> np.ndarray:
    g = np.asarray(gamma, dtype=float)
    if np.isnan(g).any() or (g < 1).any() or (g != np.round(g)).any() or (g > MAX_GAMMA).any():
        raise ValueError(f"γ (the draft length) must be a whole number from 1 to {MAX_GAMMA}.")
    return g


def _cost(c) -> np.ndarray:
    c = np.asarray(c, dtype=float)
    if np.isnan(c).any() or (c < 0).any() or np.isinf(c).any():
        raise ValueError("c (draft call time ÷ target call time) must be a finite number ≥ 0.")
    return c


def expected_tokens(alpha, gamma):
    """E = (1 − α^(γ+1)) / (1 − α), tokens committed per round; γ + 1 at α = 1 (eq. 1)."""
    return _expected_tokens(*np.broadcast_arrays(_alpha(alpha), _gamma(gamma)))


def round_cost(gamma, c):
    """Cost of one round in target calls: γ draft calls and one verify pass, 1 + γc."""
    return 1 + _gamma(gamma) * _cost(c)


def speedup(alpha, gamma, c):
    """Expected wall-time speed-up over plain decoding, E / (1 + γc) (Theorem 3.8)."""
    return _speedup(_alpha(alpha), _gamma(gamma), _cost(c))


# The formulas on checked arrays (the public functions check their input once; loops call these).
def _expected_tokens(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        e = (1 - a ** (g + 1)) / (1 - a)
    return np.where(a == 1, g + 1, e)


def _speedup(a: np.ndarray, g: np.ndarray, c: np.ndarray) -> np.ndarray:
    return _expected_tokens(*np.broadcast_arrays(a, g)) / (1 + g * c)


def break_even_alpha(gamma, c, tol: float = 1e-10):
    """The α at which speed-up = 1 for this γ and c.

    Speed-up rises monotonically in α, so bisection finds the unique root. When even α = 1 gives
    no speed-up (γ + 1 ≤ 1 + γc, i.e. c ≥ 1) the answer is NaN: no acceptance rate breaks even.
    """
    g, cc = np.broadcast_arrays(_gamma(gamma), _cost(c))
    lo, hi = np.zeros_like(g), np.ones_like(g)
    for _ in range(60):
        mid = (lo + hi) / 2
        below = _speedup(mid, g, cc) < 1
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        if np.all(hi - lo < tol):
            break
    reachable = speedup(1.0, g, cc) >= 1
    return np.where(reachable, hi, np.nan)


def best_gamma(alpha, c, max_gamma: int = MAX_GAMMA):
    """The γ in 1..max_gamma with the highest speed-up for this α and c, and that speed-up."""
    a, cc = np.broadcast_arrays(_alpha(alpha), _cost(c))
    gammas = np.arange(1, max_gamma + 1).reshape((-1,) + (1,) * a.ndim)   # (G, ...)
    s = speedup(a[None], gammas, cc[None])                                 # (G, ...)
    i = s.argmax(axis=0)
    return gammas.reshape(-1)[i], np.take_along_axis(s, i[None], axis=0)[0]
