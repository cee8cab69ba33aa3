"""Every tour step fits a 1920×1080 projector after the lecturer's action, reads from the back row,
says what it shows, and fits a 1280×720 screen too.

One page walks the tour from step 1 by keyboard alone: mostly PageDown, as a presenter's clicker
sends, with → and Space on some steps (Space only where no action was pressed: it presses a focused
button). On each step it checks the step's address (tour=N in the url) and sentence, its components
drawn with none missing or failed, and on a sample of steps (tests/ui/axe.py's TOUR_SAMPLE) axe-core
as the step opens (at 1920×1080). It then presses the step's own action (TOUR[n]["action"],
"presses" times: ✎ Write, Tick the clock, Use my models, …), waits for that work to end and the
step's fit to end (figures grow into the free room or shrink out of the lack of it; a step without a
figure zooms: assets/tour.js; tests/ui/tour_rules.fitted), then measures the step (tests/ui/tour_layout.js):

    1920×1080   nothing scrolls, down or sideways, no text lies off the screen, and the figures'
                type is at least FIGURE_TYPE px; read from the back row (tests/ui/tour_rules.py),
                body text ≥ 24 px, code ≥ 20 px, figure text ≥ 18 px, the content covers ≥ 60 % of
                the screen's height or width, no text box overflows its box or a box that clips
                it, no two controls or figures overlap, the chapter menu shows every name whole.
                A step whose sentence counts something ("Six ways to guess") shows exactly that
                many rows.
    1280×720    the same step, the screen made smaller (then 1920×1080 again): code ≥ 16 px,
                nothing clipped or overlapping, nothing scrolls, the chapter menu whole.

Back is off on the first step, Next on the last, where PageDown and → stay; ← and PageUp go back.
Screenshots of every step (at 1920×1080): tests/ui/screenshots/tour-1920-stepNN.png.
(The 2560×1440 sample: tests/ui/test_tour_projector.py.)
"""
import re

from shell.tour.steps import TOUR
from tests.helpers import wait_until
from tests.ui.axe import TOUR_SAMPLE, check, settle as settle_page
from tests.ui.helpers import open_page, rendered
from tests.ui.tour_rules import SMALLEST, fitted, fitted_measured, problems
from uikit.tokens import NUMBER_WORDS

N = len(TOUR)
FIGURE_TYPE = 18     # px at 1920×1080: a figure's smallest text, read from the back of the room

# What the stage is doing: its text, its figures' data, its working lines and disabled buttons
# (through shadow roots), so a press is seen to start and to end.
STAGE = """() => {
  const below = (root, out = []) => {
    const kids = root.shadowRoot ? [...root.shadowRoot.children, ...root.children] : [...root.children];
    for (const el of kids) { out.push(el); below(el, out); }
    return out;
  };
  const stage = below(document.body).find((el) => el.classList && el.classList.contains("tour-stage"));
  if (!stage) return null;
  const inside = below(stage).filter((el) => el.tagName !== "STYLE" && el.tagName !== "SCRIPT");
  let data = 0;
  for (const doc of Bokeh.documents) for (const m of doc.all_models)
    if (m.type === "ColumnDataSource") data += JSON.stringify([...(m.data instanceof Map ? m.data : new Map(Object.entries(m.data))).values()]).length;
  return { text: inside.map((el) => [...el.childNodes].filter((c) => c.nodeType === 3).map((c) => c.textContent).join("")).join("|"),
           data, spinning: inside.filter((el) => el.matches(".busy .spin")).length,
           disabled: inside.filter((el) => el.tagName === "BUTTON" && el.disabled).length };
}"""

# How many of a thing the stage shows, by a CSS selector (through shadow roots), in the order drawn.
COUNT = """([sel, inner]) => {
  const found = [];
  const walk = (root) => { for (const el of root.querySelectorAll("*")) {
    if (el.matches(sel) && el.getBoundingClientRect().width > 0) found.push(el);
    if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document);
  return inner ? found.map((el) => el.querySelectorAll(inner).length) : [found.length];
}"""

