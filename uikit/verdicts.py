"""What pages say of a request's outcome (lab.speed.request.Outcome), in the page's language: the
verdict (faster, level or slower than plain decoding here, and why), the line when the machine was
re-timed, who guessed, why the lecture's formula predicts another speed-up (each term of
lab.speed.gap with its numbers) and the projection to a lecture-scale pair. The figures are the
lab's (lab.speed.verdicts); each sentence is one message with its numbers in the page's number
format (uikit.language).

    verdict(outcome)         # "Faster here (1.42×): a round gave 2.10 tokens and cost …"
    gap(outcome)             # "" when the formula agrees with the measured speed-up
"""
from __future__ import annotations

import numpy as np

from lab.i18n import N_
from lab.speed.verdicts import LEVEL, NOISY, PROJECTED_C
from uikit.language import gettext as _, ngettext, number, percent

WORDS = {"faster": N_("faster"), "level": N_("level"), "slower": N_("slower")}
# How a sentence lists its parts (a translator may use the language's own marks: "，" and "；")
COMMA, SEMICOLON = N_(", "), N_("; ")


def _f(value: float) -> str:
    """A figure of the verdicts: two decimals, as the page's language writes them."""
    return number(value, 2)


def _count(n: float) -> str:
    """A count that may be fractional: one decimal below 10, none above."""
    return number(n, 1 if n < 10 else 0)


def _listed(parts: list[str], mark: str = COMMA) -> str:
    return _(mark).join(p for p in parts if p)


def retimed(o) -> str:
    """One line when the machine was re-timed since this request was last priced and that changed
    its verdict, as "This machine re-timed: now 0.86× (slower), was 1.16× (faster)."; else ""."""
    if o.earlier_speedup is None or o.earlier_verdict == o.verdict_word():
        return ""
    return _("This machine re-timed: now {now}× ({word}), was {was}× ({word_then}).").format(
        now=_f(o.speedup), word=_(WORDS[o.verdict_word()]), was=_f(o.earlier_speedup),
        word_then=_(WORDS[o.earlier_verdict]))


def who(o) -> str:
    """Who guessed, with counts when more than one source did: "copied from the text in 9 rounds,
    the draft model in 3"."""
    n = o.sources
    parts = [ngettext("copied from the text in {n} round", "copied from the text in {n} rounds",
                      n["lookup"]).format(n=n["lookup"]) if n["lookup"] else "",
             ngettext("the draft model in {n} round", "the draft model in {n} rounds",
                      n["model"]).format(n=n["model"]) if n["model"] else "",
             ngettext("no guess in {n} round", "no guess in {n} rounds", n["none"]).format(n=n["none"])
             if n["none"] else ""]
    return _listed(parts) or _("no rounds")


def drafting(o) -> str:
    """How often a request's drafting guessed and where it took plain steps instead (the lab's default,
    auto γ, takes a plain step where guessing does not pay): "drafted in 6 of 31 rounds; plain steps
    elsewhere"."""
    rounds = len(o.spec.rounds)
    drafted = sum(1 for r in o.spec.rounds if r.guesses)
    if rounds <= 0:
        return _("no rounds")
    if drafted >= rounds:
        return _("drafted in every round ({rounds})").format(rounds=rounds)
    if drafted == 0:
        return ngettext("no guesses: a plain step in its {rounds} round", "no guesses: plain steps in all {rounds} "
                        "rounds", rounds).format(rounds=rounds)
    return ngettext("drafted in {drafted} of {rounds} round; plain steps elsewhere",
                    "drafted in {drafted} of {rounds} rounds; plain steps elsewhere", rounds).format(
        drafted=drafted, rounds=rounds)


