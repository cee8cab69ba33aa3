"""Chapter 12: every drafting measured on the student's prompt, its numbers those of real runs."""
import asyncio

import pytest

from chapters.ch12_cheaper_guesses import DRAFTER_NAMES, CheaperGuessesChapter
from lab.core.request import Request
from lab.experiments import cheaper
from lab.core.engine import generate
from lab.speed.timeline import schedule
from lab.experiments.presets import preset_by_key
from lab.core.sampling import GREEDY, SamplingSettings
from tests.helpers import measured
from uikit import verdicts

N = 12      # new tokens per run in these tests (the page decodes more)


@pytest.fixture
def chapter(small_chapter):
    return small_chapter(CheaperGuessesChapter, MAX_NEW_TOKENS=N)


def test_each_row_is_a_real_run_of_its_drafting_and_writes_the_plain_text(chapter):
    rows = measured(chapter)
    assert [r.drafting.key for r in rows] == ["model", "lookup", "hybrid", "adaptive", "confident", "auto"]
    pair, ids = chapter.state.service.pair, chapter.state.prompt_ids()
    plain = generate(pair, Request(ids, mode="plain", settings=GREEDY, max_new_tokens=N))
    profile = chapter.state.service.profiles.of()   # the pair's shared cost profile prices every call
    for row in rows:
        d = row.drafting
        spec = generate(pair, Request(ids, settings=GREEDY, gamma=d.gamma or 4, max_new_tokens=N, drafter=d.drafter, policy=d.policy), profile=profile)
        # priced by the profile: a model-drafted run as the fresh one; a copy's own microseconds differ
        # from run to run (more on a busy machine), so a copying row is priced from its own trace,
        # whose rounds are the fresh run's (below)
        priced = schedule(plain, spec if d.drafter == "model" else row.outcome.spec, profile)
        assert row.outcome.speedup == pytest.approx(priced.decode_speedup, rel=1e-9)
        if d.drafter == "model":
            assert row.outcome.c == pytest.approx(profile.c)
        got = row.outcome.spec
        assert (got.drafted, got.accepted, row.outcome.target_calls) == (spec.drafted, spec.accepted, spec.target_calls)
        assert row.outcome.alpha == spec.alpha
        assert row.outcome.tokens_per_call == pytest.approx(len(spec.new_ids) / spec.target_calls)
        assert row.outcome.exact is True and spec.new_ids == plain.new_ids
        assert row.outcome.speedup > 0 and row.outcome.c >= 0
        table = chapter.table.object
        assert f"{row.outcome.tokens_per_call:.2f} (<span class='target-calls'>{row.outcome.target_calls}</span> calls)" in table
        assert f"{row.outcome.speedup:.2f}×" in table
    assert chapter.table.object.count("✓ yes, token for token") == 6
    assert "Every drafting wrote exactly plain decoding's text." in chapter.summary.object
    assert list(chapter.bars.source.data["speedup"]) == [r.outcome.speedup for r in rows]


def test_the_policies_change_how_much_is_drafted_not_what_is_written(chapter):
    rows = {r.drafting.key: r for r in measured(chapter)}
    lookup = rows["lookup"]
    assert lookup.outcome.c < 0.05                        # a copy costs no model call
    confident = generate(chapter.state.service.pair, Request(chapter.state.prompt_ids(), gamma=4, max_new_tokens=N, drafter="model", policy=cheaper.BY_KEY["confident"].policy))
    assert rows["confident"].outcome.spec.drafted == confident.drafted <= rows["model"].outcome.spec.drafted
    assert len({r.outcome.spec.text for r in rows.values()}) == 1


def test_the_verdict_waits_for_the_edit_prompt(chapter):
    chapter.predict.commit(DRAFTER_NAMES["hybrid"])
    measured(chapter)                              # the default prompt is not the question's
    assert not chapter.predict.ready and "✓" not in chapter.predict.verdict_text
    chapter.state.prompt = preset_by_key("edit").prompt
    measured(chapter)
    assert chapter.predict.ready
    truth = DRAFTER_NAMES[cheaper.winner(chapter.edit_rows).drafting.key]
    assert chapter.predict.correct_answer() == truth
    assert chapter.predict.correct is (truth == DRAFTER_NAMES["hybrid"])
    calls = {r.drafting.key: r.outcome.target_calls for r in chapter.edit_rows}
    assert f"Prompt lookup {calls['lookup']}" in chapter.predict.verdict_text


