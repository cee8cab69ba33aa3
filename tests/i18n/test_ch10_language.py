"""Chapter 10 and the shared read-outs (uikit.readouts) in the page's language: the chapter built on a
Chinese and a Spanish page writes its heading, sliders, buttons, formula read-out, table, figures and
live box in that language with numbers as it writes them and keeps its predict card's poll keys
English; outside a page it is English. (Its browser redraw writes what Python writes on such a page:
tests/uikit/test_js_analytic.py.)"""
from __future__ import annotations

import asyncio
import html

import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from chapters.ch10_breakeven import CHOICES, BreakEvenChapter
from lab.experiments.breakeven import question_verdict
from tests.helpers import made_profile
from uikit.language import use_language
from uikit.readouts import busy_html, question_explanation


def page(language: str) -> Document:
    """A page's document speaking `language` (as shell.frame.app.build_app makes it)."""
    doc = Document()
    use_language(language, doc)
    return doc


def busy_profile():
    return made_profile(verify=[0.1 * (1 + 0.1 * k) for k in range(17)], draft=0.02, busy=True, load=5.0, cores=2)


SPANISH = dict(
    title="Tokens por ronda, divididos por el costo por ronda.", use="Usar mis modelos",
    alpha="α tasa de aceptación", try_="Probar α = 0,6; γ = 5; c = 0,3", choices=["más rápido", "más lento"],
    tokens="(1 − 0,80<sup>5</sup>) / (1 − 0,80) = <b>3,36</b> tokens por ronda",
    cost="costo = 1 + γc = 1 + 4·0,10 = <b>1,40</b> llamadas al objetivo",
    verdict="<b>2,40×</b> — más rápido que la decodificación estándar",
    row="<td>α = 0,8; γ = 4</td><td>0,328</td><td>3,36</td><td>2,40×</td>", head="aceleración con c = 0,1",
    slower="más lento que la decodificación estándar", dont="<b>no uses borrador</b>",
    note="La curva del costo medido aparece", measured="con el costo de verificación de esta máquina, v(5) = 1,40",
    fig="Aceleración vs. α (γ y c dados)",
    axis="α (tasa de aceptación)", legend="tu α", label="equilibrio: α = ", never="ningún α llega al equilibrio",
    explain="E = (1 − 0,6^6) / (1 − 0,6) = 2,38 tokens por ronda, pero una ronda cuesta 1 + 5·0,3 = 2,50 "
            "llamadas al objetivo: aceleración de 0,95× — más lento.",
    live="Medido en esta máquina: <b class='priced-speedup'>", calls="llamadas al objetivo en lugar de",
    why="<summary>Por qué: tu solicitud, su veredicto y la fórmula</summary>",
    versus="Los controles deslizantes están en los valores de tu solicitud, α = ")
CHINESE = dict(
    title="每轮的词元数，除以每轮的代价。", use="用我的模型", alpha="α 接受率", try_="试试 α = 0.6，γ = 5，c = 0.3",
    choices=["更快", "更慢"], tokens="(1 − 0.80<sup>5</sup>) / (1 − 0.80) = <b>3.36</b> 个词元/轮",
    cost="代价 = 1 + γc = 1 + 4·0.10 = <b>1.40</b> 次目标模型调用", verdict="<b>2.40×</b>——比标准解码快",
    row="<td>α = 0.8，γ = 4</td><td>0.328</td><td>3.36</td><td>2.40×</td>", head="c = 0.1 时的加速比",
    slower="比标准解码慢", dont="<b>不要起草</b>", note="实测的代价曲线就会出现",
    measured="按本机的验证代价 v(5) = 1.40", fig="加速比随 α 的变化（所选的 γ 与 c）", axis="α（接受率）",
    legend="你的 α", label="盈亏平衡 α = ", never="没有 α 能达到盈亏平衡",
    explain="E = (1 − 0.6^6) / (1 − 0.6) = 2.38 个词元/轮，但一轮的代价是 1 + 5·0.3 = 2.50 次目标模型调用："
            "加速比 0.95×——更慢。",
    live="本机实测：<b class='priced-speedup'>", calls="次目标模型调用，而不是", why="<summary>为什么——你的请求、它的结论和公式</summary>",
    versus="滑块正处在你的请求的 α = ")


