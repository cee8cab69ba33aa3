"""Chapter 4 — guess, check, keep: the whole method in one picture.

"Next round" runs one real draft-and-verify round (`lab.core.engine.Decoder.step` on the model worker,
through `ModelService.round`: a class on the same prompt and settings computes each round once) of
the student's request (lab.speed.request: who guesses as the preset bar says, the draft model unless
switched, at a constant γ), so its last round ends at the target calls chapters 10–12 show.
Two lanes count target calls for the same text: standard decoding needs one per token, draft +
verify one per round (plus its γ cheap draft calls, each coloured by what became of its guess: kept,
rejected, or dropped after a rejection, then the target's fix or bonus token). The text and the
draft + verify lane are drawn round by round, each round marked, so its boundaries show. Its words
are the page's language (uikit.language), each sentence with counts one message by its plural rule.
"""
from __future__ import annotations

import html

import panel as pn
import param

from chapters.base import Chapter
from lab.core.trace import acceptance_rate
from lab.core.request import REQUEST_TOKENS
from intercept.clicks import on_click
from uikit.actions import action
from lab.i18n import N_
from uikit.language import Translated, gettext as _, ngettext
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS, CHIP_CSS, sheet
from uikit.tokens import Chip, TokenStrip, count_html, lane, legend

MAX_NEW_TOKENS = REQUEST_TOKENS
WARM_ROUNDS = 3          # rounds computed at start-up, for a class's first clicks
ROUND_CSS = """
.round { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 2px 8px 2px 6px;
         border-left: 3px solid #1f4e9e; border-radius: 4px; background: #f3f5f9; }
.round .no { font-size: .85rem; font-weight: 700; color: #1f4e9e; white-space: nowrap; }
"""
ALPHA_CSS = ".alpha-line { font-size: 1.05rem; line-height: 1.45; padding: 6px 10px; border-left: 4px solid #2b7a4b; }"


# The question's choices: the class poll's keys, in English here, in the catalog for the card to show
CHOICES = (N_("The draft’s: it wrote most of the tokens"),
           N_("The target’s: every token is one the target’s check lets through"),
           N_("A mix: the draft’s words with the target’s fixes"), N_("Neither: a new, third writer"))


def round_chips(r) -> list[Chip]:
    """What one round committed: kept drafts, then the target's fix or bonus token."""
    chips = [Chip(d.text, "kept", _("draft token kept (p/q = {ratio})").format(ratio=f"{min(d.ratio, 99):.2f}"))
             for d in r.guesses[: r.n_accepted]]
    kind = {"correction": "fixed", "bonus": "bonus", "target": "target_call"}[r.extra_kind]
    chips.append(Chip(r.extra_text, kind, _("no guess this round: the target wrote this token alone")
                      if r.extra_kind == "target" else ""))
    return chips[: len(r.emitted_texts)]


def lane_chips(r) -> list[Chip]:
    """Draft + verify for one round: each draft call coloured by what became of its guess, the one
    target call, then the token that call added (its fix or bonus)."""
    chips = []
    how = _("copied from the text, no model call") if r.draft_source == "lookup" else _("one cheap draft call")
    fate = {"kept": _("{how}; its guess was kept"), "rejected": _("{how}; its guess was rejected"),
            "dropped": _("{how}; its guess was dropped")}
    for d in r.guesses:
        state = "kept" if d.accepted else ("rejected" if d.accepted is False else "dropped")
        chips.append(Chip(d.text, state, fate[state].format(how=how)))
    chips.append(Chip(_("check {n}").format(n=r.index + 1), "target_call",
                      _("one target call checks {n} drafts and adds one token").format(n=len(r.guesses))))
    extra = round_chips(r)[-1]
    if extra.state != "kept":                 # not cut short at the end of the text
        chips.append(extra)
    return chips