# Steps whose sentence says a count: what on the stage it counts, and where that count is read
# ([selector, children selector], and which of the matches).
COUNTED = {
    9: ("chips in the Checking lane", [".chips", ".chip"], 1),
    29: ("lines of code", [".code > div", None], 0),
    39: ("ways to guess in the table", ["tr[data-drafting]", None], 0),
    40: ("kinds of text to choose from", [".choice", None], 0),
}
WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS[2:]) + r")\b", re.IGNORECASE)


def said_count(text: str) -> int:
    """The first count a step's sentence spells out ("Six ways to guess" → 6)."""
    return NUMBER_WORDS.index(WORD.search(text).group(1).lower())


# How many answers the server has sent the page since it was opened: a text, a figure's data or a
# button's state set by the server (Bokeh marks a change that came from the server sync = false; a
# step's fit sets sizes, not these). A press whose work ends with what was already shown (Show p
# and q on the same context, the same timeline redrawn) changes nothing on the stage, yet is answered.
ANSWERS = """() => {
  for (const doc of Bokeh.documents) if (!doc.__speclabAnswers) {
    doc.__speclabAnswers = true;
    doc.on_change((e) => { if (e.sync === false && (["text", "data", "disabled"].includes(e.attr) ||
                                                    e.kind === "ColumnsStreamed" || e.kind === "ColumnsPatched"))
                             window.__speclabAnswers = (window.__speclabAnswers || 0) + 1; });
  }
  return window.__speclabAnswers || 0;
}"""


def press(page, n: int) -> None:
    """Press step n's action (if it has one) as often as the step says, each time until the work it
    started has ended: the server answered the press or the stage changed or began working, then no
    working line spins and the button is free again."""
    step = TOUR[n - 1]
    if "action" not in step:
        return
    button = page.get_by_role("button", name=step["action"], exact=True).first
    for _ in range(step.get("presses", 1)):
        wait_until(lambda: button.is_enabled(), timeout=240, message=f"step {n}'s {step['action']!r} to be free")
        before, answers = page.evaluate(STAGE), page.evaluate(ANSWERS)
        button.click()

        def started():
            if page.evaluate(ANSWERS) > answers:
                return True
            s = page.evaluate(STAGE)
            return (s["text"] != before["text"] or s["data"] != before["data"] or s["spinning"]
                    or s["disabled"] > before["disabled"])
        wait_until(started, timeout=60, message=f"step {n}'s {step['action']!r} to start")
        quiet(page, n, button)


def quiet(page, n: int, button=None, timeout: float = 300) -> None:
    """Wait until no working line spins on the stage (and `button` is free), three looks in a row."""
    looks = []

    def still():
        looks.append(not page.evaluate(STAGE)["spinning"] and (button is None or button.is_enabled()))
        return looks[-3:] == [True] * 3
    wait_until(still, timeout=timeout, interval=0.5, message=f"step {n}'s work to end")


def overflow(m: dict, n: int) -> list[str]:
    """What of step n runs off a screen of m["vw"]×m["vh"] (empty when nothing)."""
    out = []
    scroll_h, client_h, scroll_w, client_w = m["scroll"]
    if scroll_h > client_h + 2 or scroll_w > client_w + 2:
        out.append(f"scrolls: {scroll_w}×{scroll_h} in {client_w}×{client_h}")
    left, top, right, bottom = m["union"]
    if left < -1 or top < -1 or right > m["vw"] + 1 or bottom > m["vh"] + 1:
        out.append(f"content [{left:.0f}, {top:.0f}, {right:.0f}, {bottom:.0f}] outside {m['vw']}×{m['vh']}")
    out += [f"{c['label']!r} {c['why']}" for c in m["clipped"] if c["why"].startswith("off screen")][:3]
    small = sorted({(f["model"], f["name"], f["size"]) for f in m["figures"] if f["size"] < FIGURE_TYPE - 0.05})
    out += [f"figure {model}.{name} {size:.1f} px < {FIGURE_TYPE}" for model, name, size in small[:3]]
    return [f"step {n}: {o}" for o in out]


