"""Why the lecture's formula and a measured request differ, term by term, with the terms' numbers.

The formula's speed-up is E / (1 + γc): E = (1 − α^(γ+1)) / (1 − α) tokens for a round of one verify
pass (one target call) and γ guesses (c each). Measured, a request's speed-up is T / R: T tokens a
round for R target calls' time a round (plain decoding costs one call a token). So

    predicted ÷ measured = (E ÷ T) · (R ÷ (1 + γc))

and each factor splits into terms measured on the request's own rounds:

    tokens   E → T     the rounds' own number of guesses (fewer than γ near the text's end, none in a
                       plain step): the formula at each round's count, E'; how unevenly guesses were
                       kept across rounds (all kept in some, none in others) against independent
                       guesses with the same α; the text ending inside a round
    cost     1 + γc → R   the verify pass (v calls on this machine, 1 in the formula) and the guesses
                       a round made (ḡ at c each, not γ)

A term is named only when it moves the speed-up by more than TERM, each with its numbers:

    for line in reasons(outcome): ...          # the terms, largest first, in words
    terms(outcome)                             # the same as (name, factor, words)
"""
from __future__ import annotations

import math

from lab.core import analytic

TERM = 0.02           # a term is named when it moves the speed-up by more than 2%


def _count(n: float) -> str:
    return f"{n:.1f}" if n < 10 else f"{n:.0f}"


def _rounds(n: int) -> str:
    return f"{n} round{'s' * (n != 1)}"


def token_terms(rounds, alpha: float, gamma: int) -> list[tuple[str, float, str]]:
    """(name, factor on the speed-up, words) of the tokens a round gave against E(α, γ): a factor
    above 1 made the measured rounds faster than the formula."""
    n = len(rounds)
    if not n:
        return []
    e = float(analytic.expected_tokens(alpha, gamma))
    own = sum(float(analytic.expected_tokens(alpha, r.gamma)) if r.gamma else 1.0 for r in rounds) / n
    full = sum(r.n_accepted + 1 for r in rounds) / n
    given = sum(len(r.emitted_ids) for r in rounds) / n
    out = []
    guesses = sum(r.gamma for r in rounds) / n
    if own != e:
        out.append(("guesses", own / e,
                    f"the rounds made {guesses:.1f} guesses on average, not γ = {gamma} ("
                    + _fewer(rounds, gamma) + f"), so the formula at each round's own count gives "
                    f"E = {own:.2f} tokens, not {e:.2f}"))
    guessed = [r for r in rounds if r.gamma]
    if guessed and full != own:
        all_kept = sum(r.n_accepted == r.gamma for r in guessed)
        none_kept = sum(r.n_accepted == 0 for r in guessed)
        want_all = sum(alpha ** r.gamma for r in guessed)
        want_none = len(guessed) * (1 - alpha)
        more = "more" if full > own else "fewer"
        out.append(("uneven", full / own,
                    f"the guesses were kept unevenly across rounds: {all_kept} of {_rounds(len(guessed))} kept "
                    f"every guess and {none_kept} kept none, where independent guesses at α = {alpha:.2f} would "
                    f"give {_count(want_all)} and {_count(want_none)}, so a round gave {full:.2f} tokens, {more} "
                    f"than the {own:.2f} of independent guesses"))
    if given < full:
        out.append(("cut", given / full, f"the text ended inside a round, which then gave fewer tokens than it "
                    f"kept ({given:.2f} a round, not {full:.2f})"))
    return out


def _fewer(rounds, gamma: int) -> str:
    """Why rounds guessed fewer than γ, in words: "3 plain steps, 2 shorter near the text's end"."""
    plain = sum(1 for r in rounds if not r.gamma)
    short = sum(1 for r in rounds if 0 < r.gamma < gamma)
    longer = sum(1 for r in rounds if r.gamma > gamma)
    parts = [f"{plain} plain step{'s' * (plain != 1)} without a guess" if plain else "",
             f"{short} with fewer guesses" if short else "", f"{longer} with more" if longer else ""]
    return ", ".join(p for p in parts if p) or "every round"


def cost_terms(verify: float, drafting: float, guesses: float, c: float, gamma: int,
               verify_ref: float = 1.0) -> list[tuple[str, float, str]]:
    """(name, factor on the speed-up, words) of a round's measured cost — its mean verify pass
    `verify` and its guesses' time `drafting` (`guesses` a round at `c` each) — against the
    formula's round, a verify pass of `verify_ref` calls (1 in the lecture's 1 + γc) and γc."""
    formula = verify_ref + gamma * c
    out = []
    if verify != verify_ref:
        where = "the formula counts 1" if verify_ref == 1 else f"the break-even counts v({gamma + 1}) = {verify_ref:.2f}"
        out.append(("verify", formula / (formula + verify - verify_ref),
                    f"a verify pass cost {verify:.2f} target calls on average here, where {where}"))
    if drafting != gamma * c:
        out.append(("drafts", formula / (formula + drafting - gamma * c),
                    f"a round's guesses cost {drafting:.2f} ({guesses:.1f} guesses), where the formula counts "
                    f"γc = {gamma}·{c:.2f} = {gamma * c:.2f}"))
    return out


def terms(o, verify_ref: float = 1.0) -> list[tuple[str, float, str]]:
    """Every term of an Outcome's gap between the formula (at its α, γ, c as pages print them, and a
    verify pass of `verify_ref`) and its measured rounds, largest first."""
    g, a, c = o.mean_gamma, round(o.alpha or 0.0, 2), round(o.c, 2)
    calls = max(1, o.target_calls)
    drafting = o.timed.decode_time("draft + verify") / calls - o.verify_cost
    found = token_terms(o.spec.rounds, a, g) + cost_terms(o.verify_cost, drafting, o.spec.drafted / calls, c, g,
                                                         verify_ref)
    return sorted(found, key=lambda t: -abs(math.log(t[1])))


def reasons(o, verify_ref: float = 1.0) -> list[str]:
    """The terms that move the speed-up by more than TERM, in words, largest first; when none does
    alone but they differ together, the largest."""
    found = terms(o, verify_ref)
    big = [words for _, f, words in found if abs(math.log(f)) > math.log(1 + TERM)]
    return big or [words for _, _, words in found[:1]]
