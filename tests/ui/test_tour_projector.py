"""The guided tour read from the back row: every step measured on a projector's screen.

One page walks all steps in sequence (driven by the keyboard, as a presenter's clicker sends
them), presses what a lecturer presses on the way (ACTIONS), and measures each step from computed
styles and bounding boxes (tests/ui/tour_layout.js):

    1280×720    each step's address, sentence and components; code ≥ 16 px, nothing clipped or
                overlapping, nothing scrolls; a sample of steps passes axe-core (accessibility)
    2560×1440   a sample of steps (figure, code, predict card, strips, table): the 1920 rules, scaled

The 1920×1080 walk (body text ≥ 24 px, code ≥ 20 px, figure text ≥ 18 px, ≥ 60 % of the screen
covered, nothing clipped, overlapping or scrolling, the chapter menu whole, PageDown and PageUp) is
one with the walk that presses every step's action: tests/ui/test_tour_fits.py.
"""

from shell.tour.steps import TOUR
from tests.helpers import wait_until
from tests.ui.axe import TOUR_SAMPLE, check, settle as settle_page
from tests.ui.helpers import ACTIONS, open_page, rendered
from tests.ui.tour_rules import SMALLEST, fitted, problems, settled

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


def test_the_keyboard_walks_every_step_and_each_fits_a_1280x720_screen(page, server):
    """The tour walked by keyboard alone at 1280×720 (→ and Space forward, ← back), pressing what a
    lecturer presses on the way: each step's address and sentence, its components drawn with none
    missing or failed; code ≥ 16 px, nothing clipped or overlapping, nothing scrolls. Back is off on
    the first step, Next on the last, where → stays. A sample of steps (tests/ui/axe.py's TOUR_SAMPLE)
    passes axe-core as it opens."""
    open_page(page, f"{server}?tour=1")
    rendered(page, 1)
    assert page.locator(".tour-back").is_disabled()
    found = []
    for n in range(1, N + 1):
        rendered(page, n)
        step = TOUR[n - 1]
        assert f"tour={n}" in page.url
        assert page.locator(".tour-text").inner_text().strip() == step["text"]
        stage = page.locator(".tour-stage").first
        wait_until(lambda: stage.bounding_box() and stage.bounding_box()["height"] > 40, 30,
                   message=f"step {n}'s components")
        assert page.locator(".tour-error").count() == 0, f"step {n}: {page.locator('.tour-error').first.inner_text()}"
        assert page.locator(".tour-missing").count() == 0, f"step {n} names a component chapter {step['chapter']} lacks"
        if n in TOUR_SAMPLE:     # as a step opens: no serious or critical accessibility violation
            settle_page(page)
            check(page, f"?tour={n}")
        press(page, n)
        found += fitted(page, n, lambda m: problems(m, n, 16, None, None))
        if n < N:      # Space presses a focused button: only where no action was pressed
            page.keyboard.press("Space" if n % 2 == 0 and n not in ACTIONS else "ArrowRight")
    page.keyboard.press("ArrowRight")              # the end: → stays on the last step
    assert page.locator(".tour-counter").inner_text().strip() == f"{N} / {N}"
    assert page.locator(".tour-next").is_disabled()
    page.keyboard.press("ArrowLeft")               # one step back lands on N − 1 only if → stayed on N
    rendered(page, N - 1)
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
