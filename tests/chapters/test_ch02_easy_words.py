"""Chapter 2: the target's tokens marked easy/hard by the draft's first guess; click for candidates."""
import asyncio

import pytest

from chapters.ch02_easy_words import EasyWordsChapter


@pytest.fixture
def chapter(make_chapter, state):
    return make_chapter(EasyWordsChapter, state)


def test_ask_marks_every_token_easy_or_hard(chapter):
    positions = asyncio.run(chapter.ask())
    assert positions and len(chapter.strip.chips) == len(positions)
    for chip, p in zip(chapter.strip.chips, positions):
        assert chip.state == ("easy" if p.draft_guess_id == p.token_id else "hard")
    assert f"<b>{chapter.n_easy} of {len(positions)}</b>" in chapter.count.object
    assert f"That hit rate, {chapter.n_easy / len(positions):.2f}, is the kind of rate chapter 4 measures" in chapter.count.object


def test_the_count_answer_is_computed_from_the_live_models(chapter):
    chapter.predict.commit(20)
    asyncio.run(chapter.ask())
    assert chapter.predict.correct_answer() == chapter.n_easy
    assert chapter.predict.correct == (abs(20 - chapter.n_easy) <= 2)


def test_clicking_a_token_shows_both_models_top_candidates(chapter):
    positions = asyncio.run(chapter.ask())
    chapter.strip.selected = 0
    html = chapter.detail.object
    assert "small model’s top candidates" in html and "big model’s top candidates" in html
    assert positions[0].target_top[0].text.strip() in html


def test_the_prompt_comes_before_the_words(chapter):
    asyncio.run(chapter.ask())
    shown = chapter.prompt_line.object
    assert "The prompt:" in shown and chapter.state.prompt in shown
    assert shown.index(chapter.state.prompt) < shown.index("the big model continues")


def test_whitespace_tokens_are_narrow_visible_marks(chapter):
    from lab.experiments.compare import PositionGuess
    from lab.core.trace import Candidate
    from chapters.ch02_easy_words import marked
    texts = ["\n", " ", "\n\n", " cat"]
    positions = [PositionGuess(i, 10 + i, t, 10 + i, t, [Candidate(10 + i, t, 0.9)], [Candidate(10 + i, t, 0.9)])
                 for i, t in enumerate(texts)]
    chapter.show(positions)
    assert [c.text for c in chapter.strip.chips] == ["↵", "␣", "↵↵", " cat"]
    assert marked("\t") == "⇥" and marked("") == "∅"
    chapter.strip.selected = 0
    assert "“<b class=\"tok\">↵</b>”" in chapter.detail.object
