import numpy as np
import pytest
from scipy.stats import binomtest

from chapters.ch06_accept_rule import AcceptRuleChapter, thresholds


@pytest.fixture
def chapter(make_chapter):
    return make_chapter(AcceptRuleChapter)


def test_threshold_is_the_accept_rule():
    assert np.allclose(thresholds(0.6, 0.8), [0.75, 1.0])
    assert np.allclose(thresholds(0.9, 0.3), [1.0, 0.1 / 0.7])


@pytest.mark.parametrize("p_a, q_a", [(0.6, 0.8), (0.2, 0.5), (0.9, 0.3), (0.5, 0.5)])
def test_frequencies_converge_to_min_1_p_over_q(chapter, p_a, q_a):
    chapter.param.update(p_a=p_a, q_a=q_a)
    for _ in range(5):
        chapter.draw(1000)
    assert chapter.proposed.sum() == 5000
    rule = thresholds(p_a, q_a)
    for i in range(2):
        n, k = int(chapter.proposed[i]), int(chapter.kept[i])
        if rule[i] >= 1:
            assert k == n
        else:
            assert binomtest(k, n, rule[i]).pvalue > 1e-3
    # The table shows the live counts next to the rule.
    assert f"{rule[0]:.3f}" in chapter.freq_table.object


def test_one_draw_shows_u_against_the_threshold(chapter):
    chapter.draw(1)
    last = chapter.last
    assert last["kept"] == (last["u"] < last["threshold"])
    assert f"{last['u']:.3f}" in chapter.last_draw.object
    assert chapter.figs.u_src.data["u"] == [last["u"]]


def test_moving_a_slider_resets_the_counts(chapter):
    chapter.draw(1000)
    chapter.p_a = 0.3
    assert chapter.proposed.sum() == 0


def test_predict_question(chapter):
    chapter.predict.commit(chapter.predict.choices[2])
    chapter.draw(1000)
    assert chapter.predict.correct is True
    assert "0.75" in chapter.predict.choices[2]


def test_the_share_of_outputs_that_are_a_approaches_p_not_q(chapter):
    chapter.param.update(p_a=0.3, q_a=0.8)
    chapter.draw(20)
    for _ in range(10):
        chapter.draw(1000)
    assert chapter.outputs.sum() == 10020
    assert binomtest(int(chapter.outputs[0]), 10020, 0.3).pvalue > 1e-3
    assert abs(chapter.share_of_a() - 0.3) < 0.02 and abs(chapter.share_of_a() - 0.8) > 0.4
    line = chapter.figs.share_src.data
    assert line["n"][-1] == 10020 and line["share"][-1] == pytest.approx(chapter.share_of_a())
    assert list(line["n"]) == sorted(line["n"])
    assert f"{chapter.share_of_a():.3f}</b> of the outputs are A" in chapter.share_note.object
    chapter.reset()
    assert chapter.outputs.sum() == 0 and len(chapter.figs.share_src.data["n"]) == 0


def test_each_student_draws_their_own_reproducible_rounds(make_chapter, tiny_service):
    from serving.service import Owner
    from uikit.state import LabState

    def draws(browser, seed=0):
        ch = make_chapter(AcceptRuleChapter, LabState(tiny_service, owner=Owner(browser, "s"), seed=seed))
        ch.draw(50)
        return ch.last["u"], ch.outputs.tolist(), ch.proposed.tolist()
    assert draws("alice") == draws("alice")
    assert draws("alice") != draws("bob")
    assert draws("alice", seed=1) != draws("alice")


def test_share_chart_names_p_and_q_outside_the_plot_and_has_an_axis_before_any_draw(chapter):
    """The measured line spans the plot's whole width, so p(A) and q(A) are named in the legend under
    the plot, not written inside it; before the first draw the x axis already runs from 0."""
    from chapters.ch06_accept_rule.figures import SHARE_AXIS
    fig, pq = chapter.figs.share_fig, chapter.figs.lines_src
    legend = fig.legend[0]
    assert legend in fig.below and not [m for m in fig.center if type(m).__name__ == "Label"]
    assert (fig.x_range.start, fig.x_range.end) == (0, SHARE_AXIS)
    chapter.param.update(p_a=0.3, q_a=0.7)
    assert pq.data == dict(p=[0.3], q=[0.7])
    # the probability chart keeps its own p and q per token (the share chart's lines once took its name)
    assert chapter.figs.pq_src.data["p"] == [0.3, 0.7] and chapter.figs.pq_src.data["q"] == [0.7, pytest.approx(0.3)]
    assert [i.label.value for i in legend.items] == ["p(A) = 0.30: the target", "q(A) = 0.70: the draft alone",
                                                     "measured share of A"]
    assert legend.items[2].visible is False             # no measured line yet, so no entry for it
    chapter.draw(1000)
    assert fig.x_range.end == chapter.figs.share_src.data["n"][-1] == 1000 and legend.items[2].visible
    chapter.reset()
    assert fig.x_range.end == SHARE_AXIS and legend.items[2].visible is False


def test_a_few_draws_are_not_read_as_a_share(chapter):
    """One round writes A or B (a share of 1 or 0): the page says to draw more, not "1.000 of the
    outputs are A (give or take 0.980)"; from SETTLED rounds on it reads the share against p(A)."""
    from lab.experiments.twotokens import SETTLED
    chapter.draw(1)
    note = chapter.share_note.object
    assert "give or take" not in note and "of the outputs are A" not in note
    assert "After <b>1</b> round," in note and "draw more to see the share settle" in note
    chapter.draw(SETTLED - 2)
    assert "draw more" in chapter.share_note.object and f"After <b>{SETTLED - 1}</b> rounds" in chapter.share_note.object
    chapter.draw(1)
    note = chapter.share_note.object
    assert "draw more" not in note and "give or take" in note
    assert f"{chapter.share_of_a():.3f}</b> of the outputs are A" in note


def test_the_questions_choices_say_its_numbers():
    """The choices are the poll's keys, written out for the catalog: their numbers are the question's."""
    from chapters.ch06_accept_rule import CHOICES, QUESTION_P, QUESTION_Q
    assert f"p / q = {thresholds(QUESTION_P, QUESTION_Q)[0]:.2f}" in CHOICES[2]
    assert f"p = {QUESTION_P}" in CHOICES[3]
    assert f"q = {QUESTION_Q}" in AcceptRuleChapter.question and f"p = {QUESTION_P}" in AcceptRuleChapter.question
