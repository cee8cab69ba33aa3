"""Chapters 5–11 in a browser: open by URL, answer the predict question, use the main control."""
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from chapters.rounds import SHOWN_TEMPERATURE, SHOWN_TOP_P, teaching_generation_steps, teaching_round
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.core.sampling import SamplingSettings
from lab.pairs.tiny import tiny_pair
from lab.speed.measure import run_to_end
from serving.service import ModelService
from tests.helpers import wait_until
from chapters.ch07_correction import RULE_NAMES
from tests.ui.helpers import BOKEH_SOURCES, SLIDER_VALUE, act, deep_text, open_page
from uikit.tokens import show_text

@pytest.fixture(scope="module")
def first_round():
    """The round the served app shows first: the same tiny pair, prompt, γ, settings and chosen seed."""
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    steps = teaching_generation_steps(ModelService(lambda: pair), ids, gamma=4, first_seed=0,
                                      settings=SamplingSettings(SHOWN_TEMPERATURE, 0, SHOWN_TOP_P))
    trace = run_to_end(steps)          # at the seed chapters 5, 8 and 9 choose from the student's 0
    return trace.rounds[teaching_round(trace)]


def text_so_far(page) -> list[str]:
    return page.locator(".text-so-far").locator(".chip .tx").all_inner_texts()


def test_ch05_click_a_position(page, server, shot, first_round):
    open_page(page, server + "?chapter=one-pass", "One pass gives the target’s view")
    page.get_by_role("button", name="No — it was computed for a context", exact=False).click()
    page.get_by_text(f"Round {first_round.index + 1} of", exact=False).first.wait_for(timeout=60000)
    page.locator(".chip-draft button").nth(2).click()    # the third guess
    page.get_by_text("Position 3:", exact=False).first.wait_for()
    page.get_by_text("assuming guesses 1…2 are right", exact=False).first.wait_for()
    page.get_by_text("✓ Right.", exact=False).wait_for()
    shot(page, "ch05-position-3")


def test_ch06_draw_1000(page, server, shot):
    open_page(page, server + "?chapter=accept-rule", "Keep a guess as often as the target agrees.")
    page.get_by_role("button", name="Keep it with probability p / q = 0.75", exact=False).click()
    act(page, "draw-many").click()
    page.get_by_text("Last of 1000 draws", exact=False).wait_for()
    page.get_by_text("✓ Right.", exact=False).wait_for()
    act(page, "draw").click()
    wait_until(lambda: [d["n"][-1] for d in page.evaluate(BOKEH_SOURCES, ["n", "share"]) if d["n"]] == [1001],
               message="the one draw after the 1000 on the share line")
    shot(page, "ch06-draws")


def test_ch07_rules(page, server, shot):
    open_page(page, server + "?chapter=correction", "Corrections go where the draft was too shy.")
    page.get_by_role("button", name="The kept drafts already supply", exact=False).click()
    page.get_by_text("within sampling noise", exact=False).first.wait_for(timeout=60000)
    page.locator(".rule-switch button").nth(list(RULE_NAMES).index("target")).click()     # sample from p
    page.get_by_text("far beyond sampling noise", exact=False).first.wait_for()
    page.get_by_text("✓ Right.", exact=False).wait_for()
    shot(page, "ch07-sample-from-p")


def test_ch08_step_to_the_end(page, server, shot, first_round):
    open_page(page, server + "?chapter=full-round", "Keep the prefix, correct once, drop the rest.")
    page.get_by_label("Your answer").fill("5")
    act(page, "lock").click()
    page.get_by_text(f"Round {first_round.index + 1} of", exact=False).first.wait_for(timeout=60000)
    step_to_the_end(page, "step {n} of", first_round)
    assert first_round.n_accepted < first_round.gamma       # a rejection: not the case asked about
    assert page.get_by_text("✓ Right.", exact=False).count() == 0
    shot(page, "ch08-round-done")


