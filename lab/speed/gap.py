"""Why the lecture's formula and a measured request differ, term by term, with the terms' numbers.

The formula's speed-up is E / (1 + γc): E = (1 − α^(γ+1)) / (1 − α) tokens for a round of one verify
pass (one target call) and γ guesses (c each). Measured, a request's speed-up is T / R: T tokens a
round for R target calls' time a round (plain decoding costs one call a token). So

    predicted ÷ measured = (E ÷ T) · (R ÷ (1 + γc))

and each factor splits into terms measured on the request's own rounds:

    guesses   the rounds' own number of guesses (fewer than γ near the text's end, none in a plain
              step): E at each round's count for tokens, their measured time for γc — one net term
    uneven    how unevenly guesses were kept across rounds (all kept in some, none in others), named
              only beyond chance (two standard errors of independent guesses at α over these rounds);
              within it, "chance"
    cut       the text ending inside a round
    verify    the verify pass: v calls on this machine, 1 in the formula

A term is named only when it moves the speed-up by more than TERM. Each is a `Term`: its name, its
factor on the speed-up and the figures that make it (the pages say them in words: uikit.verdicts):

    for term in named(outcome): term.name, term.factor, term.facts
    terms(outcome)                             # every term, largest first
"""
from __future__ import annotations

import math
from typing import NamedTuple

from lab.core import analytic

TERM = 0.04           # a term is named when it moves the speed-up by more than 4%


class Term(NamedTuple):
    """One term of the gap: its name (see the module's text), its factor on the speed-up (above 1:
    the measured rounds did better than the formula) and the figures that make it."""
    name: str
    factor: float
    facts: dict


def kept_moments(alpha: float, gamma: int) -> tuple[float, float]:
    """Mean and variance of the guesses a round of γ keeps when each is kept with probability α given
    the ones before it were (the formula's independent guesses)."""
    probs = [alpha ** k * (1 - alpha) for k in range(gamma)] + [alpha ** gamma]
    mean = sum(k * p for k, p in enumerate(probs))
    return mean, sum(k * k * p for k, p in enumerate(probs)) - mean ** 2


def token_terms(rounds, alpha: float, gamma: int) -> list[Term]:
    """The terms of the tokens a round gave against E(α, γ), beyond the rounds' own number of guesses
    (`guess_terms`). Uneven keeping is named only beyond chance: more than two standard errors from
    what independent guesses at α give over these rounds."""
    n = len(rounds)
    if not n:
        return []
    own = sum(float(analytic.expected_tokens(alpha, r.gamma)) if r.gamma else 1.0 for r in rounds) / n
    full = sum(r.n_accepted + 1 for r in rounds) / n
    given = sum(len(r.emitted_ids) for r in rounds) / n
    out = []
    guessed = [r for r in rounds if r.gamma]
    if guessed and full != own:
        spread = 2 * math.sqrt(sum(kept_moments(alpha, r.gamma)[1] for r in guessed)) / n
        if abs(full - own) > spread:
            out.append(Term("uneven", full / own, dict(
                all_kept=sum(r.n_accepted == r.gamma for r in guessed), guessed=len(guessed),
                none_kept=sum(r.n_accepted == 0 for r in guessed), alpha=alpha,
                want_all=sum(alpha ** r.gamma for r in guessed), want_none=len(guessed) * (1 - alpha),
                measured=full, independent=own, spread=spread)))
        else:
            out.append(Term("chance", full / own, dict(rounds=n, alpha=alpha, independent=own, spread=spread,
                                                       measured=full)))
    if given < full:
        out.append(Term("cut", given / full, dict(given=given, kept=full)))
    return out


def guess_terms(rounds, alpha: float, gamma: int, c: float, drafting: float,
                verify_ref: float = 1.0) -> list[Term]:
    """The rounds' own number of guesses against the formula's γ, both ways it counts: the tokens
    (E at each round's count) and the cost (the guesses' measured time, not γc); one term, their net
    factor on the speed-up. Its facts count the rounds that guessed fewer than γ or more."""
    n = len(rounds)
    if not n:
        return []
    e = float(analytic.expected_tokens(alpha, gamma))
    own = sum(float(analytic.expected_tokens(alpha, r.gamma)) if r.gamma else 1.0 for r in rounds) / n
    if own == e and drafting == gamma * c:
        return []
    formula = verify_ref + gamma * c
    return [Term("guesses", own / e * formula / (formula + drafting - gamma * c), dict(
        guesses=sum(r.gamma for r in rounds) / n, gamma=gamma, c=c, own_e=own, e=e, drafting=drafting,
        plain=sum(1 for r in rounds if not r.gamma), short=sum(1 for r in rounds if 0 < r.gamma < gamma),
        longer=sum(1 for r in rounds if r.gamma > gamma)))]


def cost_terms(verify: float, drafting: float, gamma: int, c: float,
               verify_ref: float = 1.0) -> list[Term]:
    """The term of a round's mean verify pass `verify` against the formula's `verify_ref` calls (1 in
    the lecture's 1 + γc; the break-even counts v(γ + 1)), the round's guesses at their measured cost
    `drafting` (their count's term is `guess_terms`')."""
    if verify == verify_ref:
        return []
    measured = drafting + verify_ref
    return [Term("verify", measured / (measured + verify - verify_ref),
                 dict(verify=verify, verify_ref=verify_ref, positions=gamma + 1))]


def terms(o, verify_ref: float = 1.0) -> list[Term]:
    """Every term of an Outcome's gap between the formula (at its α, γ, c as pages print them, and a
    verify pass of `verify_ref`) and its measured rounds, largest first."""
    g, a, c = o.mean_gamma, round(o.alpha or 0.0, 2), round(o.c, 2)
    calls = max(1, o.target_calls)
    drafting = o.timed.decode_time("draft + verify") / calls - o.verify_cost
    rounds = o.spec.rounds
    found = (guess_terms(rounds, a, g, c, drafting, verify_ref) + token_terms(rounds, a, g)
             + cost_terms(o.verify_cost, drafting, g, c, verify_ref))
    return sorted(found, key=lambda t: -abs(math.log(t.factor)))


def named(o, verify_ref: float = 1.0) -> list[Term]:
    """The terms that move the speed-up by more than TERM, largest first; when none does alone, the
    largest."""
    found = terms(o, verify_ref)
    big = [t for t in found if abs(math.log(t.factor)) > math.log(1 + TERM)]
    return big or found[:1]
