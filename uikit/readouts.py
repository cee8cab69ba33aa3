"""Chapter 10's read-outs as HTML: the lecture's table for a chosen c, the formula
worked through for α, γ, c, the predict question's answer worked through, the note on the measured
round cost, the student's request measured (lab.speed.request.Outcome) with its one verdict line
and its details folded, and the busy warning and re-timed line that stand beside every priced figure
(chapters 10, 11, 12 and the tour), in the page's language (uikit.language; a request's verdict,
who guessed and the formula's gap are uikit.verdicts' sentences).

Pure formatting of numbers from lab.core.analytic and lab.speed.measure; the panes that show them live in the
chapter (styled by uikit.styles.TABLE_CSS). The read-outs that follow the sliders are written by the
browser too, from the same templates (SAID, browser_words: assets/ch10_breakeven.js).
"""
from __future__ import annotations

import html

import numpy as np

from lab import i18n
from lab.core import analytic
from lab.experiments.breakeven import QUESTION
from lab.i18n import N_
from lab.speed.request import measured_break_even
from uikit.language import gettext as _, ngettext, number, page_language
from uikit.styles import sheet
from uikit.verdicts import (SEMICOLON, WORDS, formula_sentence, projection_sentence, reasons as gap_reasons, retimed,
                            verdict, verify_note, who, why_busy)
from uikit.panels import sampling_words
from uikit.words import describe

VERDICT_CSS = sheet("verdict")     # the verdict line, busy warning, re-timed line and folded details

# The rows of the lecture's table, recomputed for the chosen c.
TABLE_ROWS = ((0.8, 4), (0.9, 4), (0.5, 4), (0.8, 2))

# The sentences the read-outs write as the sliders move: Python fills them (readout_html, table_html,
# versus_html, cost_note_html) and so does the browser (assets/ch10_breakeven.js, given them in the page's
# language by browser_words), so both write the same. Whole messages, their numbers as named fields.
SAID = {
    # where the sliders are: "α = 0.80, γ = 4" (a language that writes a decimal comma may part them with ";")
    "alpha_gamma": N_("α = {alpha}, γ = {gamma}"),
    "alpha_gamma_c": N_("α = {alpha}, γ = {gamma}, c = {c}"),
    # the formula worked through, one line each
    "tokens": N_("E = (1 − α<sup>γ+1</sup>) / (1 − α) = (1 − {alpha}<sup>{k}</sup>) / (1 − {alpha}) = <b>{e}</b> "
                 "tokens per round"),
    "cost": N_("cost = 1 + γc = 1 + {gamma}·{c} = <b>{cost}</b> target calls"),
    "faster": N_("speed-up = {e} / {cost} = <b>{speedup}×</b> — faster than standard decoding"),
    "same": N_("speed-up = {e} / {cost} = <b>{speedup}×</b> — as fast as standard decoding"),
    "slower": N_("speed-up = {e} / {cost} = <b>{speedup}×</b> — slower than standard decoding"),
    "break_even": N_("break-even for γ = {gamma}, c = {c}: α = {be} with the lecture's cost 1 + γc"),
    "never": N_("break-even for γ = {gamma}, c = {c}: never (even α = 1 is slower) with the lecture's cost 1 + γc"),
    "measured": N_("α = {be} with this machine's verify cost v({k}) = {v}"),
    "measured_never": N_("never with this machine's verify cost v({k}) = {v}"),
    "busy": N_("{line}. {busy}"),                # the busy warning after the line it concerns
    "best": N_("best γ for α = {alpha}, c = {c}: <b>γ = {best}</b> ({speedup}×)"),
    "dont": N_("best γ for α = {alpha}, c = {c}: <b>don't draft</b> — no γ pays (the best, γ = {best}, gives "
               "{speedup}×)"),
    # the lecture's table's heads
    "tokens_head": N_("E (tokens / round)"),
    "speedup_head": N_("speed-up at c = {c}"),
    # the note beside the round-cost figure before the profile is in (then uikit.verdicts.verify_note)
    "no_profile": N_("The measured cost curve appears once this pair's calls are timed."),
    # the sliders against the measured request
    "at_request": N_("The sliders are at your request's {where}: the formula predicts {there}× there; your request "
                     "measured {measured}×."),
    "moved": N_("The sliders have moved from your request's {where}: the formula predicts {here}× at the sliders "
                "and {there}× there; your request measured {measured}× there."),
    # the speed-up figure's label on the break-even line
    "label": N_("break-even α = {be}"),
    "no_label": N_("no α breaks even\n(c too large)"),
}
# `SEMICOLON` (uikit.verdicts) parts the lecture's break-even from the measured one.


