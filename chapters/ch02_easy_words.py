"""Chapter 2 — most words are easy.

The target's 20 tokens (plain decoding, the same request as chapter 1) and, at every position, the
draft's first guess given the same prefix (one teacher-forced draft pass, `service.first_guesses`).
Easy = same token, hard = different; click a token to see both models' top candidates there. The
prompt is shown first, so the 20 words read as its continuation; a token of whitespace only is a
narrow visible mark (␣ a space, ↵ a newline, ⇥ a tab) rather than an empty chip. Every word it
shows goes through the page's language (uikit.language); the tokens are shown as the models wrote them.
"""
from __future__ import annotations

import html

import panel as pn

from chapters.base import Chapter
from lab.core.request import Request
from uikit import palette
from intercept.clicks import on_click
from uikit.actions import action
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS, CHIP_CSS, sheet
from uikit.language import Translated, gettext as _, number, percent
from uikit.tokens import Chip, TokenStrip, legend, show_text, tok_html

N_TOKENS = 20
SPACE_MARKS = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "", "\u00a0": "␣"})


def marked(text: str) -> str:
    """A token as a chip shows it: whitespace-only tokens as narrow marks (␣ ↵ ⇥), others as they are."""
    return (text.translate(SPACE_MARKS) or "∅") if not text.strip() else text



def guesses(service, prompt_ids: list[int], settings, n_tokens: int = N_TOKENS):
    """On the model worker: the target's tokens, then the draft's first guess at each position. A
    long job (a generator the worker steps a token at a time), so a click from another student goes
    between two of the target's calls."""
    big = yield from service.generation_steps(Request(prompt_ids, settings=settings, max_new_tokens=n_tokens).plain())
    return service.first_guesses(prompt_ids, big.new_ids) if big.new_ids else []


def candidates_table(title: str, colour: str, cands, pick_id: int) -> str:
    rows = "".join(
        f'<tr class="{"pick" if c.token_id == pick_id else ""}"><td class="tok">{html.escape(show_text(marked(c.text)))}</td>'
        f'<td><div class="bar" style="width:{max(1.0, c.prob * 100):.1f}%;background:{colour}"></div></td>'
        f'<td class="pr">{percent(c.prob)}</td></tr>' for c in cands)
    return f'<div><h3 style="color:{colour}">{html.escape(title)}</h3><table>{rows}</table></div>'


