"""The guided tour read from the back row: every step measured on a projector's screen.

One page walks all steps in sequence (driven by PageDown and PageUp, as a presenter's clicker sends
them), presses what a lecturer presses on the way (ACTIONS), and measures each step from computed
styles and bounding boxes (tests/ui/tour_layout.js):

    1920×1080   body text ≥ 24 px, code ≥ 20 px, figure text (Bokeh axes, ticks, legends, labels)
                ≥ 18 px; the step's content covers ≥ 60 % of the screen's height or width; no
                text box overflows its box or a box that clips it; no two controls or figures
                overlap; the chapter menu shows every name whole; nothing scrolls
    1280×720    the same walk: code ≥ 16 px, nothing clipped or overlapping, nothing scrolls
    2560×1440   a sample of steps (figure, code, predict card, strips, table): the 1920 rules, scaled

Screenshots of every step at 1920×1080: tests/ui/screenshots/tour-1920-stepNN.png.
"""

from shell.tour.steps import TOUR
from tests.helpers import wait_until
from tests.ui.helpers import ACTIONS, open_page, rendered
from tests.ui.tour_rules import SMALLEST, problems, settled

N = len(TOUR)


def press(page, n: int) -> None:
    """Press step n's action, if it has one, and wait until its button is free again."""
    if n not in ACTIONS:
        return
    label, times = ACTIONS[n] if isinstance(ACTIONS[n], tuple) else (ACTIONS[n], 1)
    button = page.get_by_role("button", name=label, exact=True).first
    for _ in range(times):
        button.click()
        wait_until(lambda: button.is_enabled(), timeout=90, message=f"step {n}'s {label!r} to finish")


def height_used(m: dict) -> float:
    """The share of the screen's height a step's content spans."""
    left, top, right, bottom = m["union"]
    return (bottom - top) / m["vh"]


def walk(page, server, key: str, code_min: float, rules: dict | None, cover: float | None,
         shoot=None, heights: dict | None = None) -> list[str]:
    """Walk every step from the first with `key`, pressing each step's action, and return the
    problems found in the settled steps; `shoot(page, n)` is called on each step once measured,
    and `heights` (if given) gets each step's share of the screen's height."""
    open_page(page, f"{server}?tour=1")
    found = []
    for n in range(1, N + 1):
        rendered(page, n)
        press(page, n)
        m = settled(page, n)
        if heights is not None:
            heights[n] = height_used(m)
        found += problems(m, n, code_min, rules, cover)
        if shoot:
            shoot(page, n)
        if n < N:
            page.keyboard.press(key)
    return found


def test_every_step_reads_from_the_back_row_at_1920x1080(page, server, shot):
    page.set_viewport_size({"width": 1920, "height": 1080})
    heights: dict[int, float] = {}
    found = walk(page, server, "PageDown", 20, SMALLEST, cover=0.6,      # PageDown: a presenter's clicker
                 shoot=lambda pg, n: shot(pg, f"tour-1920-step{n:02d}"), heights=heights)
    # the screen is used: at least 80 % of the steps span 60 % of its height (a step without a figure
    # grows its chips, then the whole step, assets/tour.js; one with figures grows them)
    short = sorted(n for n, h in heights.items() if h < 0.6)
    assert len(short) <= 0.2 * N, f"steps using under 60 % of the height: {short}"
    page.keyboard.press("PageDown")              # the last step stays
    assert page.locator(".tour-counter").inner_text().strip() == f"{N} / {N}"
    page.keyboard.press("PageUp")
    rendered(page, N - 1)
    page.keyboard.press("PageUp")
    rendered(page, N - 2)
    assert f"tour={N - 2}" in page.url
    assert not found, "\n".join(found)


def test_every_step_fits_a_1280x720_screen_without_scrolling(page, server):
    found = walk(page, server, "ArrowRight", 16, None, cover=None)
    assert not found, "\n".join(found)


def test_sample_steps_at_2560x1440(page, server):
    """Figures and their room, code, a predict card, token strips and a table, at 2560×1440."""
    page.set_viewport_size({"width": 2560, "height": 1440})
    rules = {kind: size * 2560 / 1920 for kind, size in SMALLEST.items()}
    found = []
    for n in (2, 3, 13, 19, 27, 29, 33):
        open_page(page, f"{server}?tour={n}")
        found += problems(settled(page, n), n, rules["code"], rules, cover=0.6)
    assert not found, "\n".join(found)
