"""Sliders computed in the browser (uikit.browser): a drag redraws the page and sends the server
nothing; letting go sends the value once, and Python's view follows it."""
from playwright.sync_api import Error as PlaywrightError

from tests.helpers import wait_until
from chapters.ch10_breakeven import CHOICES
from tests.ui.helpers import BOKEH_SOURCES, SLIDER_VALUE, act, open_page


class Frames:
    """The websocket frames the page sends and receives (Playwright delivers them to these lists
    while the test talks to the page, so a poll of them calls `page.evaluate` too)."""

    def __init__(self, page):
        self.sent: list[str] = []
        self.received: list[str] = []

        def watch(ws):
            ws.on("framesent", lambda payload: self.sent.append(str(payload)))
            ws.on("framereceived", lambda payload: self.received.append(str(payload)))
        page.on("websocket", watch)


def drag(page, handle, dx: float, frames: Frames) -> int:
    """Drag a slider's handle by dx pixels, in steps; the frames sent while the mouse was down."""
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    before = len(frames.sent)
    page.mouse.down()
    page.mouse.move(x + dx, y, steps=12)
    return before


def build_sections(page) -> None:
    """Scroll to each section of the page built when first shown (uikit.lazy) until all are built,
    so that their one message each is not sent while a test counts a drag's frames."""
    box = page.locator(".speclab-lazy")
    while (left := box.count()):
        try:
            box.first.scroll_into_view_if_needed(timeout=10000)
        except PlaywrightError:     # built (and replaced) between the count and the scroll: count again
            continue
        wait_until(lambda: box.count() < left, message="a section built when scrolled to")


def point_alpha(page) -> float:
    return [d for d in page.evaluate(BOKEH_SOURCES, ["alpha", "speedup"]) if len(d["alpha"]) == 1][0]["alpha"][0]


def test_ch10_alpha_drag_redraws_in_the_browser_and_sends_nothing(page, server):
    frames = Frames(page)
    open_page(page, server + "?chapter=breakeven", "Tokens per round, divided by cost per round.")
    wait_until(lambda: page.evaluate(BOKEH_SOURCES, ["alpha"]), message="chapter 10's figures")
    assert point_alpha(page) == 0.8
    build_sections(page)
    formula = page.locator(".speclab-formula", has_text="E = (1").first
    before = drag(page, page.locator(".noUi-handle").filter(visible=True).first, -70, frames)   # α
    # the point, the curve's read-out and the slider agree while the mouse is still down
    a = page.evaluate(SLIDER_VALUE, "α")
    wait_until(lambda: point_alpha(page) == a < 0.8 and f"(1 − {a:.2f})" in formula.inner_text(),
               message="the plot and the read-out to follow the α slider during the drag")
    assert len(frames.sent) == before, f"a drag sent {frames.sent[before:]}"
    received = len(frames.received)
    page.mouse.up()
    # letting go sends the value once; Python's α follows: its own read-out comes back at that α
    wait_until(lambda: page.evaluate("0") == 0 and any(f"{a:.2f}&lt;sup&gt;5" in f for f in frames.received[received:]),
               message="Python's read-out at the released α")
    patches = [f for f in frames.sent[before:] if '"msgtype":"PATCH-DOC"' in f]
    assert len(patches) == 2, frames.sent[before:]     # the value, then value_throttled
    assert f"(1 − {a:.2f})" in formula.inner_text() and point_alpha(page) == a


def test_ch10_try_button_moves_the_sliders_and_the_browser_redraw(page, server):
    open_page(page, server + "?chapter=breakeven", "Tokens per round, divided by cost per round.")
    page.locator(".choice button").nth(CHOICES.index("slower")).click()     # the predict card answered: slower
    act(page, "try-question").click()
    page.get_by_text("slower than standard decoding", exact=False).first.wait_for()
    wait_until(lambda: page.evaluate(SLIDER_VALUE, "α") == 0.6 and point_alpha(page) == 0.6,
               message="the sliders and the plot at the question's α")


