"""uikit's shared components in the page's language: the predict card's buttons, verdict and
histogram translated while the class poll keeps the English choice (a Chinese and an English
answer to one choice are one bar); the poll's words, the preset bar, the settings panel, the
working line; English stays the lab's own words, byte for byte."""
from __future__ import annotations

import asyncio
import itertools

from bokeh.document import Document
from panel.io.state import set_curdoc

from chapters.base import DROPPED, Chapter
from chapters.ch05_one_pass import KICKER, OnePassChapter
from chapters.registry import kicker
from chapters.ch01_dilemma import CHOICES, RIGHT, dilemma_card
from intercept.clicks import DISABLED, TOO_FAST
from lab import i18n
from lab.experiments.presets import MEASURED_DRAFTERS, PRESETS
from lab.i18n.catalogs import TEMPLATE, read_catalog
from lab.pairs.tiny import tiny_pair
from lab.pairs.variants import DraftVariants
from shell.poll.answers import Ballot, PollStore
from shell.poll.store import Question, Tally
from uikit import palette
from uikit.language import use_language
from uikit.panels import SettingsPanel, described_words
from uikit.predict import PredictCard
from uikit.pollchart import summary
from uikit.presets import DRAFTER_NAMES, PRESET_WORDS, VARIANT_WHY, PresetBar
from uikit.state import LabState


def page(language: str) -> Document:
    doc = Document()
    use_language(language, doc)
    return doc


def test_a_chinese_and_an_english_answer_to_one_choice_are_one_bar(tiny_service):
    store = PollStore(salt=b"t")
    chinese, english = page("zh"), page("en")
    with set_curdoc(chinese):
        asked = dilemma_card(LabState(tiny_service))         # chapter 1's card, its words in Chinese
        zh = PredictCard(asked.state, 1, asked.question, choices=list(CHOICES), answer=RIGHT,
                         explanation=asked.explanation, hint=asked.hint, ballot=Ballot(store, "shanghai"))
        zh.__panel__()
        labels = [b.label for b in zh.buttons]
        assert labels == [i18n.translate("zh", c) for c in CHOICES] and not set(labels) & set(CHOICES)
        zh.buttons[1].clicks += 1                 # the Chinese button of the right choice
    with set_curdoc(english):
        en = PredictCard(LabState(tiny_service), 1, "Why not all 20 words in one call?", choices=list(CHOICES),
                      answer=RIGHT, ballot=Ballot(store, "london"))
        en.__panel__()
        assert [b.label for b in en.buttons] == list(CHOICES)
        en.commit(RIGHT)
    assert zh.committed == en.committed == RIGHT            # the poll's key: the English choice
    assert zh.state.answers[1]["answer"] == RIGHT
    tally = store.tally(1)
    assert tally.counts[CHOICES.index(RIGHT)] == 2 and sum(tally.counts) == 2
    with set_curdoc(chinese):
        assert f"<b>{i18n.translate('zh', RIGHT)}</b>" in zh.verdict_text and "You said" not in zh.verdict_text
        assert zh.buttons[1].variant == "solid" and zh.buttons[0].variant == "outline"
        store.reveal(1)
        zh.reveal()
        assert zh.correct is True and zh.verdict_text.startswith('<div class="verdict right" role="status">✓ 答对了。')
        legend = zh.class_answers.chart.words.object
        assert i18n.translate("zh", RIGHT) in legend and RIGHT not in legend and "全班的答案（已公布）" in legend
        assert "2 (100%) · 你 ✓" in zh.class_answers.chart.source.data["label"]
    with set_curdoc(english):
        en.reveal()
        assert "✓ Right." in en.verdict_text and RIGHT in en.class_answers.chart.words.object


def test_a_card_in_spanish_says_its_label_problems_and_verdict_in_spanish(state):
    with set_curdoc(page("es")):
        card = PredictCard(state, 2, "How many?", answer=7, bounds=(0, 20), total=11)
        head = card.__panel__().objects[0].object
        assert "✎ Pausa y predice · pregunta 2 de 11" in head
        assert card.number_box.name == "Tu respuesta" and card.lock_button.label == "Fijar mi respuesta"
        card.commit(40)
        assert "Escribe un número entero de 0 a 20 y luego fíjalo." in card.notice_text
        card.commit(5)
        assert card.verdict_text.startswith('<div class="verdict waiting">Dijiste <b>5</b>. Ahora ejecuta')
        card.reveal()
        assert "✗ No del todo: aquí la respuesta es <b>7</b> (dijiste 5)." in card.verdict_text


def test_the_polls_words_are_the_stores_in_english_and_translated_elsewhere():
    question = Question(number=1, kind="choice", choices=("a", "b"))
    for connected, here, votes, left_out in itertools.product(range(3), range(3), range(4), range(2)):
        if here > connected or votes + left_out < here:
            continue
        tally = Tally(question, (votes, 0), connected, False, here, left_out, 1)
        assert summary(tally) == tally.summary()
        with set_curdoc(page("zh")):
            assert not any(w in summary(tally) for w in ("browser", "answer", "histogram"))


def test_the_preset_bar_and_settings_panel_speak_the_page_language(state):
    with set_curdoc(page("zh")):
        bar = PresetBar(state, drafters=True)
        bar.choose("story")
        assert bar.buttons["story"].label == "故事开头" and "草稿模型" in bar.drafter_switch.options
        assert "<b>故事开头</b>：一个故事的开头" in bar.note.object and "<b>谁来猜</b>：草稿模型。" in bar.note.object
        panel = SettingsPanel(state)
        assert panel.apply.label == "使用这些设置" and panel.prompt.name.startswith("提示词")
        assert panel.commit() and "已为本次会话保存：贪心" in panel.message.object
        assert palette.label("kept") == "保留的草稿词元"
        assert described_words("temperature 0.7, top-p 0.9") == "温度 0.7, top-p 0.9"
    with set_curdoc(page("es")):
        said = described_words("temperature 0.7, top-k 50, top-p 0.9")
        assert said.endswith("0,7, top-k 50, top-p 0,9") and "temperature" not in said
        assert SettingsPanel(state).temperature.format.args == {"decimal": ","}      # the slider writes "0,70"
    assert PresetBar(state).buttons["story"].label == "Story opening" and palette.label("kept") == "draft token kept"


def test_words_marked_in_uikit_are_the_labs_own():
    """The preset bar and the working line mark for the catalog words that lab.experiments.presets
    and intercept.clicks write: they must be the same words, or the page would show English."""
    assert set(PRESET_WORDS) == {w for p in PRESETS for w in (p.label, p.what)}
    assert [d for d, _ in DRAFTER_NAMES] == list(MEASURED_DRAFTERS)
    assert DROPPED == (DISABLED, TOO_FAST)
    assert KICKER[0] == kicker(OnePassChapter)
    assert DraftVariants.offered(tiny_pair())["weak"] in VARIANT_WHY
    template = {m.id for m in read_catalog(TEMPLATE) if m.id}
    assert set(PRESET_WORDS) | set(DROPPED) | set(VARIANT_WHY) <= template


def test_the_working_line_and_a_failure_are_said_in_the_page_language(make_chapter):
    def broken():
        raise RuntimeError("no")
    with set_curdoc(page("es")):
        chapter = make_chapter(Chapter)
        assert asyncio.run(chapter.run_model(broken)) is None
        assert "Los modelos no pudieron terminar esto (RuntimeError)" in chapter.problem.object
