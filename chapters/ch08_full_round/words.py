"""Chapter 8's sentences about a round: who guesses, how lucky the round was, the checks table and
the step's explanation, each a whole message in the page's language."""
from __future__ import annotations

import html

from chapters.rounds import listed
from lab.core.trace import RoundTrace
from lab.experiments.casesearch import Found, Luck
from uikit.language import gettext as _, ngettext, number, percent
from uikit.panels import sampling_words
from uikit.tokens import show_text, tok_html

def guesser(r: RoundTrace) -> str:
    """Who guesses this round, in words: these pages draft with the draft model at the student's γ."""
    if r.gamma == 0:
        return _("no guesses this round: the target writes one token")
    return ngettext("the draft model guesses γ = {gamma} token", "the draft model guesses γ = {gamma} tokens",
                    r.gamma).format(gamma=r.gamma)


def _share(x: float) -> str:
    """How often, in words: "about 25%", or "less than 1%"."""
    return (_("less than {share}").format(share=percent(0.01)) if x < 0.01
            else _("about {share}").format(share=percent(x)))


def luck_html(lk: Luck | None) -> str:
    """How the round just stepped through compares with a typical one of its generation: said
    whenever it is not typical (every draft kept against the odds, a guess the target would never
    write, a rare correction), so a lucky round is not read as the rule."""
    if lk is None:
        return ""
    alpha = number(lk.alpha, 2)
    typical = _("a typical round of this generation (α = {alpha}) keeps about {expected} of {gamma}").format(
        alpha=alpha, expected=number(lk.expected_kept, 1), gamma=lk.gamma)
    if lk.lucky:
        text = ngettext("A lucky round: at α = {alpha} a round keeps its {gamma} draft only {share} of the time; "
                        "{typical}.",
                        "A lucky round: at α = {alpha} a round keeps all {gamma} drafts only {share} of the time; "
                        "{typical}.", lk.gamma).format(alpha=alpha, gamma=lk.gamma, share=_share(lk.all_kept),
                                                      typical=typical)
    elif lk.kept == lk.gamma:
        text = ngettext("At α = {alpha} a round keeps its {gamma} draft {share} of the time.",
                        "At α = {alpha} a round keeps all {gamma} drafts {share} of the time.", lk.gamma).format(
            alpha=alpha, gamma=lk.gamma, share=_share(lk.all_kept))
    elif lk.hopeless is not None:
        i, p = lk.hopeless
        text = _("An unlucky round: the target gives guess {n} p = {p}, a token it would almost never write "
                 "here, so that guess was sure to be rejected; {typical}.").format(n=i + 1, p=number(p, 3),
                                                                                  typical=typical)
    else:
        text = _("This round kept {kept}; {typical}.").format(kept=lk.kept, typical=typical)
    if lk.rare_correction is not None:
        text += " " + _("The correction “{token}” is none of the residual's five likeliest tokens: a rare "
                        "draw.").format(token=show_text(lk.rare_correction))
    return f"<p class='speclab-formula luck' role='note'>{html.escape(text)}</p>"


def _ratio(p: float, q: float) -> str:
    return "∞" if q <= 0 else number(p / q, 3)


def seeds_tried(n: int) -> str:
    return ngettext("{n} seed", "{n} seeds", n).format(n=n)


def no_case_html(found: Found, gamma: int, settings: str) -> str:
    """One sentence: no round kept every draft in the rounds checked (and, when the search stopped
    early, why the seeds left would not find one), and what to do (`settings` in words, as
    uikit.panels.sampling_words says them)."""
    if found.out_of_reach:
        what = ngettext("No round kept all γ = {gamma} drafts in the {n} round checked at {settings}: the target "
                        "kept {kept} of the {checked} guesses it judged, too few for the seeds left to find one. "
                        "Pick a closer draft, or lower γ in the side panel.",
                        "No round kept all γ = {gamma} drafts in the {n} rounds checked at {settings}: the target "
                        "kept {kept} of the {checked} guesses it judged, too few for the seeds left to find one. "
                        "Pick a closer draft, or lower γ in the side panel.",
                        found.rounds).format(gamma=gamma, n=found.rounds, settings=settings, kept=found.kept,
                                             checked=found.checked)
    elif found.timed_out:
        what = ngettext("No round kept all γ = {gamma} drafts in the {n} round checked so far at {settings}; press "
                        "the button again to search on, or lower the temperature (or γ) in the side panel.",
                        "No round kept all γ = {gamma} drafts in the {n} rounds checked so far at {settings}; "
                        "press the button again to search on, or lower the temperature (or γ) in the side panel.",
                        found.rounds).format(gamma=gamma, n=found.rounds, settings=settings)
    else:
        what = ngettext("None of {n} seed gave a round keeping all γ = {gamma} drafts at {settings}; lower the "
                        "temperature (or γ) in the side panel and try again.",
                        "None of {n} seeds gave a round keeping all γ = {gamma} drafts at {settings}; lower the "
                        "temperature (or γ) in the side panel and try again.",
                        found.tried).format(n=found.tried, gamma=gamma, settings=settings)
    return f"<p class='speclab-formula' role='status'>{html.escape(what)}</p>"


