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

A term is named only when it moves the speed-up by more than TERM, each with its numbers:

    for line in reasons(outcome): ...          # the terms, largest first, in words
    terms(outcome)                             # the same as (name, factor, words)
"""
from __future__ import annotations

import math

from lab.core import analytic

TERM = 0.04           # a term is named when it moves the speed-up by more than 4%


def _count(n: float) -> str:
    return f"{n:.1f}" if n < 10 else f"{n:.0f}"


def _rounds(n: int) -> str:
    return f"{n} round{'s' * (n != 1)}"


def kept_moments(alpha: float, gamma: int) -> tuple[float, float]:
    """Mean and variance of the guesses a round of γ keeps when each is kept with probability α given
    the ones before it were (the formula's independent guesses)."""
    probs = [alpha ** k * (1 - alpha) for k in range(gamma)] + [alpha ** gamma]
    mean = sum(k * p for k, p in enumerate(probs))
    return mean, sum(k * k * p for k, p in enumerate(probs)) - mean ** 2


def token_terms(rounds, alpha: float, gamma: int) -> list[tuple[str, float, str]]:
    """(name, factor on the speed-up, words) of the tokens a round gave against E(α, γ), beyond the
    rounds' own number of guesses (`guess_terms`): a factor above 1 made the measured rounds faster
    than the formula. Uneven keeping is named only beyond chance: more than two standard errors from
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
        more = "more" if full > own else "fewer"
        if abs(full - own) > spread:
            all_kept = sum(r.n_accepted == r.gamma for r in guessed)
            none_kept = sum(r.n_accepted == 0 for r in guessed)
            want_all = sum(alpha ** r.gamma for r in guessed)
            want_none = len(guessed) * (1 - alpha)
            out.append(("uneven", full / own,
                        f"the guesses were kept unevenly across rounds: {all_kept} of {_rounds(len(guessed))} kept "
                        f"every guess and {none_kept} kept none, where independent guesses at α = {alpha:.2f} would "
                        f"give {_count(want_all)} and {_count(want_none)}, so a round gave {full:.2f} tokens, {more} "
                        f"than the {own:.2f} ± {spread:.2f} of independent guesses"))
        else:
            out.append(("chance", full / own,
                        f"chance: over {_rounds(n)}, independent guesses at α = {alpha:.2f} give {own:.2f} ± "
                        f"{spread:.2f} tokens a round, and the {full:.2f} measured is within that"))
    if given < full:
        out.append(("cut", given / full, f"the text ended inside a round, so the rounds gave {given:.2f} tokens "
                    f"each, not the {full:.2f} they kept and added"))
    return out


def guess_terms(rounds, alpha: float, gamma: int, c: float, drafting: float,
                verify_ref: float = 1.0) -> list[tuple[str, float, str]]:
    """The rounds' own number of guesses against the formula's γ, both ways it counts: the tokens
    (E at each round's count) and the cost (the guesses' measured time, not γc); one term, their net
    factor on the speed-up."""
    n = len(rounds)
    if not n:
        return []
    e = float(analytic.expected_tokens(alpha, gamma))
    own = sum(float(analytic.expected_tokens(alpha, r.gamma)) if r.gamma else 1.0 for r in rounds) / n
    guesses = sum(r.gamma for r in rounds) / n
    if own == e and drafting == gamma * c:
        return []
    formula = verify_ref + gamma * c
    factor = own / e * formula / (formula + drafting - gamma * c)
    return [("guesses", factor,
             f"the rounds made {guesses:.1f} guesses on average, not γ = {gamma} (" + _fewer(rounds, gamma)
             + f"), so the formula at each round's own count gives E = {own:.2f} tokens, not {e:.2f}, and their "
             f"guesses cost {drafting:.2f} a round, not γc = {gamma}·{c:.2f} = {gamma * c:.2f}")]


def _fewer(rounds, gamma: int) -> str:
    """Why rounds guessed fewer than γ, in words: "3 plain steps, 2 shorter near the text's end"."""
    plain = sum(1 for r in rounds if not r.gamma)
    short = sum(1 for r in rounds if 0 < r.gamma < gamma)
    longer = sum(1 for r in rounds if r.gamma > gamma)
    parts = [f"{plain} plain step{'s' * (plain != 1)} without a guess" if plain else "",
             f"{short} with fewer guesses" if short else "", f"{longer} with more" if longer else ""]
    return ", ".join(p for p in parts if p) or "every round"


def cost_terms(verify: float, drafting: float, gamma: int, c: float,
               verify_ref: float = 1.0) -> list[tuple[str, float, str]]:
    """(name, factor on the speed-up, words) of a round's mean verify pass `verify` against the
    formula's `verify_ref` calls (1 in the lecture's 1 + γc), the round's guesses at their measured
    cost `drafting` (their count's term is `guess_terms`')."""
    if verify == verify_ref:
        return []
    where = "the formula counts 1" if verify_ref == 1 else f"the break-even counts v({gamma + 1}) = {verify_ref:.2f}"
    measured = drafting + verify_ref
    return [("verify", measured / (measured + verify - verify_ref),
             f"a verify pass cost {verify:.2f} target calls on average here, where {where}")]


def terms(o, verify_ref: float = 1.0) -> list[tuple[str, float, str]]:
    """Every term of an Outcome's gap between the formula (at its α, γ, c as pages print them, and a
    verify pass of `verify_ref`) and its measured rounds, largest first."""
    g, a, c = o.mean_gamma, round(o.alpha or 0.0, 2), round(o.c, 2)
    calls = max(1, o.target_calls)
    drafting = o.timed.decode_time("draft + verify") / calls - o.verify_cost
    rounds = o.spec.rounds
    found = (guess_terms(rounds, a, g, c, drafting, verify_ref) + token_terms(rounds, a, g)
             + cost_terms(o.verify_cost, drafting, g, c, verify_ref))
    return sorted(found, key=lambda t: -abs(math.log(t[1])))


def reasons(o, verify_ref: float = 1.0) -> list[str]:
    """The terms that move the speed-up by more than TERM, in words, largest first; when none does
    alone, the largest."""
    found = terms(o, verify_ref)
    big = [words for _, f, words in found if abs(math.log(f)) > math.log(1 + TERM)]
    return big or [words for _, _, words in found[:1]]
