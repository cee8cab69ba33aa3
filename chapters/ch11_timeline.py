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
from uikit.actions import action
from uikit.figures import static_figure
from uikit.words import describe
from intercept.pacing import in_document, served
from uikit import verdicts
from uikit.readouts import VERDICT_CSS, busy_html, retimed_html
from uikit.styles import BOX_CSS, TABLE_CSS, sheet
from lab.i18n import N_
from uikit.language import Translated, gettext as _, number

MAX_NEW_TOKENS = REQUEST_TOKENS      # every live page's request length (lab.speed.request)
COLOURS = {"prefill": palette.MUTED, "target": palette.TARGET, "draft": palette.DRAFT}
HATCH = {"prefill": "x", "target": " ", "draft": "/"}
LABELS = {"prefill": N_("prefill (the prompt, once)"), "target": N_("target call (measured cost)"),
          "draft": N_("draft call (c units)")}
LANE_NAMES = {"standard": N_("standard"), "draft + verify": N_("draft + verify")}     # lab.speed.timeline.LANES


def lane_name(lane: str) -> str:
    """A lane's name on the page (the figures' axis, the table's columns), in the page's language."""
    return _(LANE_NAMES[lane])


def same_text(plain: GenerationTrace, spec: GenerationTrace) -> str:
    """What both lanes wrote, in words."""
    if plain.new_ids == spec.new_ids:
        return _("the same text, token for token (greedy decoding)") if plain.settings.greedy else _("the same text")
    return _("different draws from the same distribution (sampling, {settings})").format(
        settings=html.escape(plain.settings.describe()))


def first_token_sentence(s) -> str:
    """When each lane's first token arrived (a lab.speed.timeline.Race), in words that follow the
    table's row: drafting never brings it sooner, and its first round's guesses may delay it."""
    plain, spec = s.first_token("standard"), s.first_token("draft + verify")
    said = dict(plain=number(plain, 1), spec=number(spec, 1))
    if round(spec, 1) > round(plain, 1):
        return _("Prefill is the same in both lanes, and the first token comes later with drafting ({spec} "
                 "against {plain}): the first round's guesses and verify pass come before it.").format(**said)
    if round(spec, 1) < round(plain, 1):
        return _("Prefill is the same in both lanes; the first token arrives at {spec} against {plain}, a "
                 "difference of the first verify pass's measured cost, not a gain from drafting.").format(**said)
    return _("Prefill is the same in both lanes, so the first token comes no sooner ({spec} against "
             "{plain}).").format(**said)


def summary_html(o: Outcome) -> str:
    """The table of both lanes, the sentence that gives the request's decode speed-up, and why."""
    s, plain, spec = o.timed, o.plain, o.spec
    p, (lo, hi) = s.profile, s.verify_range()
    copied = sum(len(r.guesses) for r in spec.rounds if r.draft_source == "lookup")
    one = lambda value: number(value, 1)       # noqa: E731 (a time in target-call units)
    alpha = "–" if spec.alpha is None else _("{alpha} ({kept} of {judged})").format(
        alpha=number(spec.alpha, 2), kept=spec.accepted, judged=spec.accepted + spec.rejected)
    rows = [(_("tokens delivered"), s.tokens("standard"), s.tokens("draft + verify")),
            (_("target calls"), plain.target_calls, f"<b class='target-calls'>{spec.target_calls}</b>"),
            (_("draft-model calls (c = {c} each)").format(c=number(s.c, 2)), 0, spec.draft_calls - copied),
            (_("guesses copied from the text (about 0 each)"), 0, copied),
            (_("prefill"), one(s.prefill), one(s.prefill)),
            (_("first token at"), one(s.first_token("standard")), one(s.first_token("draft + verify"))),
            (_("decode time"), one(s.decode_time("standard")), one(s.decode_time("draft + verify"))),
            (_("tokens per target call"), number(plain.tokens_per_round, 2), number(spec.tokens_per_round, 2)),
            (_("α, the acceptance rate: kept ÷ (kept + rejected)"), "–", alpha)]
    passes = number(lo, 2) if hi - lo < 0.005 else _("{low} to {high}").format(low=number(lo, 2), high=number(hi, 2))
    guesses = _("Guesses by {drafting} ({who}).").format(
        drafting=f"<b class='drafter'>{html.escape(describe(o.request))}</b>", who=html.escape(verdicts.who(o)))
    lanes = _("Both lanes wrote {what}. Time in target-call units, all measured on this pair's cost profile: a "
              "one-position target call = 1 ({ms} ms); a verify pass costs what it measured for its positions "
              "({passes} here, where the lecture counts 1); one draft call c = {c}; prefill {prefill}. Decode "
              "speed-up on this request: {speedup}. {first}").format(
        what=same_text(plain, spec), ms=number(1000 * p.unit, 1), passes=passes, c=number(s.c, 2),
        prefill=one(s.prefill), speedup=f"<b class='decode-speedup'>{number(s.decode_speedup, 2)}×</b>",
        first=first_token_sentence(s))
    head = "".join(f"<th>{html.escape(lane_name(lane))}</th>" for lane in ("standard", "draft + verify"))
    return (f"<p class='speclab-formula'>{guesses}</p>{busy_html(p)}<table class='speclab-table'><thead><tr><th></th>"
            f"{head}</tr></thead><tbody>" + "".join(f"<tr><td>{html.escape(a)}</td><td>{b}</td><td>{c}</td></tr>"
                                                  for a, b, c in rows)
            + f"</tbody></table><p class='speclab-formula'>{lanes}</p><div class='speclab-live verdict'>"
            f"{retimed_html(o)}<b>{html.escape(verdicts.verdict(o))}</b><br>{html.escape(verdicts.formula_sentence(o))}"
            f"<br><i>{html.escape(verdicts.projection_sentence(o))}</i></div>")


