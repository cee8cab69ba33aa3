"""The guided tour in a browser: fullscreen, leave, resume from a step URL (the walk of every step by
keyboard: tests/ui/test_tour_fits.py, with its measurements at 1920×1080 and 1280×720).

Each step's live components are put on the page by Python after the browser moves; the tour marks
`document.documentElement.dataset.tourRendered` with the step number once they are there.
"""
import panel as pn

from chapters.registry import chapter_pages
from shell.tour.steps import TOUR, first_step
from tests.helpers import wait_until
from tests.ui.helpers import no_scroll, open_page, rendered

N = len(TOUR)
SLUG = {p.number: p.slug for p in chapter_pages()}


def open_step(page, server, n: int):
    open_page(page, f"{server}?tour={n}")
    rendered(page, n)


def test_step_28_points_at_the_round_where_every_draft_is_kept():
    from serving.service import ModelService
    from lab.pairs.tiny import tiny_pair
    from shell.tour.view import Tour
    from uikit.state import LabState

    pair = tiny_pair()
    label = "Show a round where every draft is kept"
    tour = Tour(LabState(ModelService(lambda: pair)), step=28)
    assert label in TOUR[27]["text"]
    buttons = [b for obj in tour.stage.objects for b in obj.select(pn.widgets.Button)]
    assert [b.label for b in buttons][:2] == [label, "Step"]
    assert buttons[0] is tour.chapter(8).find_button          # the chapter's own button, not a copy


MEASURED_POSITIONS = """() => {
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (m.type !== "ColumnDataSource") continue;
    const data = m.data instanceof Map ? m.data : new Map(Object.entries(m.data));
    if (data.has("positions") && data.has("ratio")) return data.get("positions").length;
  }
  return -1;
}"""


def test_a_measurement_starts_two_steps_before_its_step(page, server):
    """Step 10 times the target (chapter 3's Measure): the tour starts it while the lecturer is on
    step 8, so step 10's chart is drawn without anyone pressing Measure."""
    n = next(i + 1 for i, s in enumerate(TOUR) if s.get("prefetch") == "measure")
    open_step(page, server, n - 2)
    page.keyboard.press("PageDown")
    rendered(page, n - 1)
    page.keyboard.press("PageDown")
    rendered(page, n)
    wait_until(lambda: page.evaluate(MEASURED_POSITIONS) > 0, timeout=120,
               message="step 10's chart to be drawn from the measurement started ahead")


def test_a_step_url_opens_that_step_and_the_url_follows(page, server):
    open_step(page, server, 17)
    n = TOUR[16]["chapter"]
    assert page.get_by_text("Your prompt & sampling settings").count() == 0   # the projector shows the step alone
    assert page.locator(".tour-where").inner_text().upper().startswith(f"CHAPTER {n} ")
    assert page.locator("select.tour-jump").input_value() == str(first_step(n))
    page.locator(".tour-next").click()
    rendered(page, 18)
    page.wait_for_url("**?tour=18", timeout=30000)
    page.locator(".tour-back").click()
    rendered(page, 17)
    open_page(page, f"{server}?tour=9999")     # out of range: the last step
    rendered(page, N)
    page.wait_for_url(f"**?tour={N}", timeout=30000)


def test_the_chapter_menu_jumps_to_a_chapter(page, server):
    open_step(page, server, 1)
    page.locator("select.tour-jump").select_option(str(first_step(6)))
    rendered(page, first_step(6))
    assert page.locator(".tour-where").inner_text().upper().startswith("CHAPTER 6 ")


def test_f_toggles_fullscreen(page, server):
    open_step(page, server, 2)
    page.keyboard.press("f")
    wait_until(lambda: page.evaluate("document.fullscreenElement !== null"), 10, message="fullscreen")
    wait_until(lambda: page.locator(".tour-fs").get_attribute("aria-pressed") == "true", 10,
               message="the button says fullscreen is on (set by the fullscreenchange event)")
    page.keyboard.press("f")
    wait_until(lambda: page.evaluate("document.fullscreenElement === null"), 10, message="leaving fullscreen")
    page.locator(".tour-fs").click()     # the same by its button
    wait_until(lambda: page.evaluate("document.fullscreenElement !== null"), 10, message="fullscreen (button)")
    page.locator(".tour-fs").click()
    wait_until(lambda: page.evaluate("document.fullscreenElement === null"), 10, message="leaving (button)")


def test_esc_leaves_to_the_chapter_or_the_landing_page(page, server):
    open_step(page, server, first_step(2) + 1)
    page.keyboard.press("Escape")
    page.wait_for_url(f"**?chapter={SLUG[2]}", timeout=30000)
    page.get_by_text("Most words are easy.", exact=True).first.wait_for(timeout=60000)
    open_step(page, server, 1)
    page.keyboard.press("Escape")
    page.wait_for_url(lambda url: "tour=" not in url, timeout=30000)
    page.get_by_text("Can a small model make a big one faster", exact=False).first.wait_for(timeout=60000)


