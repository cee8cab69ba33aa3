"""Chapters 1–4 in a browser: answer the predict question, use the main control, see the result."""
from tests.helpers import wait_until
from tests.ui.helpers import act, open_page, taken

# The race figure's "done" labels (drawn on its canvas, so not in the page's text), read from the
# browser's Bokeh documents: [text, visible] of each, sorted.
DONE_LABELS = """() => {
  const out = [];
  for (const doc of Bokeh.documents)
    for (const m of doc.all_models)
      if (typeof m.text === "string" && m.text.endsWith("model done")) out.push([m.text, m.visible]);
  return out.sort();
}"""


def test_ch01_write_races_both_models(page, server, shot):
    open_page(page, server + "?chapter=dilemma", "Good is slow. Fast is sloppy.")
    page.locator(".speclab-lazy").first.scroll_into_view_if_needed()    # the figure: built when scrolled to
    wait_until(lambda: page.evaluate(DONE_LABELS) == [["big model done", False], ["small model done", False]],
               message="the race figure with its 'done' labels hidden")
    page.get_by_role("button", name="Each word is computed from the words before it", exact=False).click()
    taken(page)
    act(page, "write").click()
    page.get_by_text("The small model finished in", exact=False).wait_for(timeout=60000)
    page.get_by_text("✓ Right.", exact=False).wait_for()
    assert page.get_by_text("asks for reduced motion", exact=False).count() == 0   # it was replayed
    wait_until(lambda: page.evaluate(DONE_LABELS) == [["big model done", True], ["small model done", True]],
               message="both 'done' labels shown on the race figure")
    shot(page, "ch01-after-write", page.get_by_text("The small model finished in", exact=False))


def test_ch02_easy_and_hard_words(page, server, shot):
    open_page(page, server + "?chapter=easy-words", "Most words are easy.")
    page.get_by_label("Your answer").fill("3")
    act(page, "lock").click()
    taken(page)
    act(page, "ask-small").click()
    page.get_by_text("positions (✓ easy)", exact=False).wait_for(timeout=60000)
    page.get_by_text("the answer here is", exact=False).or_(page.get_by_text("✓ Right.")).first.wait_for()
    page.locator(".chip-easy, .chip-hard").first.click()
    page.get_by_text("top candidates", exact=False).first.wait_for()
    shot(page, "ch02-clicked-word")


def test_ch03_tick_the_clock_and_measure(page, server, shot):
    open_page(page, server + "?chapter=checking", "Checking is faster than writing.")
    page.get_by_role("button", name="1", exact=True).click()
    tick = act(page, "tick")
    written = page.locator(".chips .chip-target")        # the writing lane's words
    for n in range(1, 7):
        if tick.is_disabled():
            break
        tick.click()
        wait_until(lambda: written.count() >= n or tick.is_disabled(), 60, message=f"tick {n} to write a word")
    wait_until(lambda: tick.is_disabled(), 60, message="writing lane complete")
    page.get_by_text("✓ Right.", exact=False).wait_for()
    act(page, "measure-machine").click()
    page.get_by_text("One call over 1 position", exact=False).wait_for(timeout=90000)
    shot(page, "ch03-measured", page.get_by_text("One call over 1 position", exact=False))


def test_ch04_next_round_counts_target_calls(page, server, shot):
    open_page(page, server + "?chapter=guess-check-keep", "Guess, check, keep.")
    page.get_by_role("button", name="The target’s: every token", exact=False).click()
    nxt = act(page, "next-round")
    for i in range(1, 4):
        nxt.click()
        page.get_by_text(f"Round {i}:", exact=False).wait_for(timeout=60000)
        wait_until(lambda: nxt.is_enabled())
    text = page.get_by_text("Round 3:", exact=False).inner_text()
    assert "draft + verify 3" in text
    page.get_by_text("✓ Right.", exact=False).wait_for()
    shot(page, "ch04-three-rounds", page.get_by_text("Round 3:", exact=False))