def table_html(r: RoundTrace, step: int, checked: int, done: bool) -> str:
    """The checks table after `step` steps: the engine's p, q, p/q, u and verdict per checked position."""
    if step == 0:
        return ""
    rows = []
    for d in r.guesses:
        head = f"<tr><td>{d.index + 1}</td><td>{tok_html(d.text)}</td>"
        if d.index < checked:
            verdict = _("✓ keep") if d.accepted else _("✗ reject")
            numbers = [number(x, 3) for x in (d.p, d.q)] + [_ratio(d.p, d.q)] + [
                number(x, 3) for x in (d.accept_probability, d.uniform)]
            rows.append(head + "".join(f"<td>{x}</td>" for x in numbers)
                        + f"<td><b>{html.escape(verdict)}</b></td></tr>")
        elif done and d.uniform is None:
            said = _("– dropped: its context contained a rejected guess")
            rows.append(f"{head}<td colspan='6'>{html.escape(said)}</td></tr>")
        else:
            said = _("not checked yet (q = {q})").format(q=number(d.q, 3))
            rows.append(f"{head}<td colspan='6'>{html.escape(said)}</td></tr>")
    heads = ("i", _("draft x"), "p(x)", "q(x)", "p / q", _("keep if u < min(1, p/q)"), "u", _("verdict"))
    return ("<table class='speclab-table'><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in heads)
            + f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def explain_html(r: RoundTrace, step: int, checked: int, done: bool) -> str:
    """One sentence on what the latest step did."""
    if step == 0:
        return "<p class='speclab-formula'>" + _(
            "Each <b>{step}</b> makes one move: first {who}, and one target call scores them all, then the guesses "
            "are checked left to right.").format(step=html.escape(_("Step")), who=guesser(r)) + "</p>"
    if step == 1:
        return "<p class='speclab-formula'>" + ngettext(
            "The draft model guessed {n} token, sampled from its q. One target call has scored it. Step to check "
            "it.",
            "The draft model guessed {n} tokens, each sampled from its q. One target call has scored them all. "
            "Step to check them left to right.", r.gamma).format(n=r.gamma) + "</p>"
    if not done:
        d = r.guesses[checked - 1]
        said = (_("Position {n}: u = {u} &lt; min(1, {p} / {q}) = {threshold} → <b>keep</b>.") if d.accepted else
                _("Position {n}: u = {u} ≥ min(1, {p} / {q}) = {threshold} → <b>reject</b>."))
        return "<p class='speclab-formula'>" + said.format(
            n=d.index + 1, u=number(d.uniform, 3), p=number(d.p, 3), q=number(d.q, 3),
            threshold=number(d.accept_probability, 3)) + "</p>"
    top = listed([f"{tok_html(c.text)} {html.escape(number(c.prob, 2))}" for c in r.extra_top[:5]])
    extra = f"<b>{tok_html(r.extra_text)}</b>"
    if r.extra_kind == "correction":
        j = r.n_accepted
        dropped = r.gamma - j - 1
        msg = _("Guess {n} was rejected, so the target writes position {n} itself, sampling from the residual "
                "(p − q)+ normalised ({top}): {token}.").format(n=j + 1, top=top, token=extra)
        if dropped:
            msg += " " + ngettext("The {n} later draft is dropped.", "The {n} later drafts are dropped.",
                                  dropped).format(n=dropped)
    elif r.extra_kind == "bonus":
        msg = ngettext("The {gamma} draft kept — and the target pass already returned p at position {next} ({top}), "
                       "so a bonus token comes free: {token}.",
                       "All {gamma} drafts kept — and the target pass already returned p at position {next} ({top}), "
                       "so a bonus token comes free: {token}.", r.gamma).format(gamma=r.gamma, next=r.gamma + 1,
                                                                               top=top, token=extra)
    else:
        msg = _("No drafts this round; the target wrote {token}.").format(token=extra)
    added = len(r.emitted_ids)
    adds = ngettext("This round adds <b>{n}</b> token for one target call.",
                    "This round adds <b>{n}</b> tokens for one target call.", added).format(n=added)
    return f"<p class='speclab-formula'>{msg} {adds}</p>"


def found_html(found: Found, gamma: int) -> str:
    """The round the seed search found for the question, said as picked, not typical."""
    said = ngettext("Seed {seed}, round {round}: its {gamma} draft kept (found after {seeds}, {rounds}): a round "
                    "picked for the question, not a typical one.",
                    "Seed {seed}, round {round}: all {gamma} drafts kept (found after {seeds}, {rounds}): a round "
                    "picked for the question, not a typical one.", gamma).format(
        seed=found.seed, round=found.index + 1, gamma=gamma, seeds=seeds_tried(found.tried),
        rounds=ngettext("{n} round checked", "{n} rounds checked", found.rounds).format(n=found.rounds))
    return f"<p class='speclab-formula' role='status'>{html.escape(said)}</p>"
