"""The pseudo-locale walk (issue 54): in `en-XA` every message is accented, longer and bracketed
(lab.i18n.pseudo), so a plain English word on a page is a string that escaped the catalogs, and a
step that overflows is a layout that breaks with longer text.

    every chapter page      opened at ?chapter=SLUG&lang=en-XA: no English word in its text (model
                            output, code the models read and proper names left out)
    every tour step         walked with PageDown at 1920×1080, its action pressed (tests/ui/helpers.py
                            ACTIONS), then measured at 1920×1080 and at 1280×720: no English word on
                            the stage or in the deck, nothing scrolls, runs off the screen, is clipped
                            or overlaps

0 console errors (the `page` fixture). Screenshots: tests/ui/screenshots/pseudo-*.png.

A step still off the screen at the tour's least zoom (0.75) goes on down to 0.6 (assets/tour.js):
with 40% longer text, chapter 11's summary (step 36) fits 1280×720 only so.
"""
from __future__ import annotations

from chapters import registry
from lab import i18n
from shell.tour.steps import TOUR
from tests.helpers import wait_until
from tests.ui.helpers import ACTIONS, UNSETTLED, open_page, rendered
from tests.ui.languages import PAGE_TEXT, SKIPPED, english_words, said
from tests.ui.tour_rules import SMALLEST, fitted, outside, problems

PSEUDO = i18n.PSEUDO
N = len(TOUR)
# besides model output: the code the models read and write (chapter 9's listing)
NOT_WORDS = SKIPPED + ["code"]
SIZES = ((1920, 1080, SMALLEST["code"]), (1280, 720, 16))


def english(page) -> list[str]:
    return english_words(page.evaluate(PAGE_TEXT, NOT_WORDS), PSEUDO)


def test_every_chapter_page_speaks_the_pseudo_locale(page, server, shot):
    found = {}
    for chapter in registry.pages():
        open_page(page, f"{server}?chapter={chapter.slug}&lang={PSEUDO}", said(PSEUDO, chapter.title))
        ready = i18n.translate(PSEUDO, "Takeaway") if chapter.number else said(PSEUDO, chapter.title)  # the bridge: none
        wait_until(lambda: ready in page.evaluate(PAGE_TEXT, NOT_WORDS) and not page.evaluate(UNSETTLED), 120,
                   message=f"the page {chapter.slug}")
        words = english(page)
        if words:
            found[chapter.slug] = sorted(set(words))
        shot(page, f"pseudo-{chapter.number or 0:02d}-{chapter.slug}")
    assert not found, "\n".join(f"{slug}: {words}" for slug, words in found.items())


def press(page, n: int) -> None:
    """Press step n's action (ACTIONS), as the page's language labels it, until its button is free."""
    if n not in ACTIONS:
        return
    label, times = ACTIONS[n] if isinstance(ACTIONS[n], tuple) else (ACTIONS[n], 1)
    button = page.get_by_role("button", name=i18n.translate(PSEUDO, label), exact=True).first
    for _ in range(times):
        wait_until(lambda: button.is_enabled(), timeout=240, message=f"step {n}'s action to be free")
        button.click()
        wait_until(lambda: button.is_enabled() and not page.evaluate(UNSETTLED), timeout=240,
                   message=f"step {n}'s action to end")


def test_every_tour_step_speaks_the_pseudo_locale_and_fits_both_screens(page, server, shot):
    page.set_viewport_size({"width": 1920, "height": 1080})
    open_page(page, f"{server}?tour=1&lang={PSEUDO}")
    found = []
    for n in range(1, N + 1):
        rendered(page, n)
        assert page.locator(".tour-text").inner_text().strip() != TOUR[n - 1]["text"], f"step {n} is in English"
        press(page, n)
        found += [f"step {n}: English {w!r}" for w in sorted(set(english(page)))]
        for width, height, code in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            found += fitted(page, n, lambda m: problems(m, n, code, None, None) + outside(m, n))
            if n in (3, 19, 29, 39, 41):
                shot(page, f"pseudo-tour-{width}-step{n:02d}")
        page.set_viewport_size({"width": 1920, "height": 1080})
        if n < N:
            page.keyboard.press("PageDown")
    assert not found, "\n".join(dict.fromkeys(found))
