"""Chapter 11 — one request drawn both ways on one time axis, in target-call units.

Both lanes are the outcome of the student's request (lab.speed.request: plain and speculative generations
priced by the pair's one cost profile, lab.speed.costs): a one-position target call is 1, a verify pass
over k positions costs its measured v(k), a draft-model call the measured c, a copied guess its own
tiny time, and the prefill is the same in both lanes. Chapters 4, 10 and 12 show the same outcome,
so every page gives one speed-up for one request; the verdict under the figure is computed from it,
with the busy warning beside the figures while the profile is flagged busy and one line when a
re-timing of the machine changed the verdict.
"""
from __future__ import annotations

import html

import panel as pn
from bokeh.models import ColumnDataSource, Range1d
from bokeh.transform import dodge

from chapters.base import Chapter
from lab.speed.request import Outcome
from lab.core.request import REQUEST_TOKENS
from lab.speed.timeline import LANES, Schedule
from lab.core.trace import GenerationTrace
from uikit import palette
from intercept.clicks import on_click
from uikit.figures import static_figure
from uikit.words import describe
from intercept.pacing import in_document, served
from uikit import verdicts
from uikit.readouts import VERDICT_CSS, busy_html, retimed_html
from uikit.styles import BOX_CSS, TABLE_CSS, sheet

MAX_NEW_TOKENS = REQUEST_TOKENS      # every live page's request length (lab.speed.request)
COLOURS = {"prefill": palette.MUTED, "target": palette.TARGET, "draft": palette.DRAFT}
HATCH = {"prefill": "x", "target": " ", "draft": "/"}
LABELS = {"prefill": "prefill (the prompt, once)", "target": "target call (measured cost)",
          "draft": "draft call (c units)"}


def same_text(plain: GenerationTrace, spec: GenerationTrace) -> str:
    """What both lanes wrote, in words."""
    if plain.new_ids == spec.new_ids:
        return "the same text, token for token (greedy decoding)" if plain.settings.greedy else "the same text"
    return f"different draws from the same distribution (sampling, {html.escape(plain.settings.describe())})"


def summary_html(o: Outcome) -> str:
    """The table of both lanes, the sentence that gives the request's decode speed-up, and why."""
    s, plain, spec = o.timed, o.plain, o.spec
    p, (lo, hi) = s.profile, s.verify_range()
    copied = sum(len(r.guesses) for r in spec.rounds if r.draft_source == "lookup")
    rows = [("tokens delivered", s.tokens("standard"), s.tokens("draft + verify")),
            ("target calls", plain.target_calls, f"<b class='target-calls'>{spec.target_calls}</b>"),
            (f"draft-model calls (c = {s.c:.2f} each)", 0, spec.draft_calls - copied),
            ("guesses copied from the text (about 0 each)", 0, copied),
            ("prefill", f"{s.prefill:.1f}", f"{s.prefill:.1f}"),
            ("first token at", f"{s.first_token('standard'):.1f}", f"{s.first_token('draft + verify'):.1f}"),
            ("decode time", f"{s.decode_time('standard'):.1f}", f"{s.decode_time('draft + verify'):.1f}"),
            ("tokens per target call", f"{plain.tokens_per_round:.2f}", f"{spec.tokens_per_round:.2f}"),
            ("α, the acceptance rate: kept ÷ (kept + rejected)", "–",
             "–" if spec.alpha is None else f"{spec.alpha:.2f} ({spec.accepted} of {spec.accepted + spec.rejected})")]
    passes = f"{lo:.2f}" if hi - lo < 0.005 else f"{lo:.2f} to {hi:.2f}"
    return (f"<p class='speclab-formula'>Guesses by <b class='drafter'>{html.escape(describe(o.request))}</b> "
            f"({html.escape(verdicts.who(o))}).</p>{busy_html(p)}<table class='speclab-table'><thead><tr><th></th><th>standard</th><th>draft + verify</th></tr>"
            "</thead><tbody>" + "".join(f"<tr><td>{a}</td><td>{b}</td><td>{c}</td></tr>" for a, b, c in rows)
            + "</tbody></table>"
            f"<p class='speclab-formula'>Both lanes wrote {same_text(plain, spec)}. Time in target-call units, "
            f"all measured on this pair's cost profile: a one-position target call = 1 ({1000 * p.unit:.1f} ms); "
            f"a verify pass costs what it measured for its positions ({passes} here, where the lecture counts "
            f"1); one draft "
            f"call c = {s.c:.2f}; prefill {s.prefill:.1f}. Decode speed-up on this request: "
            f"<b class='decode-speedup'>{s.decode_speedup:.2f}×</b>. Prefill is the same in both lanes, so "
            f"the first token is not faster.</p><div class='speclab-live verdict'>{retimed_html(o)}"
            f"<b>{html.escape(verdicts.verdict(o))}</b><br>{html.escape(verdicts.formula_sentence(o))}"
            f"<br><i>{html.escape(verdicts.projection_sentence(o))}</i></div>")