def test_ch06_p_drag_redraws_the_regions_in_the_browser_and_sends_nothing(page, server):
    frames = Frames(page)
    open_page(page, server + "?chapter=accept-rule", "Keep a guess as often as the target agrees.")
    act(page, "draw-many").click()
    page.get_by_text("Last of 1000 draws", exact=False).wait_for()
    build_sections(page)

    def p_drawn():
        return [d for d in page.evaluate(BOKEH_SOURCES, ["token", "p", "q"])][0]["p"][0]
    assert p_drawn() == 0.6
    before = drag(page, page.locator(".noUi-handle").filter(visible=True).first, 60, frames)   # p(A)
    p = page.evaluate(SLIDER_VALUE, "p(A)")
    wait_until(lambda: p_drawn() == p > 0.6 and page.get_by_text("Press Draw", exact=False).first.is_visible(),
               message="the regions and the cleared counts to follow p(A) during the drag")
    assert len(frames.sent) == before, f"a drag sent {frames.sent[before:]}"
    received = len(frames.received)
    page.mouse.up()
    # Python's p(A) follows: its frequency table comes back at that p(A), the counts reset
    wait_until(lambda: page.evaluate("0") == 0 and any(f"&lt;td&gt;{p:.2f}&lt;/td&gt;" in f
                                                       for f in frames.received[received:]),
               message="Python's table at the released p(A)")
    act(page, "draw").click()
    wait_until(lambda: [d["n"] for d in page.evaluate(BOKEH_SOURCES, ["n", "share"])] == [[1]],
               message="the one draw at the released p(A) on the share line")
    assert p_drawn() == p


# The α of the point the figure on the page draws: its scatter renderer's source, read through the figure.
DRAWN_POINT = """() => {
  for (const d of Bokeh.documents)
    for (const m of d.all_models)
      if (m.type === 'GlyphRenderer' && m.glyph.type === 'Scatter' && m.data_source.data.alpha?.length === 1)
        return m.data_source.data.alpha[0];
  return null;
}"""


def test_ch10_figures_built_when_scrolled_to_follow_a_drag(page, server):
    """Chapter 10's figures and table are built when the student scrolls to them (uikit.lazy); a drag
    after that redraws them in the browser, and still sends nothing."""
    frames = Frames(page)
    open_page(page, server + "?chapter=breakeven", "Tokens per round, divided by cost per round.")
    box = page.locator(".speclab-lazy").first
    box.wait_for(state="attached")
    assert page.evaluate(DRAWN_POINT) is None and page.locator(".speclab-table").count() == 0
    box.scroll_into_view_if_needed()
    wait_until(lambda: page.evaluate(DRAWN_POINT) == 0.8 and page.locator(".speclab-table").count() == 1,
               message="the figures and the table, built once scrolled to")
    before = drag(page, page.locator(".noUi-handle").filter(visible=True).first, -70, frames)   # α
    a = page.evaluate(SLIDER_VALUE, "α")
    current = page.locator(".speclab-table tr.current").first
    wait_until(lambda: page.evaluate(DRAWN_POINT) == a < 0.8 and f"α = {a:g}, γ = 4" in current.inner_text(),
               message="the built figure and table to follow the α slider during the drag")
    assert len(frames.sent) == before, f"a drag sent {frames.sent[before:]}"
    page.mouse.up()


def test_ch10_tour_step_sliders_redraw_in_the_browser(page, server):
    """The tour's step with chapter 10's sliders and α figure but not its table: a drag redraws the
    figure and the read-out (the redraw leaves out the panes the step does not show). The frames are
    not counted: the tour reports its free room as the step settles."""
    frames = Frames(page)
    page.goto(server + "?tour=33", wait_until="domcontentloaded")
    page.wait_for_function("document.documentElement.dataset.tourRendered === '33'", timeout=90000)
    wait_until(lambda: page.evaluate(DRAWN_POINT) == 0.8, message="the tour's α figure")
    assert page.locator(".speclab-table").count() == 0
    drag(page, page.locator(".noUi-handle").filter(visible=True).first, -70, frames)   # α
    a = page.evaluate(SLIDER_VALUE, "α")
    formula = page.locator(".speclab-formula", has_text="E = (1").first
    wait_until(lambda: page.evaluate(DRAWN_POINT) == a < 0.8 and f"(1 − {a:.2f})" in formula.inner_text(),
               message="the tour's figure and read-out to follow the α slider during the drag")
    page.mouse.up()
