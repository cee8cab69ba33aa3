"""Chapter 9 — the round in seventeen lines of pseudocode, executed from a real `RoundTrace`.

`code_events` turns a round into the lines it executes, each with that line's variables; "Step"
lights one event at a time. At temperature 0 the accept test reads "x == argmax(p)".
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import panel as pn
import param

from chapters.rounds import SHOWN_TEMPERATURE, RoundChapter, listed, page_settings, seed_note
from lab.core.sampling import SamplingSettings
from lab.core.trace import RoundTrace
from intercept.clicks import on_click
from uikit.actions import action
from lab.i18n import N_
from uikit.language import Translated, gettext as _, ngettext, number
from uikit.panels import sampling_words
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS, TABLE_CSS, sheet
from uikit.tokens import Chip, TokenStrip, show_text

# The round's lines: (the code, up to where its comment starts; the comment, in the page's language)
CODE = (
    ("def speculative_round(prefix, γ):", None),
    ("    xs, qs = [], []", None),
    ("    for i in range(γ):               ", N_("γ cheap draft calls")),
    ("        q = draft(prefix + xs)       ", N_("after temperature/top-k/top-p")),
    ("        x = sample(q); xs.append(x); qs.append(q)", None),
    ("    ps = target(prefix + xs)         ", N_("ONE target call: γ + 1 rows")),
    ("    for i in range(γ):               ", N_("check left to right")),
    ("        x, p, q = xs[i], ps[i], qs[i]", None),
    ("        u = uniform(0, 1)", None),
    ("        if u < min(1, p[x] / q[x]):  ", N_("the accept test")),
    ("            prefix.append(x)         ", N_("keep the draft token")),
    ("        else:", None),
    ("            r = normalise(max(p - q, 0))   ", N_("the residual")),
    ("            prefix.append(sample(r)) ", N_("the target's fix")),
    ("            return prefix            ", N_("later drafts are dropped")),
    ("    prefix.append(sample(ps[γ]))     ", N_("all kept: a bonus token")),
    ("    return prefix", None),
)
GREEDY_TEST = ("        if x == argmax(p):           ", N_("the accept test at temperature 0"))
ACCEPT_LINE = 10    # 1-based, as the predict question says

# chapters.bridge.QUESTIONS' question this page answers, its kicker (chapters.registry.kicker: the
# second page answering it says "(continued)"): marked here for the catalog
KICKER = (N_("How do the pieces fit together? (continued)"),)
# The question's choices: the class poll's keys, in English here, in the catalog for the card to show
CHOICES = (N_("if x == argmax(p):  — keep the draft token exactly when it is the target's top token"),
           N_("if u < p[x]:  — keep it with the target's probability"),
           N_("Nothing changes: the test still compares u with p / q"))


def code_rows(greedy: bool) -> list[tuple[str, str | None]]:
    """The round's lines as (code, comment), the comments in the page's language."""
    lines = list(CODE)
    if greedy:
        lines[ACCEPT_LINE - 1] = GREEDY_TEST
    return [(code, "# " + _(comment) if comment else None) for code, comment in lines]


def code_lines(greedy: bool) -> list[str]:
    """The round's lines as the listing shows them."""
    return [code + (comment or "") for code, comment in code_rows(greedy)]


@dataclass
class Event:
    """One executed line: its 1-based number, its variables, and the tokens committed so far."""
    line: int
    variables: dict[str, str]
    committed: list[Chip] = field(default_factory=list)


def _t(text: str) -> str:
    return repr(show_text(text))


def variable_html(name: str) -> str:
    """A variable's name: code as the listing writes it (prefix, q[x], argmax(p); `var`, the same in
    every language), else a label in the page's language ("drafts dropped")."""
    listing = " ".join(code for code, _comment in (*CODE, GREEDY_TEST))
    return f'<span class="var">{html.escape(name)}</span>' if name in listing else html.escape(name)


def value_html(value: str) -> str:
    """A variable's value: a Python value (a token's repr, a list of them, "+ 'the'") as code (`var`),
    the model's text kept as it wrote it; else numbers and words in the page's language."""
    code = value[:1] in "'\"[" or value.startswith("+ ")
    return f'<span class="var">{html.escape(value)}</span>' if code and value else html.escape(value)


def _top(cands, k: int = 3) -> str:
    return listed([f"{show_text(c.text)!r}: {number(c.prob, 2)}" for c in cands[:k]])


def _top3(name: str) -> str:
    """A variable's row name for its three likeliest tokens: "q (top 3)"."""
    return _("{name} (top 3)").format(name=name)