class EasyWordsChapter(Chapter):
    number = 2
    slug = "easy-words"
    part = "I"
    kicker = Translated("A first lucky fact")
    title = Translated("Most words are easy.")
    intro = Translated("Here are the big model’s 20 words again. At every position we ask the small model for its "
                       "first guess. Green ✓ means it would have guessed the very same word; red ✗ (wavy underline) "
                       "means it would have said something else. Click a word.")
    takeaway = Translated("The big model’s care is only needed at a few hard words.")
    tour_parts = ("ask_button", "strip", "count", "detail")    # what shell/tour/steps.py shows
    question = Translated("The small model is a much weaker writer. For how many of the big model’s 20 words is "
                          "its first guess exactly that word?")

    @classmethod
    def warmup(cls, student):
        return [("chapter 2's first guesses", guesses, (student.service, student.prompt_ids(), student.settings), {})]

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.positions = []          # list[PositionGuess], once asked
        self.ask_button = action(_("Ask the small model"), "ask-small", color="primary", width=220)
        on_click(self.ask_button, self._on_ask)
        self.strip = TokenStrip(clickable=True, empty=_("Press “Ask the small model”: the big model's words appear "
                                                        "here, each marked easy or hard."))
        self.count = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        self.prompt_line = pn.pane.HTML("", stylesheets=[CHIP_CSS], sizing_mode="stretch_width", margin=(4, 5))
        self.detail = pn.pane.HTML("", stylesheets=[BOX_CSS, sheet("ch02-candidates")], sizing_mode="stretch_width")
        self.strip.param.watch(lambda e: self.show_position(e.new), "selected")

    def make_predict(self):
        return PredictCard(
            self.state, 2, self.question, bounds=(0, N_TOKENS), tolerance=2,
            answer=lambda: self.n_easy,
            explanation=lambda n: _(
                "Here the small model's first guess matches {easy} of the {total} words (within 2 counts as right). "
                "Function words, word endings and obvious continuations are easy; content words are where the big "
                "model's care matters.").format(easy=n, total=len(self.positions)),
            hint=_("Now press “Ask the small model” to count."))

    @property
    def n_easy(self) -> int:
        return sum(p.easy for p in self.positions)

    async def _on_ask(self, event=None):
        await self.ask()

    async def ask(self):
        ids = self.prompt_ids()
        if ids is None:
            return None
        with button_disabled(self.ask_button):
            result = await self.run_model(guesses, self.state.service, ids, self.state.settings,
                                          message=_("The big model writes; the small model guesses at every position…"))
        if result is None:
            return None
        self.show(result)
        return result

    def show(self, positions) -> None:
        self.positions = list(positions)
        self.strip.selected = None
        prompt, continues = html.escape(_("The prompt:")), html.escape(_("→ the big model continues:"))
        chip = Chip(self.state.prompt, "prompt", _("the prompt both models continue")).html()
        self.prompt_line.object = (
            f'<div class="chips"><span style="font-size:1.05rem;color:#44474d">{prompt}</span>{chip}'
            f'<span style="font-size:1.05rem;color:#44474d">{continues}</span></div>')
        easy, hard = _("easy: small model guessed {guess}"), _("hard: small model guessed {guess}")
        self.strip.chips = [Chip(marked(p.text), "easy" if p.easy else "hard",
                                 (easy if p.easy else hard).format(guess=repr(p.draft_guess_text)))
                            for p in self.positions]
        n = len(self.positions)
        said = _("The small model’s first guess is the big model’s word at <b>{easy} of {total}</b> positions "
                 "(✓ easy); at <b>{hard}</b> it would have said something else (✗ hard). Click a word to see why.").format(
            easy=self.n_easy, total=n, hard=n - self.n_easy)
        if n:
            said += " " + html.escape(_("That hit rate, {rate}, is the kind of rate chapter 4 measures in real rounds "
                                        "as α, the acceptance rate.").format(rate=number(self.n_easy / n, 2)))
        self.count.object = f'<div class="verdict waiting">{said}</div>'
        self.detail.object = ""
        if self.predict is not None:
            self.predict.reveal()

    def show_position(self, i: int | None) -> None:
        if i is None or not 0 <= i < len(self.positions):
            self.detail.object = ""
            return
        p = self.positions[i]
        verdict = (html.escape(_("easy ✓: the same first guess")) if p.easy else
                   html.escape(_("hard ✗: the small model would have said “{guess}”")).format(
                       guess=tok_html(marked(p.draft_guess_text))))
        word = f'<b class="tok">{html.escape(show_text(marked(p.text)))}</b>'      # the models' text
        self.detail.object = (
            '<p class="pos">'
            + html.escape(_("Word {n}: “{word}” — {verdict}.")).format(n=i + 1, word=word, verdict=verdict)
            + '</p><div class="cands">'
            + candidates_table(_("small model’s top candidates"), palette.DRAFT, p.draft_top, p.draft_guess_id)
            + candidates_table(_("big model’s top candidates"), palette.TARGET, p.target_top, p.token_id)
            + '</div>')

    def body(self):
        return pn.Column(
            pn.Row(self.ask_button, self.busy, sizing_mode="stretch_width"),
            pn.pane.HTML('<div style="font-size:1.15rem;font-weight:700;color:#1f4e9e">'
                         + html.escape(_("The big model’s 20 words")) + '</div>',
                         sizing_mode="stretch_width", margin=(8, 5, 0, 5)),
            self.prompt_line,
            self.strip,
            legend(["easy", "hard"], {"easy": _("easy: the small model's first guess is the same word"),
                                      "hard": _("hard: it would have guessed a different word")}),
            self.count,
            self.detail,
            sizing_mode="stretch_width")
