"""The exported lab (export/) opened from file:// in chromium with every other request blocked: every
page renders with no console error and no request leaving the folder, chapter 4's Next round replays
the recorded round, chapter 10's α slider redraws in the browser, chapter 6's Draw replays, chapter
12's table is there, a predict answer survives a reload and keeps the page's progress (chapter 4's
round), a number answer (chapter 2) is kept and revealed by the recorded run, the tour advances with
→ (a → pressed while the next step loads too), a step shows what the lecturer pressed on the step
before (chapter 1's Write on step 3, its summary on step 4), a tour step with a figure is drawn for
a 1920×1080 projector, the last exported step ends the tour and a link to a step left out opens the
page saying so (the test exports the tour's first four steps), and a choice of chapter 4's preset
bar made in three presses replays its recorded first round."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from export.build import build_page
from export.files import page_file
from export.site import site_pages
from tests.helpers import run_apart, wait_until
from tests.ui.export_helpers import offline, open_file   # noqa: F401  (the offline page fixture)
from tests.ui.helpers import ROOT, act, deep_text, has
from tests.ui.tour_rules import SMALLEST, fitted, problems


TOUR_STEPS = 4       # the tour steps the test exports (the last one ends its tour: "4 / 4")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The tiny pair's lab exported with a small recording budget (a few states per page)."""
    out = tmp_path_factory.mktemp("export")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "lab", "export", str(out), "--pair", "tiny", "--states", "5",
                           "--seconds", "10", "--tour", str(TOUR_STEPS)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "about" in done.stderr and "left" in done.stderr       # progress with a time estimate
    return out


def test_every_page_opens_offline(site, offline):
    for slug in site_pages():
        open_file(offline, site, page_file(slug))
        assert has(offline, "Speculative Lab")
    sizes = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    assert sizes < 40e6


def test_ch04_next_round_replays_the_recorded_round(site, offline):
    open_file(offline, site, page_file("guess-check-keep"))
    assert not has(offline, "Round 1:")
    act(offline, "next-round").click()
    wait_until(lambda: has(offline, "Round 1:"), message="the recorded round on the page")


def test_ch10_alpha_slider_redraws_in_the_browser(site, offline):
    open_file(offline, site, page_file("breakeven"))
    before = deep_text(offline)
    handle = offline.locator(".noUi-handle").filter(visible=True).first
    handle.scroll_into_view_if_needed()
    handle.focus()
    offline.keyboard.press("ArrowLeft")
    wait_until(lambda: deep_text(offline) != before, message="the α slider to redraw the page")


def test_ch06_draw_and_ch12_table(site, offline):
    open_file(offline, site, page_file("accept-rule"))
    before = deep_text(offline)
    act(offline, "draw").click()
    wait_until(lambda: deep_text(offline) != before, message="the recorded draw on the page")
    open_file(offline, site, page_file("cheaper-guesses"))
    assert offline.locator("table").count() or "table" in deep_text(offline).lower()


def test_a_predict_answer_survives_a_reload(site, offline):
    open_file(offline, site, page_file("guess-check-keep"))
    choice = "The draft’s: it wrote most of the tokens"
    offline.get_by_role("button", name=choice, exact=True).click()
    wait_until(lambda: has(offline, f"You said {choice}."), message="the card to take the answer")
    offline.reload()
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)
    wait_until(lambda: has(offline, f"You said {choice}."), message="the answer after a reload")


def test_the_tour_advances_with_the_arrow_key(site, offline):
    open_file(offline, site, page_file("", 1))
    offline.wait_for_selector("html[data-tour-step='1']")
    offline.keyboard.press("ArrowRight")
    offline.wait_for_url("**/tour-2.html*")
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)
    offline.wait_for_selector("html[data-tour-step='2']")
    # step 2's predict card is the student's own offline: no class poll to wait for
    wait_until(lambda: has(offline, "Choose your answer before you look."), message="step 2's card")
    assert not has(offline, "The class is answering")


SUMMARY = "The small model finished in"     # chapter 1's summary of a race, shown on step 4