def code_events(r: RoundTrace, prefix: str, greedy: bool) -> list[Event]:
    """The lines one round executes, in order, with the values the engine recorded (their words and
    numbers in the page's language)."""
    events: list[Event] = []
    committed: list[Chip] = []

    def emit(line, **variables):
        events.append(Event(line, {k: str(v) for k, v in variables.items()}, list(committed)))

    emit(1, prefix=repr(prefix), γ=r.gamma)
    emit(2, xs="[]", qs="[]")
    xs: list[str] = []
    for d in r.guesses:
        emit(3, i=d.index)
        emit(4, **{_top3("q"): _top(d.draft_top)})
        xs.append(_t(d.text))
        emit(5, x=_t(d.text), **{"q[x]": number(d.q, 3), "xs": "[" + ", ".join(xs) + "]"})
    emit(6, **{"ps": ngettext("{n} row of p, one target call", "{n} rows of p, one target call",
                              r.gamma + 1).format(n=r.gamma + 1),
               _("p[x] per draft"): listed([number(d.p, 3) for d in r.guesses]) or "—"})
    for d in r.guesses:
        if d.uniform is None:
            break
        emit(7, i=d.index)
        emit(8, x=_t(d.text), **{"p[x]": number(d.p, 3), "q[x]": number(d.q, 3)})
        emit(9, u=number(d.uniform, 3) + ("  " + _("(not needed at temperature 0)") if greedy else ""))
        if greedy:
            argmax = d.target_top[0].text if d.target_top else "?"
            emit(10, **{"argmax(p)": _t(argmax), "x == argmax(p)": d.accepted})
        else:
            emit(10, **{"min(1, p[x]/q[x])": number(d.accept_probability, 3),
                        f"{number(d.uniform, 3)} < {number(d.accept_probability, 3)}": d.accepted})
        if d.accepted:
            committed.append(Chip(d.text, "kept"))
            emit(11, prefix=f"+ {_t(d.text)}")
        else:
            emit(12)
            emit(13, **{_top3("r"): _top(r.extra_top)})
            committed.append(Chip(r.extra_text, "fixed"))
            emit(14, **{"sample(r)": _t(r.extra_text)})
            dropped = [_t(x.text) for x in r.guesses[d.index + 1:]]
            emit(15, **{_("drafts dropped"): "[" + ", ".join(dropped) + "]",
                        _("tokens committed"): len(r.emitted_ids)})
            return _cut(events, r)
    committed.append(Chip(r.extra_text, "bonus" if r.gamma else "target"))
    emit(16, **{_top3("ps[γ]"): _top(r.extra_top), "sample": _t(r.extra_text)})
    emit(17, **{_("tokens committed"): len(r.emitted_ids)})
    return _cut(events, r)


def _cut(events: list[Event], r: RoundTrace) -> list[Event]:
    """At an end-of-text token the engine commits less than the round drew; show what it committed."""
    last = events[-1]
    if len(last.committed) != len(r.emitted_ids):
        last.committed = [Chip(t, c.state) for t, c in zip(r.emitted_texts, last.committed)]
    return events


