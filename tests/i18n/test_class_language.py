"""The class around the chapters speaks each page's language: the lecturer's view (its controls, the
class poll, the drafting line, the server's load), the poll's sentences to students and to the
lecturer, the room's (a page's place in line, a refused token, too many pages or tabs), a refused
press or value, and the loader's stages. Numbers are written as the page's language writes them,
the poll's keys (the choices a class votes on) stay English, and outside a page everything is the
lab's own English."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

import panel as pn
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from intercept import validate
from intercept.clicks import DISABLED, TOO_FAST
from lab import i18n
from lab.i18n.catalogs import read_catalog
from lab.i18n.command import TEMPLATE
from lab.i18n import Said
from lab.pairs.cachedir import report
from shell.frame.loading import PairLoader, loading_view
from shell.lecturer import controls as lecturer
from shell.lecturer.drafting import drafting_sentence
from shell.poll.answers import Ballot, PollStore, Question
from shell.poll.view import PollView, QuestionPoll, intro_text, left_out_text, status_html
from shell.room import gate as room_gate
from shell.room.attempts import Attempts, guessing_line, judge
from shell.room.line import PageLine, about
from uikit.language import KEY, page_language, use_language


def page(language: str) -> Document:
    """A page's document speaking `language` (as shell.frame.app.build_app makes it)."""
    doc = Document()
    use_language(language, doc)
    return doc


def cards(view) -> list[pn.Card]:
    return [c for c in view.select(pn.Card)]


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")


@pytest.fixture
def the_class():
    """A class alone in memory, as a server's first page would find it."""
    from shell.frame.classstate import ClassState
    return ClassState()


def test_the_lecturers_view_is_in_the_pages_language(tiny, the_class):
    the_class.pair.current()
    for language, words in {
        "zh": ("讲师控制台", "为全班切换模型对", "全班使用的模型对", "重置全班…", "全班", "全班投票", "重置所有题目",
               "个打开的会话（包括本页）", "公布第 3 题", "第 3 题 · 第 3 章"),
        "es": ("Controles del profesor", "Cambiar el par para todos", "Par para todos", "Reiniciar la clase…",
               "Toda la clase", "Encuesta de la clase", "Reiniciar todas las preguntas",
               "0 sesiones abiertas en este servidor (incluida esta página)", "Revelar la pregunta 3",
               "Pregunta 3 · capítulo 3"),
    }.items():
        with set_curdoc(page(language)):
            panel = lecturer.LecturerPanel(the_class, "s1", chapter=3)
            view = panel.__panel__()
            control, poll = cards(view)[0], next(c for c in cards(view) if "class-poll" in c.css_classes)
            shown = " ".join([control.title, poll.title, panel.switch_button.label, panel.pair_select.label,
                              panel.reset_button.label, panel.sessions.object, poll.objects[0].object,
                              panel.reset_button.description, panel.confirm_reset.label, panel.cancel_reset.label,
                              str(view.select(pn.pane.HTML)[-1].object)]
                             + [w.label for w in view.select(pn.widgets.Button)]
                             + [p.object for p in view.select(pn.pane.HTML)])
            for word in words:
                assert word in shown, (language, word)
            for english in ("Lecturer controls", "Switch pair", "Reset the class", "Class poll", "open session",
                            "Reveal question", "Each student's locked answer", "Default drafting"):
                assert english not in shown, (language, english)
    panel = lecturer.LecturerPanel(the_class, "s1", chapter=3)          # outside a page: English
    assert panel.switch_button.label == "Switch pair for everyone" and "0 open sessions" in panel.sessions.object


def test_the_lecturers_sentences_after_a_press_and_a_refused_press(tiny, the_class):
    with set_curdoc(page("es")):
        panel = lecturer.LecturerPanel(the_class, "s1")
        panel.switch_button.disabled = True
        panel.switch_button.clicks += 1                  # a press while the button is off: said in Spanish
        assert i18n.translate("es", DISABLED) in panel.status.object and "did nothing" not in panel.status.object
        panel._on_reset()
        assert "Reiniciado: 0 páginas de estudiantes vuelven a empezar" in panel.status.object
    with set_curdoc(page("zh")):
        panel = lecturer.LecturerPanel(the_class, "s1")
        panel.pair_select.options = panel.pair_select.options + ["no-such-pair"]
        panel.pair_select.value = "no-such-pair"
        asyncio.run(panel.switch())
        assert "全班继续使用原来的模型对" in panel.status.object
    assert i18n.translate("zh", TOO_FAST) != TOO_FAST and i18n.translate("es", TOO_FAST) != TOO_FAST


