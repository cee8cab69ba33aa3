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
    """One way of guessing (chapter 12 names and explains each by its key)."""
    key: str          # e.g. "lookup"
    drafter: str      # lab.core.drafting drafter: "model" | "lookup" | "hybrid"
    policy: str       # lab.core.drafting policy text; the request's γ replaces its γ unless `gamma` is set
    gamma: int | None = None   # a γ of its own (the auto schedule's cap)

    def request(self, base: Request) -> Request:
        """The student's request `base`, drafted this way."""
        return replace(base, drafter=self.drafter, policy=self.policy, gamma=self.gamma or base.gamma)


DRAFTINGS = (
    Drafting("model", "model", "constant"),                  # the lecture's draft: γ guesses, one call each
    Drafting("lookup", "lookup", "constant"),                # copy what followed the text's last words
    Drafting("hybrid", "hybrid", "constant"),                # lookup where the text repeats, else the model
    Drafting("adaptive", "model", "heuristic"),              # transformers' schedule: +2 after all kept, −1
    Drafting("confident", "model", f"constant+confidence:{DEFAULT_CONFIDENCE}"),   # stop on an unsure guess
    Drafting("auto", "hybrid", "auto", gamma=12),            # the lab's default (lab.core.adaptive)
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



def winner(rows: list[Row], among: tuple[str, ...] = ("model", "lookup", "hybrid")) -> Row:
    """The row among `among` that needs the fewest target calls for the text (most tokens per
    call); a tie goes to the cheaper guesser (smaller c)."""
    rows = [r for r in rows if r.drafting.key in among]
    return max(rows, key=lambda r: (round(r.outcome.tokens_per_call, 6), -r.outcome.c))
