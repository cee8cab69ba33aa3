"""Chapter 1 — the dilemma: the big model is good but slow, the small one fast but sloppy.

"Write" asks both live models for 20 tokens of plain decoding on the student's prompt and draws the
race as it is computed (lab.experiments.racestream): every call on one shared time axis at its cost in the
pair's one cost profile (the times chapters 3, 10 and 11 use, flagged when the machine was busy),
each lane's text growing while the models work. A race already computed (the server warms the
default one at start-up, shell/frame/warmup.py) is replayed at the same speed instead. Draft tokens the
target would pick less than 15% of the time (teacher-forced target probability, raw distribution)
are marked in the small model's lane once the race is over. The race's figure, its words, its
verdict and its replay are chapters/ch01_dilemma/race.py; this module is the page and what Write does.
Every word it shows goes through the page's language (uikit.language): the class attributes read in
English on the class, translated on the page; the predict card's choices stay English, the class
poll's keys, marked for the catalog.
"""
from __future__ import annotations

import asyncio
import html

import panel as pn

from chapters.base import Chapter
from chapters.ch01_dilemma.race import FIGURE_HEIGHT, N_TOKENS, RaceFigure, Replay, small_chip, summary_html, words_count
from lab.core.request import Request
from lab.experiments.racestream import cached_race
from lab.speed.timeline import UNLIKELY, Race
from lab.i18n import N_
from uikit import palette
from intercept.clicks import on_click
from uikit.actions import action
from uikit.language import Translated, gettext as _, number, percent
from uikit.lazy import lazy_figure
from intercept.pacing import in_document, served
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS
from uikit.tokens import Chip, TokenStrip, lane, legend


def recall_html() -> str:
    recall = _("Recall the KV Cache Lab: a cache makes each call cheaper, but the big model must still be called "
               "once for every new word.")
    return f'<p style="font-size:1.05rem;color:#2b2d31">{html.escape(recall)}</p>'


def intro_for(pair) -> str:
    """The intro with the pair's own size ratio and names."""
    ratio = pair.target_params / max(1, pair.draft_params)
    return _("A large model is a careful writer, but it writes one word per call and every call is expensive. "
             "A model {ratio} times smaller (here {draft}, beside {target}) answers quicker — yet it is not the "
             "writer we asked for. Press **Write** and watch both.").format(
        ratio=number(ratio), draft=pair.draft_label, target=pair.target_label)


# The question's choices are the class poll's keys (one poll, whatever language each student reads):
# kept in English here, in the catalog for the card to show them translated (uikit.predict).
CHOICES = (N_("It could, but one call for 20 words would need more memory than the GPU has"),
           N_("Each word is computed from the words before it, so word 4 must wait for word 3"),
           N_("It could, but the words would come out less accurate"),
           N_("Only the small model can write several words per call"))
RIGHT = CHOICES[1]


def dilemma_card(state) -> PredictCard:
    """Chapter 1's question: why not all 20 words in one call?"""
    return PredictCard(
        state, 1, _(DilemmaChapter.question), answer=RIGHT, choices=list(CHOICES),
        explanation=_("Writing is sequential: the model predicts the next token from everything before it, so it "
                      "must be called once for every new token — thousands of parallel units cannot skip that wait."),
        hint=_("Now press Write and watch both models."))