def miscounted(page, n: int) -> list[str]:
    """Where step n's sentence counts what it shows: does the count match (waiting for a measurement
    that fills the rows in)?"""
    if n not in COUNTED:
        return []
    what, query, index = COUNTED[n]
    said = said_count(TOUR[n - 1]["text"])
    shown = []

    def counted():
        counts = page.evaluate(COUNT, query)
        shown[:] = [counts[index] if index < len(counts) else 0]
        return shown[0] == said
    try:
        wait_until(counted, timeout=240, interval=1.0, message=f"step {n}'s {what}")
    except AssertionError:
        return [f"step {n} says {said} {what}, shows {shown[0]}"]
    return []


def test_said_count_reads_the_number_a_sentence_spells():
    assert said_count("Six ways to guess, one prompt") == 6
    assert said_count("checking reads all five words in one call") == 5
    assert said_count("Seventeen lines: Step lights the line") == 17


def height_used(m: dict) -> float:
    """The share of the screen's height a step's content spans."""
    left, top, right, bottom = m["union"]
    return (bottom - top) / m["vh"]


def forward_key(n: int) -> str:
    """The key that leaves step n: mostly PageDown (a presenter's clicker), → on every fourth step,
    and Space on some others, only where no action was pressed (Space presses a focused button)."""
    if n % 4 == 1:
        return "ArrowRight"
    if n % 4 == 3 and "action" not in TOUR[n - 1]:
        return "Space"
    return "PageDown"


def opened(page, n: int) -> None:
    """Step n as it opens: its address and sentence, its components drawn with none missing or failed;
    a sample of steps passes axe-core (no serious or critical accessibility violation)."""
    step = TOUR[n - 1]
    assert f"tour={n}" in page.url
    assert page.locator(".tour-text").inner_text().strip() == step["text"]
    stage = page.locator(".tour-stage").first
    wait_until(lambda: stage.bounding_box() and stage.bounding_box()["height"] > 40, 30,
               message=f"step {n}'s components")
    assert page.locator(".tour-error").count() == 0, f"step {n}: {page.locator('.tour-error').first.inner_text()}"
    assert page.locator(".tour-missing").count() == 0, f"step {n} names a component chapter {step['chapter']} lacks"
    if n in TOUR_SAMPLE:
        settle_page(page)
        check(page, f"?tour={n}")


def test_every_step_fits_1920x1080_and_1280x720_after_its_action_walked_by_keyboard(page, server, shot):
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_page(page, f"{server}?tour=1")
    rendered(page, 1)
    assert page.locator(".tour-back").is_disabled()
    found, heights = [], {}
    for n in range(1, N + 1):
        rendered(page, n)
        opened(page, n)
        press(page, n)
        found += miscounted(page, n)
        quiet(page, n)

        def judge(m, n=n):      # what runs off a 1920×1080 screen or is too small to read
            return overflow(m, n) + problems(m, n, SMALLEST["code"], SMALLEST, cover=0.6)
        wrong, m = fitted_measured(page, n, judge)
        found += wrong
        heights[n] = height_used(m)
        shot(page, f"tour-1920-step{n:02d}")
        page.set_viewport_size({"width": 1280, "height": 720})      # the same step on a smaller screen
        found += fitted(page, n, lambda m, n=n: problems(m, n, 16, None, None))
        page.set_viewport_size({"width": 1920, "height": 1080})
        if n < N:
            page.keyboard.press(forward_key(n))
    # the screen is used: at least 80 % of the steps span 60 % of its height (a step without a figure
    # grows its chips, then the whole step, assets/tour.js; one with figures grows them)
    short = sorted(n for n, h in heights.items() if h < 0.6)
    assert len(short) <= 0.2 * N, f"steps using under 60 % of the height: {short}"
    assert page.locator(".tour-next").is_disabled()
    for key in ("PageDown", "ArrowRight"):       # the end: the last step stays
        page.keyboard.press(key)
        assert page.locator(".tour-counter").inner_text().strip() == f"{N} / {N}"
    page.keyboard.press("ArrowLeft")             # one step back lands on N − 1 only if N stayed
    rendered(page, N - 1)
    page.keyboard.press("PageUp")
    rendered(page, N - 2)
    assert f"tour={N - 2}" in page.url
    assert not found, "\n".join(dict.fromkeys(found))


