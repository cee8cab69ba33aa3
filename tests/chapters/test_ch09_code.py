import asyncio

import pytest

from chapters.ch09_code import CODE, CodeChapter, code_events, code_lines
from tests.helpers import step_to_end, until


@pytest.fixture
def chapter(make_chapter):
    """A loaded page of its own for each test (the tests step, select and change it)."""
    return make_chapter(CodeChapter, load=True)


def test_about_seventeen_lines_and_line_ten_is_the_test():
    assert len(CODE) == 17
    assert "min(1, p[x] / q[x])" in code_lines(False)[9]
    assert "x == argmax(p)" in code_lines(True)[9]


def test_stepping_shows_the_trace_kept_tokens(chapter):
    rounds, start = chapter.generation.rounds, chapter.round_index
    for k in range(len(rounds)):
        r = rounds[(start + k) % len(rounds)]
        step_to_end(chapter)
        assert [c.text for c in chapter.text_strip.chips[1:]] == r.emitted_texts
        asyncio.run(chapter.next_round())


def test_lines_light_up_with_their_variables(chapter):
    chapter.restart()
    r = chapter.round
    asyncio.run(chapter.advance())
    assert "class='on'" in chapter.code.object and "Line 1 just ran" in chapter.variables.object
    lines = [e.line for e in chapter.events]
    assert lines[:2] == [1, 2] and lines.count(4) == r.gamma and lines.count(6) == 1
    assert lines[-1] in (15, 17)
    # The accept test shows the engine's own numbers.
    ten = next(e for e in chapter.events if e.line == 10)
    d = r.guesses[0]
    assert f"{d.accept_probability:.3f}" in "".join(ten.variables.values())


def test_temperature_zero_reads_as_argmax(chapter):
    chapter.predict.commit(chapter.predict.choices[0])
    first = chapter.generation

    state = chapter.state
    assert state.shown_sampling() == chapter.settings.describe() != "greedy (temperature 0)"   # the slider's 0.7

    async def drag_to_zero():                  # what the slider's release sets; the page reloads on the loop
        chapter.temperature = 0.0
        assert state.shown_sampling() == "greedy (temperature 0)"           # the badge follows at once
        await until(lambda: chapter.generation is not None and chapter.generation is not first
                    and chapter.predict.ready,
                    message="a new generation at temperature 0")
    asyncio.run(drag_to_zero())
    assert chapter.temperature == 0.0 and chapter.generation.settings.greedy
    assert "x == argmax(p)" in chapter.code.object
    for r in chapter.generation.rounds:
        for e in code_events(r, "", True):
            if e.line == 10:
                assert "x == argmax(p)" in e.variables
    step_to_end(chapter)
    assert [c.text for c in chapter.text_strip.chips[1:]] == chapter.round.emitted_texts
    assert chapter.predict.correct is True
