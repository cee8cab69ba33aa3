import asyncio

import pytest

from chapters.ch08_full_round import FullRoundChapter, round_steps
from chapters.rounds import MAX_NEW_TOKENS, teaching_round
from lab.core.request import Request
from lab.core.drafting import LECTURE_POLICY
from lab.experiments.casesearch import find_all_kept, reads_oddly, teaches
from tests.helpers import step_to_end, until


@pytest.fixture
def chapter(make_chapter):
    """A loaded page of its own for each test (the tests step, select and change it)."""
    return make_chapter(FullRoundChapter, load=True)


def test_stepping_every_round_shows_the_trace_kept_tokens(chapter):
    generation = chapter.generation
    n, start = len(generation.rounds), chapter.round_index
    assert n > 1 and start == teaching_round(generation)        # shown first: the round that teaches
    for k in range(n):
        r = generation.rounds[(start + k) % n]
        assert chapter.round is r
        step_to_end(chapter)
        shown = [c.text for c in chapter.text_strip.chips[1:]]
        assert shown == r.emitted_texts
        assert chapter.step == round_steps(r) and chapter.step_button.disabled
        asyncio.run(chapter.next_round())
    assert chapter.round_index == start
    joined = "".join(chapter.state.service.pair.tokenizer.decode([t]) for t in generation.new_ids)
    assert joined == "".join(t for r in generation.rounds for t in r.emitted_texts)


def test_text_grows_step_by_step(chapter):
    chapter.restart()
    r = chapter.round
    lengths = []
    while not chapter.done:
        asyncio.run(chapter.advance())
        lengths.append(len(chapter.text_strip.chips))
    assert lengths == sorted(lengths)
    assert lengths[-1] == 1 + len(r.emitted_ids)


def test_each_checked_row_shows_the_engine_numbers(chapter):
    chapter.restart()
    r = chapter.round
    asyncio.run(chapter.advance())
    asyncio.run(chapter.advance())
    d = r.guesses[0]
    for value in (d.p, d.q, d.accept_probability, d.uniform):
        assert f"{value:.3f}" in chapter.table.object
    assert ("keep" if d.accepted else "reject") in chapter.explain.object


def test_rejection_drops_later_drafts_and_corrects(chapter):
    rounds = chapter.generation.rounds
    i = next(k for k, r in enumerate(rounds) if r.extra_kind == "correction" and r.n_accepted < r.gamma - 1)
    chapter.show_generation(chapter.generation, i)
    step_to_end(chapter)
    states = [c.state for c in chapter.drafts_strip.chips]
    r = chapter.round
    assert states[r.n_accepted] == "rejected" and states[-1] == "dropped"
    assert chapter.text_strip.chips[-1].state == "fixed"
    assert "residual" in chapter.explain.object


def test_the_verdict_waits_for_a_round_keeping_every_draft(chapter):
    state = chapter.state
    found = find_all_kept(state.service.pair, state.prompt_ids(), settings=chapter.settings, gamma=state.gamma,
                          max_new_tokens=MAX_NEW_TOKENS)
    assert found.seed is not None, "no seed of the tiny pair keeps every draft in a round"
    generation = state.service.generation(Request(state.prompt_ids(), mode="speculative", settings=chapter.settings, gamma=state.gamma, seed=found.seed, max_new_tokens=MAX_NEW_TOKENS, drafter="model", policy=LECTURE_POLICY), keep_rows=True)
    chapter.predict.commit(5)
    for r in generation.rounds[:found.index]:
        chapter.show_generation(generation, r.index)
        step_to_end(chapter)
        assert chapter.predict.correct is None          # not judged on a round that rejected a draft
    chapter.show_generation(generation, found.index)
    step_to_end(chapter)
    assert chapter.predict.correct is True


def test_new_session_settings_bring_new_rounds(make_chapter, state):
    ch = make_chapter(FullRoundChapter, state)

    async def go():
        await ch.load()
        first = ch.generation
        state.prompt = "the dog ran in the park"
        await until(lambda: ch.generation is not None and ch.generation is not first,
                    message="the watcher to reload on the event loop")
        return first
    first = asyncio.run(go())
    assert ch.generation is not first
    start = ch.generation.rounds[0]                     # the new prompt's rounds (shown from the one that teaches)
    assert state.service.pair.tokenizer.decode(start.prefix_ids) == "the dog ran in the park"
    assert ch.round_index == ch.first_round(ch.generation)


