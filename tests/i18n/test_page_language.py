"""Each page speaks its own language, chosen once when it is built: two students on one server read
chapter 1 in two languages, their clicks answered each in theirs, and nothing outside a page changes
(English stays the lab's own words)."""
from __future__ import annotations

import asyncio
import html

import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from chapters.ch01_dilemma import DilemmaChapter
from chapters.ch02_easy_words import EasyWordsChapter
from chapters.ch06_accept_rule import CHOICES as CH06_CHOICES, KICKER as CH06_KICKER, AcceptRuleChapter
from chapters.ch07_correction import CorrectionChapter
from chapters.registry import kicker
from lab import i18n
from shell.frame.language import choose, html_tag, lecturer_language, menu_html
from shell.frame.pages import landing_html, nav_html
from uikit.language import Translated, gettext, ngettext, page_language, use_language


def page(language: str) -> Document:
    """A page's document speaking `language` (as shell.frame.app.build_app makes it)."""
    doc = Document()
    use_language(language, doc)
    return doc


def test_two_pages_on_one_server_speak_two_languages(make_chapter, tiny_service):
    from uikit.state import LabState
    chinese, spanish = page("zh"), page("es")
    with set_curdoc(chinese):
        zh = make_chapter(DilemmaChapter, LabState(tiny_service))
        zh.animate = False
    with set_curdoc(spanish):
        es = make_chapter(DilemmaChapter, LabState(tiny_service))
        es.animate = False
    head = [chapter.__panel__().objects[0].objects[0].object for chapter in (zh, es)]    # built on its page
    assert "<h1>好的慢，快的糙。</h1>" in head[0] and "01 · 两难" in head[0]
    assert "<h1>Lo bueno es lento. Lo rápido es descuidado.</h1>" in head[1]
    assert zh.write_button.label == "✎ 写作" and es.write_button.label == "✎ Escribir"
    # each page's click is answered in its language, in whatever order they come
    with set_curdoc(spanish):
        asyncio.run(es.write())
    with set_curdoc(chinese):
        asyncio.run(zh.write())
    assert "El modelo pequeño terminó en" in es.summary.object and "小模型用时" in zh.summary.object
    assert "of 20 words" not in zh.big_count.object and "/ 20 个词" in zh.big_count.object
    assert "de 20 palabras" in es.big_count.object
    # outside any page: English, the lab's own words
    assert page_language() == "en" and gettext("Big model") == "Big model"
    assert DilemmaChapter.title == "Good is slow. Fast is sloppy."


def test_chapter_2_counts_and_explains_in_the_pages_language(make_chapter):
    spanish = page("es")
    with set_curdoc(spanish):
        chapter = make_chapter(EasyWordsChapter)
        positions = asyncio.run(chapter.ask())
        chapter.show_position(0)
    n, easy = len(positions), chapter.n_easy
    assert f"La primera conjetura del modelo pequeño es la palabra del modelo grande en <b>{easy} de {n}</b>" \
        in chapter.count.object
    assert f"Esa tasa de aciertos, {easy / n:.2f}".replace(".", ",") in chapter.count.object
    assert "Palabra 1: «<b class=\"tok\">" in chapter.detail.object
    assert "candidatas principales del modelo grande" in chapter.detail.object
    assert chapter.ask_button.label == "Preguntar al modelo pequeño"
    with set_curdoc(spanish):
        explained = chapter.predict.explanation(easy)
    assert explained.startswith(f"Aquí la primera conjetura del modelo pequeño coincide en {easy}")


def test_chapter_7_runs_its_rules_in_the_pages_language_and_keeps_their_keys(make_chapter):
    spanish = page("es")
    with set_curdoc(spanish):
        chapter = make_chapter(CorrectionChapter, load=True)
        chapter.rule = "target"
        d = chapter.distances()
    assert chapter.rule_buttons.options == {"residuo (p − q)+ normalizado": "residual", "muestrear de p": "target",
                                            "muestrear de q": "draft", "conservar el borrador": "keep"}
    assert list(chapter.size_select.options) == ["10.000 rondas", "100.000 rondas", "1.000.000 de rondas"]
    assert chapter.run_button.label == "Ejecutar aceptar + corregir"
    assert "<b>muestrear de p</b>, 100.000 rondas con semilla: distancia de variación total a p" \
        in chapter.distance.object
    exact = f"{d['exact']:.3f}".replace(".", ",")             # Spanish writes a decimal comma
    assert f"Distancia exacta de la salida de esta regla a p: {exact}." in chapter.distance.object
    assert f"<td>{exact}</td>" in chapter.rule_table.object
    assert "muy por encima del ruido de muestreo" in chapter.distance.object
    assert "p y q tras los ajustes de muestreo" in chapter.settings_note.object
    assert "<th>regla de corrección</th>" in chapter.rule_table.object
    assert "muestrear de q" in chapter.rule_table.object
    with set_curdoc(spanish):
        assert chapter.predict.explanation(True).startswith("Aquí un token del borrador se rechaza el ")
        assert chapter.title == "Las correcciones van donde el borrador se quedó corto."


