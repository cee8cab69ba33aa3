"""The guided tour speaks its page's language (issue 54): a step's sentence (its counts too), the
deck's words, the chapter menu, the lanes and legends under a step and the chapter's buttons it
presses are in Chinese or Spanish on a zh or es page, and the tour outside one stays English (what
the tests and the export read). In process, no browser: the browser walk at `?tour=N&lang=…` is
tests/ui/test_tour_languages.py."""
from __future__ import annotations

import html

import panel as pn
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from lab import i18n
from shell.tour.items import closing_html, overview_html
from shell.tour.steps import TOUR, counted, step_text
from shell.tour.view import Tour
from uikit.language import use_language
from uikit.state import LabState

WRITE = next(i for i, s in enumerate(TOUR, 1) if s.get("action") == "✎ Write")              # step 3
TICK = next(i for i, s in enumerate(TOUR, 1) if s.get("action") == "Tick the clock")         # step 9
LANES = next(i for i, s in enumerate(TOUR, 1) if any(isinstance(x, dict) and "labels" in x for x in s["show"]))
KEPT = next(i for i, s in enumerate(TOUR, 1) if any(isinstance(x, list) and {"button": s.get("action")} in x
                                                     for x in s["show"]))     # step 28's named button
WAYS = next(i for i, s in enumerate(TOUR, 1) if "ways to guess" in s["text"])                # step 39


def page(language: str) -> Document:
    doc = Document()
    use_language(language, doc)
    return doc


def stage_html(tour) -> str:
    return html.unescape("".join(p.object or "" for obj in tour.stage.objects for p in obj.select(pn.pane.HTML)))


def buttons(tour) -> list[str]:
    return [b.label for obj in tour.stage.objects for b in obj.select(pn.widgets.Button)]


@pytest.fixture(scope="module")
def tours(tiny_service):
    """One tour per language, each built on its page as a served session builds it (at step 3)."""
    built = {}
    for language in ("zh", "es", "en"):
        doc = page(language)
        with set_curdoc(doc):
            built[language] = (doc, Tour(LabState(tiny_service), step=WRITE))
    return built


@pytest.mark.parametrize("language, sentence, where, lane, write", [
    ("zh", "按“写作”：两个模型为同一个提示词各写 20 个词元", "第 1 章 · 两难 · 第 2 步，共 3 步", "大模型", "✎ 写作"),
    ("es", "Pulsa Escribir: los dos modelos escriben 20 tokens", "Capítulo 1 · El dilema · 2 de 3", "Modelo grande",
     "✎ Escribir"),
])
def test_a_step_on_a_chinese_or_spanish_page_is_in_that_language(tours, language, sentence, where, lane, write):
    doc, tour = tours[language]
    meta = tour.deck.steps[WRITE - 1]
    assert meta["text"].startswith(sentence) and meta["where"] == where
    assert all(m["text"] != s["text"] for m, s in zip(tour.deck.steps, TOUR))    # every sentence translated
    with set_curdoc(doc):
        tour.show(WRITE)
        found = tour.items.button(1, "✎ Write")       # the step's action, found by its English label
    shown = stage_html(tour)
    assert lane in shown and "Big model" not in shown
    assert write in buttons(tour)                    # the action the lecturer presses, in the page's language
    assert found.label == write


def test_the_decks_words_and_chapter_menu_are_in_the_pages_language(tours):
    zh, es = tours["zh"][1].deck, tours["es"][1].deck
    assert zh.words["back"] == "上一步" and zh.words["leave"] == "退出导览" and zh.words["of"] == "第 {n} 步，共 {total} 步"
    assert es.words["next"] == "Siguiente" and es.words["fullscreen"] == "Pantalla completa"
    assert zh.chapters[0]["label"] == "开始 · 问题" and zh.chapters[1]["label"] == "1 · 好的慢，快的糙"
    assert es.chapters[1]["label"] == "1 · Lo bueno es lento. Lo rápido es descuidado"
    assert zh.steps[0]["where"] == "Speculative Lab · 问题"
    # every template the browser fills keeps its placeholders
    for deck in (zh, es):
        assert "{n}" in deck.words["of"] and "{total}" in deck.words["announce"]


