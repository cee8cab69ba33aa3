import asyncio

import numpy as np
import pytest

from chapters.ch05_one_pass import OnePassChapter


@pytest.fixture
def chapter(make_chapter):
    """A loaded page of its own for each test (the tests step, select and change it)."""
    return make_chapter(OnePassChapter, load=True)


def test_a_real_round_is_drawn(chapter):
    r = chapter.round
    assert r is not None and r.p_rows.shape[0] == r.gamma + 1
    chips = chapter.strip.chips
    assert [c.text for c in chips[1:-1]] == [d.text for d in r.guesses]   # prefix, γ guesses, the extra position


def test_clicking_a_position_shows_q_and_p_there(chapter):
    r = chapter.round
    chapter.strip.selected = 3                      # chip 3 = guess 3 (chip 0 is the text so far)
    assert chapter.position == 2
    data = chapter.bar_src.data
    tok = chapter.state.service.pair.tokenizer
    ids = [tok.convert_tokens_to_ids(t.strip("“”").split(" (")[0]) for t in data["token"]]
    assert np.allclose(data["p"], r.p_rows[2][ids])
    assert np.allclose(data["q"], r.q_rows[2][ids])
    assert "assuming guesses 1…2 are right" in chapter.assumed.object


def test_the_extra_position_has_p_only(chapter):
    r = chapter.round
    chapter.select(r.gamma)
    assert not any(chapter.bar_src.data["q"])
    assert "only the target" in chapter.bar_fig.title.text


def test_predict_card_reveals_after_a_click(chapter):
    chapter.predict.commit(chapter.predict.choices[1])
    chapter.select(2)
    assert chapter.predict.correct is True


def test_next_round_moves_on(chapter):
    before = chapter.round_index
    asyncio.run(chapter.next_round())
    assert chapter.round_index == (before + 1) % len(chapter.generation.rounds)


def test_first_timers_read_words_not_shapes_and_quoted_16px_labels(chapter):
    r = chapter.round
    rows, vocabulary = r.p_rows.shape
    note = chapter.round_note.object
    assert str(tuple(r.p_rows.shape)) not in note
    assert f"{rows} distributions p, one per position" in note and f"{vocabulary:,} tokens" in note
    assert all(t.startswith("“") and t.endswith("”") for t in chapter.bar_src.data["token"])
    assert float(chapter.bar_fig.xaxis[0].major_label_text_font_size.rstrip("px")) >= 16


def test_the_legend_sits_outside_the_bars(make_chapter):
    """The top candidates change every position and the tallest bar can be any of them: a legend
    inside the plot covered it. It sits above the plot, where no bar can reach."""
    fig = make_chapter(OnePassChapter).bar_fig
    assert fig.legend[0] in fig.above and fig.legend[0] not in fig.center


def test_a_replaced_x_range_is_restored_not_a_traceback(make_chapter, caplog):
    """Seen once on a served page: the bar chart held a DataRange1d when a round was drawn, and
    setting its factors raised. The chart keeps its own categorical range (its bars are dodged on
    it), says in the log what it found, and draws."""
    from bokeh.models import DataRange1d
    ch = make_chapter(OnePassChapter, load=True)
    own = ch.bar_fig.x_range
    ch.bar_fig.x_range = DataRange1d()
    with caplog.at_level("WARNING"):
        ch.select(1)
    assert ch.bar_fig.x_range is own and list(own.factors) == ch.bar_src.data["token"]
    assert "x range was a DataRange1d" in caplog.text


def test_a_greedy_session_is_sampled_from_a_cooled_nucleus_on_5_8_and_9(make_chapter, state):
    """A greedy session's rounds on chapters 5, 8 and 9: not temperature 1 over the whole vocabulary
    (a rare token every few words reads as nonsense), but temperature 0.7 with top-p 0.9, where p and
    q are still real distributions; the three pages (and the warm-up) share the one generation."""
    from chapters.ch08_full_round import FullRoundChapter
    from chapters.ch09_code import CodeChapter
    from lab.core.sampling import SamplingSettings
    assert state.settings.greedy
    pages = [make_chapter(cls, state, load=cls is OnePassChapter)
             for cls in (OnePassChapter, FullRoundChapter, CodeChapter)]
    wanted = SamplingSettings(0.7, 0, 0.9)
    assert [p.refresh_settings() for p in pages] == [wanted] * 3
    (job,) = OnePassChapter.warmup(state)
    assert job[3]["settings"] == wanted
    assert "temperature 0.7, top-p 0.9" in pages[0].round_note.object
    assert pages[0].generation.settings == wanted
    state.temperature = 1.2                         # a sampling session keeps its own settings
    assert pages[0].refresh_settings() == SamplingSettings(1.2, 0, 1.0)


def test_the_round_note_says_what_a_token_is(chapter):
    """Issue 49.7: the round's chips may be pieces of words (" o" of "on"): its note says a token is
    a word or a piece of one, naming a piece of this round's when it has one."""
    from uikit.tokens import word_piece
    r = chapter.round
    note = chapter.round_note.object
    assert "Each token is a word or a piece of one" in note
    piece = word_piece([d.text for d in r.guesses], chapter.state.service.pair.tokenizer.decode(r.prefix_ids))
    assert (piece is None) == ("here is part of a word" not in note)