def tokens_said(n: int) -> str:
    """"<b>1</b> token", "<b>2</b> tokens" by the page's language's plural rule."""
    return ngettext("<b>{n}</b> token", "<b>{n}</b> tokens", n).format(n=n)


def times_said(n: int) -> str:
    """"<b>1</b> time", "<b>3</b> times" by the page's language's plural rule."""
    return ngettext("<b>{n}</b> time", "<b>{n}</b> times", n).format(n=n)


def alpha_html(rounds) -> str:
    """α, named and explained where the lab first measures it: the rounds so far, counted as
    lab.core.trace.acceptance_rate counts them ("" before any guess was judged)."""
    kept, rejected = sum(r.n_accepted for r in rounds), sum(r.rejected for r in rounds)
    drafted = sum(len(r.guesses) for r in rounds)
    alpha = acceptance_rate(kept, rejected)
    if alpha is None:
        return ""
    dropped = drafted - kept - rejected
    said = (_("<b>α, the acceptance rate</b> = kept ÷ (kept + rejected) = {kept} ÷ ({kept} + {rejected}) = "
              "<b>{alpha}</b> so far: the chance the target keeps a guess, given that it kept the ones before "
              "it.").format(kept=kept, rejected=rejected, alpha=f"{alpha:.2f}"),
            ngettext("The {n} guess dropped after a rejection was never checked, so it does not count.",
                     "The {n} guesses dropped after a rejection were never checked, so they do not count.",
                     dropped).format(n=dropped),
            ngettext("This is the α of chapter 10’s formula; of all {drafted} guesses drafted, {kept} was kept (a "
                     "share of {share}).", "This is the α of chapter 10’s formula; of all {drafted} guesses "
                     "drafted, {kept} were kept (a share of {share}).", kept).format(
                drafted=drafted, kept=kept, share=f"{kept / drafted:.2f}"))
    return f'<div class="alpha-line">{" ".join(said)}</div>'


def last_round_html(r, tokens: int, standard: int, spec: int, finished: bool) -> str:
    """What the latest round did, and the running counts of both lanes."""
    g = len(r.guesses)
    if r.extra_kind == "bonus":
        what = _("all {g} guesses kept, and the target’s check gave a bonus token ★ for free").format(g=g)
    elif r.extra_kind == "correction" and g - r.n_accepted > 1:
        what = _("{kept} of {g} guesses kept; the target fixed the next one ✎ and the {dropped} after it were "
                 "dropped").format(kept=r.n_accepted, g=g, dropped=g - r.n_accepted - 1)
    elif r.extra_kind == "correction":
        what = _("{kept} of {g} guesses kept; the target fixed the next one ✎").format(kept=r.n_accepted, g=g)
    else:   # nothing guessed: no repeat to copy, or guesses were rarely kept lately (the "auto" policy)
        what = _("no guess this round, so the target wrote one token")
    round_said = {"lookup": _("Round {n}: guesses copied from the text; {what} — {tokens} for one target call."),
                  "model": _("Round {n}: guesses by the draft model; {what} — {tokens} for one target call.")}.get(
        r.draft_source if r.guesses else "", _("Round {n}: {what} — {tokens} for one target call."))
    said = [round_said.format(n=r.index + 1, what=html.escape(what), tokens=tokens_said(len(r.emitted_ids))),
            _("So far: {tokens}; standard decoding would have called the target {standard}, draft + verify "
              "{spec}.").format(tokens=tokens_said(tokens), standard=times_said(standard), spec=times_said(spec))]
    if finished:
        said.append(_("The text is finished."))
    return f'<div class="verdict waiting">{" ".join(said)}</div>'


