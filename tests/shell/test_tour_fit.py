"""A tour step's figures answer the room the browser reports (shell/tour/fit.py, through Tour.fit).

Step 19 shows chapter 6's sliders beside its region figure: on its page a figure that widens with the
page (a projector) between a least and a greatest width, on the stage one of a fixed width and height.
"""
import pytest

from chapters import registry
from chapters.ch06_accept_rule.figures import FIG_MAX_WIDTH, FIG_WIDTH
from shell.tour.view import Tour
from shell.tour.fit import SMALLEST
from shell.tour.steps import TOUR


@pytest.fixture
def tour(state):
    return Tour(state, step=19)


def test_a_figure_that_widens_with_its_page_is_fixed_at_its_least_width_on_the_stage(tour, state):
    page_fig = registry.build(registry.page_by_slug("accept-rule"), state).region_fig
    assert (page_fig.sizing_mode, page_fig.min_width, page_fig.max_width) == ("stretch_width", FIG_WIDTH, FIG_MAX_WIDTH)
    fig = tour.chapter(6).region_fig
    assert (fig.sizing_mode, fig.width, fig.max_width) == ("fixed", FIG_WIDTH, None)


def test_a_step_wider_than_the_screen_shrinks_its_fixed_width_figure(tour):
    fig = tour.chapter(6).region_fig
    w0, h0 = fig.width, fig.height
    tour.deck.room = {"step": 19, "height": 0, "width": -60}       # 60 px too wide
    assert (fig.width, fig.height) == (w0 - 60, h0)
    tour.deck.room = {"step": 19, "height": 150, "width": -30}     # taller room, still too wide
    assert (fig.width, fig.height) == (w0 - 90, h0 + 150)
    tour.deck.room = {"step": 19, "height": 0, "width": -10_000}   # never below the floor
    assert fig.width == round(w0 * SMALLEST)


def test_free_width_is_taken_only_with_free_height(tour):
    fig = tour.chapter(6).region_fig
    w0, h0 = fig.width, fig.height
    tour.deck.room = {"step": 19, "height": -40, "width": 300}
    assert (fig.width, fig.height) == (w0, h0 - 40)


def test_a_restore_gives_shrunk_figures_their_sizes_back(tour):
    """A progress line pushed the step off the screen and went away again: the browser reports
    `restore`, and the figures take their sizes at this scale again, before growing into the room."""
    fig = tour.chapter(6).region_fig
    w0, h0 = fig.width, fig.height
    tour.deck.room = {"step": 19, "height": -80, "width": -40, "seq": 1}
    assert (fig.width, fig.height) == (w0 - 40, h0 - 80)
    tour.deck.room = {"step": 19, "height": 10, "width": 0, "restore": True, "seq": 2}
    assert (fig.width, fig.height) == (w0, h0)
    tour.deck.room = {"step": 19, "height": 30, "width": 0, "seq": 3}
    assert fig.height == h0 + 30


def test_the_projector_uses_a_taller_projector_chart_beside_a_long_list_of_choices():
    from uikit.pollchart import live_height
    assert live_height(3, numeric=False) == live_height(4, numeric=False) == 120
    assert live_height(6, numeric=False) == 200
    assert live_height(21, numeric=True) == 120       # a number question: its chart is the card's tallest


def test_a_slider_is_as_wide_as_its_title_on_the_projector(state):
    """Chapter 9's "Temperature (0 = greedy): 0.70" fits its slider at every scale (its chapter
    width, 240 px, scaled, would cut it at 24 px type)."""
    step = next(i + 1 for i, s in enumerate(TOUR) if "temperature_slider" in str(s["show"]))
    tour = Tour(state, step=step)
    slider = tour.chapter(9).temperature_slider
    title = f"{slider.name}: {slider.value:.2f}"
    for scale in (1.0, 1.5, 2.0):
        tour.deck.scale = scale
        assert slider.width >= len(title) * 0.54 * 16 * scale      # 0.54 em a character, as drawn
        assert slider.width >= round(240 * scale)
