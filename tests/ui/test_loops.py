"""The asked-about case and the visual loops, in a browser: ch 8's all-kept round before its verdict,
ch 4's kept and rejected colours, ch 6's share of A moving toward p(A), the landing's numbering."""
import re

from tests.ui.conftest import open_page, wait_until


def test_ch08_the_case_appears_before_the_verdict(page, server, shot):
    open_page(page, server + "?chapter=full-round", "Keep the prefix, correct once, drop the rest.")
    page.get_by_label("Your answer").fill("5")
    page.get_by_role("button", name="Lock in my answer").click()
    page.get_by_text("Round 1 of", exact=False).first.wait_for(timeout=60000)
    assert page.get_by_text("✓ Right.", exact=False).count() == 0
    page.get_by_role("button", name="Show a round where every draft is kept", exact=True).click()
    note = page.get_by_text(re.compile(r"Seed \d+, round \d+: all 4 drafts kept"))
    note.wait_for(timeout=60000)
    bonus = page.locator(".text-so-far .chip.chip-bonus")
    wait_until(lambda: bonus.count() == 1, message="the bonus token in the text so far")
    page.get_by_text("All 4 drafts kept", exact=False).first.wait_for()
    page.get_by_text("✓ Right.", exact=False).wait_for()
    shot(page, "ch08-every-draft-kept", scroll_to=page.get_by_text("This round adds", exact=False).first)
