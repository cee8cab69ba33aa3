"""Chapter 6's sentences in the page's language (uikit.language), and the same sentences as templates
for its browser code (`browser_words`: assets/ch06_accept_rule.js while a slider moves, assets/ch06_draws.js
in the offline copy), with how the page's language writes numbers and counts, so the browser writes
what Python writes (tests/chapters/test_ch06_browser_draws.py runs both).
"""
from __future__ import annotations

import html

import numpy as np
from bokeh.models import CustomJSTickFormatter

from lab.experiments.twotokens import SETTLED, TOKENS, share_settled, share_spread
from uikit.browser import js_code
from uikit.language import browser_language, gettext as _, ngettext, number, plural_samples


def no_draw_html() -> str:
    """The last draw's pane before a draw."""
    return "<p>" + _("Press <b>Draw</b>: the draft proposes A or B from q.") + "</p>"


def region_words() -> dict[str, str]:
    """A token's region by its key: the draft proposes it more often than the target would, less
    often, or as often."""
    return {"eager": _("draft too eager"), "shy": _("draft too shy"), "agree": _("both agree")}


def region_key(p: float, q: float) -> str:
    """The region of a token the target gives p and the draft q."""
    return "eager" if q > p else ("shy" if q < p else "agree")


def p_label() -> str:
    """The share chart's legend for p(A), with its value (assets/ch06_accept_rule.js fills the same)."""
    return _("p(A) = {p}: the target")


def q_label() -> str:
    """The share chart's legend for q(A), with its value."""
    return _("q(A) = {q}: the draft alone")


def table_head() -> str:
    """The frequency table's opening and head row (its body and end follow: `frequency_table_html`)."""
    heads = (_("token"), "p", "q", _("region"), _("proposed"), _("kept"), _("kept ÷ proposed"), "min(1, p/q)")
    return ("<table class='speclab-table'><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in heads)
            + "</tr></thead>")


def frequency_table_html(p_a: float, q_a: float, proposed, kept, freq, thr) -> str:
    """Per token: p, q, its region, how often it was proposed and kept, against min(1, p/q)."""
    rows, regions = [], {key: html.escape(word) for key, word in region_words().items()}
    p = (p_a, 1 - p_a)
    q = (q_a, 1 - q_a)
    for i, t in enumerate(TOKENS):
        f = "—" if np.isnan(freq[i]) else number(freq[i], 3)
        rows.append(f"<tr><td><b>{t}</b></td><td>{number(p[i], 2)}</td><td>{number(q[i], 2)}</td>"
                    f"<td>{regions[region_key(p[i], q[i])]}</td>"
                    f"<td>{proposed[i]}</td><td>{kept[i]}</td><td>{f}</td><td>{number(thr[i], 3)}</td></tr>")
    return f"{table_head()}<tbody>{''.join(rows)}</tbody></table>"


def draw_sentence(n: int) -> str:
    """The last draw's sentence, for a press of `n` draws (the browser is given both)."""
    if n > 1:
        return _("Last of {n} draws: the draft proposed <b>{token}</b>; u = {u} {rel} min(1, p/q) = {threshold} "
                 "→ <b>{verdict}</b>")
    return _("Draw: the draft proposed <b>{token}</b>; u = {u} {rel} min(1, p/q) = {threshold} → <b>{verdict}</b>")


def last_draw_html(last: dict) -> str:
    """The last draw: the token proposed, u against min(1, p/q), and whether it was kept."""
    if not last:
        return no_draw_html()
    verdict, rel = (_("✓ kept"), "<") if last["kept"] else (_("✗ rejected"), "≥")
    said = draw_sentence(last["n"]).format(n=last["n"], token=last["token"], u=number(last["u"], 3), rel=rel,
                                           threshold=number(last["threshold"], 3), verdict=verdict)
    return f"<p class='speclab-formula'>{said}</p>"


def first_note() -> str:
    """The share of A's note before any round."""
    return _("Each draw is a whole round: the kept draft, or the correction from the residual. Draw 1000 and "
             "watch the share of A.")


def outputs_words(a: int) -> str:
    """How many of the rounds wrote A (a few rounds: `few_rounds_note`'s {outputs})."""
    return ngettext("{a} output is A", "{a} outputs are A", a)


def few_rounds_note(total: int) -> str:
    """The share of A's note after a few rounds, too few to read it."""
    return ngettext("After <b>{total}</b> round, {outputs}. Each round writes A or B, so a few rounds say little "
                    "about p(A): draw more to see the share settle (it is read from {settled} rounds on; press "
                    "Draw 1000).",
                    "After <b>{total}</b> rounds, {outputs}. Each round writes A or B, so a few rounds say little "
                    "about p(A): draw more to see the share settle (it is read from {settled} rounds on; press "
                    "Draw 1000).", total)


def settled_note(total: int) -> str:
    """The share of A's note once it can be read: against p(A), with its sampling noise."""
    return ngettext("After <b>{total}</b> round, <b>{share}</b> of the outputs are A — the target's p(A) = {p} "
                    "(give or take {spread}, sampling noise), not the draft's q(A) = {q}: kept drafts plus "
                    "corrections write exactly what the target would.",
                    "After <b>{total}</b> rounds, <b>{share}</b> of the outputs are A — the target's p(A) = {p} "
                    "(give or take {spread}, sampling noise), not the draft's q(A) = {q}: kept drafts plus "
                    "corrections write exactly what the target would.", total)


def share_note_html(share: float | None, total: int, p_a: float, q_a: float) -> str:
    """What the share of outputs that are A says so far: nothing yet (no rounds), too little to read
    (a few rounds: each writes A or B), then the share against p(A) with its sampling noise."""
    if not total:
        return f"<p>{first_note()}</p>"
    a = round(share * total)
    if not share_settled(total):
        said = few_rounds_note(total).format(total=total, outputs=outputs_words(a).format(a=a), settled=SETTLED)
    else:
        said = settled_note(total).format(total=total, share=number(share, 3), p=number(p_a, 2),
                                          spread=number(share_spread(p_a, total), 3), q=number(q_a, 2))
    return f"<p class='speclab-formula'>{said}</p>"


def browser_words() -> dict:
    """The page's words for its browser code (assets/ch06_accept_rule.js, assets/ch06_draws.js), in
    the page's language: each sentence above as its template (a count's message as all its forms,
    in its plural rule's order), and how the language writes numbers and picks a form."""
    samples = plural_samples()
    return dict(language=browser_language(), p_label=p_label(), q_label=q_label(),
                regions={key: html.escape(word) for key, word in region_words().items()}, table_head=table_head(),
                one_draw=draw_sentence(1), many_draws=draw_sentence(2), kept=_("✓ kept"), rejected=_("✗ rejected"),
                no_draw=no_draw_html(), first_note=f"<p>{first_note()}</p>",
                outputs=[outputs_words(n) for n in samples], few_rounds=[few_rounds_note(n) for n in samples],
                settled=[settled_note(n) for n in samples])


def slider_format() -> dict:
    """The sliders' keyword for their value as the page's language writes it, two decimals ("0,60" in
    Spanish): a formatter in the browser (analytic.number); none in English (the slider's own "0.60")."""
    language = browser_language()["format"]
    if language["python"]:
        return {}
    code = js_code("analytic") + "\nreturn analytic.number(tick, 2, language)"
    return dict(format=CustomJSTickFormatter(code=code, args=dict(language=language)))