class DilemmaChapter(Chapter):
    number = 1
    slug = "dilemma"
    part = "I"
    kicker = Translated("The dilemma")
    title = Translated("Good is slow. Fast is sloppy.")
    intro = Translated("A large model is a careful writer, but it writes one word per call and every call is "
                       "expensive. A much smaller model answers quicker (the race below times how much) — yet it "
                       "is not the writer we asked for. Press **Write** and watch both.")
    takeaway = Translated("We want the big model’s words at something like the small model’s speed.")
    tour_parts = ("write_button", "speed", "big_strip", "small_strip", "figure", "summary")    # what shell/tour/steps.py shows
    question = Translated("A GPU does thousands of things at once. Why can’t the big model produce all 20 words "
                          "in a single call?")
    presets = True

    @classmethod
    def warmup(cls, student):
        return [("chapter 1's race", cached_race,
                 (student.service, Request(student.prompt_ids(), settings=student.settings, max_new_tokens=N_TOKENS)),
                 {})]

    def page_intro(self) -> str:
        return intro_for(self.state.service.pair)

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.race: Race | None = None
        self.shown_time = 0.0
        self.animate = True            # replay a race from the cache; False shows it finished at once
        self._shown_counts = None
        self.streaming = False         # the race on screen is still being computed
        self._writes = 0               # each Write's number: a late update of an earlier one is dropped

        self.write_button = action(_("✎ Write"), "write", color="primary", width=160,
                                   description=_("Both models write 20 tokens of your prompt"))
        on_click(self.write_button, self._on_write)
        # the value stays English (what the replay reads); the buttons say it in the page's language
        self.speed = pn.widgets.RadioButtonGroup(options={_("real speed"): "real speed", _("10× slower"): "10× slower"},
                                                 value="real speed", color="primary", variant="outline")
        self.big_strip = TokenStrip(empty=_("Press Write: the big model's words appear here."))
        self.small_strip = TokenStrip(empty=_("…and the small model's here."))
        self.big_count = pn.pane.HTML(words_count(0), stylesheets=[BOX_CSS], width=140)
        self.small_count = pn.pane.HTML(words_count(0), stylesheets=[BOX_CSS], width=140)
        self.summary = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        self.race_figure = RaceFigure()
        self.replay = Replay(lambda t: self.show(t),
                             slowdown=lambda: 10.0 if self.speed.value.startswith("10") else 1.0)

    @property
    def figure(self):
        """The race (the tour shows it; built when first asked for)."""
        return self.race_figure.figure

    def make_predict(self):
        return dilemma_card(self.state)

    # --- running ---
    async def _on_write(self, event=None):
        await self.write()

    async def write(self) -> Race | None:
        """Run both models, drawing the race as it is computed; a race computed before (cached per
        prompt and settings) is replayed at the same times."""
        ids = self.prompt_ids()
        if ids is None:
            return None
        self.replay.stop()
        self._writes += 1
        write, loop, streamed = self._writes, asyncio.get_running_loop(), []
        doc = pn.state.curdoc if served() else None

        def progress(race, t):                       # on the model worker, after each call
            streamed.append(t)
            loop.call_soon_threadsafe(self._progress, write, race, t, doc)
        with button_disabled(self.write_button):
            result = await self.run_model(cached_race, self.state.service,
                                          Request(ids, settings=self.state.settings, max_new_tokens=N_TOKENS,
                                                  variant=self.variant),
                                          progress, message=_("Both models are writing 20 tokens…"))
        if write != self._writes:                    # a newer Write took over
            return None
        self.streaming = False
        if result is None:
            return None
        self.race, self._shown_counts = result, None
        in_document(self._start_replay, not streamed)
        return result

    def _progress(self, write: int, race: Race, t: float, doc) -> None:
        """A call has finished: draw the race so far (on the event loop, in the page's document)."""
        if write == self._writes:
            self.streaming, self.race = True, race
            if doc is None:
                self._draw_progress(race, t)
            else:                                    # a next-tick callback holds the document's lock
                try:
                    doc.add_next_tick_callback(lambda: self._draw_progress(race, t))
                except RuntimeError:                 # Bokeh's "already-destroyed Document": the tab closed
                    self.streaming = False

    def _draw_progress(self, race: Race, t: float) -> None:
        if self.race is not race or not self.streaming:      # the finished race is already drawn
            return
        x = self.race_figure.x_range
        if t > 0.85 * x.end or not self._shown_counts:
            x.end = max(t * 1.4, 1e-3)
        self.show(t)

    def _start_replay(self, replay: bool = True):
        """Show the finished race: replayed from 0 (when it came from the cache), else at its end."""
        self.race_figure.x_range.end = self.race.end * 1.12 or 1.0
        self.show(0.0 if replay else self.race.end)
        if replay and self.animate and not self.state.reduced_motion:
            self.replay.start(self.race.end)
        else:
            self.show(self.race.end)

    def show(self, t: float) -> None:
        """Draw the race as it stood `t` seconds after both models started."""
        r = self.race
        self.shown_time = t
        n_big = sum(e <= t for e in r.target_ends)
        n_small = sum(e <= t for e in r.draft_ends)
        if (n_big, n_small) != self._shown_counts:      # send text only when a word was added
            self._shown_counts = (n_big, n_small)
            self.big_strip.chips = [Chip(x, "target") for x in r.target_texts[:n_big]]
            self.small_strip.chips = [small_chip(r, i, x) for i, x in enumerate(r.draft_texts[:n_small])]
            self.big_count.object = words_count(n_big)
            self.small_count.object = words_count(n_small)

        streamed = (len(r.draft_texts) >= N_TOKENS, len(r.target_texts) >= N_TOKENS)   # lanes done so far
        self.race_figure.draw(r, t, streamed if self.streaming else (True, True))
        if t >= r.end and not self.streaming:
            self.summary.object = summary_html(self.race, self.state.reduced_motion)
            if self.predict is not None:
                self.predict.reveal()
        else:
            self.summary.object = ""

    # --- page ---
    def body(self):
        return pn.Column(
            pn.Row(self.write_button, self.speed, self.busy, sizing_mode="stretch_width"),
            lane(_("Big model"), _("the writer we want — one slow call per word"), self.big_strip,
                 self.big_count, palette.TARGET),
            lane(_("Small model"), _("quicker per word, but not the writer we want"), self.small_strip,
                 self.small_count, palette.DRAFT),
            lazy_figure(lambda: self.figure, FIGURE_HEIGHT),    # below the fold at 1280×720
            legend(["target_call", "draft_call", "unlikely"],
                   {"target_call": _("one slow big-model call"), "draft_call": _("one quick small-model call"),
                    "unlikely": _("a word the big model would pick less than {share} of the time here").format(
                        share=percent(UNLIKELY))}),
            self.summary,
            pn.pane.HTML(recall_html(), sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