def test_a_tour_step_keeps_what_was_pressed_on_the_step_before(site, offline):
    """Write pressed on step 3, then →: step 4 shows that race's summary, as the served tour (one
    session's chapter across steps) does; step 4 opened afresh shows none, as a new served tour."""
    open_file(offline, site, page_file("", 4))
    assert not has(offline, SUMMARY)
    open_file(offline, site, page_file("", 3))
    act(offline, "write").click()
    wait_until(lambda: not has(offline, "Press Write: the big model's words appear here."),
               message="the recorded race on step 3")
    offline.keyboard.press("ArrowRight")
    offline.wait_for_url("**/tour-4.html*")
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)
    wait_until(lambda: has(offline, SUMMARY), message="step 3's race summed up on step 4")
    reopen(offline)
    wait_until(lambda: has(offline, SUMMARY), message="the summary after a reload")
    open_file(offline, site, page_file("", 4))
    assert not has(offline, SUMMARY)


def reopen(pg) -> None:
    pg.reload()
    pg.wait_for_selector("html[data-export-ready='1']", timeout=60000)


# every requestFullscreen call of a page and its frames, recorded (then made: headless chromium goes fullscreen)
RECORD_FULLSCREEN = """(() => { const ask = Element.prototype.requestFullscreen; window.__speclabFullscreen = [];
  Element.prototype.requestFullscreen = function (...args) {
    window.__speclabFullscreen.push(this.tagName); return ask.apply(this, args); }; })();"""
FULLSCREEN = "document.fullscreenElement ? document.fullscreenElement.tagName : null"


def open_deck(pg, site, step: int | None = None):
    """The tour's frame page (tour.html) opened, its step's page ready in the frame; returns the frame."""
    pg.goto(f"file://{site / 'tour.html'}" + (f"#step={step}" if step else ""))
    return deck_step(pg, step or 1)


def deck_step(pg, step: int):
    frame = pg.wait_for_selector("#speclab-tour-frame").content_frame()
    wait_until(lambda: frame.url.split("/")[-1].split("?")[0] == f"tour-{step}.html", timeout=60,
               message=f"step {step} in the frame")
    frame.wait_for_selector(f"html[data-tour-step='{step}'][data-export-ready='1']", timeout=60000)
    wait_until(lambda: frame.evaluate("document.hasFocus()"), message=f"step {step} to take the keys")
    return frame


def test_fullscreen_lasts_from_step_to_step_in_the_tours_frame_page(site, offline):
    """F on a step asks the frame page (tour.html), which goes fullscreen; → twice moves the frame to
    step 3 while the frame page stays the same page (so fullscreen lasts), its address naming step 3;
    F again leaves fullscreen, a reload reopens step 3, and Esc leaves the tour for a page of the
    folder that takes the frame page's place."""
    offline.add_init_script(RECORD_FULLSCREEN)
    frame = open_deck(offline, site)
    offline.evaluate("window.__speclabSamePage = true")
    offline.keyboard.press("f")
    wait_until(lambda: offline.evaluate(FULLSCREEN) == "HTML", message="the frame page fullscreen")
    assert offline.evaluate("window.__speclabFullscreen") == ["HTML"]      # asked once, by the frame page
    assert frame.evaluate("window.__speclabFullscreen") == []              # the step asked it by message
    wait_until(lambda: frame.evaluate(FULLSCREEN) == "HTML", message="the step told it is fullscreen")
    for step in (2, 3):
        offline.keyboard.press("ArrowRight")
        frame = deck_step(offline, step)
    assert offline.url.endswith("/tour.html#step=3")
    assert offline.evaluate("window.__speclabSamePage") is True             # never navigated away
    assert offline.evaluate(FULLSCREEN) == "HTML"
    wait_until(lambda: frame.evaluate(FULLSCREEN) == "HTML", message="step 3 told it is fullscreen")
    offline.keyboard.press("f")
    wait_until(lambda: offline.evaluate(FULLSCREEN) is None, message="F on step 3 to leave fullscreen")
    assert offline.evaluate("window.__speclabFullscreen") == ["HTML"]
    offline.reload()
    frame = deck_step(offline, 3)
    assert offline.url.endswith("/tour.html#step=3")
    frame.locator("h1.tour-text").first.focus()
    offline.keyboard.press("Escape")
    offline.wait_for_url(re.compile(r".*/[a-z-]+\.html$"), timeout=60000)
    assert "tour" not in offline.url.split("/")[-1]
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)


