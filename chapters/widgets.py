"""Shared widgets of the chapter pages: the predict card, token chips, legends, takeaways, settings.

Every widget here is built per session (a Viewer holding its own Panel/Bokeh objects). Model text is
untrusted: it is always HTML-escaped before it reaches a pane, and buttons show it as plain text.

    card = PredictCard(state, 2, "For how many …?", kind="number", answer=lambda: count, bounds=(0, 20))
    strip = TokenStrip(chips=[Chip(" cat", "easy"), Chip(" sat", "hard")], clickable=True)
    strip.param.watch(lambda e: show(e.new), "selected")
    legend(["kept", "fixed", "bonus"]); takeaway_box("…"); SettingsPanel(state); PairBadge(state)
"""
from __future__ import annotations

import contextlib
import functools
import html
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

import panel as pn
import param
from bokeh.plotting import figure
from panel.io.state import set_curdoc

from chapters import palette
from chapters.state import LabState
from lab.prompts import PromptError, encode_prompt

# --- chips -------------------------------------------------------------------------------------

def _chip_rules() -> str:
    rules = []
    for state, (col, _icon, _label) in palette.TOKEN_STATES.items():
        deco = palette.UNDERLINE.get(state, "none")
        rules.append(f".chip-{state}, :host(.chip-{state}) .bk-btn {{ background: {col} !important;"
                     f" border-color: {col} !important; color: #fff !important; text-decoration: {deco}; }}")
    return "\n".join(rules)


CHIP_CSS = """
.chips { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; font-size: 1.15rem; }
.chip { display: inline-flex; gap: 4px; align-items: center; border-radius: 6px; padding: 3px 9px;
        border: 2px solid transparent; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
        line-height: 1.5; white-space: pre; text-underline-offset: 4px; }
.chip .ic { font-family: "DejaVu Sans", sans-serif; font-size: .9em; text-decoration: none; }
.chip.selected { outline: 3px solid #1b1b1f; outline-offset: 2px; }
.chip.pending { background: #fff; color: #5f6368; border: 2px dashed #5f6368; }
.strip-empty { color: #44474d; font-style: italic; font-size: 1.05rem; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; font-size: 1rem; color: #1b1b1f; }
.legend .item { display: inline-flex; gap: 6px; align-items: center; }
.legend .chip { padding: 0 7px; }
:host .bk-btn { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 1.1rem;
                border: 2px solid transparent; border-radius: 6px; padding: 3px 9px;
                text-underline-offset: 4px; white-space: pre; }
:host(.selected) .bk-btn { outline: 3px solid #1b1b1f; outline-offset: 2px; }
:host .bk-btn:hover { filter: brightness(1.15); }
:host .bk-btn:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
""" + _chip_rules()


def show_text(text: str) -> str:
    """A token's text made visible: spaces at the ends kept, newlines and tabs as symbols."""
    shown = text.replace("\n", "⏎").replace("\t", "⇥")
    return shown if shown.strip() else shown.replace(" ", "␣") or "∅"


@dataclass
class Chip:
    """One token on screen: its text (untrusted model text) and its state (a palette key)."""
    text: str
    state: str
    title: str = ""          # tooltip, plain text

    def html(self, selected: bool = False) -> str:
        icon = palette.icon(self.state)
        title = html.escape(self.title or f"{palette.label(self.state)}: {self.text!r}", quote=True)
        cls = f"chip chip-{self.state}" + (" selected" if selected else "")
        ic = f'<span class="ic" aria-hidden="true">{icon}</span>' if icon else ""
        return (f'<span class="{cls}" title="{title}" role="listitem">{ic}'
                f'<span class="tx">{html.escape(show_text(self.text))}</span>'
                f'<span class="sr-only" style="position:absolute;left:-9999px">'
                f' ({html.escape(palette.label(self.state))})</span></span>')


def chips_html(chips: list[Chip], selected: int | None = None, empty: str = "") -> str:
    if not chips:
        return f'<div class="strip-empty">{html.escape(empty)}</div>' if empty else '<div class="chips"></div>'
    body = "".join(c.html(i == selected) for i, c in enumerate(chips))
    return f'<div class="chips" role="list">{body}</div>'


