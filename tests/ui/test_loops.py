"""The asked-about case and the visual loops, in a browser: ch 8's all-kept round before its verdict,
ch 4's kept and rejected colours, ch 6's share of A moving toward p(A), the landing's numbering."""
import re

from tests.helpers import wait_until
from tests.ui.helpers import act, open_page


def test_ch08_the_case_appears_before_the_verdict(page, server, shot):
    open_page(page, server + "?chapter=full-round", "Keep the prefix, correct once, drop the rest.")
    page.get_by_label("Your answer").fill("5")
    act(page, "lock").click()
    page.locator(".round-note .speclab-formula").first.wait_for(timeout=60000)     # a round on the page
    assert page.get_by_text("✓ Right.", exact=False).count() == 0
    act(page, "find-round").click()
    note = page.get_by_text(re.compile(r"Seed \d+, round \d+: all 4 drafts kept"))
    note.wait_for(timeout=60000)
    bonus = page.locator(".text-so-far .chip.chip-bonus")
    wait_until(lambda: bonus.count() == 1, message="the bonus token in the text so far")
    page.get_by_text("All 4 drafts kept", exact=False).first.wait_for()
    page.get_by_text("✓ Right.", exact=False).wait_for()
    shot(page, "ch08-every-draft-kept", scroll_to=page.get_by_text("This round adds", exact=False).first)


def _deep(page, script):
    """Run `script` over every shadow root (Panel renders panes in shadow DOM)."""
    return page.evaluate("""(script) => {
      const roots = [document];
      for (let i = 0; i < roots.length; i++)
        for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
      const fn = eval(script);
      const out = [];
      for (const r of roots) out.push(fn(r));
      return out;
    }""", script)


def test_ch04_kept_and_rejected_drafts_differ_in_colour(page, server, shot):
    open_page(page, server + "?chapter=guess-check-keep", "Guess, check, keep.")
    lane = """(root) => {
      const lane = [...root.querySelectorAll('.round')].filter(g => g.querySelector('.chip-target_call'));
      const colour = s => lane.flatMap(g => [...g.querySelectorAll('.chip-' + s)])
                              .map(c => getComputedStyle(c).backgroundColor);
      return {groups: lane.length, kept: colour('kept'), rejected: colour('rejected'), fixed: colour('fixed')};
    }"""
    for n in (1, 2):
        act(page, "next-round").click()
        wait_until(lambda: any(x["groups"] == n for x in _deep(page, lane)), 60, message=f"round {n} in the lane")
    seen = wait_until(lambda: [x for x in _deep(page, lane) if x["groups"] == 2], message="the lane's two rounds")[0]
    assert set(seen["kept"]) == {"rgb(43, 122, 75)"}          # palette.OVERLAP
    assert set(seen["rejected"]) == {"rgb(179, 38, 30)"}      # palette.EAGER
    assert set(seen["fixed"]) == {"rgb(106, 61, 154)"}        # palette.RESIDUAL
    assert len(seen["rejected"]) == 2 and len(seen["kept"]) >= 1
    page.get_by_text("draft call: guess rejected", exact=False).first.wait_for()
    shot(page, "ch04-kept-rejected", scroll_to=page.get_by_text("Draft + verify", exact=True).first)


SHARE_LINE = """() => {
  for (const d of Bokeh.documents)
    for (const m of d.all_models)
      if (m.type === 'ColumnDataSource' && 'share' in m.data) return {n: Array.from(m.data.n), share: Array.from(m.data.share)};
}"""


def test_ch06_the_share_of_a_moves_toward_p(page, server, shot):
    open_page(page, server + "?chapter=accept-rule", "Keep a guess as often as the target agrees.")
    act(page, "draw").click()
    line = wait_until(lambda: (lambda d: d if d and len(d["n"]) == 1 else None)(page.evaluate(SHARE_LINE)),
                      message="the first round on the share line")
    assert line["share"] == [0.0] or line["share"] == [1.0]
    many = act(page, "draw-many")
    for total in (1001, 2001, 3001, 4001):
        many.click()
        line = wait_until(lambda: (lambda d: d if d and d["n"][-1] == total else None)(page.evaluate(SHARE_LINE)),
                          message=f"{total} rounds on the share line")
    share = line["share"][-1]
    assert abs(share - 0.6) < 0.03 and abs(share - 0.8) > 0.15      # p(A) = 0.6, q(A) = 0.8
    page.get_by_text(f"{share:.3f} of the outputs are A", exact=False).wait_for()
    shot(page, "ch06-share-of-a", scroll_to=page.get_by_text("of the outputs are A", exact=False).first)


def test_landing_part_cards_number_chapters_as_the_sidebar(page, server, shot):
    open_page(page, server, "Can a small model make a big one faster")
    card = page.locator("section.partcard", has_text="Part III")
    card.wait_for()
    numbers = card.locator("li").evaluate_all("items => items.map(li => li.value)")
    assert numbers == list(range(5, 5 + len(numbers))) and len(numbers) >= 7
    side = page.locator("nav.nav li a").all_inner_texts()
    for n, title in zip(numbers, card.locator("li a").all_inner_texts()):
        assert f"{n} · {title}" in side
    shot(page, "landing-numbering", scroll_to=card)
