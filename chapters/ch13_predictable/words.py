"""Chapter 13's words: the kinds of text by name, the reading of the measured bars, and seed 001's
argument and seed 000's closing question around them, each in the page's language."""
from __future__ import annotations

import math

from lab.core import analytic
from lab.experiments import textkinds
from lab.i18n import N_
from uikit.language import gettext as _, number, percent

GAMMA = 4               # the lecture's γ: the argument's numbers
YOURS = "yours"
# Each kind's name on the page (lab.experiments.textkinds.KINDS); the English names are the predict
# card's poll keys, shown in the page's language.
KIND_NAMES = {"stories": N_("Stories"), "facts": N_("Facts"), "instructions": N_("Instructions"), "code": N_("Code"),
              "json": N_("JSON"), "edit": N_("Edits"), YOURS: N_("Your prompt")}


def kind_name(kind: str) -> str:
    """A kind of text's name in the page's language."""
    return _(KIND_NAMES[kind]) if kind in KIND_NAMES else kind


def _listed(names: list[str]) -> str:
    return _(", ").join(names)


def reading(results: list[textkinds.KindResult], be: float | None = None) -> str:
    """What the measured bars say, in words computed from them: the order of the kinds, whether the
    structured kinds (textkinds.STRUCTURED) were the predictable ones, and (given the break-even α `be`)
    which kinds draft faster than plain decoding on this machine and which slower."""
    kinds = sorted((r for r in results if r.kind in textkinds.KINDS), key=lambda r: -r.alpha)
    if not kinds:
        return ""
    order = _listed([_("{kind} {alpha}").format(kind=kind_name(r.kind), alpha=number(r.alpha, 2)) for r in kinds])
    out = [_("Measured α, highest first: {order}.").format(order=order)]
    structured = [r for r in kinds if r.kind in textkinds.STRUCTURED]
    free = [r for r in kinds if r.kind in textkinds.FREE]
    if structured and free:
        worst, best = min(structured, key=lambda r: r.alpha), max(free, key=lambda r: r.alpha)
        if worst.alpha >= best.alpha:
            out.append(_("The kinds with a fixed structure (code, JSON, edits) had a higher α than the free ones, "
                         "as the argument above expects."))
        else:
            out.append(_("Structure alone did not decide it: {low} ({low_alpha}) had a lower α than {high} "
                         "({high_alpha}). What counts is what this draft model learned to guess, not how "
                         "predictable the text looks to us.").format(
                low=kind_name(worst.kind), low_alpha=number(worst.alpha, 2), high=kind_name(best.kind),
                high_alpha=number(best.alpha, 2)))
    if be is not None:
        if math.isnan(be):
            out.append(_("By the lecture's formula at this machine's costs no α breaks even: drafting with the draft "
                         "model costs time on every kind."))
        else:
            faster = [kind_name(r.kind) for r in kinds if r.alpha >= be]
            slower = [kind_name(r.kind) for r in kinds if r.alpha < be]
            if not faster:
                out.append(_("Every kind is below the break-even α = {be}: by the lecture's formula at this machine's "
                             "costs the draft model makes every kind slower than plain decoding.").format(
                    be=number(be, 2)))
            elif not slower:
                out.append(_("Every kind is above the break-even α = {be}: by the lecture's formula at this machine's "
                             "costs the draft model makes every kind faster.").format(be=number(be, 2)))
            else:
                out.append(_("By the lecture's formula at this machine's costs, drafting pays above the break-even "
                             "α = {be}: {faster}; below it, it costs time: {slower}.").format(
                    be=number(be, 2), faster=_listed(faster), slower=_listed(slower)))
    return " ".join(out)


def argument_html(gamma: int = GAMMA) -> str:
    """Seed 001's argument, its numbers from the analytic model."""
    e70 = float(analytic.expected_tokens(0.7, gamma))
    be = {c: float(analytic.break_even_alpha(gamma, c)) for c in (0.1, 0.3)}
    items = [
        _("Why not skip the draft and hand the target random guesses? Verification is a chain: a rejected guess "
          "drops every guess after it. A random guess 1 is rejected, so a round gives one token — the same as "
          "plain decoding, plus the cost of drafting and checking dead positions."),
        _("So the target fixing mistakes was never the win: fixing only gets you back to one token per call. "
          "<b>The win is the draft being right</b>: every kept guess is a token the target skips writing."),
        _("Language is often predictable: a closing bracket, “the”, “of”, the rest of a half-typed word, the same "
          "variable name three lines down. If the target keeps each of γ = {gamma} guesses with chance α = {alpha} "
          "(given it kept the ones before), a target call gives <b>{tokens}</b> tokens instead of 1.").format(
            gamma=gamma, alpha=number(0.7, 1), tokens=number(e70, 2)),
        _("When guessing goes badly, α collapses and the draft is a tax: with γ = {gamma}, drafting breaks even at "
          "α = {cheap} when a draft call costs {cheap_cost} of a target call, and at α = {dear} when it costs "
          "{dear_cost}. Below that it is slower than doing nothing.").format(
            gamma=gamma, cheap=number(be[0.1], 2), dear=number(be[0.3], 2), cheap_cost=percent(0.1),
            dear_cost=percent(0.3))]
    return ("<div class='speclab-live'><b>" + _("Where the speed-up comes from.") + "</b><ul style='margin:4px 0'>"
            + "".join(f"<li>{item}</li>" for item in items) + "</ul>"
            + _("So it is a bet on how predictable your text is — to this draft model. Which kinds are the "
                "predictable kind? Measure them: the reading under the bars says whether the argument held.")
            + "</div>")


def reflection_html() -> str:
    """Seed 000's closing question."""
    return ("<div class='speclab-live' style='border-left:6px solid #2b7a4b'><b>"
            + _("To think about: two minds drew the path. Where did the deciding happen?") + "</b><br>"
            + _("The fast guesser and the slow target, together, write exactly the words the target would have "
                "written alone. If a quick guess and a careful nod give the very same answer as the careful mind "
                "alone, where in all that was the choosing — in the leap, or only in the check?") + "</div>")