class TokenStrip(pn.viewable.Viewer):
    """A row of token chips, each with its state's colour, icon and underline.

    With `clickable=True` each chip is a button and clicking one sets `selected` to its index.
    """
    chips = param.List(default=[], item_type=Chip, doc="The tokens to show, in order.")
    clickable = param.Boolean(default=False)
    selected = param.Integer(default=None, allow_None=True, doc="Index of the clicked chip.")
    empty = param.String(default="", doc="What to say while there are no tokens.")

    def __init__(self, **params):
        super().__init__(**params)
        self._html = pn.pane.HTML(sizing_mode="stretch_width", stylesheets=[CHIP_CSS], margin=(4, 0))
        self._buttons = None      # a FlexBox of chip buttons, made when the strip first needs them
        self._view = pn.Column(self._html, sizing_mode="stretch_width", margin=0)
        self._render()
        self.param.watch(lambda e: self._render(), ["chips", "clickable", "empty"])
        self.param.watch(lambda e: self._mark_selected(), "selected")

    def _render(self):
        if not self.clickable or not self.chips:
            self._html.object = chips_html(self.chips, self.selected, self.empty)
            self._html.visible = True
            if self._buttons is not None:
                self._buttons.visible = False
            return
        buttons = []
        for i, chip in enumerate(self.chips):
            icon = palette.icon(chip.state)
            b = pn.widgets.Button(label=f"{icon} {show_text(chip.text)}".strip(), margin=0,
                                  css_classes=[f"chip-{chip.state}"] + (["selected"] if i == self.selected else []),
                                  stylesheets=[CHIP_CSS],
                                  description=chip.title or f"{palette.label(chip.state)} — click for candidates")
            b.on_click(lambda e, i=i: setattr(self, "selected", i))
            buttons.append(b)
        if self._buttons is None:   # a FlexBox costs a page ~10 ms to build: only strips that click get one
            self._buttons = pn.FlexBox(sizing_mode="stretch_width", gap="6px", margin=(4, 0))
            self._view.append(self._buttons)
        self._buttons.objects = buttons
        self._html.visible, self._buttons.visible = False, True

    def _mark_selected(self):
        if not self.clickable or self._buttons is None:
            self._html.object = chips_html(self.chips, self.selected, self.empty)
            return
        for i, b in enumerate(self._buttons.objects):
            state_class = [c for c in b.css_classes if c.startswith("chip-")]
            b.css_classes = state_class + (["selected"] if i == self.selected else [])

    def __panel__(self):
        return self._view


def static_figure(**kwargs):
    """A Bokeh figure for the lab's pages: no toolbar and no tools. Hidden pan/zoom tools only let a
    student drag a plot away with no visible reset, and each costs the page models to build."""
    return figure(toolbar_location=None, tools="", **kwargs)


# --- sliders that answer at once ------------------------------------------------------------------

def live_slider(parameter: param.Parameter, **kwargs) -> pn.widgets.Widget:
    """A slider for a chapter's `parameter` whose moves reach Python at once.

    Panel holds every change from the browser 50 ms (its private `Syncable._debounce`) to gather a
    drag's moves; for a key press or a click that is only delay. The view that redraws from the
    slider gathers a drag's moves itself (`Throttled`).
    """
    kind = pn.widgets.IntSlider if isinstance(parameter, param.Integer) else pn.widgets.FloatSlider
    slider = kind.from_param(parameter, **kwargs)
    slider._debounce = 0
    return slider


class Throttled:
    """`fn()` at most once per `gap` seconds: at once when the last call is older than that (a key
    press, a click, a drag's first move), otherwise once at the end of the gap with the values as
    they are then (a drag's later moves, gathered). Outside a served page it always runs at once.

        redraw = Throttled(self._update)
        self.param.watch(redraw, ["alpha", "gamma", "c"])
    """

    def __init__(self, fn: Callable[[], None], gap: float = 0.05, clock: Callable[[], float] = time.monotonic):
        self.fn, self.gap, self.clock = fn, gap, clock
        self._last = float("-inf")
        self._due = False   # a call at the end of the gap is scheduled

    def __call__(self, *_events) -> None:
        if self._due:
            return
        doc = pn.state.curdoc
        wait = self._last + self.gap - self.clock()
        if wait <= 0 or doc is None or doc.session_context is None:
            self._run()
        else:
            self._due = True
            doc.add_timeout_callback(functools.partial(self._run_in, doc), max(1, int(wait * 1000)))

    def _run_in(self, doc) -> None:
        with set_curdoc(doc):   # Panel then updates this page's models directly
            self._run()

    def _run(self) -> None:
        self._due = False
        self._last = self.clock()
        self.fn()


