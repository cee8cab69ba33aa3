import math

import pytest

from lab.core.request import Request
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.speed.measure import run_to_end
from lab.experiments.racestream import cached_race, stream_race
from lab.core.sampling import GREEDY, SamplingSettings
from serving.service import ModelService
from lab.pairs.tiny import tiny_pair
from uikit.verdicts import why_busy


def test_the_streamed_race_is_the_service_race_and_grows_in_time_order():
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    settings = SamplingSettings(1.0)
    steps = []
    service = ModelService(lambda: pair)
    profile = service.profiles.of()
    request = Request(ids, settings=settings, max_new_tokens=12)
    race = stream_race(pair, request, profile, on_progress=lambda r, t: steps.append((r, t)))
    reference = service.race(request)
    assert race.target_texts == reference.target_texts and race.draft_texts == reference.draft_texts
    assert race.draft_target_p == reference.draft_target_p
    # every call at its price in the pair's one cost profile, as chapters 3, 10 and 11 price it
    assert race.target_ends == reference.target_ends == pytest.approx(
        [profile.unit * (i + 1) for i in range(len(race.target_ends))])
    assert race.draft_ends == pytest.approx([profile.draft_seconds * (i + 1) for i in range(len(race.draft_ends))])
    assert race.profile is profile
    assert len(steps) == len(race.target_texts) + len(race.draft_texts) - 1
    frontiers = [t for _, t in steps]
    assert frontiers == sorted(frontiers)
    for partial, t in steps:                       # every call drawn ends by the frontier of its lane
        assert all(math.isnan(p) for p in partial.draft_target_p)
        assert len(partial.target_texts) + len(partial.draft_texts) >= 1
    last, _ = steps[-1]
    assert len(last.target_texts) + len(last.draft_texts) == len(race.target_texts) + len(race.draft_texts) - 1


def test_a_cached_race_streams_no_progress():
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    calls = []
    job = cached_race(service, Request(ids, settings=GREEDY, max_new_tokens=8), lambda r, t: calls.append(t))
    steps = 0
    while True:                                    # a long job: the worker may serve others between calls
        try:
            next(job)
            steps += 1
        except StopIteration as stop:
            first = stop.value
            break
    n = len(calls)
    assert n > 0 and steps == len(first.target_ends) + len(first.draft_ends)
    again = Request(ids, settings=GREEDY, max_new_tokens=8, gamma=4)     # the drafting does not change the race
    assert run_to_end(cached_race(service, again, lambda r, t: calls.append(t))) is first
    assert len(calls) == n


def test_a_busy_profile_is_flagged_on_the_race():
    from tests.helpers import made_profile
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    busy = made_profile(verify=[0.05] * 17, draft=0.01, busy=True, load=5.0)
    race = stream_race(pair, Request(ids, settings=GREEDY, max_new_tokens=4), busy)
    assert race.profile is busy and "busy" in why_busy(race.profile)
    assert race.target_done == pytest.approx(0.05 * len(race.target_ends))