def test_keys_are_left_to_text_fields_and_buttons(page, server):
    n = next(i + 1 for i, s in enumerate(TOUR) if "context" in repr(s.get("show")))   # ch 7's text field
    open_step(page, server, n)
    field = page.get_by_label("Context", exact=False).first
    field.click()
    for key in ("ArrowRight", "ArrowLeft", "Space", "Escape", "f"):
        field.press(key)
    assert page.evaluate("document.fullscreenElement === null")
    # then → outside the field: the tour moves exactly one step, so none of the keys above moved it
    page.evaluate("() => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement)"
                  " a = a.shadowRoot.activeElement; a && a.blur(); }")
    page.keyboard.press("ArrowRight")
    rendered(page, n + 1)
    assert f"tour={n + 1}" in page.url
    # arrows on a focused slider move the slider, not the tour
    n = next(i + 1 for i, s in enumerate(TOUR) if "p_slider" in repr(s.get("show")))     # ch 6
    open_step(page, server, n)
    handle = page.locator(".tour-stage [role=slider]").first
    before = handle.get_attribute("aria-valuetext")
    handle.focus()
    handle.press("ArrowRight")
    wait_until(lambda: handle.get_attribute("aria-valuetext") != before, 10, message="the slider to move")
    assert page.locator(".tour-counter").inner_text().strip() == f"{n} / {N}"
    # Space on a focused tour button presses that button (Back), it does not also step forward; and
    # Back lands on n − 1 only if the slider's arrow did not move the tour
    page.locator(".tour-back").focus()
    page.keyboard.press("Space")
    rendered(page, n - 1)


def test_tour_screenshots_at_projector_sizes(page, server, shot):
    step = first_step(6) + 1
    open_step(page, server, step)
    shot(page, "tour-1280x720")
    scroll, height = no_scroll(page)
    assert scroll <= height + 2
    figure, slider = page.locator(".tour-stage canvas").first, page.locator(".tour-stage .bk-slider-title").first
    small = figure.bounding_box(), float(slider.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))
    page.set_viewport_size({"width": 1920, "height": 1080})
    # on the projector the step's figure and its widgets' type grow with the screen (×1.5 here)
    wait_until(lambda: figure.bounding_box()["width"] >= 1.4 * small[0]["width"], timeout=20,
               message="the figure to grow at 1920×1080")
    assert figure.bounding_box()["height"] >= 1.4 * small[0]["height"]
    assert slider.evaluate("el => parseFloat(getComputedStyle(el).fontSize)") >= 1.4 * small[1]
    def main_width():
        return page.evaluate("() => { const m = document.querySelector('#main'); return [m.scrollWidth, m.clientWidth]; }")
    # the fit may take a round or two (grow into the room, then give back what would scroll)
    wait_until(lambda: no_scroll(page)[0] <= no_scroll(page)[1] + 2 and main_width()[0] <= main_width()[1] + 2,
               timeout=30, message="the step to fit the projector's screen, no taller and no wider")
    shot(page, "tour-1920x1080")


def test_a_step_wider_than_the_screen_gives_width_back(page, server):
    """A 1024×768 projector (scale 1, narrower than the 1280 px a step is laid out for): step 19's
    sliders and figure overflow sideways until the figure, of a fixed width, shrinks to fit."""
    step = first_step(6) + 1
    open_step(page, server, step)
    page.set_viewport_size({"width": 1024, "height": 768})
    wait_until(lambda: page.evaluate("() => { const m = document.querySelector('#main');"
                                     " return m.scrollWidth <= m.clientWidth + 2; }"), timeout=30,
               message="the step to shrink to the screen's width")
    box = page.locator(".tour-stage canvas").first.bounding_box()
    assert box["x"] + box["width"] <= 1024


def test_tour_from_a_chapter_page(page, server):
    open_page(page, f"{server}?chapter={SLUG[6]}", "Keep a guess as often as the target agrees", timeout=90)
    page.get_by_role("link", name="▶ Tour from here").click()
    rendered(page, first_step(6))
    assert page.locator(".tour-where").inner_text().upper().startswith("CHAPTER 6 ")


def test_every_prefetch_names_a_coroutine_of_its_chapter():
    """A step's "prefetch" is started by name two steps ahead: it must be a coroutine method of the
    chapter the step shows (chapter 3's measurement, chapter 10's measure_live, chapters 12 and 13)."""
    import inspect

    from chapters.registry import page_by_number
    named = [(s["chapter"], s["prefetch"]) for s in TOUR if "prefetch" in s]
    assert (3, "measure") in named and (10, "measure_live") in named
    for number, name in named:
        method = getattr(page_by_number(number).chapter_class, name, None)
        assert inspect.iscoroutinefunction(method), f"chapter {number} has no coroutine {name!r}"
