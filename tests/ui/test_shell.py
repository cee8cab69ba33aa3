"""The shell in a browser: landing page, navigation by part, deep links, prev/next, back/forward (every
listed page opening: tests/ui/test_a11y.py, which checks each one)."""

from chapters.registry import PARTS, chapter_pages, question_count
from tests.helpers import wait_until
from tests.ui.helpers import LECTURER_TOKEN, PROMPT_BOX, SETTINGS, act, open_page, taken

PAGER_NEXT, PAGER_PREV = '.pager a[rel="next"]', '.pager a[rel="prev"]'     # shell.frame.pages.pager_html


def test_landing_page_shows_the_question_counts_and_links(page, server, shot):
    open_page(page, server, "Can a small model make a big one faster")
    for text in (f"{len(PARTS)} parts", f"{len(chapter_pages())} short chapters",
                 f"{question_count()} predict & check questions", "guided steps",
                 "for fullscreen", "Start the guided tour", "Explore chapter by chapter"):
        assert page.get_by_text(text, exact=False).first.is_visible(), text
    # the model-pair badge replaces the loading line once the (tiny) pair is in
    wait_until(lambda: page.get_by_text("tiny llama target", exact=False).first.is_visible(), 60,
               message="the pair badge")
    assert page.get_by_text("PART III").first.is_visible()
    assert page.get_by_role("link", name="Good is slow. Fast is sloppy").first.is_visible()
    shot(page, "landing")


def test_deep_link_prev_next_and_browser_history(page, server, shot):
    open_page(page, server + "?chapter=dilemma", "Good is slow. Fast is sloppy.")
    assert page.get_by_text("sampling: greedy", exact=False).first.is_visible()
    page.locator(PAGER_NEXT).click()
    page.get_by_text("Most words are easy.", exact=True).first.wait_for()
    assert "chapter=easy-words" in page.url
    page.locator(PAGER_PREV).click()
    wait_until(lambda: "chapter=dilemma" in page.url)
    page.go_back()
    wait_until(lambda: "chapter=easy-words" in page.url)
    page.get_by_text("Most words are easy.", exact=True).first.wait_for()
    page.go_forward()
    wait_until(lambda: "chapter=dilemma" in page.url)
    page.get_by_text("Good is slow. Fast is sloppy.", exact=True).first.wait_for()
    # the navigation reaches the bridge page and Part III
    page.locator('nav.nav a[href="?chapter=questions"]').click()
    wait_until(lambda: "chapter=questions" in page.url)
    page.locator(".fq ol li").first.wait_for()                  # the bridge page's five questions
    shot(page, "five-questions")


def test_unknown_chapter_and_the_tour_link(page, server):
    open_page(page, server + "?chapter=nope", "There is no chapter called")
    page.locator(".landing h1").wait_for()
    page.locator(".landing .cta a.primary").click()
    wait_until(lambda: "tour=" in page.url)
    page.locator(".tour-exit").first.wait_for(timeout=60000)     # the tour's deck (assets/tour.js)


def test_settings_follow_the_student_to_the_next_page(page, server, shot):
    open_page(page, server + "?chapter=dilemma", "Good is slow. Fast is sloppy.")
    page.locator(SETTINGS).click()
    box = page.get_by_label(PROMPT_BOX)
    box.fill("   ")
    act(page, "apply-settings").click()
    page.get_by_text("The prompt is empty", exact=False).wait_for()
    shot(page, "settings-empty-prompt")
    box.fill("the dog ran in the park")
    act(page, "apply-settings").click()
    page.locator(".settings-panel .badge").wait_for()          # saved (uikit.panels.SettingsPanel.commit)
    page.locator(PAGER_NEXT).click()
    wait_until(lambda: "chapter=easy-words" in page.url)
    page.locator(".page-content .ch-head").first.wait_for()     # the next chapter is on the page
    page.locator(SETTINGS).click()
    wait_until(lambda: page.get_by_label(PROMPT_BOX).input_value() == "the dog ran in the park",
               message="the prompt carried to the next page")


def test_f_toggles_fullscreen_outside_text_fields(page, server):
    open_page(page, server, "Can a small model make a big one faster")
    wait_until(lambda: page.evaluate("document.cookie").startswith("speclab_id="), message="the shell's keys")
    page.locator("h1").first.click()
    page.keyboard.press("f")
    wait_until(lambda: page.evaluate("!!document.fullscreenElement"), 10, message="fullscreen on F")
    page.keyboard.press("f")
    wait_until(lambda: page.evaluate("!document.fullscreenElement"), 10, message="fullscreen off on F")


def test_the_landing_page_counts_the_students_answers(page, server):
    open_page(page, server + "?chapter=checking", "Checking is faster than writing.")
    page.locator(".choice button").nth(1).click()                     # the card's second choice, 5
    taken(page)
    page.locator("nav.nav a.home").click()
    page.get_by_text("you have answered", exact=False).wait_for(timeout=30000)
    assert f"1 of {question_count()}" in page.get_by_text("you have answered", exact=False).inner_text()


# The lecturer's frame (shell.frame.app.SessionPage) is one for every page; the pages differ in what
# it holds: the page whose question the class opened, a round, figures, the bridge, the last chapter's
# table. (Every page opens in a browser in tests/ui/test_a11y.py.)
LECTURER_SAMPLE = ("checking", "guess-check-keep", "breakeven", "questions", "predictable")


def test_the_lecturers_view_of_a_page_shows_the_page(page, server):
    """Once the class has opened a question, the lecturer's poll holds its histogram in a collapsed
    card; the lecturer's view of a page still shows the badge, the settings, the load line and
    the chapter, not only the poll (LECTURER_SAMPLE: pages of each kind)."""
    from chapters.registry import pages
    open_page(page, server + "?chapter=checking", "Checking is faster than writing.")   # opens question 3
    page.locator(".pair-badge").first.wait_for()
    for p in (p for p in pages() if p.slug in LECTURER_SAMPLE):
        open_page(page, f"{server}?chapter={p.slug}&lecturer={LECTURER_TOKEN}", "Class poll")
        page.get_by_text(p.title, exact=True).first.wait_for(timeout=60000)
        for part in (".pair-badge", ".settings-card", ".lecturer-controls", ".server-load"):
            assert page.locator(part).first.is_visible(), (p.slug, part)