def test_the_tours_frame_page_carries_presses_from_step_to_step(site, offline):
    """Through tour.html: Write on step 3, then →: step 4 in the frame shows that race's summary (the
    frame's session storage is the tab's); a reload of the frame page keeps it; the frame page
    opened afresh at step 4 starts the chapter afresh, as a new served tour."""
    frame = open_deck(offline, site, 3)
    assert not has(frame, SUMMARY)
    act(frame, "write").click()
    # the press reloads the step at its recorded state: until that page is ready, a key would go to
    # the page being left
    wait_until(lambda: frame.evaluate("document.documentElement.dataset.exportReady === '1'")
               and not has(frame, "Press Write: the big model's words appear here.")
               and frame.evaluate("document.hasFocus()"), message="the recorded race on step 3, with the keys")
    offline.keyboard.press("ArrowRight")
    frame = deck_step(offline, 4)
    assert offline.url.endswith("/tour.html#step=4")
    wait_until(lambda: has(frame, SUMMARY), message="step 3's race summed up on step 4")
    offline.reload()
    frame = deck_step(offline, 4)
    wait_until(lambda: has(frame, SUMMARY), message="the summary after a reload of the frame page")
    offline.goto("about:blank")
    frame = open_deck(offline, site, 4)
    assert not has(frame, SUMMARY)


def test_a_key_pressed_while_the_next_step_loads_waits_for_it(site, offline):
    """→ pressed twice in a row (a presenter's clicker): the second, taken while step 3's page is still
    loading (held here at its recording, so its tour is not yet drawn), is not lost but opens step 4
    once step 3 is ready; the same from the frame page (the key taken beside the frame, passed on by
    message)."""
    for start, to_frame_page in ((2, False), (1, True)):
        open_deck(offline, site, start)
        held = []
        offline.route(f"**/data/tour-{start + 1}.js", lambda route: held.append(route))
        offline.keyboard.press("ArrowRight")
        # (the route's handler runs while the test is in a Playwright call: wait_for_timeout)
        # held, and its frame script has run: it told the frame page, whose address names step 3
        wait_until(lambda: offline.wait_for_timeout(20) or held and offline.url.endswith(f"#step={start + 1}"),
                   message=f"step {start + 1}'s page loading")
        if to_frame_page:
            offline.evaluate("document.activeElement.blur(); window.focus()")
        offline.keyboard.press("ArrowRight")
        held[0].continue_()
        offline.unroute(f"**/data/tour-{start + 1}.js")
        wait_until(lambda: offline.wait_for_timeout(20) or offline.url.endswith(f"/tour.html#step={start + 2}"),
                   message=f"the held key to open step {start + 2}")
        deck_step(offline, start + 2)
        offline.goto("about:blank")


def test_answering_keeps_the_rounds_stepped(site, offline):
    """An answer pressed after a round keeps the round on the page, with the verdict for that state."""
    open_file(offline, site, page_file("guess-check-keep"))
    act(offline, "next-round").click()
    wait_until(lambda: has(offline, "Round 1:"), message="the recorded round on the page")
    offline.get_by_role("button", name="The draft’s: it wrote most of the tokens", exact=True).click()
    # the round's result is on screen, so the served card says at once that the answer is wrong
    wait_until(lambda: has(offline, "✗ Not quite: the answer is"), message="the verdict for the round shown")
    assert has(offline, "Round 1:")
    reopen(offline)
    wait_until(lambda: has(offline, "Round 1:", "✗ Not quite: the answer is"), message="both after a reload")