def test_steps_34_35_and_41_fit_1920x1080_after_their_action(page, server, shot):
    """Issue 49.5: step 34 (chapter 10's live measurement) ran off the bottom of a 1920×1080 screen,
    step 35's figure type was ~12 px, step 41 ended on an empty chart with no closing: each opened
    directly, its action pressed, fits with figure type ≥ FIGURE_TYPE px, and the last one closes."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    found = []
    for n in (34, 35, 41):
        open_page(page, f"{server}?tour={n}")
        rendered(page, n)
        if "action" in TOUR[n - 1]:              # its result may already be on the stage (kept work)
            button = page.get_by_role("button", name=TOUR[n - 1]["action"], exact=True).first
            wait_until(lambda: button.is_enabled(), timeout=240, message=f"step {n}'s action to be free")
            button.click()
            quiet(page, n, button)
        found += fitted(page, n, lambda m, n=n: overflow(m, n))
        shot(page, f"tour-fits-1920-step{n:02d}-direct")
    assert not found, "\n".join(found)
    assert "End of the tour" in page.evaluate(STAGE)["text"]
    # opened directly, the last step measures its own bars (no empty chart under its sentence)
    wait_until(lambda: "What the bars say" in page.evaluate(STAGE)["text"], timeout=240, message="step 41's bars")


# A strip of the stage grows by `k` chips (a copy of its own), or loses its last `-k`: a real pair's
# race fills the lanes of step 3 row by row, each row a change the step must fit again.
GROW_STRIP = """(k) => {
  const all = (root, out = []) => { for (const el of root.querySelectorAll("*")) { out.push(el);
      if (el.shadowRoot) all(el.shadowRoot, out); } return out; };
  const strip = all(document).find((el) => el.matches(".chips") && el.getBoundingClientRect().width > 0);
  const chips = [...strip.querySelectorAll(".chip")];
  for (let i = 0; i < Math.abs(k); i++)
    if (k > 0) strip.append(chips[i % chips.length].cloneNode(true)); else strip.lastElementChild.remove();
  return strip.getBoundingClientRect().height;
}"""


def test_step_3_fits_1920x1080_after_write_however_often_its_lanes_grow(page, server, shot):
    """Issue 49: step 3 (chapter 1's race: both lanes and the figure) ran off the bottom of a
    1920×1080 screen after Write. A real pair's race fills its lanes chip by chip, row by row; each
    new row took a round of the step's fit, and after 30 rounds a step no longer shrank. Opened
    directly, Write pressed, then its big lane grows by a row and back, again and again (far more
    rounds than that): after each the step fits, its figure shrinking and growing again."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    n = next(i for i, s in enumerate(TOUR, 1) if s.get("action") == "✎ Write")
    open_page(page, f"{server}?tour={n}")
    rendered(page, n)
    press(page, n)
    found = fitted(page, n, lambda m: overflow(m, n))
    row = None
    for i in range(20):
        grown = page.evaluate(GROW_STRIP, 11 if i % 2 == 0 else -11)
        row = row or grown
        found += [f"change {i + 1}: {o}" for o in fitted(page, n, lambda m: overflow(m, n))]
        if i == 18:
            shot(page, "tour-fits-1920-step03-grown")
    assert row and not found, "\n".join(dict.fromkeys(found))
