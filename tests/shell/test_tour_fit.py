"""A tour step's figures answer the room the browser reports (shell/tour_fit.py, through Tour.fit).

Step 19 shows chapter 6's sliders beside its region figure, a figure of a fixed width and height.
"""
import pytest

from shell.tour import Tour
from shell.tour_fit import SMALLEST


@pytest.fixture
def tour(state):
    return Tour(state, step=19)


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
