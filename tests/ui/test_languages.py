"""The lab in Chinese, Spanish and the pseudo-locale, in a browser: the landing page and chapter 1
(its race run) show no English word outside model output and proper names, in the page's text and
in its figure's; the language menu switches a page keeping its place, and the browser keeps the
choice for its next pages; 0 console errors (the `page` fixture) and no server traceback. The
predict card, the preset bar and, on a busy machine, the busy sentence (uikit.verdicts.why_busy)
are checked with the rest (tests/ui/languages.py, shared with test_languages_uikit.py)."""
from __future__ import annotations

import pytest

from lab import i18n
from lab.pairs.tiny import tiny_pair
from tests.helpers import wait_until
from tests.ui.helpers import act, open_page
from tests.ui.languages import FIGURE_TEXT, LANGUAGES, PAGE_TEXT, SIZES, SKIPPED, SUMMARY, english_words, labelled, said


@pytest.mark.parametrize("language", LANGUAGES)
def test_landing_page_and_chapter_1_speak_the_language(page, server, shot, language):
    open_page(page, f"{server}?lang={language}",
              said(language, "Can a small model make a big one faster — same output?"))
    wait_until(lambda: tiny_pair().target_label in page.evaluate(PAGE_TEXT, SKIPPED), 60, message="the pair badge")
    landing = page.evaluate(PAGE_TEXT, SKIPPED)
    assert said(language, "Start · the question") in landing and said(language, "▶ Start the guided tour") in landing
    assert english_words(landing, language) == [], landing
    name = language.replace("-", "").lower()
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        shot(page, f"lang-{name}-landing-{size}")
    page.set_viewport_size(SIZES["1280"])

    open_page(page, f"{server}?chapter=dilemma&lang={language}", said(language, "Good is slow. Fast is sloppy."))
    labelled(page, "write", language, "✎ Write").click()
    page.get_by_text(said(language, SUMMARY), exact=False).first.wait_for(timeout=60000)
    legend = page.get_by_text(i18n.translate(language, "one slow big-model call")).first
    legend.scroll_into_view_if_needed()
    wait_until(lambda: i18n.translate(language, "small model done") in page.evaluate(FIGURE_TEXT), 30,
               message="the race figure, drawn")
    figure = page.evaluate(FIGURE_TEXT)
    assert i18n.translate(language, "Small model") in figure and "time (seconds" not in figure
    chapter = page.evaluate(PAGE_TEXT, SKIPPED)
    assert i18n.translate(language, "Takeaway") in chapter
    assert english_words(chapter, language) == [], chapter
    assert english_words(figure, language) == [], figure
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        act(page, "write").scroll_into_view_if_needed()
        shot(page, f"lang-{name}-ch01-{size}")
        legend.scroll_into_view_if_needed()
        shot(page, f"lang-{name}-ch01-race-{size}")


@pytest.mark.parametrize("language", ("zh", "es"))
def test_chapter_2_speaks_the_language(page, server, shot, language):
    open_page(page, f"{server}?chapter=easy-words&lang={language}", said(language, "Most words are easy."))
    labelled(page, "ask-small", language, "Ask the small model").click()
    rate = said(language, "That hit rate, {rate}, is the kind of rate chapter 4 measures in real rounds as α, "
                          "the acceptance rate.")
    page.get_by_text(rate, exact=False).first.wait_for(timeout=60000)
    page.locator(".chip-easy, .chip-hard").filter(has_not_text="Aa").first.click()    # a word, not the legend's
    page.get_by_text(i18n.translate(language, "big model’s top candidates")).first.wait_for()
    # the clicked word's line and its candidates' tables quote the models' tokens: checked by their frame
    text = page.evaluate(PAGE_TEXT, SKIPPED + ["cands", "pos"])
    assert page.locator(".pos").first.inner_text().startswith(said(language, "Word {n}: “{word}” — {verdict}."))
    assert rate in text
    assert english_words(text, language) == [], text
    shot(page, f"lang-{language}-ch02-1280", scroll_to=page.get_by_text(
        i18n.translate(language, "big model’s top candidates")).first)


def test_the_menu_switches_language_keeping_the_page_and_the_browser_keeps_it(page, server):
    open_page(page, f"{server}?chapter=dilemma&lang=es", "Lo bueno es lento. Lo rápido es descuidado.")
    page.get_by_role("link", name="中文").click()
    page.get_by_text("好的慢，快的糙。", exact=True).first.wait_for()
    assert "chapter=dilemma" in page.url and "lang=zh" in page.url
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
    # the next page without ?lang: the browser's last choice
    open_page(page, f"{server}?chapter=easy-words", "2 · 大多数词都很容易")
    page.get_by_role("link", name="English").click()
    page.get_by_text("Most words are easy.", exact=True).first.wait_for()
    assert "chapter=easy-words" in page.url and page.evaluate("document.documentElement.lang") == "en"
    open_page(page, server, "Can a small model make a big one faster")
