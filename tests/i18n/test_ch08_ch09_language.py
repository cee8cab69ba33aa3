"""Chapters 8 and 9 in the page's language: built on a Chinese and a Spanish page, the full round and
its seventeen lines write their heading, buttons, round notes, checks table, step sentences, code
comments and variables in that language, with numbers as it writes them ("0,123" in Spanish), and
keep chapter 9's poll keys English; outside a page both are English, as before."""
from __future__ import annotations

import asyncio
import contextlib

from bokeh.document import Document
from panel.io.state import set_curdoc

from chapters.ch08_full_round import KICKER as KICKER_8, FullRoundChapter, no_case_html
from chapters.ch09_code import CHOICES, KICKER as KICKER_9, CodeChapter, code_lines
from chapters.registry import kicker
from lab.experiments.casesearch import Found
from uikit.language import use_language


def page(language: str) -> Document:
    """A page's document speaking `language` (as shell.frame.app.build_app makes it)."""
    doc = Document()
    use_language(language, doc)
    return doc


def spanish(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}".replace(".", ",")


def press(chapter, times: int = 1) -> None:
    async def go():
        for _ in range(times):
            await chapter.advance()
    asyncio.run(go())


def to_end(chapter) -> None:
    async def go():
        while not chapter.done:
            await chapter.advance()
    asyncio.run(go())


def test_the_kickers_marked_are_the_bridges_questions():
    assert KICKER_8[0] == kicker(FullRoundChapter) and KICKER_9[0] == kicker(CodeChapter)


def test_chapter_8_steps_a_round_in_spanish_with_decimal_commas(make_chapter):
    es = page("es")
    with set_curdoc(es):
        chapter = make_chapter(FullRoundChapter, load=True)
        chapter.kicker = kicker(FullRoundChapter)            # as chapters.registry.build sets it
        assert chapter.kicker == "¿Cómo encajan las piezas?"
        assert chapter.title == "Conservar el prefijo, corregir una vez, descartar el resto."
        chapter.restart()
        assert "Cada pulsación de <b>Avanzar</b> da un paso: primero el modelo borrador adivina γ = 4 tokens" \
            in chapter.explain.object
        press(chapter)
        assert "El modelo borrador adivinó 4 tokens, cada uno muestreado de su q." in chapter.explain.object
        press(chapter)
        r = chapter.round
        d = r.guesses[0]
        assert f"Posición 1: u = {spanish(d.uniform)} " in chapter.explain.object
        assert f"<td>{spanish(d.p)}</td><td>{spanish(d.q)}</td>" in chapter.table.object
        assert "<th>veredicto</th>" in chapter.table.object and "conservar si u &lt; min(1, p/q)" in chapter.table.object
        to_end(chapter)
        assert "Esta ronda añade <b>" in chapter.explain.object and "por una llamada al objetivo." in chapter.explain.object
        if r.extra_kind == "correction":
            assert f"La conjetura {r.n_accepted + 1} fue rechazada" in chapter.explain.object
        note = chapter.round_note.object
        assert f"Ronda {r.index + 1} de {len(chapter.generation.rounds)} (semilla " in note
        assert "paso " in note and "Muestreo: temperatura 0,7, top-p 0,9 en esta página" in note
        assert "una ronda típica de esta generación (α = " in chapter.explain.object
        none = no_case_html(Found(None, None, 200, rounds=2000), 4, "temperatura 1.3")
        timed = no_case_html(Found(None, None, 3, timed_out=True, rounds=1), 4, "temperatura 1.3")
    assert chapter.step_button.label == "Avanzar" and chapter.next_button.label == "Siguiente ronda"
    assert chapter.restart_button.label == "Reiniciar esta ronda"
    assert chapter.find_button.label == "Mostrar una ronda sin ningún rechazo"
    assert chapter.predict.question.startswith("Se aceptan los γ = 4 tokens del borrador.")
    assert "Ninguna de las 200 semillas dio una ronda" in none and "en la 1 ronda revisada" in timed


