"""One story of time in a browser: chapters 10, 11 and 12 show one outcome for one request.

A request (the student's prompt, greedy, γ = 4, seed 0, lab.speed.timeline.REQUEST_TOKENS new tokens,
who guesses) is decoded once per server and priced by the pair's one cost profile (lab.speed.request), so
the three pages print the same speed-up and target-call count for it, and each names who guessed.
Checked on the default prompt and every preset with the draft model guessing, and on the edit preset
with guesses copied from the text.
"""
import pytest

from lab.experiments.presets import PRESETS
from tests.helpers import wait_until
from tests.ui.helpers import BOKEH_SOURCES as SOURCES, act, open_page
from uikit.words import CONTROL

TITLES = {"breakeven": "Tokens per round, divided by cost per round.",
          "timeline": "Same distribution, a different schedule.", "cheaper-guesses": "Cheaper guesses."}
WORDS = {"model": "the draft model, γ = 4", "lookup": "copying from the text (prompt lookup), γ = 4"}


def number(page, selector: str) -> float:
    """The number of a "1.23×" or "17" figure on the page."""
    return float(page.locator(selector).first.inner_text().rstrip("×"))


def chapter_10(page, server, preset, drafter):
    """Choose the request on chapter 10's preset bar, press Use my models: (speed-up, calls, who)."""
    open_page(page, server + "?chapter=breakeven", TITLES["breakeven"])
    if preset is not None:
        page.locator(f".preset-{preset.key} button").click()
    switch = page.locator(".drafter-switch button").nth(list(CONTROL).index(drafter))     # who guesses
    switch.click()
    wait_until(lambda: "bk-active" in (switch.get_attribute("class") or ""), message=f"{drafter} chosen to guess")
    act(page, "use-models").click()
    page.locator(".priced-speedup").first.wait_for(timeout=120000)
    # who guessed is in the live box's folded details (its text, shown when unfolded)
    return number(page, ".priced-speedup"), number(page, ".target-calls"), page.locator(".drafter").first.text_content()


def chapter_11(page, server):
    open_page(page, server + "?chapter=timeline", TITLES["timeline"])
    page.locator(".decode-speedup").first.wait_for(timeout=120000)
    return number(page, ".decode-speedup"), number(page, ".target-calls"), page.locator(".drafter").first.inner_text()


def chapter_12(page, server, drafter):
    open_page(page, server + "?chapter=cheaper-guesses", TITLES["cheaper-guesses"])
    act(page, "measure-all").click()
    row = f"tr[data-drafting='{drafter}']"
    page.locator(f"{row} .speedup").first.wait_for(timeout=120000)
    label = page.locator(f"{row} td").first.inner_text()
    return number(page, f"{row} .speedup"), number(page, f"{row} .target-calls"), label


@pytest.mark.parametrize("preset, drafter", [(None, "model"), *((p, "model") for p in PRESETS),
                                             (PRESETS[0], "lookup")],
                         ids=["default", *(p.key for p in PRESETS), "edit-copied"])
def test_chapters_10_11_and_12_show_one_outcome_per_request(page, server, shot, preset, drafter):
    ten = chapter_10(page, server, preset, drafter)
    assert ten[2].startswith(WORDS[drafter]), ten
    if preset is None and drafter == "model":
        shot(page, "ch10-outcome", scroll_to=page.locator(".speclab-live").first)
    eleven = chapter_11(page, server)            # the settings follow the student from page to page
    assert eleven[2].startswith(WORDS[drafter]), eleven
    twelve = chapter_12(page, server, drafter)
    assert twelve[2] == {"model": "Draft model", "lookup": "Prompt lookup"}[drafter]
    # the same speed-up to the printed two decimals, and the very same target calls
    assert ten[0] == eleven[0] == twelve[0], (ten, eleven, twelve)
    assert ten[1] == eleven[1] == twelve[1], (ten, eleven, twelve)


def test_the_measured_cost_curve_sits_beside_the_lectures(page, server):
    open_page(page, server + "?chapter=breakeven", TITLES["breakeven"])
    page.locator(".speclab-lazy").first.scroll_into_view_if_needed()   # the figures: built when scrolled to
    wait_until(lambda: [d for d in page.evaluate(SOURCES, ["gamma", "cost"]) if len(d["gamma"]) == 12][1:],
               timeout=120, message="both cost curves on chapter 10")
    page.get_by_text("The lecture counts a verify pass", exact=False).first.wait_for()