_TYPE_SIZE = re.compile(r"^([0-9.]+)(px|pt)$")
MIN_TYPE = {"px": 14.0, "pt": 10.5}   # a figure's smallest type: legible on a projector at 1280×720


def figure_type_sizes(fig) -> dict:
    """(model, property) -> size, for every fixed type size ("12px", "9pt") in a Bokeh figure: its
    title, axes, legends and labels, which all sit in the figure's side and centre panels. Text
    drawn as a glyph (`fig.text`) is data, not a panel: its chapter sizes it (14 px)."""
    out = {}
    for model in (fig.title, *fig.above, *fig.below, *fig.left, *fig.right, *fig.center):
        if model is None or isinstance(model, str):
            continue
        for name in model.properties():
            if name.endswith("text_font_size"):
                value = getattr(model, name)
                if isinstance(value, str) and _TYPE_SIZE.match(value):
                    out[(model, name)] = value
    return out


def type_size(value: str, k: float = 1.0) -> str:
    """A type size raised to MIN_TYPE, then scaled by k."""
    number, unit = _TYPE_SIZE.match(value).groups()
    return f"{max(float(number), MIN_TYPE[unit]) * k:.1f}{unit}"


def readable_figures(view) -> None:
    """Raise the type of every Bokeh figure in a Panel view (legends, axes, labels) to MIN_TYPE."""
    for pane in view.select(pn.pane.Bokeh):
        if pane.object is not None:
            for (model, name), value in figure_type_sizes(pane.object).items():
                setattr(model, name, type_size(value))


def count_html(n: int, label: str) -> str:
    """A big number and its unit, on one line (the lanes' counters)."""
    return (f'<div class="count" style="display:flex;gap:8px;align-items:baseline;white-space:nowrap;'
            f'font-size:1.1rem;color:#1b1b1f"><b style="font-size:1.7rem;color:#1f4e9e">{n}</b>'
            f'<span>{html.escape(label)}</span></div>')


def lane(name: str, note: str, strip, count=None, colour: str = "#1b1b1f", width: int = 200) -> pn.Row:
    """One labelled lane: name, a short note and an optional counter on the left, the strip on the right."""
    head = pn.pane.HTML(f'<div style="font-size:1.15rem;font-weight:700;color:{colour}">{html.escape(name)}</div>'
                        f'<div style="color:#44474d;font-size:1rem">{html.escape(note)}</div>', width=width - 14,
                        margin=(4, 4, 0, 5))
    left = pn.Column(head, count, width=width, margin=0) if count is not None else head
    return pn.Row(left, strip, sizing_mode="stretch_width", margin=(6, 0))


def legend(states: list[str], labels: dict[str, str] | None = None) -> pn.pane.HTML:
    """A legend: a sample chip (colour + icon + underline) and the label of each state."""
    labels = labels or {}
    items = "".join(
        f'<span class="item"><span class="chip chip-{s}"><span class="ic" aria-hidden="true">'
        f'{palette.icon(s)}</span><span class="tx">Aa</span></span>'
        f'{html.escape(labels.get(s, palette.label(s)))}</span>' for s in states)
    return pn.pane.HTML(f'<div class="legend">{items}</div>', stylesheets=[CHIP_CSS],
                        sizing_mode="stretch_width", margin=(6, 0))


def takeaway_box(text: str) -> pn.pane.HTML:
    return pn.pane.HTML(f'<div class="takeaway"><div class="label">Takeaway</div>'
                        f'<p>{html.escape(text)}</p></div>', css_classes=["takeaway-pane"],
                        stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=(24, 0, 8, 0))