class RoundStrip(pn.viewable.Viewer):
    """Chips grouped by round: each round in its own marked group, so the boundaries show."""
    groups = param.List(default=[], doc="One list of Chips per round.")
    empty = param.String(default="")

    def __init__(self, **params):
        super().__init__(**params)
        self._html = pn.pane.HTML(sizing_mode="stretch_width", stylesheets=[CHIP_CSS, ROUND_CSS], margin=(4, 0))
        self.param.watch(lambda e: self._render(), ["groups", "empty"])
        self._render()

    @property
    def chips(self) -> list[Chip]:
        return [c for g in self.groups for c in g]

    def _render(self):
        if not self.groups:
            self._html.object = f'<div class="strip-empty">{html.escape(self.empty)}</div>'
            return
        label = _("round {n}").format
        rounds = "".join(f'<span class="round" role="group" aria-label="{html.escape(label(n=i + 1))}"><span '
                         f'class="no">R{i + 1}</span>{"".join(c.html() for c in g)}</span>'
                         for i, g in enumerate(self.groups))
        self._html.object = f'<div class="chips" role="list">{rounds}</div>'

    def __panel__(self):
        return self._html


class GuessCheckKeepChapter(Chapter):
    number = 4
    slug = "guess-check-keep"
    part = "II"
    kicker = Translated("The idea in one picture")
    title = Translated("Guess, check, keep.")
    intro = Translated("Two names first. The big model is the **target**: its text is what we want. The small one "
                       "is the **draft** model. One round has three moves — and from here on we say *token* for a "
                       "word or word piece. Press **Next round** and count how often each lane calls the target.")
    takeaway = Translated("The target is called once per round, not once per token.")
    tour_parts = ("next_button", "reset_button", "text_strip", "last_round", "standard_strip",
                  "standard_count", "spec_strip", "spec_count", "alpha_line")    # what shell/tour/steps.py shows
    question = Translated("The draft model proposed most of the tokens. Whose writing is the final text?")
    presets = True
    drafters = True      # the drafter switch: the draft model, a copy from the text, or both

    @classmethod
    def warmup(cls, student):
        """The first WARM_ROUNDS rounds of a new student's request, as "Next round" asks for them."""
        ids = student.prompt_ids()
        req = student.request(ids, max_new_tokens=MAX_NEW_TOKENS)
        return [(f"chapter 4's round {i + 1}", student.service.round, (req, i), {}) for i in range(WARM_ROUNDS)]

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.finished = False                # the last round of the text has been shown
        self.rounds = []
        self.next_button = action(_("▶ Next round"), "next-round", color="primary", width=180)
        on_click(self.next_button, self._on_next)
        self.reset_button = action(_("Start again"), "start-again", width=140)
        on_click(self.reset_button, lambda e: self.reset())
        self.text_strip = RoundStrip(empty=_("The text grows here, round by round."))
        self.standard_strip = TokenStrip(empty=_("One target call per token."))
        self.spec_strip = RoundStrip(empty=_("γ draft calls, then one target call, per round."))
        self.standard_count = pn.pane.HTML(self._calls_html(0), stylesheets=[BOX_CSS], width=170)
        self.spec_count = pn.pane.HTML(self._calls_html(0), stylesheets=[BOX_CSS], width=170)
        self.last_round = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        self.alpha_line = pn.pane.HTML("", stylesheets=[BOX_CSS, ALPHA_CSS], sizing_mode="stretch_width")

    def make_predict(self):
        return PredictCard(   # the choices stay English: the class poll's keys (uikit.predict shows them translated)
            self.state, 4, self.question, answer=CHOICES[1], choices=list(CHOICES),
            explanation=_("The draft only proposes. A token is kept only when the target’s check passes it, and "
                          "every miss is replaced by the target’s own choice — so the text is the target’s "
                          "(exactly its greedy text at temperature 0, its distribution when sampling)."),
            hint=_("Now press Next round a few times and look at who decides."))

    @staticmethod
    def _calls_html(n: int) -> str:
        return count_html(n, ngettext("target call", "target calls", n))

    # --- counters the page (and the tests) read ---
    @property
    def tokens(self) -> int:
        return sum(len(r.emitted_ids) for r in self.rounds)

    @property
    def standard_calls(self) -> int:
        """Standard decoding: one target call for every token produced."""
        return self.tokens

    @property
    def spec_calls(self) -> int:
        """Draft + verify: one target call per round."""
        return len(self.rounds)

    # --- running ---
    async def _on_next(self, event=None):
        await self.next_round()

    async def next_round(self):
        """One real round: γ draft calls and one target call on the model worker."""
        if self.next_button.disabled:        # a round is already running for this page
            return None
        with button_disabled(self.next_button):
            return await self._next_round()

    async def _next_round(self):
        if self.finished:
            self.reset()
        ids = self.prompt_ids()
        if ids is None:
            return None
        req = self.request(ids, max_new_tokens=MAX_NEW_TOKENS)
        got = await self.run_model(self.state.service.round, req, len(self.rounds),
                                   message=_("The draft guesses; the target checks…"))
        if got is None:
            return None
        r, self.finished = got
        self.rounds.append(r)
        self._draw()
        if self.predict is not None:
            self.predict.reveal()
        if self.finished:
            self.next_button.label = _("▶ Start over")
        return r

    def on_settings_changed(self, changed):
        self.reset()      # the rounds so far were for the old prompt/settings

    def reset(self):
        self.finished = False
        self.rounds = []
        self.next_button.label = _("▶ Next round")
        self._draw()

    def _draw(self):
        self.text_strip.groups = [round_chips(r) for r in self.rounds]
        self.standard_strip.chips = [Chip(c.text, "target_call", _("one target call for this token"))
                                     for r in self.rounds for c in round_chips(r)]
        self.spec_strip.groups = [lane_chips(r) for r in self.rounds]
        self.standard_count.object = self._calls_html(self.standard_calls)
        self.spec_count.object = self._calls_html(self.spec_calls)
        self.last_round.object = (last_round_html(self.rounds[-1], self.tokens, self.standard_calls,
                                                  self.spec_calls, self.finished) if self.rounds else "")
        self.alpha_line.object = alpha_html(self.rounds)

    def body(self):
        step = '<div class="step"><span class="n">{}</span><b>{}</b><p>{}</p></div>'.format
        arrow = '<div class="arrow" aria-hidden="true">→</div>'
        steps = pn.pane.HTML(
            '<div class="steps">'
            + step(1, _("Guess"), _("The draft model writes a few tokens ahead — fast.")) + arrow
            + step(2, _("Check"), _("The target reads all of them in one call.")) + arrow
            + step(3, _("Keep"), _("Keep what passes, fix the first miss, drop the rest."))
            + '<div class="arrow" aria-hidden="true">' + html.escape(_("↻ repeat")) + '</div></div>',
            stylesheets=[sheet("ch04-steps")], sizing_mode="stretch_width")
        return pn.Column(
            steps,
            pn.Row(self.next_button, self.reset_button, self.busy, sizing_mode="stretch_width"),
            pn.pane.HTML('<div style="font-size:1.15rem;font-weight:700;color:#1f4e9e">' + _("The text") + '</div>',
                         sizing_mode="stretch_width", margin=(8, 5, 0, 5)),
            self.text_strip,
            lane(_("Standard decode"), _("one target call for every token"), self.standard_strip,
                 self.standard_count),
            lane(_("Draft + verify"), _("the draft guesses, the target checks once per round"), self.spec_strip,
                 self.spec_count),
            legend(["target_call", "kept", "rejected", "dropped", "fixed", "bonus"],
                   {"target_call": _("one target call"), "kept": _("draft call: guess kept"),
                    "rejected": _("draft call: guess rejected"), "dropped": _("draft call: dropped after a rejection"),
                    "fixed": _("the target's fix"), "bonus": _("the target's bonus token")}),
            self.last_round,
            self.alpha_line,
            pn.pane.HTML('<p style="font-size:1.1rem">' + _('Next: <a href="?chapter=questions">the five questions '
                                                            'this picture raises →</a>') + '</p>',
                         sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