def why_busy(profile) -> str:
    """One sentence on why a cost profile (lab.speed.costs.CostProfile) is flagged busy ("" when it is
    not, or there is none)."""
    if profile is None or not profile.busy:
        return ""
    if profile.load > profile.cores:
        return ngettext("The machine was busy while timing (load {load} on {cores} core), so these figures are "
                        "unreliable.", "The machine was busy while timing (load {load} on {cores} cores), so these "
                        "figures are unreliable.", profile.cores).format(load=number(profile.load, 1),
                                                                          cores=profile.cores)
    return _("Repeated runs of one call differed by {share} while timing (the machine was busy), so these figures "
             "are unreliable.").format(share=percent(profile.spread))


def verify_note(profile, gamma: int) -> str:
    """One sentence on the lecture's round cost 1 + γc against this machine's v(γ + 1) + γc (and why
    the profile is unreliable, when it is)."""
    v = profile.verify_units(gamma + 1)
    said = dict(k=gamma + 1, v=_f(v), by=_f(abs(v - 1)))
    note = (_("The lecture counts a verify pass over γ + 1 positions as one target call whatever γ; measured on "
              "this machine, a pass over {k} costs v({k}) = {v} calls, so a round costs {by} more than 1 + γc and "
              "the measured speed-up curve lies below the lecture's.") if v > 1 else
            _("The lecture counts a verify pass over γ + 1 positions as one target call whatever γ; measured on "
              "this machine, a pass over {k} costs v({k}) = {v} calls, so a round costs {by} more than 1 + γc and "
              "the measured speed-up curve lies on the lecture's.") if v == 1 else
            _("The lecture counts a verify pass over γ + 1 positions as one target call whatever γ; measured on "
              "this machine, a pass over {k} costs v({k}) = {v} calls, so a round costs {by} less than 1 + γc and "
              "the measured speed-up curve lies above the lecture's.")).format(**said)
    busy = why_busy(profile)
    return f"{note} {busy}" if busy else note


def _spent(o) -> str:
    """What a round spent: "3.6 guesses at 0.14 each and a verify pass of 1.20"."""
    guesses = o.spec.drafted / max(1, o.target_calls)
    if not guesses:
        return _("no guesses and a verify pass of {verify}").format(verify=_f(o.verify_cost))
    return _("{guesses} guesses at {c} each and a verify pass of {verify}").format(
        guesses=number(guesses, 1), c=_f(o.c), verify=_f(o.verify_cost))


def verdict(o) -> str:
    """One sentence: faster, level or slower than plain decoding here, and why, in the lab's terms.
    The speed-up is tokens per round ÷ a round's cost, both measured, so the reasons given are those
    two figures and what set them."""
    s, a, be = o.speedup, o.alpha or 0.0, o.break_even()
    head = _("a round gave {tokens} tokens and cost {cost} target calls' time ({spent})").format(
        tokens=_f(o.tokens_per_call), cost=_f(o.round_cost), spent=_spent(o))
    said = dict(speedup=_f(s), head=head, alpha=_f(a), be="" if np.isnan(be) else _f(be), c=_f(o.c),
                gamma=o.mean_gamma)
    word = o.verdict_word()
    if word == "level":
        if o.noise > NOISY:
            return _("Too noisy to tell here ({speedup}×): repeated timings of one call on this machine differ by "
                     "up to {share}, so anything from {low}× to {high}× reads as level; {head}. Measure again "
                     "when the machine is quieter.").format(share=percent(o.noise), low=_f(1 / (1 + o.noise)),
                                                            high=_f(1 + o.noise), **said)
        noise = (_("within this machine's timing noise (±{share})").format(share=percent(o.noise))
                 if o.noise > LEVEL else _("within {share}").format(share=percent(LEVEL)))
        return _("Level with plain decoding here ({speedup}×, {noise}): {head}, so the guesses it kept roughly "
                 "pay for themselves.").format(noise=noise, **said)
    if word == "faster":
        if o.sources["lookup"] * 2 >= o.target_calls:
            why = _("{copied} of {rounds} rounds copied their guesses from the text, which costs no model "
                    "call").format(copied=o.sources["lookup"], rounds=o.target_calls)
        elif np.isnan(be):
            why = _("though by the formula no α breaks even at this cost: {reasons}").format(
                reasons=against_break_even(o))
        elif a < be:
            why = _("though α = {alpha} is below the break-even α = {be}: {reasons}").format(
                reasons=against_break_even(o), **said)
        else:
            why = _("α = {alpha} is above the break-even α = {be} for c = {c} at γ = {gamma} (with this "
                    "machine's verify cost)").format(**said)
        return _("Faster here ({speedup}×): {head}; {why}.").format(why=why, **said)
    if np.isnan(be):
        why = _("no α breaks even at this cost")
    elif a < be:
        why = _("α = {alpha} is below the break-even α = {be} for c = {c} at γ = {gamma} (with this machine's "
                "verify cost)").format(**said)
    else:
        why = _("though α = {alpha} is above the break-even α = {be}: {reasons}").format(
            reasons=against_break_even(o), **said)
    k = min(o.mean_gamma + 1, o.profile.max_positions)
    v = o.profile.verify_units(k)
    if v > 1.05:
        return _("Slower here ({speedup}×): {head}; {why}, and a verify pass over {k} positions costs {v} "
                 "target calls on this machine, not 1.").format(why=why, k=k, v=_f(v), **said)
    return _("Slower here ({speedup}×): {head}; {why}.").format(why=why, **said)