@pytest.mark.parametrize("language, words", [("es", SPANISH), ("zh", CHINESE)])
def test_chapter_10_speaks_the_pages_language_and_keeps_its_poll_keys(make_chapter, language, words):
    doc = page(language)
    with set_curdoc(doc):
        chapter = make_chapter(BreakEvenChapter)
        chapter.param.update(alpha=0.8, gamma=4, c=0.1)
        head = chapter.__panel__().objects[0].objects[0].object
        readout, table = chapter.readout.object, chapter.table.object
        fig = chapter.speed_fig
        labels = [b.label for b in chapter.predict._buttons]
        explained = question_explanation(question_verdict()[0])
        chapter.param.update(alpha=0.3, gamma=4, c=0.5)     # no γ pays
        slower = chapter.readout.object
        chapter.param.update(c=1.5)                          # no α breaks even
        never = chapter.figs.break_label.text
        chapter.param.update(profile=busy_profile(), c=0.1)
        measured, note = chapter.readout.object, chapter.cost_note.object
        label = chapter.figs.break_label.text
        warning = busy_html(chapter.profile)
    assert f"<h1>{words['title']}</h1>" in head
    assert chapter.use_models.label == words["use"] and chapter.alpha_slider.name == words["alpha"]
    assert chapter.try_question.label == words["try_"]
    # the sliders show their value with the page's decimal sign ("0,80"): a formatter where it is not "."
    formatter = chapter.alpha_slider.format
    assert (formatter is not None and formatter.args["decimal"] == ",") if language == "es" else formatter is None
    # the card shows the choices translated and keeps the class poll's keys English
    assert labels == words["choices"] and chapter.predict.choices == list(CHOICES) == ["faster", "slower"]
    assert question_verdict()[0] in CHOICES and explained.startswith(words["explain"])
    for key in ("tokens", "cost", "verdict"):
        assert words[key] in readout, key
    assert words["row"] in table and words["head"] in table
    assert words["slower"] in slower and words["dont"] in slower
    assert words["measured"] in measured and words["note"] not in note and "v(5) = 1" in note
    assert warning.startswith("<p class='busy-warning' role='note'>⚠ ")    # uikit.verdicts.why_busy's sentence
    assert label.startswith(words["label"]) and never.startswith(words["never"])
    assert fig.title.text == words["fig"] and fig.xaxis.axis_label == words["axis"]
    assert words["legend"] in [item.label.value for item in fig.legend[0].items]
    for english in ("tokens per round", "target calls", "standard decoding", "speed-up at", "break-even for"):
        assert english not in readout + table + slower + measured, english


@pytest.mark.parametrize("language, words", [("es", SPANISH), ("zh", CHINESE)])
def test_use_my_models_writes_the_live_box_in_the_pages_language(make_chapter, language, words):
    doc = page(language)
    with set_curdoc(doc):
        chapter = make_chapter(BreakEvenChapter)
        asyncio.run(chapter.use_my_models())
    live, versus = chapter.live.object, chapter.versus.object
    assert live.startswith(f"<div class='speclab-live'><p class='verdict-line'>{words['live']}")
    assert words["calls"] in live and words["why"] in live
    assert versus.startswith(f"<p class='versus'>{words['versus']}")
    assert "Measured on this machine" not in live and "The sliders" not in versus


def test_chapter_10_outside_a_page_is_english(make_chapter):
    chapter = make_chapter(BreakEvenChapter)
    chapter.param.update(alpha=0.8, gamma=4, c=0.1)
    assert BreakEvenChapter.title == "Tokens per round, divided by cost per round."
    assert chapter.use_models.label == "Use my models" and chapter.try_question.label == "Try α = 0.6, γ = 5, c = 0.3"
    assert "<b>3.36</b> tokens per round" in chapter.readout.object
    assert "<b>2.40×</b> — faster than standard decoding" in chapter.readout.object
    assert "<td>α = 0.8, γ = 4</td><td>0.328</td>" in chapter.table.object
    assert [b.label for b in chapter.predict._buttons] == ["faster", "slower"]
