"""What tour steps put on the stage, without a browser: the words agree with what is shown, a legend
names every state its lanes draw, a step about a word's candidates shows a word's, and no tooltip
hides a control (the browser walk, tests/ui/test_tour_fits.py, measures the same steps on screen)."""
import asyncio
import re

import panel as pn
import pytest

from shell.tour.view import Tour
from shell.tour.steps import TOUR
from tests.helpers import measured
from uikit.tokens import NUMBER_WORDS

WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS[2:]) + r")\b", re.IGNORECASE)


def said(step: int) -> int:
    """The count step `step`'s sentence spells out."""
    return NUMBER_WORDS.index(WORD.search(TOUR[step - 1]["text"]).group(1).lower())


def step_of(text: str) -> int:
    return next(i + 1 for i, s in enumerate(TOUR) if s["text"].startswith(text))


def html_on_stage(tour) -> str:
    return "".join(p.object or "" for obj in tour.stage.objects for p in obj.select(pn.pane.HTML))


@pytest.fixture
def tour(state):
    return Tour(state, step=1)


def test_the_ways_to_guess_are_the_rows_of_the_table(tour):
    n = next(i + 1 for i, s in enumerate(TOUR) if "ways to guess" in s["text"])
    tour.deck.step = n
    rows = measured(tour.chapter(12))
    assert rows, "chapter 12 measured nothing"
    shown = html_on_stage(tour).count("data-drafting=")
    assert said(n) == shown == len(rows)


def test_the_lines_of_code_and_the_words_to_check_are_counted_from_the_chapters(tour):
    code = next(i + 1 for i, s in enumerate(TOUR) if "lines: Step lights" in s["text"])
    tour.deck.step = code
    assert said(code) == html_on_stage(tour).count("<span class='ln'>") > 0
    tick = next(i + 1 for i, s in enumerate(TOUR) if s.get("action") == "Tick the clock")
    tour.deck.step = tick
    chapter = tour.chapter(3)
    asyncio.run(chapter.tick())
    assert said(tick) == len(chapter.check_strip.chips)


def test_the_legend_of_the_lanes_names_every_state_they_show(tour):
    rounds = next(i + 1 for i, s in enumerate(TOUR) if s.get("action") == "▶ Next round")
    tour.deck.step = rounds
    chapter = tour.chapter(4)
    for _ in range(6):
        asyncio.run(chapter.next_round())
    shown = {c.state for strip in (chapter.standard_strip, chapter.spec_strip) for c in strip.chips}
    assert {"target_call", "kept", "rejected", "dropped"} <= shown     # the tiny pair misses and recovers
    tour.deck.step = rounds + 1
    legend = next(p.object for obj in tour.stage.objects for p in obj.select(pn.pane.HTML)
                  if 'class="legend"' in (p.object or ""))
    assert {s for s in shown if f"chip-{s}" not in legend} == set()


def test_the_step_about_candidates_opens_on_a_hard_word(tour):
    ask = next(i + 1 for i, s in enumerate(TOUR) if s.get("action") == "Ask the small model")
    tour.deck.step = ask
    chapter = tour.chapter(2)
    asyncio.run(chapter.ask())
    assert chapter.strip.selected is None and chapter.detail.object == ""
    tour.deck.step = ask + 1
    states = [c.state for c in chapter.strip.chips]
    assert chapter.strip.selected == states.index("hard")
    assert f"Word {states.index('hard') + 1}:" in chapter.detail.object


def test_buttons_on_the_stage_carry_no_tooltip_and_the_summary_sits_beside_its_table(tour):
    write = next(i + 1 for i, s in enumerate(TOUR) if s.get("action") == "✎ Write")
    assert tour.chapter(1).write_button.description            # the chapter page keeps its tooltip
    tour.deck.step = write
    buttons = [b for obj in tour.stage.objects for b in obj.select(pn.widgets.Button)]
    assert buttons and all(b.description is None for b in buttons)
    tour.deck.step = step_of("The same tokens from at most")
    assert "tour-beside" in tour.stage.objects[0].css_classes