def test_find_shows_a_round_keeping_every_draft_and_then_the_verdict(make_chapter, state):
    state.temperature = 1.0
    ch = make_chapter(FullRoundChapter, state)
    ch.predict.commit(5)
    assert ch.predict.ready is False
    assert asyncio.run(ch.show_all_kept()) is True
    r = ch.round
    assert r.gamma == state.gamma and r.n_accepted == r.gamma and r.extra_kind == "bonus"
    assert ch.done and ch.text_strip.chips[-1].state == "bonus"
    assert f"all {state.gamma} drafts kept" in ch.case_note.object
    assert ch.case_seen and ch.predict.ready and ch.predict.correct is True


def test_a_round_with_a_rejection_does_not_reveal_the_verdict(make_chapter, state):
    state.temperature = 1.0
    ch = make_chapter(FullRoundChapter, state, load=True)
    i = next(k for k, r in enumerate(ch.generation.rounds) if r.n_accepted < r.gamma)
    ch.show_generation(ch.generation, i)
    step_to_end(ch)
    assert not ch.case_seen and ch.predict.ready is False


class FakeSearch:
    """Stands in for lab.experiments.casesearch.SeedSearch: answers `results` one press at a time."""
    made = []

    def __init__(self, pair, ids, **kw):
        self.kw, self.presses = kw, 0
        FakeSearch.made.append(self)

    def run(self, max_seconds=None):
        self.presses += 1
        return FakeSearch.results[min(self.presses, len(FakeSearch.results)) - 1](self.kw["first_seed"])


def test_no_case_found_says_so_in_one_sentence(make_chapter, state, monkeypatch):
    from lab.experiments.casesearch import Found
    import chapters.ch08_full_round as ch08
    monkeypatch.setattr(ch08, "SeedSearch", FakeSearch)
    FakeSearch.results = [lambda seed: Found(None, None, 200, rounds=2000)]
    state.param.update(temperature=1.3, seed=101)     # a request no other test has searched (the cache)
    ch = make_chapter(FullRoundChapter, state)
    assert asyncio.run(ch.show_all_kept()) is False
    assert "None of 200 seeds" in ch.case_note.object and "lower the temperature" in ch.case_note.object
    assert ch.predict.ready is False


def test_a_search_out_of_time_says_so_and_goes_on_when_pressed_again(make_chapter, state, monkeypatch):
    from lab.experiments.casesearch import Found
    import chapters.ch08_full_round as ch08
    monkeypatch.setattr(ch08, "SeedSearch", FakeSearch)
    FakeSearch.made = []
    FakeSearch.results = [lambda seed: Found(None, None, 3, timed_out=True, rounds=37),
                          lambda seed: Found(seed + 3, 0, 4, rounds=40)]
    state.param.update(temperature=1.0, seed=102)     # a request no other test has searched (the cache)
    ch = make_chapter(FullRoundChapter, state)
    assert asyncio.run(ch.show_all_kept()) is False
    assert "in the 37 rounds checked so far" in ch.case_note.object and "press the" in ch.case_note.object
    asyncio.run(ch.show_all_kept())
    assert len(FakeSearch.made) == 1 and FakeSearch.made[0].presses == 2      # the same search, resumed
    assert f"Seed {state.seed + 3}, round 1" in ch.case_note.object and "found after 4 seeds" in ch.case_note.object


def test_a_search_out_of_reach_says_why_and_what_to_change(make_chapter, state, monkeypatch):
    from lab.experiments.casesearch import Found
    import chapters.ch08_full_round as ch08
    monkeypatch.setattr(ch08, "SeedSearch", FakeSearch)
    FakeSearch.results = [lambda seed: Found(None, None, 4, rounds=61, out_of_reach=True, kept=0, checked=61)]
    state.param.update(temperature=1.2, seed=103)     # a request no other test has searched (the cache)
    ch = make_chapter(FullRoundChapter, state)
    assert asyncio.run(ch.show_all_kept()) is False
    said = ch.case_note.object
    assert "in the 61 rounds checked" in said and "kept 0 of the 61 guesses it judged" in said
    assert "Pick a closer draft, or lower γ" in said and "press the" not in said


