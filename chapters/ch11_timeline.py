"""Chapter 11 — one request drawn both ways on one time axis, in target-call units.

Both lanes come from real generation traces of the session's prompt and settings (plain and
speculative). Time is idealised to the analytic model's units: a target call (cached decode step or
verify pass) is 1, a draft call is the measured c, and the measured prefill is the same in both lanes.
"""
from __future__ import annotations

import html

import panel as pn
from bokeh.models import ColumnDataSource, Range1d
from bokeh.transform import dodge

from chapters.base import Chapter
from lab.engine import generate
from lab.timeline import LANES, Schedule, schedule
from lab.trace import GenerationTrace
from uikit import palette
from uikit.figures import static_figure
from uikit.pacing import in_document, served
from uikit.styles import BOX_CSS, TABLE_CSS, sheet

MAX_NEW_TOKENS = 32

COLOURS = {"prefill": palette.MUTED, "target": palette.TARGET, "draft": palette.DRAFT}
HATCH = {"prefill": "x", "target": " ", "draft": "/"}
LABELS = {"prefill": "prefill (the prompt, once)", "target": "target call (1 unit)",
          "draft": "draft call (c units)"}


class TimelineChapter(Chapter):
    number = 11
    slug = "timeline"
    part = "III"
    kicker = "Putting it together"
    title = "Same distribution, a different schedule."
    intro = ("Back to the dilemma of Part I. One request, drawn both ways on the same time axis. Each "
             "tick is a token reaching the user: standard decoding ticks evenly, draft-and-verify "
             "delivers tokens in bursts.")
    takeaway = "Speed comes from a second model — never from a different answer."

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.plain = self.spec = None
        self.sched: Schedule | None = None
        self.draw_button = pn.widgets.Button(label="Read the timeline", color="primary", width=180)
        self.draw_button.on_click(self._on_draw)
        self.summary = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.cards = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[BOX_CSS, sheet("ch11-cards")])
        self._build_figures()
        self._draw_cards()
        if served():
            pn.state.onload(self.load)

    async def load(self) -> None:
        ids = self.prompt_ids()
        if ids is None:
            return
        st = self.state
        svc = st.service
        # One short uncached run first, so one-off start-up costs stay out of the timed traces.
        await self.run_model(generate, svc.pair, ids, mode="plain", settings=st.settings, max_new_tokens=1,
                             message="Warming up…")
        plain = await self.run_model(svc.generation, ids, mode="plain", settings=st.settings, seed=st.seed,
                                     max_new_tokens=MAX_NEW_TOKENS, message="Standard decoding…")
        spec = await self.run_model(svc.generation, ids, mode="speculative", settings=st.settings,
                                    gamma=st.gamma, seed=st.seed, max_new_tokens=MAX_NEW_TOKENS,
                                    message="Draft and verify…")
        if plain is None or spec is None:
            return
        in_document(self.show, plain, spec)   # raw Bokeh models change after an await

    async def _on_draw(self, event):
        await self.load()

    async def on_settings_changed(self, changed):
        """The student changed their prompt or settings in the side panel: redraw the request."""
        if self.sched is not None:
            await self.load()

    def show(self, plain: GenerationTrace, spec: GenerationTrace) -> None:
        self.plain, self.spec = plain, spec
        s = self.sched = schedule(plain, spec)
        lanes, lefts, rights, colours, hatches, kinds = [], [], [], [], [], []
        for lane, a, b, kind in s.blocks:
            lanes.append(lane); lefts.append(a); rights.append(b)
            colours.append(COLOURS[kind]); hatches.append(HATCH[kind]); kinds.append(LABELS[kind])
        self.block_src.data = dict(lane=lanes, left=lefts, right=rights, color=colours, hatch=hatches,
                                   kind=kinds)
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
        s, plain, spec = self.sched, self.plain, self.spec
        std_decode = s.lane_end("standard") - s.prefill
        spec_decode = s.lane_end("draft + verify") - s.prefill
        same = plain.new_ids == spec.new_ids
        same_text = ("the same text, token for token (greedy decoding)" if same and plain.settings.greedy
                     else "the same text" if same else
                     "different draws from the same distribution (sampling, "
                     f"{html.escape(plain.settings.describe())})")
        self.summary.object = (
            "<table class='speclab-table'><thead><tr><th></th><th>standard</th><th>draft + verify</th></tr>"
            "</thead><tbody>"
            f"<tr><td>tokens delivered</td><td>{s.tokens('standard')}</td><td>{s.tokens('draft + verify')}</td></tr>"
            f"<tr><td>target calls</td><td>{plain.target_calls}</td><td>{spec.target_calls}</td></tr>"
            f"<tr><td>draft calls (c = {s.c:.2f} each)</td><td>0</td><td>{spec.draft_calls}</td></tr>"
            f"<tr><td>prefill</td><td>{s.prefill:.1f}</td><td>{s.prefill:.1f}</td></tr>"
            f"<tr><td>first token at</td><td>{s.first_token('standard'):.1f}</td>"
            f"<td>{s.first_token('draft + verify'):.1f}</td></tr>"
            f"<tr><td>decode time</td><td>{std_decode:.1f}</td><td>{spec_decode:.1f}</td></tr>"
            f"<tr><td>tokens per target call</td><td>{plain.tokens_per_round:.2f}</td>"
            f"<td>{spec.tokens_per_round:.2f}</td></tr></tbody></table>"
            f"<p class='speclab-formula'>Both lanes wrote {same_text}. Time in target-call units: one "
            f"target call = 1, one draft call = c = {s.c:.2f} (measured on this pair), prefill "
            f"{s.prefill:.1f} (measured). Decode speed-up on this request: "
            f"<b>{std_decode / spec_decode:.2f}×</b>. Prefill is the same in both lanes, so the first "
            "token is not faster.</p>")

    def _draw_cards(self):
        faster = ""
        if self.sched is not None:
            faster = (f" Here: {self.plain.target_calls} target calls became {self.spec.target_calls}.")
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
        f.text(x="t", y=dodge("lane", 0.3, range=f.y_range), text="label", source=self.tick_src,
               text_font_size="14px", x_offset=5, text_color=palette.INK)
        f.legend.orientation = "horizontal"
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
        self.cum_fig = g

    def body(self):
        return pn.Column(
            pn.Row(self.draw_button, self.busy),
            pn.pane.Bokeh(self.lane_fig, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self.cum_fig, sizing_mode="stretch_width"),
            self.summary, self.cards, sizing_mode="stretch_width")