def test_a_number_answer_is_kept_and_revealed(site, offline):
    """Chapter 2's number card: a typed answer survives a reload; the recorded run reveals the count."""
    open_file(offline, site, page_file("easy-words"))
    box = offline.get_by_label("Your answer")
    box.fill("7")
    box.press("Enter")
    act(offline, "lock").click()
    wait_until(lambda: has(offline, "You said 7."), message="the card to take the number")
    reopen(offline)
    wait_until(lambda: has(offline, "You said 7."), message="the number after a reload")
    act(offline, "ask-small").click()
    wait_until(lambda: "positions (✓ easy)" in deep_text(offline), message="the recorded count")
    wait_until(lambda: "✓ Right." in deep_text(offline) or "the answer here is" in deep_text(offline),
               message="the verdict")
    text = deep_text(offline)
    easy = int(re.search(r"word at (\d+) of \d+ positions", text).group(1))
    if abs(easy - 7) <= 2:
        assert "✓ Right." in text
    else:
        assert f"the answer here is {easy} (you said 7)" in text


def test_a_tour_step_fits_a_1920x1080_projector(site, offline):
    """Step 3 (buttons, strips, a figure) at 1920×1080: the projector's type sizes, nothing scrolls,
    clipped or overlapping, as the served tour draws it (tests/ui/test_tour_fits.py's rules)."""
    offline.set_viewport_size({"width": 1920, "height": 1080})
    open_file(offline, site, page_file("", 3))
    found = fitted(offline, 3, lambda m: problems(m, 3, SMALLEST["code"], SMALLEST, cover=0.6), steps=TOUR_STEPS)
    assert not found, "\n".join(found)


# the page's text, buttons and figures the notice box overlaps (their rects inside shadow roots too)
UNDER_NOTICE = """() => { const box = document.getElementById("speclab-export-notice");
  if (!box) return null; const b = box.getBoundingClientRect(), out = [];
  const walk = (n) => { for (const el of [...(n.shadowRoot ? n.shadowRoot.children : []), ...n.children]) {
      if (el === box) continue; walk(el);
      const tag = el.tagName.toLowerCase(), text = [...el.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
      if (!text && tag !== "canvas" && tag !== "button") continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      if (r.bottom > b.top && r.top < b.bottom && r.right > b.left && r.left < b.right) out.push(tag + ": " + el.textContent.slice(0, 40));
  } };
  walk(document.body); return out; }"""


def test_the_notice_covers_nothing_on_a_tour_step(site, offline):
    """A tour step whose carried presses were not all recorded says so at the foot of the screen; the
    step fits itself into the room above the note (its figure shrinks), and × takes the note away."""
    offline.set_viewport_size({"width": 1920, "height": 1080})
    open_file(offline, site, page_file("", 3))
    offline.evaluate("sessionStorage.setItem('speclab-export-tour:1', JSON.stringify(['no such press']))")
    reopen(offline)
    wait_until(lambda: has(offline, "The offline copy has no recording of 1 of the 1 press made"),   # its plural form
               message="the note")
    found = fitted(offline, 3, lambda m: problems(m, 3, SMALLEST["code"], SMALLEST, cover=None),   # nothing scrolls or clips
                   steps=TOUR_STEPS)
    assert not found, "\n".join(found)
    assert offline.evaluate(UNDER_NOTICE) == []
    offline.get_by_role("button", name="Close this note").click()
    assert offline.evaluate(UNDER_NOTICE) is None
    assert not has(offline, "The offline copy has no recording")


def test_the_browser_shares_the_room_as_the_sizer_does(site, offline, tiny_service):
    """The export's fitSizes (assets/export.js) against shell/tour_fit.StageSizer.fit on step 3's
    figures, at three scales and rooms (growing, shrinking, odd halves)."""
    open_file(offline, site, page_file("", 3))
    cases = [(1.0, {"height": 310, "width": 900}), (1.5, {"height": -121, "width": -37}),
             (1.25, {"height": 45, "width": 7})]
    for scale, room in cases:
        built = run_apart(build_page("", tiny_service, 3))
        sizer, figures = built.tour.sizer, built.tour.sizer.figures()
        assert figures
        built.run(sizer.rescale, scale, 3)
        current = [{"height": f.height, "width": f.width} for f in figures]
        built.run(sizer.fit, scale, 3, {**room, "step": 3})
        python = [{"height": f.height, "width": f.width} for f in figures]
        browser = offline.evaluate("([s, r, c]) => window.SPECLAB_EXPORT_FIT(s, r, c)", [scale, room, current])
        assert [{**c, **b} for c, b in zip(current, browser)] == python, (scale, room)


