"""Will my pair pay off? The measure command's answer in a lecturer's words, and how long it takes.

A speed-up within NOISE of 1× is "level": on a 2-core machine two runs of the same decoding differ by
about that much. The default drafting (the auto policy, lab.core.adaptive) takes plain steps where
its guesses do not pay, so its rounds say how often it guessed:

    drafting_words(6, 31)          # "drafted in 6 of 31 rounds; plain steps elsewhere"
    verdict(1.42, 6, 31)           # "pays off: 1.42× the speed of the target alone"
    seconds = estimate_seconds(step_seconds, prompts=6, new_tokens=64, profile_seconds=8.0)
"""
from __future__ import annotations

import time

NOISE = 0.03              # speed-ups within 3% of 1× are level with plain decoding
SPEC_STEP = 0.9           # a drafting's decode time per new token, in plain steps, for the estimate (a guess
#                           kept saves a step, a miss costs a little: the mean over the held-out categories)


def drafting_words(drafted: int, rounds: int) -> str:
    """How often a decoding guessed: "drafted in 6 of 31 rounds; plain steps elsewhere"."""
    if rounds <= 0:
        return "no rounds"
    if drafted >= rounds:
        return f"drafted in every round ({rounds})"
    if drafted == 0:
        return f"no guesses: plain steps in all {rounds} rounds"
    return f"drafted in {drafted} of {rounds} rounds; plain steps elsewhere"


def rounds_of(trace) -> tuple[int, int]:
    """(rounds that guessed, rounds) of a GenerationTrace."""
    return sum(1 for r in trace.rounds if r.guesses), len(trace.rounds)


def level(speedup: float) -> int:
    """1 faster than plain decoding beyond noise, 0 level, −1 slower."""
    return 1 if speedup >= 1 + NOISE else -1 if speedup <= 1 - NOISE else 0


def verdict(speedup: float, drafted: int, rounds: int) -> str:
    """One line: does drafting pay here, and how often did it guess."""
    how = drafting_words(drafted, rounds)
    if level(speedup) > 0:
        return f"pays off: {speedup:.2f}× the speed of the target alone ({how})"
    if level(speedup) == 0:
        why = ("its guesses were rarely kept, so it mostly took plain steps" if drafted * 2 < rounds
               else "the guesses it kept just paid for themselves")
        return f"level with the target alone ({speedup:.2f}×, within noise): {why} ({how})"
    return (f"slower than the target alone ({speedup:.2f}×): the guesses cost more than they saved ({how}); "
            f"on a busy machine, measure again")


def overall_verdict(rows: dict[str, dict], speedup: float) -> str:
    """One line over the categories (each row with "speedup"): where the pair pays and where not."""
    by = {k: [cat for cat, row in rows.items() if level(row["speedup"]) == k] for k in (1, 0, -1)}
    head = (f"Yes, your pair pays off: {speedup:.2f}× overall" if level(speedup) > 0 else
            f"Your pair about breaks even: {speedup:.2f}× overall" if level(speedup) == 0 else
            f"No, your pair does not pay off here: {speedup:.2f}× overall")
    parts = []
    if by[1]:
        parts.append(f"faster on {', '.join(by[1])}")
    if by[0]:
        parts.append(f"level on {', '.join(by[0])} (plain steps where guesses miss)")
    if by[-1]:
        parts.append(f"slower on {', '.join(by[-1])}")
    return head + (f" — {'; '.join(parts)}." if parts else ".")


def estimate_seconds(step_seconds: float, *, prompts: int, new_tokens: int, draftings: int = 1,
                     profile_seconds: float = 0.0) -> float:
    """How long measuring takes: each prompt decoded plainly (a step per token) and by each drafting
    (SPEC_STEP steps per token), after the cost profile (`profile_seconds`, 0 when already measured)."""
    return profile_seconds + prompts * new_tokens * step_seconds * (1 + SPEC_STEP * draftings)


def duration(seconds: float) -> str:
    """"about 40 s", "about 1 min 20 s", "about 12 min"."""
    seconds = max(1, round(seconds))
    if seconds < 60:
        return f"about {seconds} s"
    minutes, rest = divmod(seconds, 60)
    return f"about {minutes} min" + (f" {rest // 10 * 10} s" if minutes < 5 and rest >= 10 else "")


class TimeLeft:
    """The measure command's clock: how long it will take, said before it starts (from a quick probe
    of the pair's calls, lab.speed.profile_eta), then the time left as it goes, the estimate scaled by
    how the time spent so far compares with it."""

    def __init__(self, pair, prompts: dict[str, list[str]], draftings: list[tuple[str, str]], new_tokens: int,
                 profile=None):
        """`profile`: the pair's cost profile if the caller has it; else an auto policy's drafting
        counts the time to measure it first (lab.speed.measure.measure_set does)."""
        from lab.core.adaptive import prices_with_profile
        from lab.speed import profile_eta
        one, longest, draft = profile_eta.probe(pair)
        needs_profile = any(prices_with_profile(p) for _, p in draftings) and profile is None
        self.profile = profile_eta.profile_seconds(one, longest, draft) if needs_profile else 0.0
        self.count, self.new_tokens = sum(len(ps) for ps in prompts.values()), new_tokens
        self.estimate = estimate_seconds(one, prompts=self.count, new_tokens=new_tokens, draftings=len(draftings),
                                         profile_seconds=self.profile)
        self.start = time.monotonic()

    def announce(self, draftings: list[tuple[str, str]]) -> str:
        names = " and ".join(f"{d} ({p})" for d, p in draftings)
        return (f"Measuring {self.count} prompt{'s' * (self.count != 1)} of {self.new_tokens} new tokens, each "
                f"decoded plainly and by {names}: {duration(self.estimate)} on this machine.")

    def left(self, fraction: float) -> float:
        """Seconds left when `fraction` of the prompts are measured."""
        elapsed = time.monotonic() - self.start
        planned = self.profile + fraction * (self.estimate - self.profile)     # where the estimate has us now
        pace = elapsed / planned if fraction > 0 and planned > 0 else 1.0
        return max(0.0, pace * (self.estimate - planned) if fraction > 0 else self.estimate - elapsed)

    def wrap(self, progress):
        """`progress(fraction, message)` with the time left added to each message."""
        def report(fraction: float, message: str) -> None:
            progress(fraction, f"{message} — {duration(self.left(fraction))} left")
        return report