class TimelineChapter(Chapter):
    number = 11
    slug = "timeline"
    part = "III"
    kicker = Translated("Putting it together")
    title = Translated("Same distribution, a different schedule.")
    intro = Translated("Back to the dilemma of Part I. One request, drawn both ways on the same time axis. Each "
                       "tick is a token reaching the user: standard decoding ticks evenly, draft-and-verify "
                       "delivers tokens in bursts.")
    takeaway = Translated("Drafting changes when the tokens arrive, never which tokens: it is faster only where the "
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
        self.draw_button = action(_("Read the timeline"), "read-timeline", color="primary", width=200)
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
                                       message=N_("Decoding your request plainly and with drafting…"))
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
            lanes.append(lane_name(lane)); lefts.append(a); rights.append(b)
            colours.append(COLOURS[kind]); hatches.append(HATCH[kind]); kinds.append(_(LABELS[kind]))
        self.block_src.data = dict(lane=lanes, left=lefts, right=rights, color=colours, hatch=hatches,
                                   kind=kinds)
        self.lane_fig.legend.visible = self.cum_fig.legend.visible = bool(kinds)
        ticks = dict(lane=[], t=[], label=[])
        for lane, t, n in s.arrivals:
            ticks["lane"].append(lane_name(lane)); ticks["t"].append(t); ticks["label"].append(f"+{n}" if n > 1 else "")
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
            said = dict(plain=self.plain.target_calls, spec=self.spec.target_calls,
                        speedup=number(self.sched.decode_speedup, 2))
            word = self.outcome.verdict_word()
            faster = " " + (_("Here: {plain} target calls became {spec}, and decoding ran {speedup}× as fast.")
                            if word == "faster" else
                            _("Here: {plain} target calls became {spec}, and decoding ran level with plain decoding "
                              "({speedup}×, within this machine's timing noise).") if word == "level" else
                            _("Here: {plain} target calls became {spec}, yet decoding was slower ({speedup}×): the "
                              "guessing and the longer checks cost more than the calls saved.")).format(**said)
        cards = [
            (_("What stays the same?"), _("the output distribution"),
             _("Tokens are still samples from the target model, with its temperature, top-k or top-p settings.")),
            (_("What gets faster?"), _("fewer target calls"),
             _("Decode time, when the draft is cheap and usually right. Prefill and time-to-first-token do not "
               "improve.") + faster),
            (_("What does it cost?"), _("a second model"),
             _("Draft compute, its own KV cache in memory, wasted work after a rejection, and burstier streaming.")),
        ]
        self.cards.object = "<div class='cards'>" + "".join(
            f"<div class='card'><div class='label'>{html.escape(h)} <span class='sub'>{html.escape(sub)}</span>"
            f"</div><p>{html.escape(text)}</p></div>" for h, sub, text in cards) + "</div>"

    def _build_figures(self):
        self.block_src = ColumnDataSource(dict(lane=[], left=[], right=[], color=[], hatch=[], kind=[]))
        self.tick_src = ColumnDataSource(dict(lane=[], t=[], label=[]))
        f = static_figure(height=230, sizing_mode="stretch_width", y_range=[lane_name(lane) for lane in LANES],
                          x_range=Range1d(0, 10), title=_("One request, two schedules"),
                          x_axis_label=_("time (target-call units)"))
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
                          title=_("Tokens delivered to the user (▼ = a token or a burst)"),
                          x_axis_label=_("time (target-call units)"), y_axis_label=_("tokens"))
        g.step("t", "n", source=self.plain_cum, mode="after", line_width=3, color=palette.MUTED,
               line_dash="dashed", legend_label=_("standard: one token per target call"))
        g.step("t", "n", source=self.spec_cum, mode="after", line_width=3, color=palette.TARGET,
               legend_label=_("draft + verify: bursts"))
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
