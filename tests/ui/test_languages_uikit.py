"""Chapters 3, 4 and 5 in Chinese and Spanish, in a browser, with uikit's shared pieces now in the
catalog: the predict card (answered, its verdict shown), the preset bar and the lanes and legends
are checked too. Each page's visible text, after its experiment ran, has no English word outside
model output (token chips) and proper names; 0 console errors (the `page` fixture); screenshots
at 1280x720 and 1920x1080. On a busy machine the busy sentence is in the page's language too
(uikit.verdicts.why_busy)."""
from __future__ import annotations

import re

import pytest

from chapters.ch04_guess_check_keep import CHOICES as CH4
from chapters.ch05_one_pass import CHOICES as CH5
from lab import i18n
from tests.helpers import wait_until
from tests.ui.helpers import open_page
from tests.ui.languages import PAGE_TEXT, SIZES, SKIPPED, english_words, labelled, said


def t(language: str, message: str) -> str:
    return i18n.translate(language, message)


def before(language: str, message: str) -> str:
    """The visible words of `message` in `language` up to its first placeholder (markup left out)."""
    return re.sub(r"<[^>]+>", "", said(language, message)).strip()


def check_and_shoot(page, shot, language: str, name: str, extra_skip=()) -> str:
    text = page.evaluate(PAGE_TEXT, SKIPPED + list(extra_skip))
    assert english_words(text, language) == [], text
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, f"lang-{language}-{name}-{size}")
        page.locator(".predict-card").first.scroll_into_view_if_needed()
        shot(page, f"lang-{language}-{name}-card-{size}")
    page.set_viewport_size(SIZES["1280"])
    return text


@pytest.mark.parametrize("language", ("zh", "es"))
def test_chapter_3_speaks_the_language(page, server, shot, language):
    open_page(page, f"{server}?chapter=checking&lang={language}", t(language, "Checking is faster than writing."))
    page.get_by_role("button", name=t(language, "1"), exact=True).first.click()          # the card's answer
    page.get_by_text(before(language, "You said <b>{answer}</b>. {hint}"), exact=False).first.wait_for()
    tick = labelled(page, "tick", language, "Tick the clock")
    for _ in range(5):
        tick.click()
        page.wait_for_timeout(300)
    wait_until(lambda: tick.is_disabled(), 60, message="five ticks")
    page.get_by_text(t(language, "✓ Right."), exact=False).first.wait_for(timeout=30000)
    labelled(page, "measure-machine", language, "Measure this machine").click()
    page.get_by_text(before(language, "One call over 1 position: <b>{ms} ms</b> (timed for this server, after {n} "
                                      "tokens of text)."), exact=False).first.wait_for(timeout=180000)
    text = check_and_shoot(page, shot, language, "ch03")
    assert t(language, "Is that true on this machine? Measure it:") in text and t(language, "Writing") in text


@pytest.mark.parametrize("language", ("zh", "es"))
def test_chapter_4_speaks_the_language(page, server, shot, language):
    open_page(page, f"{server}?chapter=guess-check-keep&lang={language}", t(language, "Guess, check, keep."))
    page.get_by_role("button", name=t(language, CH4[1]), exact=True).first.click()
    page.get_by_text(before(language, "You said <b>{answer}</b>. {hint}"), exact=False).first.wait_for()
    nxt = labelled(page, "next-round", language, "▶ Next round")
    so_far = before(language, "So far: {tokens}; standard decoding would have called the target {standard}, "
                              "draft + verify {spec}.")
    nxt.click()
    page.get_by_text(so_far, exact=False).first.wait_for(timeout=60000)
    wait_until(lambda: nxt.is_enabled(), 60, message="round 1 drawn")
    nxt.click()
    wait_until(lambda: page.locator(".round").count() >= 4, 60, message="round 2 in both strips")
    page.get_by_text(t(language, "✓ Right."), exact=False).first.wait_for(timeout=30000)
    check_and_shoot(page, shot, language, "ch04")


@pytest.mark.parametrize("language", ("zh", "es"))
def test_chapter_5_speaks_the_language(page, server, shot, language):
    open_page(page, f"{server}?chapter=one-pass&lang={language}",
              t(language, "One pass gives the target’s view at every position."))
    page.get_by_role("button", name=t(language, CH5[1]), exact=True).first.click()
    page.get_by_text(t(language, "context the target assumed"), exact=False).first.wait_for(timeout=120000)
    page.locator("button.bk-btn", has_text="◆").nth(1).click()             # the second guess (the page drew a round)
    page.get_by_text(before(language, "Guesses 1…{n} were all kept in this round, so this check is usable."),
                     exact=False).or_(page.get_by_text(before(language, "In this round guess {n} (<b>{guess}</b>) was "
                                                                        "rejected, so this check was made for a "
                                                                        "context that never happens: it is thrown "
                                                                        "away."),
                                                       exact=False)).first.wait_for(timeout=30000)
    page.get_by_text(t(language, "✓ Right."), exact=False).first.wait_for(timeout=30000)
    # the position's line and the pass table quote the models' tokens (checked by their frame)
    text = check_and_shoot(page, shot, language, "ch05", extra_skip=["speclab-formula", "speclab-table"])
    assert t(language, "the extra position: p only") in text
