"""Part IV in a browser (tiny pair): both pages in the navigation, run, their results and verdicts shown."""
import pytest

from chapters import ch12_cheaper_guesses as ch12, ch13_predictable as ch13
from lab.core.request import Request
from lab.experiments import textkinds
from lab.core.engine import generate
from lab.experiments.presets import preset_by_key
from lab.prompts import encode_prompt
from lab.pairs.tiny import tiny_pair
from tests.helpers import wait_until
from tests.ui.helpers import act, open_page, taken


@pytest.fixture(scope="module")
def pair():
    return tiny_pair()      # the served app's pair: same seed, same weights


def test_part_four_is_in_the_navigation_and_the_pager(page, server, shot):
    open_page(page, server + "?chapter=timeline", "PART IV")
    nav = page.locator("nav.nav")
    assert "Beyond the lecture" in nav.inner_text()
    assert nav.get_by_role("link", name="12 · Cheaper guesses").is_visible()
    page.locator("nav.pager a.next").click()
    page.get_by_text("Part IV of IV · Other guessers, other texts", exact=False).first.wait_for()
    assert "?chapter=cheaper-guesses" in page.url
    page.locator("nav.pager a.next").click()
    page.get_by_text("How predictable is your text?", exact=False).first.wait_for()
    assert page.locator("nav.pager a.next").count() == 0          # the last page
    shot(page, "part4-nav")


def test_ch12_measures_every_drafting_on_the_edit_prompt(page, server, shot, pair):
    open_page(page, server + "?chapter=cheaper-guesses", "Cheaper guesses.")
    page.get_by_role("button", name=ch12.DRAFTER_NAMES["lookup"]).click()
    taken(page)
    edit = page.locator(".preset-edit button")
    edit.click()
    wait_until(lambda: "bk-btn-primary" in (edit.get_attribute("class") or ""), message="Edit a record marked chosen")
    act(page, "measure-all").click()
    page.get_by_text("Every drafting wrote exactly plain decoding's text.", exact=False).wait_for(timeout=120000)
    assert page.get_by_text("✓ yes, token for token").count() == len(ch12.cheaper.DRAFTINGS)
    # the calls in the table are the engine's on the same prompt
    ids = encode_prompt(pair.tokenizer, preset_by_key("edit").prompt)
    calls = {}
    for key in ("model", "lookup", "hybrid"):
        trace = generate(pair, Request(ids, gamma=4, max_new_tokens=ch12.MAX_NEW_TOKENS, drafter=key, policy="constant"))
        calls[key] = trace.target_calls
        row = page.locator(f"tr[data-drafting='{key}']").first
        assert f"({trace.target_calls} calls)" in row.inner_text()
    fewest = min(calls.values())
    verdict = page.locator(".verdict.right, .verdict.wrong").first
    verdict.wait_for()
    said = verdict.inner_text()
    winners = [ch12.DRAFTER_NAMES[k] for k, n in calls.items() if n == fewest]
    if len(winners) == 1:        # (a tie goes to the cheaper guesser, by measured c)
        assert ("✓ Right." in said) == (winners[0] == ch12.DRAFTER_NAMES["lookup"])
        assert "✓ Right." in said or f"the answer is {winners[0]}" in said
    assert f"Prompt lookup {calls['lookup']}" in said
    shot(page, "ch12-measured", page.get_by_text("Every drafting wrote exactly", exact=False))


def test_ch13_measures_alpha_per_kind_and_places_the_prompt(page, server, shot, pair):
    open_page(page, server + "?chapter=predictable", "How predictable is your text?")
    page.get_by_role("button", name="Edits", exact=True).click()
    taken(page)
    act(page, "measure-kinds").click()
    yours = page.locator(".speclab-table tr.current").first          # your prompt's row
    yours.wait_for(timeout=180000)
    kinds = textkinds.kind_prompts(ch13.PER_KIND)
    best = None
    for kind in textkinds.KINDS:
        r = textkinds.measure_kind(pair, kind, kinds[kind], gamma=ch13.GAMMA, max_new_tokens=ch13.MAX_NEW_TOKENS)
        row = page.locator(f"tr[data-kind='{r.kind}']").first
        assert f"{r.alpha:.2f}" in row.inner_text()
        assert f"{r.accepted} of {r.judged} judged · {r.drafted} drafted" in row.inner_text()
        best = r if best is None or r.alpha > best.alpha else best
    verdict = page.locator(".verdict.right, .verdict.wrong").first
    verdict.wait_for()
    assert ("✓ Right." in verdict.inner_text()) == (ch13.kind_name(best.kind) == "Edits")
    assert f"{ch13.kind_name(best.kind)} {best.alpha:.2f}" in verdict.inner_text()
    page.get_by_text("in the leap, or only in the check?", exact=False).first.wait_for()
    shot(page, "ch13-measured", yours)
    # a preset changes the student's prompt: its bar is measured again
    page.locator(".preset-story button").click()
    wait_until(lambda: "lighthouse" in yours.inner_text(), 120,
               message="your prompt measured again")
