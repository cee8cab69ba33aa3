"""The guided tour in Chinese and Spanish (issue 54), in chromium: a sample of steps opened at
`?tour=N&lang=zh` and `&lang=es` speak the page's language (the step's sentence, the deck's words,
the step's action button) and fit a 1280×720 screen and a 1920×1080 projector as the English tour
does (tests/ui/tour_rules.py: nothing scrolls, clipped or overlapping; at 1920×1080 the back row's
type sizes and 60 % of the screen covered). Step 3 is measured after its Write too. Screenshots:
tests/ui/screenshots/tour-LANG-WIDTH-stepNN.png. (The steps' words without a browser:
tests/i18n/test_tour_language.py.)"""
import pytest

from lab import i18n
from shell.tour.steps import TOUR, step_text
from tests.helpers import wait_until
from tests.ui.helpers import open_page
from tests.ui.tour_rules import SMALLEST, fitted, outside, problems, settled

STEPS = (1, 3, 10, 26, 41)
WORDS = {"zh": ("上一步", "下一步"), "es": ("Atrás", "Siguiente")}


@pytest.mark.parametrize("language", ["zh", "es"])
def test_tour_steps_speak_the_pages_language_and_fit_both_screens(page, server, shot, language):
    found = []
    back, forward = WORDS[language]
    for n in STEPS:        # each step opened once, its action pressed once, then measured on both screens
        page.set_viewport_size({"width": 1280, "height": 720})
        open_page(page, f"{server}?tour={n}&lang={language}")
        settled(page, n)
        assert page.locator(".tour-text").inner_text().strip() == step_text(n, language)
        assert page.get_by_role("button", name=back).count() and page.get_by_role("button", name=forward).count()
        action = TOUR[n - 1].get("action")
        if action:          # the step's button, as the page's language labels it
            button = page.get_by_role("button", name=i18n.translate(language, action), exact=True).first
            wait_until(lambda: button.is_enabled(), timeout=240, message=f"step {n}'s action to be free")
            button.click()
            wait_until(lambda: button.is_enabled(), timeout=240, message=f"step {n}'s action to end")
        for width, height in ((1280, 720), (1920, 1080)):
            page.set_viewport_size({"width": width, "height": height})
            if width == 1280:
                found += fitted(page, n, lambda m: problems(m, n, 16, None, None))
            else:
                found += fitted(page, n, lambda m: problems(m, n, SMALLEST["code"], SMALLEST, cover=0.6) + outside(m, n))
            shot(page, f"tour-{language}-{width}-step{n:02d}")
    assert not found, "\n".join(found)