BOX_CSS = """
.takeaway { border-left: 8px solid #1f4e9e; background: #eef3fb; padding: 14px 20px; border-radius: 6px; }
.takeaway .label { font-weight: 700; text-transform: uppercase; letter-spacing: .06em; color: #1f4e9e;
                   font-size: .95rem; }
.takeaway p { font-size: 1.45rem; margin: 6px 0 0; color: #1b1b1f; line-height: 1.35; }
.card { border: 2px solid #b35900; background: #fff8f0; border-radius: 8px; padding: 12px 18px; }
.plabel { font-weight: 700; color: #8a4500; font-size: 1rem; letter-spacing: .02em; }
.q { font-size: 1.3rem; color: #1b1b1f; margin: 6px 0 0; line-height: 1.35; }
.verdict { font-size: 1.15rem; padding: 8px 12px; border-radius: 6px; line-height: 1.4; color: #1b1b1f; }
.verdict.right { background: #e5f3ea; border-left: 6px solid #2b7a4b; }
.verdict.wrong { background: #fbeaea; border-left: 6px solid #b3261e; }
.verdict.waiting { background: #f1f3f4; border-left: 6px solid #5f6368; }
.busy { font-size: 1.05rem; color: #1b1b1f; display: flex; gap: 8px; align-items: center; min-height: 1.6em; }
.busy .spin { width: 16px; height: 16px; border: 3px solid #c5cad3; border-top-color: #1f4e9e;
              border-radius: 50%; animation: spin 0.9s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .busy .spin { animation: none; border-top-color: #1f4e9e; } }
.error { color: #8c1d18; background: #fbeaea; border-left: 6px solid #b3261e; padding: 6px 12px;
         font-size: 1.05rem; border-radius: 4px; }
.badge { font-size: .95rem; color: #1b1b1f; line-height: 1.5; font-weight: 400; white-space: normal; }
.badge b { color: #1f4e9e; }
.badge .dr { color: #8a4500; font-weight: 700; }
"""

# Tables and formula read-outs of Part III (chapters 5–11 use these classes).
TABLE_CSS = """
.speclab-table { border-collapse: collapse; font-size: 1.05rem; margin: 6px 0; color: #1b1b1f; }
.speclab-table th, .speclab-table td { border-bottom: 1px solid #c5cad3; padding: 5px 12px; text-align: left; }
.speclab-table th { background: #eef3fb; font-weight: 700; }
.speclab-table tr.current td { background: #fff8f0; font-weight: 700; }
.speclab-formula { font-size: 1.1rem; line-height: 1.7; color: #1b1b1f; }
.speclab-live { font-size: 1.05rem; line-height: 1.6; background: #f1f3f4; padding: 8px 12px; border-radius: 6px; }
"""


# --- predict & check ---------------------------------------------------------------------------

CHOICE_CSS = """
:host .bk-btn { font-size: 1.1rem; text-align: left; white-space: normal; padding: 8px 14px; }
:host .bk-btn:disabled { opacity: 1; cursor: default; }
:host .bk-btn-primary.bk-btn-outline:disabled { color: #1b1b1f; border-color: #8a8f98; background: #fff; }
:host .bk-btn:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
"""