def _fewer(f: dict) -> str:
    """Why rounds guessed another number than γ, in words: "3 plain steps without a guess, 2 with
    fewer guesses"."""
    return _listed([
        ngettext("{n} plain step without a guess", "{n} plain steps without a guess", f["plain"]).format(
            n=f["plain"]) if f["plain"] else "",
        ngettext("{n} with fewer guesses", "{n} with fewer guesses", f["short"]).format(n=f["short"])
        if f["short"] else "",
        ngettext("{n} with more", "{n} with more", f["longer"]).format(n=f["longer"]) if f["longer"] else ""]) \
        or _("every round")


def term_words(term) -> str:
    """One term of the gap (lab.speed.gap.Term) in words, with its numbers."""
    f = term.facts
    if term.name == "uneven":
        said = dict(all_kept=f["all_kept"], guessed=f["guessed"], none_kept=f["none_kept"], alpha=_f(f["alpha"]),
                    want_all=_count(f["want_all"]), want_none=_count(f["want_none"]), measured=_f(f["measured"]),
                    independent=_f(f["independent"]), spread=_f(f["spread"]))
        if f["measured"] > f["independent"]:
            return ngettext(
                "the guesses were kept unevenly across rounds: {all_kept} of {guessed} round kept every guess and "
                "{none_kept} kept none, where independent guesses at α = {alpha} would give {want_all} and "
                "{want_none}, so a round gave {measured} tokens, more than the {independent} ± {spread} of "
                "independent guesses",
                "the guesses were kept unevenly across rounds: {all_kept} of {guessed} rounds kept every guess and "
                "{none_kept} kept none, where independent guesses at α = {alpha} would give {want_all} and "
                "{want_none}, so a round gave {measured} tokens, more than the {independent} ± {spread} of "
                "independent guesses", f["guessed"]).format(**said)
        return ngettext(
            "the guesses were kept unevenly across rounds: {all_kept} of {guessed} round kept every guess and "
            "{none_kept} kept none, where independent guesses at α = {alpha} would give {want_all} and "
            "{want_none}, so a round gave {measured} tokens, fewer than the {independent} ± {spread} of "
            "independent guesses",
            "the guesses were kept unevenly across rounds: {all_kept} of {guessed} rounds kept every guess and "
            "{none_kept} kept none, where independent guesses at α = {alpha} would give {want_all} and "
            "{want_none}, so a round gave {measured} tokens, fewer than the {independent} ± {spread} of "
            "independent guesses", f["guessed"]).format(**said)
    if term.name == "chance":
        return ngettext(
            "chance: over {n} round, independent guesses at α = {alpha} give {independent} ± {spread} tokens a "
            "round, and the {measured} measured is within that",
            "chance: over {n} rounds, independent guesses at α = {alpha} give {independent} ± {spread} tokens a "
            "round, and the {measured} measured is within that", f["rounds"]).format(
            n=f["rounds"], alpha=_f(f["alpha"]), independent=_f(f["independent"]), spread=_f(f["spread"]),
            measured=_f(f["measured"]))
    if term.name == "cut":
        return _("the text ended inside a round, so the rounds gave {given} tokens each, not the {kept} they kept "
                 "and added").format(given=_f(f["given"]), kept=_f(f["kept"]))
    if term.name == "guesses":
        return _("the rounds made {guesses} guesses on average, not γ = {gamma} ({why}), so the formula at each "
                 "round's own count gives E = {own} tokens, not {e}, and their guesses cost {drafting} a round, "
                 "not γc = {gamma}·{c} = {gc}").format(
            guesses=number(f["guesses"], 1), gamma=f["gamma"], why=_fewer(f), own=_f(f["own_e"]), e=_f(f["e"]),
            drafting=_f(f["drafting"]), c=_f(f["c"]), gc=_f(f["gamma"] * f["c"]))
    if f["verify_ref"] == 1:
        return _("a verify pass cost {verify} target calls on average here, where the formula counts 1").format(
            verify=_f(f["verify"]))
    return _("a verify pass cost {verify} target calls on average here, where the break-even counts "
             "v({k}) = {v}").format(verify=_f(f["verify"]), k=f["positions"], v=_f(f["verify_ref"]))