def test_counts_in_a_sentence_are_written_as_the_language_writes_them(tours):
    assert step_text(TICK, "en").startswith("Tick the clock: writing waits word by word; the five guessed")
    assert "那 5 个猜好的词" in step_text(TICK, "zh")
    assert "las 5 palabras adivinadas" in step_text(TICK, "es")
    assert step_text(WAYS, "es").startswith("6 formas de adivinar") and step_text(WAYS, "en").startswith("Six ways")
    assert "1, 2, … 8 posiciones" in step_text(10, "es")
    # a step's English "text" (the tests' and the export's) is its sentence outside a page
    assert all(step_text(n) == s["text"] for n, s in enumerate(TOUR, 1))
    spec = counted(i18n.N_("{Ways} ways, {ways} ways, {last} last"), digits={"last": 12}, ways=3)
    assert spec["text"] == "Three ways, three ways, 12 last"


def test_lanes_legends_and_a_named_button_follow_the_page(tours):
    doc, tour = tours["es"]
    with set_curdoc(doc):
        tour.show(LANES)
        lanes = stage_html(tour)
        tour.show(KEPT)
        named = buttons(tour)
    assert "Decodificación estándar" in lanes and "Borrador + verificación" in lanes
    assert "llamada al borrador: conjetura conservada" in lanes and "el token extra del objetivo" in lanes
    assert "draft call" not in lanes
    assert "Mostrar una ronda sin ningún rechazo" in named
    assert "«Mostrar una ronda sin ningún rechazo»" in tour.deck.steps[KEPT - 1]["text"]   # the sentence names it so


def test_the_opening_and_the_closing_are_in_the_pages_language(tours):
    doc, _ = tours["zh"]
    with set_curdoc(doc):
        opening, closing = overview_html(), closing_html()
    assert "1 · 好的慢，快的糙" in opening and "退出导览" in opening and "leave the tour" not in opening
    assert "<b>导览结束。</b>" in closing and "<kbd>Esc</kbd> 退出" in closing
    doc, _ = tours["es"]
    with set_curdoc(doc):
        assert "Fin de la visita." in closing_html() and "salir de la visita" in overview_html()


def test_the_english_tour_stays_english(tours):
    doc, tour = tours["en"]
    assert [m["text"] for m in tour.deck.steps] == [s["text"] for s in TOUR]
    assert tour.deck.words["leave"] == "Leave tour" and tour.deck.chapters[0]["label"] == "Start · the question"
    assert tour.deck.steps[WRITE - 1]["where"] == "Chapter 1 · The dilemma · 2 of 3"
    with set_curdoc(doc):
        tour.show(WRITE)
    assert "Big model" in stage_html(tour) and "✎ Write" in buttons(tour)
    # outside any page the tour's words are English
    assert "End of the tour." in closing_html() and "Part I · Why" in overview_html()
    assert step_text(WRITE) == TOUR[WRITE - 1]["text"]


def test_every_step_and_its_chapter_line_is_translated():
    """No step sentence, lane, legend label or action left out of the catalogs."""
    for language in ("zh", "es"):
        for n, spec in enumerate(TOUR, 1):
            assert step_text(n, language) != spec["text"], (language, n)
            labels = [spec.get("action")] + [x.get("lane") for x in _items(spec["show"]) if isinstance(x, dict)]
            labels += [v for x in _items(spec["show"]) if isinstance(x, dict) for v in (x.get("labels") or {}).values()]
            for label in filter(None, labels):
                assert i18n.translate(language, label) != label, (language, n, label)


def _items(show):
    for item in show:
        if isinstance(item, list):
            yield from _items(item)
        else:
            yield item