def test_the_drafting_line_writes_its_speed_up_as_the_page_does():
    outcome = SimpleNamespace(spec=SimpleNamespace(rounds=[SimpleNamespace(guesses=3)] * 5 +
                                                   [SimpleNamespace(guesses=0)] * 3), speedup=1.125)
    assert drafting_sentence(outcome) == "drafted in 5 of 8 rounds; plain steps elsewhere — 1.12× the speed of " \
                                         "plain decoding."
    with set_curdoc(page("es")):
        said = drafting_sentence(outcome)
    assert "1,12×" in said and "decodificación normal" in said
    with set_curdoc(page("zh")):
        assert "普通解码" in drafting_sentence(outcome)


def test_the_poll_speaks_each_pages_language_and_keeps_its_keys_english():
    store = PollStore(salt=b"t", per_address=1)
    store.ask(Question(3, "choice", ("faster", "slower")))
    for i, browser in enumerate("abc"):
        store.join(f"session {i}", browser)
    assert [store.vote(3, b, "slower", "10.0.0.9") for b in "abc"] == [None] * 3
    store.reveal(3)
    tally = store.tally(3)
    assert tally.question.categories == ["faster", "slower"]            # the poll's keys: English
    assert status_html(3, tally).count("revealed to the class") == 1     # outside a page: English
    with set_curdoc(page("zh")):
        status = status_html(3, tally)
        assert "已向全班公布" in status and "在场的 3 个浏览器中有 3 个已作答" in status
        assert "2 个答案未计入直方图" in status and "revealed" not in status
        assert "还没有人打开这道题" in status_html(3, None)
        view = QuestionPoll(store, 3, "Is it?")
        assert view.reveal_button.label == "公布第 3 题" and view.reveal_button.disabled
        view.reveal_button.clicks += 1                   # pressed again after the reveal: said in Chinese
        assert i18n.translate("zh", DISABLED) in view.status.object
    with set_curdoc(page("es")):
        status = status_html(3, tally)
        assert "revelada a la clase" in status and "2 respuestas fuera del histograma" in status
        assert "como mucho 2 navegadores por pregunta" in intro_text(2)
        # a student's refused answer, in the language of the page that votes
        ballot = Ballot(store, "d", votes=True)
        assert ballot.vote(3, "faster") == ("Las respuestas de la clase a la pregunta 3 ya están reveladas, así "
                                            "que una respuesta nueva no cuenta; la tuya se queda en tu tarjeta.")
        assert "no es una de las opciones de la pregunta 3" in ballot.vote(3, "maybe")
        assert store.tally(3).counts == tally.counts                     # nothing counted
    with set_curdoc(page("zh")):
        view = PollView(store, current=None)
        assert view.others.title.startswith("全部") and "题" in view.others.title
    assert "2 answers left out of the histogram" in left_out_text(tally)
    assert "already revealed" in store.vote(3, "d", "faster")            # no page: English


def test_a_pages_place_in_line_and_the_servers_load_in_its_language():
    line = PageLine(clock=lambda: 0.0)
    tickets = [line.join() for _ in range(3)]
    assert line.place(tickets[2]).startswith("Preparing your page — 2 ahead of you, about 2 s.")
    with set_curdoc(page("zh")):
        assert line.place(tickets[0]) == "正在准备你的页面……"
        assert line.place(tickets[2]).startswith("正在准备你的页面——前面还有 2 个，大约 2 秒")
        assert about(150) == "2 分钟"
    with set_curdoc(page("es")):
        assert line.place(tickets[2]).startswith("Preparando tu página: 2 por delante de ti, unos 2 s.")
        assert "una página tarda 0,5 s en construirse" in line.load_line()     # 0.5 as Spanish writes it
    assert line.load_line().startswith("Server busy")