def _f(value: float) -> str:
    """A figure of the read-outs: two decimals, as the page's language writes them."""
    return number(value, 2)


def short(value: float) -> str:
    """A slider's value as Python's `format(value, "g")` writes it ("0.8", "0.15"), with the page's
    language's decimal sign."""
    text, written = f"{value:g}", page_number_format()
    return text if written["python"] else text.replace(".", written["decimal"])


def page_number_format() -> dict:
    """How `number` writes on this page, for the browser (lab.i18n.formats.number_format)."""
    return i18n.number_format(page_language())


def browser_words() -> dict:
    """SAID in the page's language, the list mark between its two break-evens and how the page writes
    numbers: what assets/ch10_breakeven.js writes with (chapters/ch10_breakeven/figures.py passes it)."""
    return {**{key: _(text) for key, text in SAID.items()}, "semicolon": _(SEMICOLON), "format": page_number_format()}


def table_html(c: float, current: tuple[float, int] | None = None) -> str:
    """The lecture's rows (and `current` (α, γ), marked) with E and the speed-up at c."""
    rows = list(TABLE_ROWS) + ([current] if current and current not in TABLE_ROWS else [])
    body = []
    for a, g in rows:
        e, s = float(analytic.expected_tokens(a, g)), float(analytic.speedup(a, g, c))
        mark = " class='current'" if current == (a, g) else ""
        where = _(SAID["alpha_gamma"]).format(alpha=short(a), gamma=g)
        body.append(f"<tr{mark}><td>{where}</td><td>{number(a ** (g + 1), 3)}</td>"
                    f"<td>{_f(e)}</td><td>{_f(s)}×</td></tr>")
    head = _(SAID["speedup_head"]).format(c=short(c))
    return ("<table class='speclab-table'><thead><tr><th>α, γ</th><th>α<sup>γ+1</sup></th>"
            f"<th>{_(SAID['tokens_head'])}</th><th>{head}</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def measured_break_even_text(profile, g: int, c: float) -> str:
    """The break-even with this machine's verify cost (lab.speed.request.measured_break_even, the one
    every verdict names), in the read-out's words; "" before the profile is measured."""
    if profile is None:
        return ""
    be, v = measured_break_even(profile, g, round(c, 2)), profile.verify_units(g + 1)
    said = dict(k=g + 1, v=_f(v))
    return (_(SAID["measured_never"]).format(**said) if np.isnan(be) else
            _(SAID["measured"]).format(be=_f(be), **said))


def break_even_line(g: int, c: float, be: float, profile=None) -> str:
    """The break-even α for γ, c with the lecture's cost and, with the pair's cost profile, with this
    machine's verify cost (and the busy warning, when it applies)."""
    said = dict(gamma=g, c=_f(c))
    line = _(SAID["never"]).format(**said) if np.isnan(be) else _(SAID["break_even"]).format(be=_f(be), **said)
    if profile is not None:
        line = _(SEMICOLON).join([line, measured_break_even_text(profile, g, c)])
        if profile.busy:     # the warning beside the figure it concerns
            line = _(SAID["busy"]).format(line=line, busy=why_busy(profile))
    return line


def readout_html(a: float, g: int, c: float, n: dict, profile=None) -> str:
    """The formula read-out for α, γ, c and their numbers (BreakEvenChapter.numbers); with the pair's
    cost profile, the break-even line also gives the break-even with the measured verify cost."""
    word = "faster" if n["speedup"] > 1 else ("same" if n["speedup"] == 1 else "slower")
    said = dict(alpha=_f(a), gamma=g, c=_f(c), k=g + 1, e=_f(n["E"]), cost=_f(n["cost"]))
    best = _(SAID["best" if n["best_speedup"] > 1 else "dont"]).format(
        best=n["best_gamma"], speedup=_f(n["best_speedup"]), **said)
    lines = [_(SAID["tokens"]).format(**said), _(SAID["cost"]).format(**said),
             _(SAID[word]).format(speedup=_f(n["speedup"]), **said), break_even_line(g, c, n["break_even"], profile),
             best]
    return f"<div class='speclab-formula'>{'<br>'.join(lines)}</div>"


def question_explanation(truth: str) -> str:
    """Why the predict question's answer (lab.experiments.breakeven.QUESTION) is `truth` (the English
    poll key, "faster" or "slower"), worked through the formula."""
    a, g, c = QUESTION
    e, cost = float(analytic.expected_tokens(a, g)), float(analytic.round_cost(g, c))
    return _("E = (1 − {alpha}^{k}) / (1 − {alpha}) = {e} tokens per round, but a round costs 1 + {gamma}·{c} = "
             "{cost} target calls: speed-up {speedup}× — {truth}. Drag the sliders to those values and see.").format(
        alpha=short(a), k=g + 1, e=_f(e), gamma=g, c=short(c), cost=_f(cost), speedup=_f(e / cost), truth=_(truth))


def cost_note_html(profile, g: int) -> str:
    """The note beside the round-cost figure: the pair's cost profile (lab.speed.costs.CostProfile) on a
    verification pass at γ = g, or, before it is measured, that the measured curve is still to come."""
    note = verify_note(profile, g) if profile else _(SAID["no_profile"])
    return f"<p class='cost-note'>{note}</p>"


def busy_html(profile) -> str:
    """The busy warning that stands beside every figure priced by `profile` while it applies ("" when
    the profile is reliable or not measured yet)."""
    if profile is None or not profile.busy:
        return ""
    return f"<p class='busy-warning' role='note'>⚠ {html.escape(why_busy(profile))}</p>"


def retimed_html(o) -> str:
    """One line when the machine was re-timed and that changed this request's verdict ("" otherwise)."""
    line = retimed(o)
    return f"<p class='retimed' role='status'>{html.escape(line)}</p>" if line else ""


MEASURED_WORDS = {"faster": N_("faster than plain decoding"), "slower": N_("slower than plain decoding"),
                  "level": N_("level with plain decoding, within this machine's timing noise")}


def at_request(o) -> str:
    """The request's α, γ and c as the formula takes them (and as Use my models sets the sliders)."""
    return _(SAID["alpha_gamma_c"]).format(alpha=_f(round(o.alpha or 0.0, 2)), gamma=o.mean_gamma,
                                            c=_f(round(o.c, 2)))


def headline(o) -> str:
    """The live box's one verdict line: the measured speed-up and its word and, where the formula at
    the request's α, γ, c (named: the sliders may move on) gives another word, that figure and why, so
    the line never says faster beside a formula saying slower without the reason."""
    word, predicted = o.verdict_word(), o.predicted()
    formula = "faster" if predicted > 1 else "slower"
    said = dict(speedup=f"<b class='priced-speedup'>{_f(o.speedup)}×</b>", measured=_(MEASURED_WORDS[word]))
    if word == formula:
        return _("Measured on this machine: {speedup} — {measured}.").format(**said)
    said.update(at=at_request(o), predicted=_f(predicted), formula=_(WORDS[formula]))
    found = gap_reasons(o)
    if not found:
        return _("Measured on this machine: {speedup} — {measured}, though the formula at this request's {at} "
                 "predicts {predicted}× ({formula}).").format(**said)
    return _("Measured on this machine: {speedup} — {measured}, though the formula at this request's {at} "
             "predicts {predicted}× ({formula}): {reasons}.").format(reasons=html.escape(_(SEMICOLON).join(found)),
                                                                      **said)


def measured_point(o) -> dict:
    """The request where Use my models puts the sliders, and its measured speed-up: the data the
    browser's redraw compares the sliders with (versus_html, assets/ch10_breakeven.js)."""
    return dict(alpha=[round(min(1.0, max(0.0, o.alpha or 0.0)), 2)], gamma=[o.mean_gamma],
                c=[round(min(2.0, max(0.0, o.c)), 2)], speedup=[o.speedup])


def versus_html(a: float, g: int, c: float, point: dict | None) -> str:
    """The sliders against the measured request (`point`: measured_point's columns; "" before one):
    the formula at the sliders and at the request, and what the request measured — recomputed in the
    browser as the sliders move (assets/ch10_breakeven.js), so it never names a figure the sliders left."""
    if not point or not point["alpha"]:
        return ""
    ra, rg, rc, rs = point["alpha"][0], point["gamma"][0], point["c"][0], point["speedup"][0]
    there, here = float(analytic.speedup(ra, rg, rc)), float(analytic.speedup(a, g, c))
    said = dict(where=_(SAID["alpha_gamma_c"]).format(alpha=_f(ra), gamma=rg, c=_f(rc)), there=_f(there),
                here=_f(here), measured=_f(rs))
    same = round(a * 100) == round(ra * 100) and g == rg and round(c * 100) == round(rc * 100)
    return f"<p class='versus'>{_(SAID['at_request' if same else 'moved']).format(**said)}</p>"


def live_html(o) -> str:
    """The student's request measured (lab.speed.request.Outcome): one verdict line with the request's
    figures, the re-timed line and busy warning when they apply, and folded beneath them who guessed,
    why it came out so, the formula's prediction at the request's α, γ, c beside it and the
    projection to a lecture-scale pair."""
    r = o.request
    kept = o.spec.accepted
    judged = kept + o.spec.rejected
    figures = " · ".join([
        ngettext("α = {alpha} ({kept} of {judged} guess judged was kept)",
                 "α = {alpha} ({kept} of {judged} guesses judged were kept)", judged).format(
            alpha=_f(o.alpha or 0), kept=kept, judged=judged),
        ngettext("{calls} target call instead of {plain}", "{calls} target calls instead of {plain}",
                 o.target_calls).format(calls=f"<b class='target-calls'>{o.target_calls}</b>", plain=o.plain_calls),
        _("{tokens} tokens per call").format(tokens=_f(o.tokens_per_call)),
        _("c = {c} a guess").format(c=_f(o.c))])
    request = ngettext(
        "Your request: {n} token, {settings}; guesses by {drafter} ({who}). Every call is priced by this pair's "
        "cost profile, as chapters 11 and 12 show this request.",
        "Your request: {n} tokens, {settings}; guesses by {drafter} ({who}). Every call is priced by this pair's "
        "cost profile, as chapters 11 and 12 show this request.", r.max_new_tokens).format(
        n=r.max_new_tokens, settings=html.escape(sampling_words(r.settings)),
        drafter=f"<b class='drafter'>{html.escape(describe(r))}</b>", who=html.escape(who(o)))
    formula = _("At this request's {at}: {formula}").format(at=at_request(o),
                                                            formula=html.escape(formula_sentence(o)))
    why = html.escape(_("Why — your request, its verdict and the formula"))
    return (f"<div class='speclab-live'><p class='verdict-line'>{headline(o)}</p>"
            f"<p class='figures'>{figures}</p>"
            + retimed_html(o) + busy_html(o.profile)
            + f"<details><summary>{why}</summary>"
            f"<p>{request}</p>"
            f"<p>{html.escape(verdict(o))}</p><p>{formula}</p>"
            f"<p><i>{html.escape(projection_sentence(o))}</i></p></details></div>")