class TimelineChapter(Chapter):
    number = 11
    slug = "timeline"
    part = "III"
    kicker = "Putting it together"
    title = "Same distribution, a different schedule."
    intro = ("Back to the dilemma of Part I. One request, drawn both ways on the same time axis. Each "
             "tick is a token reaching the user: standard decoding ticks evenly, draft-and-verify "
             "delivers tokens in bursts.")
    takeaway = ("Drafting changes when the tokens arrive, never which tokens: it is faster only where the "
                "guesses kept pay for the guessing and the checking.")
    tour_parts = ("draw_button", "warning", "lane_fig", "summary", "cards")    # what shell/tour/steps.py shows
    presets = True       # the preset prompts and the aligned / weak / random draft variant (chapters.base)
    drafters = True      # and the drafter: the draft model, a copy from the text, or both

    @classmethod
    def warmup(cls, student):
        """The default request's outcome: chapters 10, 11, 12 and 13 show it."""
        return [("the default request (chapters 10, 11, 12 and 13)", student.service.outcome,
                 (student.request(student.prompt_ids()),), {})]

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.plain = self.spec = self.outcome = None
        self.sched: Schedule | None = None
        self.draw_button = pn.widgets.Button(label="Read the timeline", color="primary", width=200)
        on_click(self.draw_button, self._on_draw)
        self.summary = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, VERDICT_CSS])
        self.cards = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[BOX_CSS, sheet("ch11-cards")])
        # beside the priced lanes: the busy warning while it applies, the re-timed line when it changed the verdict
        self.warning = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[VERDICT_CSS], margin=(0, 10))
        self._build_figures()
        self._draw_cards()
        if served():
            pn.state.onload(self.load)

    async def load(self) -> None:
        ids = self.prompt_ids()
        if ids is None:
            return
        outcome = await self.run_model(self.state.service.outcome, self.request(ids, max_new_tokens=MAX_NEW_TOKENS),
                                       message="Decoding your request plainly and with drafting…")
        if outcome is not None:
            in_document(self.show, outcome)   # raw Bokeh models change after an await

    async def _on_draw(self, event):
        await self.load()

    async def on_settings_changed(self, changed):
        """The student changed their prompt or settings in the side panel: redraw the request."""
        if self.sched is not None:
            await self.load()

    def show(self, outcome: Outcome) -> None:
        self.outcome, self.plain, self.spec = outcome, outcome.plain, outcome.spec
        s = self.sched = outcome.timed
        lanes, lefts, rights, colours, hatches, kinds = [], [], [], [], [], []
        for lane, a, b, kind in s.blocks:
            lanes.append(lane); lefts.append(a); rights.append(b)
            colours.append(COLOURS[kind]); hatches.append(HATCH[kind]); kinds.append(LABELS[kind])
        self.block_src.data = dict(lane=lanes, left=lefts, right=rights, color=colours, hatch=hatches,
                                   kind=kinds)
        self.lane_fig.legend.visible = self.cum_fig.legend.visible = bool(kinds)
        ticks = dict(lane=[], t=[], label=[])
        for lane, t, n in s.arrivals:
            ticks["lane"].append(lane); ticks["t"].append(t); ticks["label"].append(f"+{n}" if n > 1 else "")
        self.tick_src.data = ticks
        end = max(s.lane_end(lane) for lane in LANES) * 1.03
        self.lane_fig.x_range.start, self.lane_fig.x_range.end = 0, end
        for lane, src in (("standard", self.plain_cum), ("draft + verify", self.spec_cum)):
            times, counts = s.delivered(lane)
            src.data = dict(t=times, n=counts)
        self.cum_fig.y_range.end = max(s.tokens("standard"), s.tokens("draft + verify")) * 1.1 + 1
        self._draw_summary()
        self._draw_cards()

    def _draw_summary(self):
        self.summary.object = summary_html(self.outcome)
        self.warning.object = retimed_html(self.outcome) + busy_html(self.outcome.profile)

    def _draw_cards(self):
        faster = ""
        if self.sched is not None:
            calls, x = f" Here: {self.plain.target_calls} target calls became {self.spec.target_calls}", self.sched.decode_speedup
            word = self.outcome.verdict_word()
            faster = (f"{calls}, and decoding ran {x:.2f}× as fast." if word == "faster" else
                      f"{calls}, and decoding ran level with plain decoding ({x:.2f}×, within this machine's "
                      "timing noise)." if word == "level" else
                      f"{calls}, yet decoding was slower ({x:.2f}×): the guessing and the longer checks cost more "
                      "than the calls saved.")
        cards = [
            ("What stays the same?", "the output distribution",
             "Tokens are still samples from the target model, with its temperature, top-k or top-p settings."),
            ("What gets faster?", "fewer target calls",
             "Decode time, when the draft is cheap and usually right. Prefill and time-to-first-token do "
             "not improve." + faster),
            ("What does it cost?", "a second model",
             "Draft compute, its own KV cache in memory, wasted work after a rejection, and burstier "
             "streaming."),
        ]
        self.cards.object = "<div class='cards'>" + "".join(
            f"<div class='card'><div class='label'>{html.escape(h)} <span class='sub'>{html.escape(sub)}</span>"
            f"</div><p>{html.escape(text)}</p></div>" for h, sub, text in cards) + "</div>"

    def _build_figures(self):
        self.block_src = ColumnDataSource(dict(lane=[], left=[], right=[], color=[], hatch=[], kind=[]))
        self.tick_src = ColumnDataSource(dict(lane=[], t=[], label=[]))
        f = static_figure(height=230, sizing_mode="stretch_width", y_range=list(LANES), x_range=Range1d(0, 10),
                          title="One request, two schedules",
                          x_axis_label="time (target-call units)")
        f.hbar(y="lane", left="left", right="right", height=0.5, source=self.block_src, fill_color="color",
               line_color="white", hatch_pattern="hatch", hatch_color="white", legend_field="kind")
        f.scatter(x="t", y=dodge("lane", 0.36, range=f.y_range), source=self.tick_src, marker="inverted_triangle",
                  size=11, color=palette.INK)
        # "+n" centred above its marker, clear of it and of the neighbouring markers
        f.text(x="t", y=dodge("lane", 0.36, range=f.y_range), text="label", source=self.tick_src,
               text_font_size="14px", text_align="center", text_baseline="bottom", y_offset=-8,
               text_color=palette.INK)
        f.legend.orientation = "horizontal"
        f.legend.visible = False          # its items come from the blocks: shown once there are some
        f.add_layout(f.legend[0], "below")
        self.lane_fig = f

        self.plain_cum = ColumnDataSource(dict(t=[], n=[]))
        self.spec_cum = ColumnDataSource(dict(t=[], n=[]))
        g = static_figure(height=240, sizing_mode="stretch_width", x_range=f.x_range, y_range=(0, 10),
                          title="Tokens delivered to the user (▼ = a token or a burst)",
                          x_axis_label="time (target-call units)", y_axis_label="tokens")
        g.step("t", "n", source=self.plain_cum, mode="after", line_width=3, color=palette.MUTED,
               line_dash="dashed", legend_label="standard: one token per target call")
        g.step("t", "n", source=self.spec_cum, mode="after", line_width=3, color=palette.TARGET,
               legend_label="draft + verify: bursts")
        g.legend.location = "top_left"
        g.legend.visible = False          # with no steps yet its lines have no swatches: shown with them
        self.cum_fig = g

    def body(self):
        return pn.Column(
            pn.Row(self.draw_button, self.busy),
            self.warning,
            pn.pane.Bokeh(self.lane_fig, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self.cum_fig, sizing_mode="stretch_width"),
            self.summary, self.cards, sizing_mode="stretch_width")