def test_a_refused_lecturer_token_in_the_pages_or_the_requests_language():
    attempts = Attempts(free=0)
    with set_curdoc(page("es")):
        said = judge(attempts, "guess", "right", ("browser", "address x"))
        assert said == ("Ese token de profesor no es correcto; pide al profesor el enlace con el que inició el "
                        "servidor.")
        again = judge(attempts, "guess", "right", ("browser", "address x"))
        assert again.startswith("Demasiados tokens de profesor incorrectos desde este navegador; espera 1 segundo")
        assert "Alguien está adivinando el token del profesor: 1 intento fallido en la última hora desde 1 " \
               "dirección" in guessing_line(attempts)
    assert judge(attempts, "guess", "right", ("b2", ""), language="zh").startswith("这个讲师令牌不对")
    assert "not right" in judge(Attempts(), "guess", "right", ("b3", ""))       # no page: English
    # the page gate answers before any page exists: the request's language (?lang, cookie, Accept-Language)
    request = SimpleNamespace(arguments={"lang": [b"es"]}, cookies={}, headers={})
    assert room_gate.request_language(request) == "es"
    assert room_gate.request_language(SimpleNamespace(arguments={}, cookies={}, headers={
        "Accept-Language": "zh-CN,zh;q=0.9"})) == "zh"
    assert room_gate.request_language(SimpleNamespace(arguments={}, cookies={}, headers={})) == "en"
    small = room_gate.too_many_page(3, language="zh")
    assert 'lang="zh-Hans"' in small and "3 秒后自动重新加载" in small
    assert "Demasiadas páginas a la vez desde esta dirección" in room_gate.too_many_page(3, language="es")
    assert "Too many pages from this address" in room_gate.too_many_page(3)


def test_the_gates_cookie_is_the_language_menus():
    from shell.frame.language import COOKIE
    assert room_gate.LANGUAGE_COOKIE == COOKIE and validate.LANGUAGE_KEY == KEY


def test_a_refused_value_is_said_in_the_pages_language():
    slider = pn.widgets.IntSlider(label="Draft length γ", start=1, end=8, value=4)
    with set_curdoc(page("es")):
        said = validate.screen(slider, {"value": 99})
    assert said == ["«Draft length γ» va de 1 a 8; 99 está fuera de rango, así que se pone en 8."]
    with set_curdoc(page("zh")):
        assert validate.screen(slider, {"value": "x"}) == ["“Draft length γ”只接受数字；它保持为 4。"]
    assert validate.screen(slider, {"value": 0})[0].startswith("“Draft length γ” goes from 1 to 8")


def test_the_loaders_stages_are_english_for_the_terminal_and_translated_on_each_page():
    loader = PairLoader()
    seen = []
    report(lambda fraction, message: seen.append(message), 0.25, "unpacking {file}", file="model.gguf")
    assert seen == ["unpacking model.gguf"] and isinstance(seen[0], Said)     # the command line's English
    loader.progress(0.25, seen[0])
    view, refresh = loading_view(loader)
    assert "unpacking model.gguf" in view.objects[0].object and loader.message == "unpacking model.gguf"
    with set_curdoc(page("zh")):
        refresh()
        assert "正在解包 model.gguf" in view.objects[0].object
    loader.progress(0.9, Said("loading {target} and {draft}", target="/srv/models/big", draft="small"))
    with set_curdoc(page("es")):
        refresh()
        assert "cargando … y small" in view.objects[0].object           # no server path on a page
    # every stage the loader may show is in the catalog
    template = {m.id for m in read_catalog(TEMPLATE) if m.id}
    assert {"unpacking {file}", "loading {target} and {draft}", "Loaded {target} and {draft}.",
            "dequantising the GGUF to float32 (about half a minute)", "embedded pair ready",
            "downloading {requirement} (about 90 MB, once)", "checking the SHA-256 of {wheel}",
            "waiting for another process that is preparing the models"} <= template
    assert page_language() == "en"