def test_sampling_says_same_distribution_instead_of_same_tokens(chapter):
    chapter.state.temperature = 1.0
    rows = measured(chapter)
    assert all(r.outcome.exact is None for r in rows)
    assert "same distribution, other draws" in chapter.table.object
    assert chapter.state.settings == SamplingSettings(1.0)


def test_a_changed_prompt_clears_the_table_then_measures_the_new_one(chapter):
    old = measured(chapter)
    assert chapter.table.object and chapter.summary.object and len(chapter.bars.source.data["speedup"]) == 6
    seen = []                                      # the page each time its summary line changes

    def snapshot(event):
        seen.append((chapter.table.object, list(chapter.bars.source.data["speedup"]), list(chapter.rows)))
    chapter.summary.param.watch(snapshot, "object")
    chapter.state.prompt = "the dog ran in the park"
    asyncio.run(chapter.on_settings_changed({"prompt"}))       # what a served page runs on the change
    assert seen[0] == ("", [], [])                 # first the old table, bars and summary went
    new_ids = chapter.state.prompt_ids()
    assert chapter.plain.prompt_ids == new_ids and len(chapter.rows) == len(cheaper.DRAFTINGS)
    assert all(r.outcome.spec.prompt_ids == new_ids for r in chapter.rows)
    assert chapter.rows is not old and chapter.summary.object
    assert list(chapter.bars.source.data["speedup"]) == [r.outcome.speedup for r in chapter.rows]
    for row in chapter.rows:
        assert f"<span class='target-calls'>{row.outcome.target_calls}</span> calls" in chapter.table.object


def test_a_change_before_anything_was_measured_measures_nothing(chapter):
    chapter.state.prompt = "the dog ran in the park"
    asyncio.run(chapter.on_settings_changed({"prompt"}))
    assert chapter.rows == [] and chapter.table.object == "" and chapter.plain is None


def test_an_empty_prompt_is_one_sentence(chapter):
    chapter.state.prompt = "   "
    assert measured(chapter) is None
    assert "empty" in chapter.problem.object and not chapter.rows and chapter.table.object == ""


def test_speedup_values_are_not_crossed_by_the_break_even_line():
    """A speed-up near 1× puts its value on the dashed 1× line: the values are drawn after the line,
    on a white ground."""
    from bokeh.models import LabelSet, Span
    from chapters.ch12_cheaper_guesses import SpeedupBars
    centre = SpeedupBars().figure.center
    kinds = [type(m) for m in centre]
    values = centre[kinds.index(LabelSet)]
    assert kinds.index(LabelSet) > kinds.index(Span)
    assert values.background_fill_color == "#ffffff" and values.background_fill_alpha >= 0.85


def test_the_draft_model_row_is_the_request_the_other_live_pages_show(chapter):
    """Chapters 4, 10, 11 and 13 ask for the student's request with the draft model guessing; the
    table's draft-model row is that very outcome (one object from the service's cache)."""
    rows = {r.drafting.key: r for r in measured(chapter)}
    request = chapter.state.request(chapter.state.prompt_ids(), drafter="model", max_new_tokens=N)
    service = chapter.state.service
    assert service.submit(service.outcome, request).result(60) is rows["model"].outcome
    assert "Fewest target calls" in chapter.summary.object


def test_the_default_row_says_how_often_it_drafted_and_where_it_took_plain_steps(chapter):
    rows = {r.drafting.key: r for r in measured(chapter)}
    spec = rows["auto"].outcome.spec
    drafted = sum(1 for r in spec.rounds if r.guesses)
    words = (f"drafted in every round ({len(spec.rounds)})" if drafted == len(spec.rounds) else
             f"no guesses: plain steps in all {len(spec.rounds)} rounds" if drafted == 0 else
             f"drafted in {drafted} of {len(spec.rounds)} rounds; plain steps elsewhere")
    assert verdicts.drafting(rows["auto"].outcome) == words
    table = chapter.table.object
    assert table.count("class='fallback'") == 1
    assert f"<tr data-drafting='auto'><td><b>Hybrid, auto γ</b><br><small class='fallback'>{words}</small>" in table
