"""Cheaper guesses, side by side: several draftings of one prompt against plain decoding.

A drafting is who guesses (lab.core.drafting's drafters: the draft model, prompt lookup, a hybrid) and
how many tokens a round guesses (a `DraftPolicy`: constant γ, transformers' heuristic schedule, a
confidence stop, the lab's auto schedule). Each row is the outcome of one request (lab.speed.request:
the student's prompt, settings, seed and γ, drafted this way), so the draft model's row is the very
request chapters 4, 10 and 11 show with the draft model guessing, with the same α, target calls and
speed-up:

    α                 the per-guess acceptance rate, kept ÷ (kept + rejected) (lab.core.trace)
    tokens per call   new tokens ÷ target calls (plain decoding: 1)
    c                 a guess's mean cost in one-position target calls (prompt lookup: about 0)
    speed-up          plain decoding's decode time ÷ this drafting's, every call priced by the profile
    exact             the very same tokens as plain decoding (greedy; None when sampling)

    request = BY_KEY["lookup"].request(state_request)        # the student's request, copied guesses
    row = Row(BY_KEY["lookup"], await service.outcome(request))
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from lab.core.drafting import DEFAULT_CONFIDENCE
from lab.core.request import Request
from lab.speed.request import Outcome


@dataclass(frozen=True)
class Drafting:
    """One way of guessing, as a page names and explains it."""
    key: str          # e.g. "lookup"
    label: str        # e.g. "Prompt lookup"
    drafter: str      # lab.core.drafting drafter: "model" | "lookup" | "hybrid"
    policy: str       # lab.core.drafting policy text; the request's γ replaces its γ unless `gamma` is set
    how: str          # one sentence: how it guesses
    gamma: int | None = None   # a γ of its own (the auto schedule's cap)

    def request(self, base: Request) -> Request:
        """The student's request `base`, drafted this way."""
        return replace(base, drafter=self.drafter, policy=self.policy, gamma=self.gamma or base.gamma)


DRAFTINGS = (
    Drafting("model", "Draft model", "model", "constant",
             "The lecture’s draft: a small model guesses γ tokens, one call each."),
    Drafting("lookup", "Prompt lookup", "lookup", "constant",
             "No model at all: copy the tokens that followed the last earlier occurrence of the text’s "
             "final words (up to 3 of them), in microseconds."),
    Drafting("hybrid", "Hybrid", "hybrid", "constant",
             "Prompt lookup when the text repeats itself, the draft model otherwise."),
    Drafting("adaptive", "Adaptive γ", "model", "heuristic",
             "The draft model, with transformers’ schedule: γ + 2 after a round that kept every guess, "
             "γ − 1 after a miss."),
    Drafting("confident", "Confidence stop", "model", f"constant+confidence:{DEFAULT_CONFIDENCE}",
             f"The draft model stops guessing after a token it gave less than {DEFAULT_CONFIDENCE:.0%}."),
    Drafting("auto", "Hybrid, auto γ", "hybrid", "auto", "This lab’s default: copy or draft, whichever source "
             "pays more, only as many tokens (up to 12) as its recent hit rate pays for on this machine, and a "
             "plain step (no guess) where neither pays.", gamma=12),
)
BY_KEY = {d.key: d for d in DRAFTINGS}


@dataclass(frozen=True)
class Row:
    """One drafting of one prompt: its request's outcome (α, target calls, c, speed-up: `row.outcome`)."""
    drafting: Drafting
    outcome: Outcome

    @property
    def new_tokens(self) -> int:
        return len(self.outcome.spec.new_ids)

    @property
    def busy(self) -> str:
        return self.outcome.profile.why_busy()


def winner(rows: list[Row], among: tuple[str, ...] = ("model", "lookup", "hybrid")) -> Row:
    """The row among `among` that needs the fewest target calls for the text (most tokens per
    call); a tie goes to the cheaper guesser (smaller c)."""
    rows = [r for r in rows if r.drafting.key in among]
    return max(rows, key=lambda r: (round(r.outcome.tokens_per_call, 6), -r.outcome.c))
