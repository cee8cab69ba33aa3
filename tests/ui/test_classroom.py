"""A class on one server: untrusted text stays text, sessions stay apart, lecturer controls are gated."""
from tests.helpers import wait_until
from tests.ui.helpers import LECTURER_TOKEN, PROMPT_BOX, SETTINGS, act, open_page

NASTY = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> the cat sat'
CONTROLS = ".lecturer-controls"              # the lecturer's card (shell.lecturer.controls)


def use_prompt(page, text):
    page.locator(SETTINGS).click()
    page.get_by_label(PROMPT_BOX).fill(text)
    act(page, "apply-settings").click()
    page.locator(".settings-panel .badge").wait_for()          # saved (uikit.panels.SettingsPanel.commit)


def test_html_and_script_in_a_prompt_are_shown_as_text(page, server, shot):
    # Chapter 8 shows the text so far (the prompt decoded from its tokens) as a chip. The tiny
    # pair's word-level tokenizer turns each markup word into the literal token "<unk>", so
    # the model's own tokens carry markup onto the page too.
    open_page(page, server + "?chapter=full-round", "Keep the prefix, correct once, drop the rest.")
    use_prompt(page, NASTY)
    act(page, "step").first.click()
    shown = page.get_by_text("<unk> <unk> <unk> the cat sat", exact=False).first
    shown.wait_for(timeout=60000)                      # the student's prompt, markup-like tokens as text
    shown.scroll_into_view_if_needed()
    shot(page, "classroom-html-prompt")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src=x]").count() == 0


def test_markup_in_the_url_is_shown_as_text(page, server):
    open_page(page, server + '?chapter=<img src=x onerror="window.__pwned=1">')
    page.locator('.notice[role="alert"]').first.wait_for()          # the page's notice on the unknown chapter
    assert page.evaluate("window.__pwned") is None and page.locator("img[src=x]").count() == 0


def test_two_students_do_not_see_each_others_prompt(browser, server):
    a, b = browser.new_context(), browser.new_context()
    try:
        pa, pb = a.new_page(), b.new_page()
        open_page(pa, server + "?chapter=dilemma", "Good is slow. Fast is sloppy.")
        use_prompt(pa, "the dog ran in the park")
        open_page(pb, server + "?chapter=dilemma", "Good is slow. Fast is sloppy.")
        pb.locator(SETTINGS).click()
        wait_until(lambda: pb.get_by_label(PROMPT_BOX).input_value() != "", message="B's prompt box")
        assert pb.get_by_label(PROMPT_BOX).input_value() != "the dog ran in the park"
        pa.reload()
        pa.locator(SETTINGS).click()
        wait_until(lambda: pa.get_by_label(PROMPT_BOX).input_value() == "the dog ran in the park",
                   message="A keeps its own prompt")
    finally:
        a.close(); b.close()


def test_lecturer_controls_exist_only_for_the_right_token(page, server, shot):
    open_page(page, server, "Can a small model make a big one faster")
    page.locator(".settings-card").wait_for()
    assert page.locator(CONTROLS).count() == 0                             # students: nothing
    open_page(page, server + "?lecturer=guess", "That lecturer token is not right")
    assert page.locator(CONTROLS).count() == 0
    open_page(page, server + f"?lecturer={LECTURER_TOKEN}", "Lecturer controls")
    page.locator(CONTROLS).wait_for()
    act(page, "reset-class").wait_for()
    shot(page, "classroom-lecturer-controls")
