"""The preset bar in a browser (chapter 4 on the tiny pair): a preset click and the random switch each
change the rounds shown, to exactly what the engine makes for that prompt and draft."""
import re

from chapters.ch04_guess_check_keep import CHOICES
from lab.core.request import Request
from lab.experiments.presets import preset_by_key
from tests.helpers import wait_until
from tests.ui.helpers import act, open_page, taken

SO_FAR = re.compile(r"So far: (\d+) tokens?")


def _first_rounds(pair):
    """Round 1 as the page should show it: (tokens, first token) for the default prompt, the Code
    preset, and the Code preset with the random draft (greedy, γ 4, seed 0, like a new student)."""
    from chapters.ch04_guess_check_keep import MAX_NEW_TOKENS
    from lab.core.engine import Decoder
    from lab.prompts import DEFAULT_PROMPT, encode_prompt
    from lab.pairs.variants import DraftVariants

    def first(text, draft):
        ids = encode_prompt(pair.tokenizer, text)
        r = Decoder(DraftVariants().pair(pair, draft), Request(ids, gamma=4, seed=0, max_new_tokens=MAX_NEW_TOKENS)).step()
        return len(r.emitted_ids), pair.tokenizer.decode(r.emitted_ids[:1])
    code = preset_by_key("code").prompt
    return first(DEFAULT_PROMPT, "aligned"), first(code, "aligned"), first(code, "random")


def _round_one(page):
    """Press Next round; (tokens so far, the text's first token) once round 1 shows."""
    act(page, "next-round").click()
    verdict = page.get_by_text("Round 1:", exact=False).first
    verdict.wait_for(timeout=60000)
    tokens = int(SO_FAR.search(verdict.inner_text()).group(1))
    return tokens, page.locator(".chip .tx").first.inner_text().strip()


def _started_over(page):
    wait_until(lambda: page.get_by_text("Round 1:", exact=False).count() == 0, message="the rounds to start over")


def test_a_preset_and_the_random_draft_change_the_rounds_shown(page, server, shot):
    from lab.pairs.tiny import tiny_pair
    from lab.pairs.variants import DraftVariants
    pair = tiny_pair()
    default, code_aligned, code_random = _first_rounds(pair)
    assert default != code_aligned != code_random and code_random[0] == 1     # the test can tell them apart
    open_page(page, server + "?chapter=guess-check-keep", "Guess, check, keep.")
    preset = page.locator(".preset-code button")
    preset.wait_for(timeout=60000)
    offered = [v for v, why in DraftVariants.offered(pair).items() if not why]     # the switch's variants
    switch = page.locator(".variant-switch button")
    assert "weak" not in offered and switch.count() == len(offered)                # the tiny pair has none
    page.get_by_text("This pair has no weak draft", exact=False).wait_for()
    page.locator(".choice button").nth(CHOICES.index("Neither: a new, third writer")).click()   # answered:
    taken(page)                                                                  # the bar may say who wins
    assert _round_one(page) == default

    preset.click()
    _started_over(page)
    wait_until(lambda: "bk-btn-primary" in (preset.get_attribute("class") or ""), message="Code marked chosen")
    page.get_by_text(preset_by_key("code").what, exact=False).wait_for()
    page.get_by_text("Measured here, ", exact=False).wait_for(timeout=120000)     # who won, measured
    assert _round_one(page) == code_aligned
    shot(page, "presets-code-aligned", scroll_to=page.get_by_text("Round 1:", exact=False).first)

    switch.nth(offered.index("random")).click()
    _started_over(page)
    page.get_by_text("every token equally likely", exact=False).wait_for()
    assert _round_one(page) == code_random
    shot(page, "presets-code-random", scroll_to=page.get_by_text("Round 1:", exact=False).first)