def reasons(o, verify_ref: float = 1.0) -> list[str]:
    """Why the measured rounds differ from the formula's rounds of `verify_ref` + γc, largest first."""
    return [term_words(t) for t in o.gap_terms(verify_ref)]


def against_break_even(o) -> str:
    """Why the measured rounds beat (or miss) the break-even α, which already counts this machine's
    verify pass over γ + 1 positions: the terms beyond it."""
    return _listed(reasons(o, verify_ref=o.break_even_verify()), SEMICOLON)


def _formula(o) -> dict:
    e, cost = o.formula_round()
    return dict(predicted=_f(o.predicted()), e=_f(e), cost=_f(cost), tokens=_f(o.tokens_per_call),
                measured_cost=_f(o.round_cost), speedup=_f(o.speedup))


def gap(o) -> str:
    """Why the lecture's formula predicts another speed-up than the one measured ("" when they agree)."""
    if o.agrees():
        return ""
    found = reasons(o)
    if not found:
        return _("The formula predicts {predicted}× from E = {e} tokens for a round of 1 + γc = {cost}; measured, "
                 "a round gave {tokens} tokens for {measured_cost}.").format(**_formula(o))
    return _("The formula predicts {predicted}× from E = {e} tokens for a round of 1 + γc = {cost}; measured, a "
             "round gave {tokens} tokens for {measured_cost}: {reasons}.").format(
        reasons=_listed(found, SEMICOLON), **_formula(o))


def formula_sentence(o) -> str:
    """The formula at the request's α, γ, c against the measured rounds: why they differ (`gap`), or
    that they agree, with the numbers either way."""
    return gap(o) or _("The formula predicts {predicted}× from E = {e} tokens for a round of 1 + γc = {cost}; "
                       "measured, a round gave {tokens} tokens for {measured_cost}: {speedup}×, as "
                       "predicted.").format(**_formula(o))


def projection_sentence(o) -> str:
    """The projection, labelled with its assumptions."""
    return _("Projection, not a measurement: the same rounds ({tokens} tokens per target call) on a pair whose "
             "draft call costs {c} of a target call and whose verify pass costs one call (a 1B draft for an 8B "
             "target on a GPU) would run {speedup}×.").format(
        tokens=_f(o.tokens_per_call), c=_f(PROJECTED_C), speedup=_f(o.projection()))
