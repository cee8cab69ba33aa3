"""Chapter 4: each real round is one target call; standard decoding needs one per token."""
import asyncio

import pytest

from chapters.ch04_guess_check_keep import GuessCheckKeepChapter
from lab.core.request import Request


@pytest.fixture
def chapter(make_chapter, state):
    return make_chapter(GuessCheckKeepChapter, state)


def rounds(chapter, n):
    async def go():
        for _ in range(n):
            await chapter.next_round()
    asyncio.run(go())


def test_three_rounds_three_target_calls(chapter):
    rounds(chapter, 3)
    assert chapter.spec_calls == 3
    produced = sum(len(r.emitted_ids) for r in chapter.rounds)
    assert chapter.standard_calls == produced == chapter.tokens >= 3
    assert ">3</b><span>target calls" in chapter.spec_count.object
    assert f">{produced}</b><span>target calls" in chapter.standard_count.object
    # lanes: one target-call chip per token; per round γ draft calls and one check
    assert sum(c.state == "target_call" for c in chapter.standard_strip.chips) == produced
    assert sum(c.state == "target_call" for c in chapter.spec_strip.chips) == 3
    drafts = [c for c in chapter.spec_strip.chips if c.state in ("kept", "rejected", "dropped")]
    assert len(drafts) == sum(len(r.guesses) for r in chapter.rounds)


def test_draft_calls_are_coloured_by_their_verdict_round_by_round(chapter):
    rounds(chapter, 4)
    assert len(chapter.spec_strip.groups) == len(chapter.text_strip.groups) == 4
    for r, group, text in zip(chapter.rounds, chapter.spec_strip.groups, chapter.text_strip.groups):
        expected = (["kept"] * r.n_accepted + ["rejected"] * (r.n_accepted < len(r.guesses))
                    + ["dropped"] * max(0, len(r.guesses) - r.n_accepted - 1))
        assert [c.state for c in group[:len(r.guesses)]] == expected
        assert group[len(r.guesses)].state == "target_call"
        if len(r.emitted_ids) == r.n_accepted + 1:          # not cut short at the end of the text
            extra = {"correction": "fixed", "bonus": "bonus"}[r.extra_kind]
            assert group[-1].state == extra and group[-1].text == r.extra_text
        assert [c.text for c in text] == r.emitted_texts
    assert chapter.text_strip.__panel__().object.count('class="round"') == 4     # what the page shows
    assert 'aria-label="round 4"' in chapter.spec_strip.__panel__().object
    assert any(r.n_accepted < len(r.guesses) for r in chapter.rounds)     # a rejection was drawn
    assert any(len(r.emitted_ids) == r.n_accepted + 1 for r in chapter.rounds)  # and a fix or bonus


def test_the_text_is_kept_fixed_and_bonus_tokens(chapter):
    rounds(chapter, 3)
    states = [c.state for c in chapter.text_strip.chips]
    assert set(states) <= {"kept", "fixed", "bonus"}
    assert len(states) == chapter.tokens
    # greedy: the text equals the target's own plain decoding (the predict card's answer)
    plain = chapter.state.service.generation(Request(chapter.state.prompt_ids(), mode="plain", max_new_tokens=chapter.tokens))
    assert [t for r in chapter.rounds for t in r.emitted_ids] == plain.new_ids


def test_predict_card_and_reset(chapter):
    chapter.predict.commit(chapter.predict.answer)
    rounds(chapter, 1)
    assert chapter.predict.correct is True
    chapter.reset()
    assert chapter.spec_calls == 0 and chapter.text_strip.chips == []


def test_changing_the_prompt_starts_over(chapter):
    rounds(chapter, 2)
    chapter.state.prompt = "the dog ran"
    assert chapter.rounds == [] and not chapter.finished
    rounds(chapter, 1)
    assert chapter.rounds[0].prefix_ids[: len(chapter.state.prompt_ids())] == chapter.state.prompt_ids()


def test_a_round_without_guesses_shows_the_target_writing_alone():
    from chapters.ch04_guess_check_keep import lane_chips, last_round_html, round_chips
    from lab.core.engine import generate
    from lab.pairs.tiny import tiny_pair
    pair = tiny_pair()
    first = generate(pair, Request(pair.tokenizer.encode("red blue"), max_new_tokens=3, drafter="lookup")).rounds[0]
    assert first.gamma == 0 and first.extra_kind == "target"          # nothing repeats yet
    assert [c.state for c in round_chips(first)] == ["target_call"]
    assert [c.state for c in lane_chips(first)] == ["target_call", "target_call"]
    assert "no guess this round, so the target wrote one token" in last_round_html(first, 1, 1, 1, False)


def test_one_token_and_one_call_are_singular():
    from chapters.ch04_guess_check_keep import last_round_html
    from tests.helpers import scripted_round
    text = last_round_html(scripted_round(0, 0, 0), 1, 1, 1, False)
    assert "So far: <b>1</b> token; standard decoding would have called the target <b>1</b> time, " \
           "draft + verify <b>1</b> time." in text
    assert "1 tokens" not in text.replace("<b>", "").replace("</b>", "") and "1 times" not in text
    many = last_round_html(scripted_round(1, 4, 2), 4, 4, 2, False)
    assert "<b>3</b> tokens for one target call" in many and "<b>4</b> tokens;" in many and "<b>2</b> times" in many


def test_alpha_is_named_and_counted_as_kept_over_kept_and_rejected():
    """Chapter 4 first measures α: kept ÷ (kept + rejected), the dropped guesses not counted, and the
    share of all drafted guesses kept named apart."""
    from chapters.ch04_guess_check_keep import alpha_html
    from tests.helpers import scripted_round
    rounds = [scripted_round(0, 4, 4), scripted_round(1, 4, 1), scripted_round(2, 4, 0), scripted_round(3, 0, 0)]
    text = alpha_html(rounds)                     # 5 kept, 2 rejected, 5 dropped, a plain step
    assert "α, the acceptance rate</b> = kept ÷ (kept + rejected) = 5 ÷ (5 + 2) = <b>0.71</b>" in text
    assert "The 5 guesses dropped after a rejection were never checked" in text
    assert "of all 12 guesses drafted, 5 were kept (a share of 0.42)" in text
    assert alpha_html([scripted_round(0, 0, 0)]) == "" and alpha_html([]) == ""
    one = alpha_html([scripted_round(0, 4, 1)])          # 1 kept, 1 rejected, 2 dropped
    assert "The 2 guesses dropped after a rejection were never checked" in one and "1 was kept" in one
    assert "The 1 guess dropped after a rejection was never checked, so it does not" in alpha_html(
        [scripted_round(0, 2, 0)])


def test_the_page_shows_the_rounds_alpha(chapter):
    asyncio.run(chapter.next_round())
    asyncio.run(chapter.next_round())
    r = chapter.rounds
    kept, judged = sum(x.n_accepted for x in r), sum(x.checked for x in r)
    if judged:
        assert f"= <b>{kept / judged:.2f}</b> so far" in chapter.alpha_line.object
    else:
        assert chapter.alpha_line.object == ""
