"""Chapter 10's read-outs as HTML: the lecture's table for a chosen c, the formula
worked through for α, γ, c, the predict question's answer worked through, the note on the measured
round cost, and the student's request measured (lab.speed.request.Outcome).

Pure formatting of numbers from lab.core.analytic and lab.speed.measure; the panes that show them live in the
chapter (styled by uikit.styles.TABLE_CSS).
"""
from __future__ import annotations

import html

import numpy as np

from lab.core import analytic
from lab.experiments.breakeven import QUESTION

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


def readout_html(a: float, g: int, c: float, n: dict) -> str:
    """The formula read-out for α, γ, c and their numbers (BreakEvenChapter.numbers)."""
    verdict = "faster" if n["speedup"] > 1 else ("the same" if n["speedup"] == 1 else "slower")
    be = n["break_even"]
    be_text = "never (even α = 1 is slower)" if np.isnan(be) else f"α = {be:.2f}"
    best = (f"<b>γ = {n['best_gamma']}</b> ({n['best_speedup']:.2f}×)" if n["best_speedup"] > 1 else
            f"<b>don't draft</b> — no γ pays (the best, γ = {n['best_gamma']}, gives {n['best_speedup']:.2f}×)")
    return (f"<div class='speclab-formula'>E = (1 − α<sup>γ+1</sup>) / (1 − α) = "
            f"(1 − {a:.2f}<sup>{g + 1}</sup>) / (1 − {a:.2f}) = <b>{n['E']:.2f}</b> tokens per round"
            f"<br>cost = 1 + γc = 1 + {g}·{c:.2f} = <b>{n['cost']:.2f}</b> target calls"
            f"<br>speed-up = {n['E']:.2f} / {n['cost']:.2f} = <b>{n['speedup']:.2f}×</b> — {verdict} "
            f"than standard decoding<br>break-even for γ = {g}, c = {c:.2f}: {be_text}"
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


def live_html(o) -> str:
    """The student's request measured (lab.speed.request.Outcome): who guessed, α, target calls, the speed-up
    on this machine, why, the formula's prediction beside it and the projection to a lecture-scale pair."""
    r, gap = o.request, o.gap()
    return (f"<div class='speclab-live'><b>Your request</b>: {r.max_new_tokens} tokens, "
            f"{html.escape(r.settings.describe())}; guesses by <b class='drafter'>{html.escape(r.describe())}</b>"
            f" ({html.escape(o.who())}).<br>Measured: α = {o.alpha or 0:.2f} · "
            f"<b class='target-calls'>{o.target_calls}</b> target calls instead of {o.plain_calls} · "
            f"{o.tokens_per_call:.2f} tokens per call · c = {o.c:.2f} a guess<br>Speed-up on this machine: "
            f"<b class='priced-speedup'>{o.speedup:.2f}×</b> (every call priced by this pair's cost profile, "
            f"as chapters 11 and 12 show this request). {html.escape(o.verdict())}<br>At the sliders (now this "
            f"request's α, γ, c): " + (html.escape(gap) if gap else f"the formula predicts {o.predicted():.2f}×, "
                                       "as measured.")
            + f"<br><i>{html.escape(o.projection_sentence())}</i></div>")
