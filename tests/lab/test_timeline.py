"""Traces on a time axis: chapter 1's race and chapter 11's schedules, from real traces."""
import pytest

from lab.core.request import Request
from lab.speed.costs import CostProfile
from lab.core.engine import generate
from lab.core.sampling import SamplingSettings
from lab.speed.timeline import LANES, Race, calls_until, lane, schedule
from lab.pairs.tiny import tiny_pair


@pytest.fixture(scope="module")
def traces():
    pair = tiny_pair()
    ids = pair.tokenizer.encode("the cat sat")
    plain = generate(pair, Request(ids, mode="plain", settings=SamplingSettings(), max_new_tokens=12))
    spec = generate(pair, Request(ids, mode="speculative", settings=SamplingSettings(), gamma=3, max_new_tokens=12))
    small = generate(pair, Request(ids, mode="plain", settings=SamplingSettings(), max_new_tokens=12, writer="draft"))
    return plain, spec, small


def test_a_lane_times_each_token_at_the_end_of_its_call(traces):
    plain, _, _ = traces
    texts, ends = lane(plain)
    assert texts == [t for r in plain.rounds for t in r.emitted_texts]
    assert ends == sorted(ends) and ends[-1] == pytest.approx(sum(r.target_seconds for r in plain.rounds))


def test_a_race_marks_the_unlikely_draft_words(traces):
    plain, _, small = traces
    race = Race.of(plain, small, [0.5, 0.1] + [0.9] * (len(small.new_ids) - 2))
    assert race.unlikely[:3] == [False, True, False]
    assert race.end == max(race.target_done, race.draft_done)


def test_calls_until_cuts_the_running_call():
    assert calls_until([1.0, 2.0, 3.0], 1.5) == [(0.0, 1.0), (1.0, 1.5)]
    assert calls_until([1.0, 2.0], 5.0) == [(0.0, 1.0), (1.0, 2.0)]
    assert calls_until([1.0], 0.0) == []


def profile(verify=(1.0, 1.5, 2.0, 2.5, 3.0), draft=0.25, prefill=4.0) -> CostProfile:
    return CostProfile(pair="tiny", draft_seconds=draft, verify_seconds=tuple(verify), prefill_seconds=prefill,
                       prefill_tokens=8, spread=0.0, load=0.0, cores=2, threads=1, busy=False)


def test_a_schedule_has_the_same_prefill_and_tokens_in_both_lanes(traces):
    plain, spec, _ = traces
    s = schedule(plain, spec, profile())
    starts = {ln: [b for b in s.blocks if b[0] == ln][0] for ln in LANES}
    assert starts["standard"][1:] == starts["draft + verify"][1:] == (0.0, s.prefill, "prefill")
    assert s.prefill == profile().prefill_units(len(plain.prompt_ids) - 1)
    assert s.tokens("standard") == len(plain.new_ids) and s.tokens("draft + verify") == len(spec.new_ids)
    # standard decoding: one one-position target call per token, one time unit each
    assert s.lane_end("standard") == pytest.approx(s.prefill + len(plain.rounds))
    times, counts = s.delivered("draft + verify")
    assert times[:2] == [0.0, s.prefill] and counts[-1] == len(spec.new_ids) and counts == sorted(counts)


def test_verify_passes_cost_what_the_profile_measured(traces):
    plain, spec, _ = traces
    p = profile()
    s = schedule(plain, spec, p)
    verifies = [e - b for ln, b, e, kind in s.blocks if ln == "draft + verify" and kind == "target"]
    assert verifies == pytest.approx([p.verify_units(len(r.guesses) + 1) for r in spec.rounds])
    assert any(v > 1 for v in verifies)                 # not "exactly 1 unit"
    drafts = [e - b for ln, b, e, kind in s.blocks if ln == "draft + verify" and kind == "draft"]
    assert drafts == pytest.approx([0.25] * spec.draft_calls)
    spec_decode = sum(verifies) + 0.25 * spec.draft_calls
    assert s.decode_speedup == pytest.approx(len(plain.rounds) / spec_decode)
    flat = schedule(plain, spec, profile(verify=(1.0,) * 5))   # every pass 1 unit: a larger speed-up
    assert flat.decode_speedup > s.decode_speedup