def step_to_the_end(page, counter: str, first_round):
    """Press Step, waiting for each step's counter ("step {n} of"), until the round is done; then the
    text so far is the round's emitted tokens. A press the page says it did not run (this browser's
    share of clicks spent, intercept.clicks) is pressed again a moment later, as a student would."""
    step = act(page, "step")
    for n in range(1, 60):
        if not press(step):
            break
        shown = page.get_by_text(counter.format(n=n), exact=False).first
        for _ in range(30):
            try:
                shown.wait_for(timeout=2000)
                break
            except PlaywrightTimeout:
                if "so it did nothing" in deep_text(page) and not press(step):
                    break
        else:
            shown.wait_for()
    wait_until(lambda: step.is_disabled(), message="the round to finish")
    expected = [show_text(t) for t in first_round.emitted_texts]
    wait_until(lambda: text_so_far(page)[1:] == expected, message=f"text so far == {expected}")


def press(step) -> bool:
    """Press Step; False when the round has ended. The counter of the last step can show a moment
    before the button's disabled state arrives, so a press that waits on a disabled button is the
    round's end, not a failure (the text-so-far check after the loop says whether it was)."""
    try:
        step.click(timeout=5000)
        return True
    except PlaywrightTimeout:
        if step.is_disabled():
            return False
        raise


def test_ch09_step_the_code(page, server, shot, first_round):
    open_page(page, server + "?chapter=code", "The whole round fits in seventeen lines.")
    page.get_by_role("button", name="if x == argmax(p)", exact=False).click()
    page.get_by_text("line event 0 of", exact=False).first.wait_for(timeout=60000)
    step_to_the_end(page, "line event {n} of", first_round)
    shot(page, "ch09-round-done")
    # Temperature 0: the accept test turns into an argmax comparison.
    handle = page.locator(".noUi-handle").filter(visible=True).first
    handle.focus()
    page.keyboard.press("Home")
    page.get_by_text("if x == argmax(p):", exact=False).first.wait_for(timeout=60000)
    page.get_by_text("✓ Right.", exact=False).wait_for()


def test_ch10_slider_updates_the_plot(page, server, shot):
    open_page(page, server + "?chapter=breakeven", "Tokens per round, divided by cost per round.")
    page.get_by_role("button", name="slower", exact=True).click()
    wait_until(lambda: page.evaluate(BOKEH_SOURCES, ["alpha"]), message="chapter 10's figures")
    before = [d for d in page.evaluate(BOKEH_SOURCES, ["alpha", "speedup"]) if len(d["alpha"]) == 1]
    assert before[0]["alpha"] == [0.8]
    handle = page.locator(".noUi-handle").filter(visible=True).first      # α
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] - 60, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()

    def point_alpha():
        points = [d for d in page.evaluate(BOKEH_SOURCES, ["alpha", "speedup"]) if len(d["alpha"]) == 1]
        return points[0]["alpha"][0]

    def plot_and_formula_agree():
        a = point_alpha()            # the plotted point, read from the page's Bokeh model
        formula = page.locator(".speclab-formula", has_text="E = (1").first.inner_text()
        # the drag's last move is drawn (its moves are gathered, the last one wins)
        return a < 0.8 and a == page.evaluate(SLIDER_VALUE, "α") and f"(1 − {a:.2f})" in formula
    wait_until(plot_and_formula_agree, message="the plotted point and the formula to follow the α slider")
    dragged = point_alpha()
    page.keyboard.press("ArrowRight")    # one key press: drawn at once (in the browser), one step on
    wait_until(lambda: point_alpha() == page.evaluate(SLIDER_VALUE, "α") != dragged,
               message="the plotted point to follow a key press on the α slider")
    act(page, "try-question").click()
    page.get_by_text("slower than standard decoding", exact=False).first.wait_for()
    page.get_by_text("✓ Right.", exact=False).wait_for()
    shot(page, "ch10-question")
    act(page, "use-models").click()
    page.locator(".priced-speedup").first.wait_for(timeout=120000)      # measured on this machine


def test_ch11_timeline(page, server, shot):
    open_page(page, server + "?chapter=timeline", "Same distribution, a different schedule.")
    page.locator(".decode-speedup").first.wait_for(timeout=60000)      # the request's decode speed-up
    for head in ("What stays the same?", "What gets faster?", "What does it cost?"):
        page.get_by_text(head).first.wait_for()
    lanes = page.evaluate(BOKEH_SOURCES, ["lane", "left", "right"])
    assert any(len(d["lane"]) > 4 for d in lanes)
    shot(page, "ch11-timeline")
