"""One story of time in a browser: chapters 10 and 11 give one decode speed-up for one request.

Both price the request (the default prompt, greedy, γ = 4, seed 0, lab.timeline.REQUEST_TOKENS new
tokens) with the one cost profile the server measured for the pair (lab.costs), so they agree to the
printed two decimals: the tolerance is 0.01. Wall-clock speed-ups are too noisy for a test; the
profile's prices of a greedy request's rounds are not.
"""
from tests.ui.conftest import open_page, wait_until
from tests.ui.test_part3 import BOKEH_SOURCES as SOURCES


def speedup(page, selector: str) -> float:
    """The number of a "1.23×" figure on the page."""
    return float(page.locator(selector).first.inner_text().rstrip("×"))


def test_chapters_10_and_11_agree_on_one_requests_speedup(page, server, shot):
    open_page(page, server + "?chapter=breakeven", "Tokens per round, divided by cost per round.")
    # the measured cost curve arrives with the pair's profile, beside the lecture's 1 + γc
    wait_until(lambda: [d for d in page.evaluate(SOURCES, ["gamma", "cost"]) if len(d["gamma"]) == 12][1:],
               timeout=120, message="both cost curves on chapter 10")
    page.get_by_text("The lecture counts a verify pass", exact=False).first.wait_for()
    page.get_by_role("button", name="Use my models").click()
    page.locator(".priced-speedup").first.wait_for(timeout=120000)
    priced = speedup(page, ".priced-speedup")
    assert "γ = 4" in page.locator(".speclab-live").first.inner_text()
    shot(page, "ch10-priced", scroll_to=page.locator(".speclab-live").first)

    open_page(page, server + "?chapter=timeline", "Same distribution, a different schedule.")
    page.locator(".decode-speedup").first.wait_for(timeout=120000)
    timeline = speedup(page, ".decode-speedup")
    assert abs(timeline - priced) <= 0.01, (timeline, priced)
    labels = [d for d in page.evaluate(SOURCES, ["lane", "t", "label"])][0]
    assert any(label.startswith("+") for label in labels["label"])          # bursts are labelled
    shot(page, "ch11-priced", scroll_to=page.locator(".decode-speedup").first)