class PredictCard(pn.viewable.Viewer):
    """"Pause & predict": commit an answer first; the verdict shows once the chapter's result is in.

    `answer` is the correct choice (a string from `choices`) or number, or a callable returning it
    from live data (called when the verdict is shown). `explanation` is text, or a callable
    `(correct_answer) -> str`. The chapter calls `reveal()` when its experiment has run.
    Answers are kept in `state.answers[number] = {"answer": ..., "correct": ...}`.
    """
    committed = param.Parameter(default=None, doc="The student's answer, once locked in.")
    ready = param.Boolean(default=False, doc="The chapter's result is on screen.")
    correct = param.Boolean(default=None, allow_None=True, doc="Right or wrong, once revealed.")

    def __init__(self, state: LabState, number: int, question: str, *, choices: list[str] | None = None,
                 answer: Any = None, explanation: str | Callable = "", tolerance: float = 0,
                 bounds: tuple[int, int] = (0, 20), hint: str = "Now run the experiment below to check.",
                 **params):
        super().__init__(**params)
        self.state, self.number, self.question = state, number, question
        self.choices, self.answer, self.explanation = choices, answer, explanation
        self.tolerance, self.hint = tolerance, hint
        self.kind = "choice" if choices else "number"
        self._buttons = []
        if self.kind == "choice":
            for text in choices:
                b = pn.widgets.Button(label=text, color="primary", variant="outline",
                                      sizing_mode="stretch_width", margin=(3, 0), css_classes=["choice"],
                                      stylesheets=[CHOICE_CSS])
                b.on_click(lambda e, t=text: self.commit(t))
                self._buttons.append(b)
            self._inputs = pn.Column(*self._buttons, sizing_mode="stretch_width", margin=0)
        else:
            self._number = pn.widgets.IntInput(label="Your answer", value=None, start=bounds[0],
                                               end=bounds[1], width=160)
            self._lock = pn.widgets.Button(label="Lock in my answer", color="primary", align="end")
            self._lock.on_click(lambda e: self._number.value is not None and self.commit(self._number.value))
            self._inputs = pn.Row(self._number, self._lock, margin=0)
        self._verdict = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=(6, 0))
        previous = state.answers.get(number)
        if previous is not None:
            self.commit(previous["answer"])
        self.param.watch(lambda e: self._update(), ["committed", "ready"])
        self._update()

    def correct_answer(self):
        return self.answer() if callable(self.answer) else self.answer

    def commit(self, value) -> None:
        """Lock in the student's answer (once; a later call changes nothing)."""
        if self.committed is not None:
            return
        if self.kind == "number":
            value = int(value)
        self.committed = value
        self._record()

    def reveal(self) -> None:
        """The chapter's result is on screen: show the verdict (now, or as soon as they commit)."""
        self.ready = True

    def reset(self) -> None:
        """Hide the verdict again (the chapter's result was cleared); the answer stays locked in."""
        self.ready = False

    def _is_right(self, truth) -> bool:
        if self.kind == "number":
            return abs(self.committed - truth) <= self.tolerance
        return self.committed == truth

    def _record(self):
        self.state.answers = {**self.state.answers,
                              self.number: {"answer": self.committed, "correct": self.correct}}

    def _update(self):
        for b in self._buttons:
            chosen = b.label == self.committed
            b.disabled = self.committed is not None
            b.variant = "solid" if chosen else "outline"
        if self.kind == "number":
            self._number.disabled = self._lock.disabled = self.committed is not None
            if self.committed is not None:
                self._number.value = self.committed
        if self.committed is None:
            msg = ("Commit an answer above to see whether you were right." if self.ready
                   else "Choose your answer before you look.")
            self._verdict.object = f'<div class="verdict waiting">{html.escape(msg)}</div>'
            return
        said = html.escape(str(self.committed))
        if not self.ready:
            self._verdict.object = (f'<div class="verdict waiting">You said <b>{said}</b>. '
                                    f'{html.escape(self.hint)}</div>')
            return
        truth = self.correct_answer()
        self.correct = self._is_right(truth)
        self._record()
        expl = self.explanation(truth) if callable(self.explanation) else self.explanation
        if self.correct:
            head = "✓ Right."
        elif self.kind == "number":
            head = f"✗ Not quite: the answer here is <b>{html.escape(str(truth))}</b> (you said {said})."
        else:
            head = f"✗ Not quite: the answer is <b>{html.escape(str(truth))}</b>."
        cls = "right" if self.correct else "wrong"
        self._verdict.object = f'<div class="verdict {cls}" role="status">{head} {html.escape(expl)}</div>'

    def __panel__(self):
        head = pn.pane.HTML(f'<div class="plabel">✎ Pause &amp; predict · question {self.number} of 10</div>'
                            f'<p class="q">{html.escape(self.question)}</p>',
                            stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=0)
        return pn.Column(head, self._inputs, self._verdict, css_classes=["predict-card"],
                         sizing_mode="stretch_width", margin=(12, 0),
                         styles={"border": "2px solid #b35900", "background": "#fff8f0",
                                 "border-radius": "8px", "padding": "8px 14px"})


# --- working indicator, settings, badge ---------------------------------------------------------

class Busy(pn.viewable.Viewer):
    """A visible "working…" line (spinner + text, announced to screen readers)."""
    message = param.String(default="")

    def __init__(self, **params):
        super().__init__(**params)
        self._pane = pn.pane.HTML(self._html(), stylesheets=[BOX_CSS], margin=(2, 0), min_height=28,
                                  sizing_mode="stretch_width")
        self.param.watch(lambda e: setattr(self._pane, "object", self._html()), "message")

    def _html(self) -> str:
        if not self.message:
            return '<div class="busy" aria-live="polite"></div>'
        return (f'<div class="busy" aria-live="polite"><span class="spin" aria-hidden="true"></span>'
                f'{html.escape(self.message)}</div>')

    @property
    def active(self) -> bool:
        return bool(self.message)

    @contextlib.contextmanager
    def working(self, message: str = "working…"):
        self.message = message
        try:
            yield
        finally:
            self.message = ""

    def __panel__(self):
        return self._pane