@pytest.mark.parametrize("language", ["zh", "es"])
def test_chapter_6_draws_in_the_pages_language_and_hands_its_browser_code_the_same_words(make_chapter, language):
    """Its heading, controls, figures and every sentence a draw writes, in the page's language with
    numbers as that language writes them; the templates its browser code fills (the slider's redraw,
    the offline copy's draws) are the same words; the predict card's keys stay English."""
    said = {"zh": dict(title="目标模型有多常同意，就有多常保留猜测。", draw="抽样", many="抽样 1000 次",
                       fig="一个位置 · 两个词元", one="本次抽样：草稿模型提议了 <b>", head="<th>区域</th>",
                       eager="草稿过于积极", few="<b>1</b> 轮之后，", settled="<b>1001</b> 轮之后，输出为 A 的占比是 <b>",
                       p_label="p(A) = {p}：目标模型", answer="以概率 p / q = 0.75 保留", kicker="猜测要多好才值得保留？"),
            "es": dict(title="Conserva la conjetura tanto como el objetivo coincida.",
                       draw="Sortear", many="Sortear 1000", fig="Una posición · dos tokens",
                       one="Sorteo: el borrador propuso <b>", head="<th>región</th>",
                       eager="borrador demasiado entusiasta", few="Tras <b>1</b> ronda, ",
                       settled="Tras <b>1001</b> rondas, la proporción de salidas que son A es <b>",
                       p_label="p(A) = {p}: el objetivo", answer="Conservarla con probabilidad p / q = 0,75",
                       kicker="¿Cuándo es una conjetura lo bastante buena para conservarla?")}[language]
    doc = page(language)
    with set_curdoc(doc):
        chapter = make_chapter(AcceptRuleChapter)
        head = chapter.__panel__().objects[0].objects[0].object
        chapter.draw(1)
        one, few, last = chapter.last_draw.object, chapter.share_note.object, chapter.last
        chapter.draw(1000)
        presses = chapter.browser_presses()
        answers = [b.label for b in chapter.predict.buttons]
        assert chapter.region_fig.title.text == said["fig"]
        assert gettext(kicker(AcceptRuleChapter)) == said["kicker"] and kicker(AcceptRuleChapter) == CH06_KICKER[0]
    assert f"<h1>{said['title']}</h1>" in head
    assert (chapter.draw_button.label, chapter.draw_many_button.label) == (said["draw"], said["many"])
    u = i18n.number(language, last["u"], 3)
    assert said["one"] in one and f"u = {u} " in one and said["few"] in few
    assert ("," in u) == (language == "es")                         # Spanish writes a decimal comma
    share = chapter.outputs[0] / chapter.outputs.sum()
    assert said["settled"] + i18n.number(language, share, 3) + "</b>" in chapter.share_note.object
    assert said["head"] in chapter.freq_table.object and said["eager"] in chapter.freq_table.object
    assert chapter.figs.p_item.label.value == said["p_label"].format(p=i18n.number(language, 0.6, 2))
    # the browser's code is handed the same words: the redraw's and each press's
    for words in [chapter.figs.redraw.args["words"]] + [code.args["words"] for _, code, _ in presses]:
        assert words["p_label"] == said["p_label"] and words["table_head"] in chapter.freq_table.object
        assert words["one_draw"].startswith(said["one"]) and words["regions"]["eager"] == said["eager"]
        assert words["language"]["format"]["decimal"] == {"zh": ".", "es": ","}[language]
        assert len(words["few_rounds"]) == len(i18n.plural_samples(language)) and "Draw" not in words["first_note"]
    assert "Draw" not in presses[0][1].args["seed_note"] and "seed" not in presses[0][1].args["seed_note"]
    # the sliders write their values as the page's language does (analytic.number, in the browser)
    assert chapter.p_slider.format.args["language"] == chapter.words["language"]["format"]
    assert chapter.q_slider.format is chapter.p_slider.format
    # the predict card: its buttons in the page's language, its answers the poll's English keys
    assert said["answer"] in answers and not set(answers) & set(CH06_CHOICES)
    assert chapter.predict.choices == list(CH06_CHOICES) and chapter.predict.answer == CH06_CHOICES[2]
    chapter.predict.commit(CH06_CHOICES[2])
    assert chapter.predict.committed == "Keep it with probability p / q = 0.75"


