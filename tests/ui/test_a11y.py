"""Accessibility: axe-core (tests/ui/axe.py) on every page (a sample of tour steps: the tour's keyboard
walk, tests/ui/test_tour_fits.py), the tour by keyboard with a visible focus, reduced motion.
"""

import pytest

from chapters.registry import pages
from tests.ui.axe import check, settle
from tests.ui.helpers import act, open_page

PAGE_TEXT = """() => {
    // the page's text through its shadow roots, for a failure message
    const out = [], roots = [document.querySelector("#main, main") || document.body];
    while (roots.length) {
        const root = roots.shift();
        for (const el of root.querySelectorAll("*")) {
            if (el.shadowRoot) roots.push(el.shadowRoot);
            if (["SCRIPT", "STYLE"].includes(el.tagName)) continue;
            if (el.childElementCount === 0 && el.textContent.trim()) out.push(el.textContent.trim());
        }
    }
    return out.join(" | ").slice(0, 600);
}"""


def test_landing_page(page, server):
    open_page(page, server, "Can a small model make a big one faster")
    try:   # the pair badge: the landing text is there at once, the badge is filled once the pair is loaded
        page.locator(".badge[role='note']").first.wait_for(timeout=60000)
    except Exception as err:
        raise AssertionError(f"the pair badge did not arrive within 60 s; the page shows: "
                             f"{page.evaluate(PAGE_TEXT)!r}") from err
    settle(page)
    check(page, "landing page")

@pytest.mark.parametrize("slug", [p.slug for p in pages()])
def test_every_page(page, server, slug):
    """Every listed page opens (its title, a link to the page before or after it) and passes axe."""
    title = next(p.title for p in pages() if p.slug == slug)
    open_page(page, f"{server}?chapter={slug}", title, timeout=90)
    settle(page, ".takeaway, .fq")    # a chapter's last piece, or the bridge page's list
    assert page.get_by_role("link", name="→").count() + page.get_by_role("link", name="←").count() >= 1
    check(page, f"?chapter={slug}")

DEEP_FOCUS = """() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    if (!a || a === document.body) return null;
    const s = getComputedStyle(a);
    const text = a.tagName === "SELECT" ? a.options[a.selectedIndex].text
                 : (a.innerText || a.getAttribute("aria-label") || a.getAttribute("title") || "");
    return { text: text.trim().slice(0, 60),
             tag: a.tagName.toLowerCase(),
             cls: String(a.className || ""),
             outline: parseFloat(s.outlineWidth) || 0,
             ring: (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== "none" };
}"""


def test_the_tour_is_usable_by_keyboard_alone_with_visible_focus(page, server):
    """Tab reaches every tour control and the step's own buttons, each with a focus ring; Enter presses."""
    from shell.tour.steps import first_step
    step = first_step(1) + 1                       # chapter 1: Write, speed, the race figure
    open_page(page, f"{server}?tour={step}")
    page.wait_for_function(f"document.documentElement.dataset.tourRendered === '{step}'", timeout=90000)
    seen, no_ring = [], []
    for _ in range(40):
        page.keyboard.press("Tab")
        focus = page.evaluate(DEEP_FOCUS)
        if focus is None:
            continue
        seen.append(focus["text"] or focus["tag"])
        if not focus["ring"]:
            no_ring.append(focus)
        if "Write" in focus["text"]:
            break
    for name in ("Leave tour", "Back", "Next", "Fullscreen", "Write"):
        assert any(name in t for t in seen), f"Tab never reached {name!r}; reached {seen}"
    assert any(t.startswith("1 · ") for t in seen), f"Tab never reached the chapter menu; reached {seen}"
    assert not no_ring, f"focused without a visible focus ring: {no_ring}"
    page.keyboard.press("Enter")                   # Write, pressed from the keyboard
    page.locator(".tour-stage .chip").first.wait_for(timeout=90000)
    assert page.locator(".tour-counter").inner_text().strip().startswith(f"{step} / ")


def test_reduced_motion_is_respected(page, server):
    page.emulate_media(reduced_motion="reduce")
    open_page(page, f"{server}?tour=2")
    page.wait_for_function("document.documentElement.dataset.tourRendered === '2'", timeout=90000)
    duration = page.locator(".tour-fill").evaluate("el => getComputedStyle(el).transitionDuration")
    assert float(duration.rstrip("s") or 0) < 0.01, duration


def test_a_figure_that_takes_focus_shows_a_strong_ring(page, server):
    """Bokeh makes a figure's event layer a tab stop with a faint dotted outline; the shell thickens it."""
    open_page(page, f"{server}?chapter=correction", "Corrections go where the draft was too shy", timeout=90)
    settle(page, ".takeaway")
    for _ in range(60):
        page.keyboard.press("Tab")
        focus = page.evaluate(DEEP_FOCUS)
        if focus and "bk-events" in focus["cls"]:
            break
    else:
        pytest.fail("Tab never reached a figure")
    assert focus["outline"] >= 3, f"a focused figure has a {focus['outline']}px outline"


def test_chapter_1_replay_respects_reduced_motion(page, server):
    page.emulate_media(reduced_motion="reduce")
    open_page(page, f"{server}?chapter=dilemma", "Good is slow. Fast is sloppy.", timeout=90)
    act(page, "write").click()
    # the finished race at once, and a word on why
    page.get_by_text("asks for reduced motion", exact=False).wait_for(timeout=60000)
    assert page.get_by_text("The small model finished in", exact=False).is_visible()