def test_the_found_round_is_said_to_be_picked_and_lucky_when_it_is(make_chapter, state):
    """The round the search finds keeps every draft: the page says it was picked for the question and,
    at the generation's α, how rarely a round keeps all γ (a typical round keeps fewer)."""
    state.temperature = 1.0
    ch = make_chapter(FullRoundChapter, state)
    assert asyncio.run(ch.show_all_kept()) is True
    assert "a round picked for the question, not a typical one" in ch.case_note.object
    alpha = ch.generation.alpha
    note = ch.explain.object
    if alpha ** state.gamma < 0.25:
        assert "A lucky round" in note and f"α = {alpha:.2f}" in note
    assert "typical round" in note or "of the time" in note


def test_an_unlucky_round_is_said_to_be_one(make_chapter, state):
    """A rejected guess the target gives p ≈ 0 (the "car" with p = 0.000 of a temperature-1 round):
    the round's end says it was sure to be rejected, and what a typical round keeps."""
    import dataclasses
    state.temperature = 1.0
    ch = make_chapter(FullRoundChapter, state, load=True)
    i = next(k for k, r in enumerate(ch.generation.rounds) if r.n_accepted < r.gamma)
    r = ch.generation.rounds[i]
    j = r.n_accepted
    guesses = list(r.guesses)
    guesses[j] = dataclasses.replace(guesses[j], p=0.0)
    ch.generation.rounds[i] = dataclasses.replace(r, guesses=guesses)
    ch.show_generation(ch.generation, i)
    step_to_end(ch)
    assert f"An unlucky round: the target gives guess {j + 1} p = 0.000" in ch.explain.object
    assert "typical round of this generation" in ch.explain.object


def test_the_page_names_who_guesses(make_chapter, state):
    ch = make_chapter(FullRoundChapter, state, load=True)
    ch.restart()
    assert f"the draft model guesses γ = {ch.round.gamma} tokens" in ch.round_note.object
    assert "the draft model guesses" in ch.explain.object
    asyncio.run(ch.advance())
    assert f"The draft model guessed {ch.round.gamma} tokens" in ch.explain.object


def test_the_warm_up_finds_the_default_round_so_the_first_press_shows_it(make_chapter, state, monkeypatch):
    """The server's warm-up searches the default request before the class arrives: a new student's
    first press shows a round keeping every draft without searching again (the tour's step too)."""
    import chapters.ch08_full_round as ch08
    for what, fn, args, kwargs in FullRoundChapter.warmup(state):
        state.service.submit(fn, *args, **kwargs).result()
    searched = []
    monkeypatch.setattr(ch08.SeedSearch, "run", lambda self, *a, **k: searched.append(self))
    ch = make_chapter(FullRoundChapter)                   # another student, at the defaults
    assert asyncio.run(ch.show_all_kept()) is True and not searched
    r = ch.round
    assert r.n_accepted == r.gamma == ch.state.gamma and ch.case_seen


def test_the_page_says_the_temperature_its_rounds_use(chapter):
    """Issue 49.4: a greedy session's rounds here are sampled (p and q must not be one-hot): the
    badge says this page's sampling, not the session's 'greedy (temperature 0)'."""
    from uikit.panels import PairBadge
    state = chapter.state
    assert state.settings.greedy and not chapter.settings.greedy
    assert state.shown_sampling() == chapter.settings.describe()
    badge = PairBadge(state)._pane.object
    assert f"sampling on this page: <b>{chapter.settings.describe()}</b>" in badge
    assert chapter.settings.describe() in chapter.round_note.object


def test_the_first_round_shown_keeps_some_guesses_and_corrects_one_when_the_generation_has_one(chapter):
    """Issue 49.4: the default example opens on a round that keeps at least one guess, rejects one and
    corrects it, reached without a rare draw (the seed chosen from the student's when theirs has none)."""
    generation, r = chapter.generation, chapter.round
    assert r.index == teaching_round(generation)
    assert r.n_accepted >= 1 and r.rejected_index == r.n_accepted and r.extra_kind == "correction"
    assert teaches(r) and not any(reads_oddly(x) for x in generation.rounds[:r.index + 1])
    if generation.seed != chapter.state.seed:
        assert f"Seed {generation.seed}, not your {chapter.state.seed}: the first from yours" in chapter.round_note.object
