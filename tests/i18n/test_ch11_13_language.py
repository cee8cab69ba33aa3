"""Chapters 11, 12 and 13 in the page's language: each built on a Chinese and a Spanish page writes its
heading, table, verdicts and figure words in that language, numbers as it writes them (Spanish "0,44");
their predict cards keep the class poll's English keys; outside a page they are English."""
from __future__ import annotations

import html

import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from chapters.ch11_timeline import TimelineChapter, first_token_sentence
from chapters.ch12_cheaper_guesses import CheaperGuessesChapter
from chapters.ch13_predictable import KindBars, PredictableChapter
from chapters.ch13_predictable.words import reading
from lab import i18n
from lab.experiments import cheaper, textkinds
from tests.helpers import DEAR, scripted_outcome, scripted_round
from uikit.language import use_language

ALPHAS = {"json": 0.35, "facts": 0.25, "edit": 0.20, "stories": 0.14, "code": 0.12, "instructions": 0.11}


def page(language: str) -> Document:
    doc = Document()
    use_language(language, doc)
    return doc


def said(language: str, message: str) -> str:
    """`message` as the catalog of `language` writes it; never the English (each is translated)."""
    out = i18n.translate(language, message)
    assert language == "en" or out != message, f"{message!r} is not translated into {language}"
    return out


def heading(chapter) -> str:
    return html.unescape(chapter.__panel__().objects[0].objects[0].object)


def kinds():
    # α = kept ÷ (kept + rejected): 100 kept guesses, and rejections to give each kind its α
    return [textkinds.KindResult(k, ("x",), 400, 100, 10, 5, round(100 / a) - 100) for k, a in ALPHAS.items()]


@pytest.mark.parametrize("language, point", [("en", "."), ("es", ","), ("zh", ".")])
def test_chapter_11_writes_its_table_and_first_token_in_the_pages_language(make_chapter, language, point):
    with set_curdoc(page(language)):
        chapter = make_chapter(TimelineChapter, load=True)
        head, summary = heading(chapter), html.unescape(chapter.summary.object)
        first = first_token_sentence(chapter.sched)
    assert said(language, "Same distribution, a different schedule.") in head
    for row in ("tokens delivered", "first token at", "decode time"):
        assert said(language, row) in summary
    assert first in summary
    spec = chapter.sched.first_token("draft + verify")
    assert f"{spec:.1f}".replace(".", point) in first


@pytest.mark.parametrize("language", ["es", "zh"])
def test_chapter_12_writes_its_table_and_keeps_its_poll_keys(make_chapter, language):
    outcome = scripted_outcome([scripted_round(i, 4, 1) for i in range(8)], DEAR, 0.018)
    with set_curdoc(page(language)):
        chapter = make_chapter(CheaperGuessesChapter)
        chapter.rows, chapter.plain = [cheaper.Row(d, outcome) for d in cheaper.DRAFTINGS], outcome.plain
        chapter._draw()
        head, table = heading(chapter), html.unescape(chapter.table.object)
        labels = [b.label for b in chapter.predict._buttons]
    assert said(language, "Cheaper guesses.") in head
    assert said(language, "Plain decoding (the target alone)") in table and said(language, "speed-up") in table
    assert labels and all(label == i18n.translate(language, key)
                          for label, key in zip(labels, chapter.predict.choices))
    assert labels != list(chapter.predict.choices)      # shown translated, counted by the English keys


@pytest.mark.parametrize("language, be", [("en", "0.44"), ("es", "0,44"), ("zh", "0.44")])
def test_chapter_13_writes_its_bars_key_and_reading_in_the_pages_language(make_chapter, language, be):
    with set_curdoc(page(language)):
        chapter = make_chapter(PredictableChapter)
        head = heading(chapter)
        bars = KindBars()
        bars.draw(kinds(), 0.44, 4, 0.12)
        text = reading(kinds(), 0.44)
    assert said(language, "How predictable is your text?") in head
    c = "0,12" if language == "es" else "0.12"
    assert bars.line_label.text == said(language, "- - - break-even α = {be} (γ = {gamma}, c = {c}): above it "
                                                  "drafting pays here").format(be=be, gamma=4, c=c)
    assert said(language, "Measured α, highest first: {order}.").split("{order}")[0] in text
    assert be in text and said(language, "Facts") in text
    assert bars.labels[0] == said(language, "Stories")
