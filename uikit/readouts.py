"""Chapter 10's read-outs as HTML: the lecture's table for a chosen c, the formula
worked through for α, γ, c, the predict question's answer worked through, the note on the measured
round cost, the student's request measured (lab.speed.request.Outcome) with its one verdict line
and its details folded, and the busy warning and re-timed line that stand beside every priced figure
(chapters 10, 11, 12 and the tour).

Pure formatting of numbers from lab.core.analytic and lab.speed.measure; the panes that show them live in the
chapter (styled by uikit.styles.TABLE_CSS).
"""
from __future__ import annotations

import html

import numpy as np

from lab.core import analytic
from lab.experiments.breakeven import QUESTION
from lab.speed.request import measured_break_even
from uikit.styles import sheet
from uikit.verdicts import formula_sentence, projection_sentence, reasons as gap_reasons, retimed, verdict, who
from uikit.words import describe

VERDICT_CSS = sheet("verdict")     # the verdict line, busy warning, re-timed line and folded details

# The rows of the lecture's table, recomputed for the chosen c.
TABLE_ROWS = ((0.8, 4), (0.9, 4), (0.5, 4), (0.8, 2))


def table_html(c: float, current: tuple[float, int] | None = None) -> str:
    """The lecture's rows (and `current` (α, γ), marked) with E and the speed-up at c."""
    rows = list(TABLE_ROWS) + ([current] if current and current not in TABLE_ROWS else [])
    body = []
    for a, g in rows:
        e, s = float(analytic.expected_tokens(a, g)), float(analytic.speedup(a, g, c))
        mark = " class='current'" if current == (a, g) else ""
        body.append(f"<tr{mark}><td>α = {a:g}, γ = {g}</td><td>{a ** (g + 1):.3f}</td>"
                    f"<td>{e:.2f}</td><td>{s:.2f}×</td></tr>")
    return ("<table class='speclab-table'><thead><tr><th>α, γ</th><th>α<sup>γ+1</sup></th>"
            f"<th>E (tokens / round)</th><th>speed-up at c = {c:g}</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def measured_break_even_text(profile, g: int, c: float) -> str:
    """The break-even with this machine's verify cost (lab.speed.request.measured_break_even, the one
    every verdict names), in the read-out's words; "" before the profile is measured."""
    if profile is None:
        return ""
    be, v = measured_break_even(profile, g, round(c, 2)), profile.verify_units(g + 1)
    at = "never" if np.isnan(be) else f"α = {be:.2f}"
    busy = ". " + profile.why_busy() if profile.busy else ""     # the warning beside the figure it concerns
    return f"; {at} with this machine's verify cost v({g + 1}) = {v:.2f}{busy}"


def readout_html(a: float, g: int, c: float, n: dict, profile=None) -> str:
    """The formula read-out for α, γ, c and their numbers (BreakEvenChapter.numbers); with the pair's
    cost profile, the break-even line also gives the break-even with the measured verify cost."""
    verdict = "faster" if n["speedup"] > 1 else ("the same" if n["speedup"] == 1 else "slower")
    be = n["break_even"]
    be_text = "never (even α = 1 is slower)" if np.isnan(be) else f"α = {be:.2f}"
    best = (f"<b>γ = {n['best_gamma']}</b> ({n['best_speedup']:.2f}×)" if n["best_speedup"] > 1 else
            f"<b>don't draft</b> — no γ pays (the best, γ = {n['best_gamma']}, gives {n['best_speedup']:.2f}×)")
    return (f"<div class='speclab-formula'>E = (1 − α<sup>γ+1</sup>) / (1 − α) = "
            f"(1 − {a:.2f}<sup>{g + 1}</sup>) / (1 − {a:.2f}) = <b>{n['E']:.2f}</b> tokens per round"
            f"<br>cost = 1 + γc = 1 + {g}·{c:.2f} = <b>{n['cost']:.2f}</b> target calls"
            f"<br>speed-up = {n['E']:.2f} / {n['cost']:.2f} = <b>{n['speedup']:.2f}×</b> — {verdict} "
            f"than standard decoding<br>break-even for γ = {g}, c = {c:.2f}: {be_text} with the lecture's cost "
            f"1 + γc{measured_break_even_text(profile, g, c)}"
            f"<br>best γ for α = {a:.2f}, c = {c:.2f}: {best}</div>")


def question_explanation(truth: str) -> str:
    """Why the predict question's answer (lab.experiments.breakeven.QUESTION) is `truth`, worked through the formula."""
    a, g, c = QUESTION
    e, cost = float(analytic.expected_tokens(a, g)), float(analytic.round_cost(g, c))
    return (f"E = (1 − {a}^{g + 1}) / (1 − {a}) = {e:.2f} tokens per round, but a round costs "
            f"1 + {g}·{c} = {cost:.2f} target calls: speed-up {e / cost:.2f}× — {truth}. "
            "Drag the sliders to those values and see.")


def cost_note_html(profile, g: int) -> str:
    """The note beside the round-cost figure: the pair's cost profile (lab.speed.costs.CostProfile) on a
    verification pass at γ = g, or, before it is measured, that the measured curve is still to come."""
    note = profile.verify_note(g) if profile else "The measured cost curve appears once this pair's calls are timed."
    return f"<p class='cost-note'>{note}</p>"


def busy_html(profile) -> str:
    """The busy warning that stands beside every figure priced by `profile` while it applies ("" when
    the profile is reliable or not measured yet)."""
    if profile is None or not profile.busy:
        return ""
    return f"<p class='busy-warning' role='note'>⚠ {html.escape(profile.why_busy())}</p>"


def retimed_html(o) -> str:
    """One line when the machine was re-timed and that changed this request's verdict ("" otherwise)."""
    line = retimed(o)
    return f"<p class='retimed' role='status'>{html.escape(line)}</p>" if line else ""


MEASURED_WORDS = {"faster": "faster than plain decoding", "slower": "slower than plain decoding",
                  "level": "level with plain decoding, within this machine's timing noise"}


def at_request(o) -> str:
    """The request's α, γ and c as the formula takes them (and as Use my models sets the sliders)."""
    return f"α = {round(o.alpha or 0.0, 2):.2f}, γ = {o.mean_gamma}, c = {round(o.c, 2):.2f}"


def headline(o) -> str:
    """The live box's one verdict line: the measured speed-up and its word and, where the formula at
    the request's α, γ, c (named: the sliders may move on) gives another word, that figure and why, so
    the line never says faster beside a formula saying slower without the reason."""
    word, predicted = o.verdict_word(), o.predicted()
    formula = "faster" if predicted > 1 else "slower"
    line = f"Measured on this machine: <b class='priced-speedup'>{o.speedup:.2f}×</b> — {MEASURED_WORDS[word]}"
    if word != formula:
        reasons = gap_reasons(o)
        line += (f", though the formula at this request's {at_request(o)} predicts {predicted:.2f}× ({formula})"
                 + (": " + html.escape("; ".join(reasons)) if reasons else ""))
    return line + "."


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
    where = f"α = {ra:.2f}, γ = {rg}, c = {rc:.2f}"
    if round(a * 100) == round(ra * 100) and g == rg and round(c * 100) == round(rc * 100):
        return (f"<p class='versus'>The sliders are at your request's {where}: the formula predicts "
                f"{there:.2f}× there; your request measured {rs:.2f}×.</p>")
    return (f"<p class='versus'>The sliders have moved from your request's {where}: the formula predicts "
            f"{here:.2f}× at the sliders and {there:.2f}× there; your request measured {rs:.2f}× there.</p>")


def live_html(o) -> str:
    """The student's request measured (lab.speed.request.Outcome): one verdict line with the request's
    figures, the re-timed line and busy warning when they apply, and folded beneath them who guessed,
    why it came out so, the formula's prediction at the request's α, γ, c beside it and the
    projection to a lecture-scale pair."""
    r = o.request
    kept = o.spec.accepted
    judged = kept + o.spec.rejected
    return (f"<div class='speclab-live'><p class='verdict-line'>{headline(o)}</p>"
            f"<p class='figures'>α = {o.alpha or 0:.2f} ({kept} of {judged} guesses judged were kept) · "
            f"<b class='target-calls'>{o.target_calls}</b> target calls instead of {o.plain_calls} · "
            f"{o.tokens_per_call:.2f} tokens per call · c = {o.c:.2f} a guess</p>"
            + retimed_html(o) + busy_html(o.profile)
            + f"<details><summary>Why — your request, its verdict and the formula</summary>"
            f"<p>Your request: {r.max_new_tokens} tokens, {html.escape(r.settings.describe())}; guesses by "
            f"<b class='drafter'>{html.escape(describe(r))}</b> ({html.escape(who(o))}). Every call is priced "
            f"by this pair's cost profile, as chapters 11 and 12 show this request.</p>"
            f"<p>{html.escape(verdict(o))}</p><p>At this request's {at_request(o)}: "
            f"{html.escape(formula_sentence(o))}</p><p><i>{html.escape(projection_sentence(o))}</i></p></details></div>")
