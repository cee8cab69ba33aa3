"""Traces laid on a time axis: chapter 1's race of two writers and chapter 11's two schedules.

    race = Race.of(big_trace, small_trace, draft_target_p, profile)   # seconds, priced by the profile
    calls_until(race.target_ends, t)                          # the call bars drawn at time t
    s = schedule(plain_trace, spec_trace, profile)            # target-call units, measured costs
    s.decode_speedup                                          # the request's decode speed-up
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lab.speed.costs import CostProfile
from lab.core.trace import GenerationTrace

UNLIKELY = 0.15          # "a word the big model would pick less than 15% of the time here"
LANES = ("draft + verify", "standard")


def lane(trace: GenerationTrace, call_seconds: float | None = None) -> tuple[list[str], list[float]]:
    """Each emitted token's text and the time its call finished, from the first decode call: each
    call as it was timed, or `call_seconds` each (a call's cost in the pair's cost profile)."""
    texts, ends, clock = [], [], 0.0
    for r in trace.rounds:
        clock += r.target_seconds if call_seconds is None else call_seconds
        for t in r.emitted_texts:
            texts.append(t)
            ends.append(clock)
    return texts, ends


@dataclass
class Race:
    """Both lanes of one "Write": per token, its text and the time its call finished (seconds)."""
    target_texts: list[str]
    target_ends: list[float]           # cumulative, from the first decode call
    draft_texts: list[str]
    draft_ends: list[float]
    draft_target_p: list[float]        # target's probability of each draft token, same prefix
    profile: CostProfile | None = field(default=None, repr=False)   # what priced the calls (busy: unreliable)

    @classmethod
    def of(cls, big: GenerationTrace, small: GenerationTrace, draft_target_p: list[float],
           profile: CostProfile | None = None) -> Race:
        """Both lanes, each call priced by `profile` (a target call its `unit`, a draft call its
        `draft_seconds`: the times chapters 3, 10 and 11 use), or as timed when there is none."""
        (tt, te), (dt, de) = (lane(big, profile and profile.unit), lane(small, profile and profile.draft_seconds))
        return cls(tt, te, dt, de, list(draft_target_p), profile)

    @property
    def target_done(self) -> float:
        return self.target_ends[-1] if self.target_ends else 0.0

    @property
    def draft_done(self) -> float:
        return self.draft_ends[-1] if self.draft_ends else 0.0

    @property
    def end(self) -> float:
        return max(self.target_done, self.draft_done)

    @property
    def unlikely(self) -> list[bool]:
        return [p < UNLIKELY for p in self.draft_target_p]


def calls_until(ends: list[float], t: float) -> list[tuple[float, float]]:
    """(start, end) of each call begun by time t, the last one cut at t."""
    out, start = [], 0.0
    for end in ends:
        if start >= t:
            break
        out.append((start, min(end, t)))
        start = end
    return out


@dataclass
class Schedule:
    """Blocks (lane, start, end, kind) and token arrivals (lane, time, count) in target-call units
    (one one-position target call = 1), priced by one cost profile."""
    blocks: list[tuple[str, float, float, str]]
    arrivals: list[tuple[str, float, int]]
    prefill: float
    c: float
    profile: CostProfile

    def lane_end(self, lane: str) -> float:
        return max((e for ln, _, e, _ in self.blocks if ln == lane), default=0.0)

    def first_token(self, lane: str) -> float:
        return min((t for ln, t, _ in self.arrivals if ln == lane), default=float("nan"))

    def tokens(self, lane: str) -> int:
        return sum(n for ln, _, n in self.arrivals if ln == lane)

    def decode_time(self, lane: str) -> float:
        return self.lane_end(lane) - self.prefill

    @property
    def decode_speedup(self) -> float:
        """Standard decoding's decode time ÷ draft + verify's, for the same tokens (prefill apart)."""
        return self.decode_time("standard") / self.decode_time("draft + verify")

    def verify_range(self) -> tuple[float, float]:
        """The cheapest and dearest verify pass drawn in the draft + verify lane (target-call units)."""
        widths = [e - s for ln, s, e, kind in self.blocks if ln == "draft + verify" and kind == "target"]
        return (min(widths), max(widths)) if widths else (1.0, 1.0)

    def delivered(self, lane: str) -> tuple[list[float], list[int]]:
        """Tokens delivered so far against time: (times, counts), from 0 through the prefill."""
        times, counts = [0.0, self.prefill], [0, 0]
        for ln, t, n in self.arrivals:
            if ln == lane:
                times.append(t)
                counts.append(counts[-1] + n)
        return times, counts


def schedule(plain: GenerationTrace, spec: GenerationTrace, profile: CostProfile) -> Schedule:
    """Lay both traces on one axis, every call priced by the pair's cost profile (lab.speed.costs): a
    verify pass over k positions costs v(k) (v(1) = 1, a plain decoding step), a draft-model call
    c, a prompt-lookup draft its own measured time, and the prefill over the prompt is the same in
    both lanes."""
    c = profile.c
    prefill = profile.prefill_units(len(plain.prompt_ids) - 1)    # the engine prefills all but the last
    blocks = [(ln, 0.0, prefill, "prefill") for ln in LANES]
    arrivals = []
    t = prefill
    for r in plain.rounds:                      # one one-position target call per token
        blocks.append(("standard", t, t + 1, "target"))
        t += 1
        arrivals.append(("standard", t, len(r.emitted_ids)))
    t = prefill
    for r in spec.rounds:                       # the drafts, one verify pass over them + 1, a burst
        for d in r.guesses:
            width = c if r.draft_source == "model" else d.draft_seconds / profile.unit
            blocks.append(("draft + verify", t, t + width, "draft"))
            t += width
        width = profile.verify_units(len(r.guesses) + 1)
        blocks.append(("draft + verify", t, t + width, "target"))
        t += width
        arrivals.append(("draft + verify", t, len(r.emitted_ids)))
    return Schedule(blocks, arrivals, prefill, c, profile)