def test_chapter_8_in_chinese(make_chapter):
    zh = page("zh")
    with set_curdoc(zh):
        chapter = make_chapter(FullRoundChapter, load=True)
        chapter.restart()
        press(chapter, 2)
        assert "位置 1：u = " in chapter.explain.object and "<th>判定</th>" in chapter.table.object
        assert "草稿模型猜测 γ = 4 个词元" in chapter.round_note.object
        to_end(chapter)
        assert "这一轮用一次目标模型调用增加了 <b>" in chapter.explain.object
        assert chapter.intro.startswith("现在用真实的数字") and chapter.title == "保留前缀，修正一次，丢弃其余。"
    assert chapter.step_button.label == "下一步" and chapter.find_button.label == "显示一轮草稿全部保留的例子"
    assert chapter.drafts_strip.chips and chapter.text_strip.chips


@contextlib.contextmanager
def code_page(make_chapter, language: str):
    """Chapter 9 on a page speaking `language`, restarted at line 1 (the page stays current inside)."""
    with set_curdoc(page(language)):
        chapter = make_chapter(CodeChapter, load=True)
        chapter.restart()
        yield chapter


def test_chapter_9_runs_its_code_in_spanish_and_keeps_its_poll_keys(make_chapter):
    with code_page(make_chapter, "es") as chapter:
        assert "Pulsa <b>Avanzar</b> para ejecutar la línea 1." in chapter.variables.object
        assert "# la prueba de aceptación" in chapter.code.object and "# el residuo" in chapter.code.object
        press(chapter, 5)
        assert "La línea 5 acaba de ejecutarse:" in chapter.variables.object
        d = chapter.round.guesses[0]
        assert chapter.events[4].variables["q[x]"] == spanish(d.q)
        assert "q (3 principales)" in chapter.events[3].variables
        ps = next(e for e in chapter.events if e.line == 6)
        assert ps.variables["ps"] == "5 filas de p, una llamada al objetivo"
        assert "; " in ps.variables["p[x] por token del borrador"]     # decimal commas, so ; between
        note = chapter.round_note.object
        assert "· γ = 4 · temperatura 0,7, top-p 0,9 · evento de línea 5 de" in note
        asyncio.run(chapter._on_run(None))
        assert chapter.done and "tokens fijados" in chapter.events[-1].variables
        body = chapter.body()
        assert chapter.title == "La ronda completa cabe en diecisiete líneas."
    assert chapter.step_button.label == "Avanzar" and chapter.run_button.label == "Hasta el final"
    assert chapter.temperature_slider.name == "Temperatura (0 = voraz)"
    assert chapter.predict.choices == list(CHOICES) and chapter.predict.answer == CHOICES[0]   # the poll's keys
    assert chapter.predict.buttons[2].label == "Nada cambia: la prueba sigue comparando u con p / q"
    assert "Dos cachés" in body.objects[-1].object and "generación asistida" in body.objects[-1].object


def test_chapter_9_in_chinese(make_chapter):
    with code_page(make_chapter, "zh") as chapter:
        assert "# 接受检验" in chapter.code.object
        press(chapter)
        assert "刚刚执行了第 1 行：" in chapter.variables.object
        assert "第 " in chapter.round_note.object and "个行事件" in chapter.round_note.object
        assert code_lines(True)[9].endswith("# 温度为 0 时的接受检验")
        assert chapter.title == "一整轮只需十七行代码。"
    assert chapter.step_button.label == "下一步"
    assert chapter.predict.buttons[0].label.startswith("if x == argmax(p):  — 草稿词元")


def test_chapters_8_and_9_outside_a_page_are_english(make_chapter):
    eight = make_chapter(FullRoundChapter, load=True)
    eight.restart()
    press(eight, 2)
    assert eight.step_button.label == "Step" and eight.find_button.label == "Show a round where every draft is kept"
    assert "Position 1: u = " in eight.explain.object and "<th>verdict</th>" in eight.table.object
    assert eight.round_note.object.startswith("<p class='speclab-formula'>Round ")
    nine = make_chapter(CodeChapter, load=True)
    nine.restart()
    press(nine)
    assert "Line 1 just ran:" in nine.variables.object and "# the accept test" in nine.code.object
    assert nine.predict.buttons[1].label == CHOICES[1] and nine.title == "The whole round fits in seventeen lines."