def test_the_speed_switch_keeps_its_english_value_in_every_language(make_chapter):
    with set_curdoc(page("es")):
        chapter = make_chapter(DilemmaChapter)
    assert chapter.speed.options == {"velocidad real": "real speed", "10× más lento": "10× slower"}
    chapter.speed.value = "10× slower"
    assert chapter.replay._slowdown() == 10.0


def test_a_chapters_metadata_is_english_on_its_class_and_translated_on_its_page():
    class Page:
        title = Translated("Good is slow. Fast is sloppy.")
    shown = Page()
    with set_curdoc(page("zh")):
        assert Page.title == "Good is slow. Fast is sloppy." and shown.title == "好的慢，快的糙。"
        shown.title = "Big model"             # set on the page (the registry sets a kicker so)
        assert shown.title == "大模型" and Page.title == "Good is slow. Fast is sloppy."


def test_the_frame_speaks_the_pages_language():
    with set_curdoc(page("es")):
        assert "Inicio · la pregunta" in nav_html("dilemma") and "1 · Lo bueno es lento" in nav_html("")
        landing = landing_html({1: {"correct": True}}, argv=[])
        assert "<b>4</b> partes · <b>13</b> capítulos breves" in landing
        assert "has respondido <b>1</b> de" in landing and "en cuatro partes." in landing
        assert ngettext("of {total} word", "of {total} words", 1).format(total=1) == "de 1 palabra"
    with set_curdoc(page(i18n.PSEUDO)):
        assert "[Çåñ å šɱåļļ ɱöðéļ" in landing_html(argv=[])


def cookie(language):
    return {"speclab_lang": language}


@pytest.mark.parametrize("args, cookies, headers, argv, chosen", [
    ({"lang": [b"es"]}, cookie("zh"), {"Accept-Language": "zh"}, ["--lang", "zh"], ("es", True)),
    ({"lang": [b"ES-co"]}, {}, {}, [], ("es", True)),
    ({"lang": [b"en-XA"]}, {}, {}, [], (i18n.PSEUDO, True)),
    ({"lang": [b"klingon"]}, cookie("zh"), {}, [], ("zh", False)),         # an unknown ?lang is no choice
    ({}, cookie("zh"), {"Accept-Language": "es"}, ["--lang", "es"], ("zh", False)),
    ({}, {}, {"Accept-Language": "es"}, ["--lang", "zh"], ("zh", False)),   # the lecturer's, then the browser's
    ({}, {}, {"Accept-Language": "es-MX,es;q=0.9"}, [], ("es", False)),
    ({}, {}, {"Accept-Language": "de-DE"}, ["--lang", "xx"], ("en", False)),
])
def test_a_pages_language_is_chosen_in_order(args, cookies, headers, argv, chosen):
    assert choose(args, cookies, headers, argv) == chosen


def test_the_lecturers_language_comes_from_the_servers_arguments(caplog):
    assert lecturer_language(["--pair", "tiny", "--lang", "zh"]) == "zh"
    assert lecturer_language(["--course", "CS 101"]) is None
    assert lecturer_language(["--lang", "fr"], warn=True) is None
    assert "--lang fr: the lab does not speak it" in caplog.text


def test_the_menu_keeps_the_page_and_changes_only_the_language():
    args = {"chapter": [b"dilemma"], "lang": [b"zh"], "lecturer": [b"t0k&n"]}
    with set_curdoc(page("zh")):
        menu = menu_html("zh", args)
    assert 'aria-label="语言"' in menu
    links = [html.unescape(part.split('"')[0]) for part in menu.split('href="')[1:]]
    assert links == ["?chapter=dilemma&lecturer=t0k%26n&lang=en", "?chapter=dilemma&lecturer=t0k%26n&lang=es",
                     "?chapter=dilemma&lecturer=t0k%26n&lang=zh"]
    assert 'lang="zh-Hans" hreflang="zh-Hans" aria-current="true">中文' in menu and "Español" in menu
    assert "en-XA" not in menu and "lang=en-XA" in menu_html(i18n.PSEUDO, {})
    assert html_tag("es") == "es" and html_tag(i18n.PSEUDO) == "en"