class CodeChapter(RoundChapter):
    number = 9
    slug = "code"
    part = "III"
    kicker = Translated("Question 4, continued · implementation")
    title = Translated("The whole round fits in seventeen lines.")
    intro = Translated("The same three moves as pseudocode. Step through the round you just watched: the "
                       "executing lines light up, with their numbers on the right.")
    takeaway = Translated("Draft, verify, commit — then repeat from the longer prefix.")
    tour_parts = ("step_button", "run_button", "next_button", "code", "variables", "temperature_slider")    # what shell/tour/steps.py shows
    question = Translated("Set the temperature to 0, so the target always picks its single top token. What does "
                          "line 10 turn into?")

    temperature = param.Number(default=SHOWN_TEMPERATURE, bounds=(0.0, 2.0), step=0.1,
                               doc="Temperature of this page (a greedy session starts where chapters 5 and 8 sample).")
    position = param.Integer(default=0, doc="Events executed of the current round.")

    def __init__(self, state, **params):
        if state.temperature > 0:
            params.setdefault("temperature", state.temperature)
        super().__init__(state, **params)
        self.events: list[Event] = []
        # Throttled: a new temperature means a new generation, so not one per pixel of a drag.
        self.temperature_slider = pn.widgets.FloatSlider(label=_("Temperature (0 = greedy)"), start=0.0, end=2.0,
                                                         step=0.1, value=self.temperature, width=240)
        self.temperature_slider.param.watch(lambda e: setattr(self, "temperature", e.new), "value_throttled")
        self.step_button = action(_("Step"), "step", color="primary", width=110)
        on_click(self.step_button, self._on_step)
        self.run_button = action(_("Run to the end"), "run-to-end", width=170)
        on_click(self.run_button, self._on_run)
        self.next_button = action(_("Next round"), "next-round", width=150)
        on_click(self.next_button, self._on_next_round)
        self.code = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[sheet("ch09-code")])
        self.variables = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, BOX_CSS])
        self.text_strip = TokenStrip(empty="")
        self.round_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.param.watch(lambda e: self.say_sampling(), "temperature")     # the badge follows the slider at once
        self.param.watch(self._on_temperature, "temperature")
        self._draw_code(None)

    def make_predict(self):
        self._choices = list(CHOICES)      # the class poll's keys: English, shown translated by the card
        return PredictCard(
            self.state, 9, self.question, choices=self._choices, answer=self._choices[0],
            explanation=_("At temperature 0, p and q are one-hot: p[x] / q[x] is 1 when x is the target's argmax "
                          "and 0 otherwise, so u no longer matters — speculative greedy decoding keeps a draft "
                          "token exactly when the target would have picked it."),
            hint=_("Now drag the temperature to 0 below and step."))

    # ---- data ----------------------------------------------------------------------------------------
    @property
    def settings(self) -> SamplingSettings:
        return page_settings(self.state.settings, self.temperature)

    def refresh_settings(self) -> SamplingSettings:
        self.say_sampling()
        return self.settings        # this page's own temperature, read live

    @property
    def done(self) -> bool:
        return bool(self.events) and self.position >= len(self.events)

    def restart(self) -> None:
        r = self.round
        prefix = self.state.service.pair.tokenizer.decode(r.prefix_ids)
        self.events = code_events(r, prefix, self.settings.greedy)
        self._prefix = prefix
        self.position = 0
        self._draw()

    async def advance(self, steps: int = 1) -> None:
        if await self.ensure_generation():
            self.position = min(len(self.events), self.position + steps)
            self._draw()

    async def _on_step(self, event):
        await self.advance()

    async def _on_run(self, event):
        await self.advance(len(self.events) or 1000)

    async def _on_temperature(self, event):
        self.generation = None
        await self.load()
        if self.predict is not None and self.temperature == 0:
            self.predict.reveal()

    # ---- views ---------------------------------------------------------------------------------------
    def _draw_code(self, current: Event | None):
        rows = []
        for n, (code, comment) in enumerate(code_rows(self.settings.greedy), start=1):
            on = current is not None and current.line == n
            cls = " class='on' aria-current='step'" if on else ""
            # a comment too long for the box (a long language) wraps under itself, at its column
            at = f" style='--comment-at: {len(code)}ch'" if comment else ""
            rows.append(f"<div{cls}{at}><span class='ln'>{n:>2}</span>{html.escape(code + (comment or ''))}</div>")
        self.code.object = f"<div class='code'>{''.join(rows)}</div>"

    def _draw(self):
        r = self.round
        current = self.events[self.position - 1] if self.position else None
        self._draw_code(current)
        if current is None:
            self.variables.object = "<p class='speclab-formula'>" + _(
                "Press <b>{step}</b> to execute line 1.").format(step=html.escape(_("Step"))) + "</p>"
        else:
            cells = "".join(f"<tr><td>{variable_html(k)}</td><td>{value_html(v)}</td></tr>"
                            for k, v in current.variables.items()) or "<tr><td colspan='2'>—</td></tr>"
            ran = _("Line {n} just ran:").format(n=current.line)
            self.variables.object = (f"<div class='speclab-formula'>{html.escape(ran)}</div>"
                                     f"<table class='speclab-table'><tbody>{cells}</tbody></table>")
        committed = current.committed if current is not None else []
        self.text_strip.chips = [Chip(self._prefix, "prompt")] + committed
        n = len(self.generation.rounds)
        head = _("Round {n} of {rounds} · γ = {gamma} · {settings} · line event {k} of {events}.").format(
            n=r.index + 1, rounds=n, gamma=r.gamma, settings=sampling_words(self.settings), k=self.position,
            events=len(self.events))
        self.round_note.object = (f"<p class='speclab-formula'>{html.escape(head)}"
                                  f"{html.escape(seed_note(self.generation, self.state))}</p>")
        self.step_button.disabled = self.done

    # ---- page ----------------------------------------------------------------------------------------
    def body(self):
        notes = pn.pane.HTML(side_notes_html(), sizing_mode="stretch_width",
                             stylesheets=[BOX_CSS, sheet("ch09-notes")])
        listing = pn.Column(self.code, width=650, stylesheets=[sheet("ch09-projector")])  # wider on a projector
        return pn.Column(
            pn.Row(self.step_button, self.run_button, self.next_button, self.temperature_slider, self.busy),
            self.round_note,
            pn.Row(listing, pn.Column("#### " + _("What this line just did"), self.variables,
                                      sizing_mode="stretch_width"),
                   sizing_mode="stretch_width"),
            "#### " + _("Text so far"),
            pn.Column(self.text_strip, css_classes=["text-so-far"], sizing_mode="stretch_width"),
            notes, sizing_mode="stretch_width")


def side_notes_html() -> str:
    """Three cards beside the code: the two caches, what p and q are, the library's one argument."""
    cards = ((_("Two caches"), _("roll back after a miss"),
              html.escape(_("Each model keeps its own KV cache. After a rejection, the entries of the discarded draft "
                            "tokens are dropped and the next round continues from the accepted prefix."))),
             (_("p and q are final"), _("after temperature, top-k, top-p"),
              html.escape(_("Apply the decoding settings first; the rule compares what is left. So the target's "
                            "sampling settings are preserved as well."))),
             (_("One argument"), _("in a library"),
              html.escape(_("Hugging Face Transformers calls this assisted generation — one extra argument:"))
              + "\n<code>generate(…, assistant_model=draft)</code>"))
    return "<div class='notes'>\n" + "".join(
        f"<div class='card'><div class='label'>{html.escape(label)} <span class='sub'>{html.escape(sub)}</span></div>\n"
        f"<p>{text}</p></div>\n" for label, sub, text in cards) + "</div>"
