import asyncio

import numpy as np
import pytest

from chapters.ch07_correction import CorrectionChapter
from lab.core import montecarlo as mc
from tests.helpers import until


@pytest.fixture
def chapter(make_chapter):
    """A loaded page of its own for each test (the tests step, select and change it)."""
    return make_chapter(CorrectionChapter, load=True)


def test_regions_come_from_live_p_and_q(chapter):
    data = chapter.figs.regions_src.data
    assert np.allclose(np.asarray(data["agree"]) + np.asarray(data["eager"]), data["q"])
    assert np.allclose(np.asarray(data["agree"]) + np.asarray(data["shy"]), data["p"])
    assert np.isclose(chapter.p.sum(), 1) and np.isclose(chapter.q.sum(), 1)


def test_only_the_residual_rule_reproduces_p(chapter):
    chapter.runs = 100_000
    tv = {}
    for rule in mc.RULES:
        chapter.rule = rule
        tv[rule] = chapter.distances()
    bound = 3 * tv["residual"]["noise"]
    assert tv["residual"]["mc"] < bound
    assert tv["residual"]["exact"] < 1e-9
    for rule in ("target", "draft", "keep"):
        assert tv[rule]["mc"] > bound, rule
    assert "within sampling noise" not in chapter.distance.object   # last rule shown: keep


def test_histogram_plots_the_shown_tokens_and_words_give_the_rest(chapter):
    chapter.rule = "residual"
    data = chapter.figs.out_src.data
    assert list(data["token"]) == chapter.labels                  # no "(all others)" bar
    d = chapter.distances()
    assert np.isclose(sum(data["sampled"]) + d["others_sampled"], 1)
    assert np.isclose(sum(data["p"]) + d["others_p"], 1)
    assert f"output {d['others_sampled']:.3f}, p {d['others_p']:.3f}" in chapter.distance.object
    assert f"the same {len(chapter.ids) + 1} bins" in chapter.distance.object


def test_monte_carlo_and_exact_distances_share_one_support(chapter):
    chapter.runs = 1_000_000
    for rule in ("target", "draft"):
        chapter.rule = rule
        d = chapter.distances()
        assert d["bins"] == len(chapter.ids) + 1
        assert abs(d["mc"] - d["exact"]) < 3 * d["noise"], rule     # the same quantity, measured
        assert f"{d['exact']:.3f}" in chapter.rule_table.object
    chapter.runs = 100_000


def test_a_new_context(chapter):
    chapter.context.value = "the dog ran"
    asyncio.run(chapter.load())
    assert "rejected" in chapter.settings_note.object


def test_predict(chapter):
    chapter.predict.commit(chapter.predict.choices[1])
    asyncio.run(chapter.simulate())
    assert chapter.predict.correct is True


def test_typing_a_context_and_pressing_enter_loads_it(make_chapter):
    ch = make_chapter(CorrectionChapter)

    async def go():
        ch.context.value = "a big dog sat under the"
        await until(lambda: ch.p is not None, message="the typed context to load")
    asyncio.run(go())
    assert ch.p is not None and "rejected" in ch.settings_note.object


def test_the_legends_sit_outside_the_bars():
    """Which token's bar is tallest changes with the prompt: a legend inside a plot covered it."""
    from chapters.ch07_correction import CorrectionFigures
    figs = CorrectionFigures()
    assert figs.regions_fig.legend[0] in figs.regions_fig.right
    assert figs.out_fig.legend[0] in figs.out_fig.below
    assert not figs.regions_fig.center.count(figs.regions_fig.legend[0])


def test_the_page_says_what_a_token_is_and_the_sampling_it_uses(chapter):
    """Issue 49.7 and 49.4: the chart's candidates may be pieces of words ("cou"): the note under the
    context says a token is a word or a piece of one; the badge says the page's sampling."""
    assert "Each token is a word or a piece of one" in chapter.settings_note.object
    assert chapter.state.shown_sampling() == chapter.sampling_settings().describe()


def test_a_piece_of_a_word_among_the_candidates_is_named():
    from chapters.ch07_correction import settings_note_html
    from lab.core.sampling import SamplingSettings
    note = settings_note_html(SamplingSettings(1.0, 0, 1.0), False, 3, 0.2, [" on", "cou", " the"], "The cat sat on the")
    assert "“<span class=\"tok\">cou</span>” here is part of a word" in note         # the model's text, marked