ALPHA = """() => { for (const m of Bokeh.documents[0].all_models)
    if (m.title === "α acceptance rate") return m.value; return null; }"""


def test_a_preset_keeps_the_sliders_moved(site, offline):
    """Chapter 10: α moved in the browser, then a preset keeps α where the student left it, as the
    served page does."""
    open_file(offline, site, page_file("breakeven"))
    start = offline.evaluate(ALPHA)
    handle = offline.locator('.noUi-handle[aria-label="α acceptance rate"]').filter(visible=True).first
    handle.scroll_into_view_if_needed()
    handle.focus()
    offline.keyboard.press("ArrowLeft")
    offline.keyboard.press("ArrowLeft")
    wait_until(lambda: offline.evaluate(ALPHA) not in (None, start), message="α to move")
    moved = offline.evaluate(ALPHA)
    offline.locator(".preset-story button").click()
    # recorded from the opening state, the preset applies in place; from elsewhere the page reopens
    wait_until(lambda: has(offline, "Story opening: the opening of a story")
               and offline.evaluate("document.documentElement.dataset.exportReady") == "1", timeout=60,
               message="the preset chosen")
    assert offline.evaluate(ALPHA) == moved


def test_the_last_exported_step_says_where_the_rest_is(site, offline):
    """The fixture exports the tour's first 4 steps: step 4 is its last (4 / 4, Next off), → stays
    there and says in one sentence where the other steps are; a chapter's "Tour from here" into a
    step not exported opens the page saying the copy lacks it, never a missing file."""
    open_file(offline, site, page_file("", 4))
    offline.wait_for_selector("html[data-tour-step='4']")
    assert "4 / 4" in deep_text(offline)
    assert offline.locator("button.tour-next").is_disabled()
    offline.locator("h1.tour-text").first.focus()
    offline.keyboard.press("ArrowRight")
    wait_until(lambda: has(offline, "This copy of the tour ends at step 4; its other 37 steps are in the served lab "
                                    "and in a full export."), message="the sentence at the tour's end")
    assert offline.url.split("?")[0].endswith("/tour-4.html")       # the step's own address (?tour=4)
    open_file(offline, site, page_file("timeline"))
    offline.get_by_role("link", name="▶ Tour from here").first.click()
    offline.wait_for_url("**/absent.html")
    wait_until(lambda: has(offline, "only the guided tour's first 4 steps, and the page this link leads to is not"),
               message="the page saying the copy lacks the step")
    offline.get_by_role("link", name="Back to the lab").click()
    offline.wait_for_url("**/index.html")


def test_every_choice_of_the_bar_is_recorded(site, offline):
    """Chapter 4: a preset, another draft variant and another drafter chosen one after the other (each
    the recorded choice, the page reopened there when it is not one press from the one before), then
    Next round replays that choice's recorded first round."""
    open_file(offline, site, page_file("guess-check-keep"))
    offline.locator(".preset-story button").click()
    wait_until(lambda: has(offline, "Story opening: the opening of a story"), message="the preset chosen")
    offline.get_by_role("button", name="random", exact=True).click()
    wait_until(lambda: has(offline, "random draft: every token equally likely")
               and offline.evaluate("document.documentElement.dataset.exportReady") == "1", timeout=60,
               message="the random draft chosen")
    offline.get_by_role("button", name="copy from the text", exact=True).click()
    wait_until(lambda: has(offline, "Who guesses: copying from the text (prompt lookup).")
               and offline.evaluate("document.documentElement.dataset.exportReady") == "1", timeout=60,
               message="copying from the text chosen")
    assert has(offline, "Story opening: the opening of a story")
    act(offline, "next-round").click()
    wait_until(lambda: has(offline, "Round 1:"), message="the choice's recorded round")
    assert not has(offline, "not recorded")