@contextlib.contextmanager
def button_disabled(button):
    """Disable `button` while its own work runs, and enable it again however the work ends.

        with button_disabled(self.ask_button):
            result = await self.run_model(guesses, ...)
    """
    button.disabled = True
    try:
        yield
    finally:
        button.disabled = False


class SettingsPanel(pn.viewable.Viewer):
    """The student's own prompt and sampling settings (this browser session only)."""

    def __init__(self, state: LabState, **params):
        super().__init__(**params)
        self.state = state
        self.prompt = pn.widgets.TextAreaInput(label="Prompt (both models continue it)", value=state.prompt,
                                               max_length=2000, rows=2, sizing_mode="stretch_width")
        self.temperature = pn.widgets.FloatSlider(label="Temperature (0 = greedy)", start=0, end=2, step=0.1,
                                                  value=state.temperature, sizing_mode="stretch_width")
        self.top_k = pn.widgets.IntSlider(label="top-k (0 = off)", start=0, end=200, value=state.top_k,
                                          sizing_mode="stretch_width")
        self.top_p = pn.widgets.FloatSlider(label="top-p (1 = off)", start=0.05, end=1, step=0.05,
                                            value=state.top_p, sizing_mode="stretch_width")
        self.apply = pn.widgets.Button(label="Use these settings", color="primary")
        self.message = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        self.apply.on_click(lambda e: self.commit())

    def commit(self) -> bool:
        """Check the prompt; store everything in the session state, or say what is wrong."""
        try:
            encode_prompt(self.state.service.pair.tokenizer, self.prompt.value)
        except PromptError as err:
            self.state.error = str(err)
            self.message.object = f'<div class="error" role="alert">{html.escape(str(err))}</div>'
            return False
        self.state.param.update(prompt=self.prompt.value, temperature=self.temperature.value,
                                top_k=self.top_k.value, top_p=self.top_p.value, error="")
        self.message.object = (f'<div class="badge">Saved for this session: '
                               f'{html.escape(self.state.settings.describe())}.</div>')
        return True

    def __panel__(self):
        return pn.Column(self.prompt, self.temperature, self.top_k, self.top_p, self.apply, self.message,
                         sizing_mode="stretch_width", css_classes=["settings-panel"])


def human_count(n: int) -> str:
    if n >= 1e9:
        return f"{n / 1e9:.1f} B"
    if n >= 1e6:
        return f"{n / 1e6:.0f} M" if n >= 1e7 else f"{n / 1e6:.1f} M"
    if n >= 1e3:
        return f"{n / 1e3:.0f} k"
    return str(n)


def badge_html(pair, settings) -> str:
    return (f'<div class="badge" role="note" aria-label="model pair in use">'
            f'<b>target</b> {html.escape(pair.target_label)} ({human_count(pair.target_params)} parameters) · '
            f'<span class="dr">draft</span> {html.escape(pair.draft_label)} '
            f'({human_count(pair.draft_params)}) · {html.escape(pair.device)} {html.escape(pair.dtype)} · '
            f'sampling: {html.escape(settings.describe())}{_pair_warning(pair)}</div>')


def _pair_warning(pair) -> str:
    """A lecturer's pair that was refused, or a provisional default, said in the badge."""
    note = (getattr(pair, "notes", None) or {}).get("warning")
    return f'<div class="error" role="note">⚠ {html.escape(note)}</div>' if note else ""


class PairBadge(pn.viewable.Viewer):
    """Which target and draft are loaded, their sizes, device, and the sampling settings in force."""

    def __init__(self, state: LabState, **params):
        super().__init__(**params)
        self.state = state
        self._pane = pn.pane.HTML(self._html(), stylesheets=[BOX_CSS], sizing_mode="stretch_width",
                                  css_classes=["pair-badge"], margin=(2, 8))
        state.param.watch(lambda e: setattr(self._pane, "object", self._html()),
                          ["temperature", "top_k", "top_p"])

    def _html(self) -> str:
        return badge_html(self.state.service.pair, self.state.settings)

    def __panel__(self):
        return self._pane
