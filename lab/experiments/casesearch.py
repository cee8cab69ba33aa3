"""Finding the case a question asks about: a round in which every draft is kept.

At temperature 1 a round that keeps all γ drafts happens with probability about α^γ, so a student
stepping through a few rounds may never see one. `find_all_kept` tries seeds in turn — the same
seeded speculative generation a page would make, so the round it names is the one the page shows
when it asks for that seed — and stops at the first round where all γ drafts were kept.

    found = find_all_kept(pair, ids, settings=SamplingSettings(1.0), gamma=4, max_new_tokens=16)
    if found.seed is not None:     # generate(pair, teaching_request(…, seed=found.seed)).rounds[found.index]: all 4 kept
        ...

A `SeedSearch` does the same a slice of time at a time: each `run()` goes on from the very round
where the last one stopped, so a slow pair still gets through the seeds press after press.

`cached_all_kept` keeps what a search found in the model service's cache, so the server's warm-up
finds the default request's round before the class arrives and a whole class shares each one found:

    found = cached_all_kept(service, ids, settings=s, gamma=4, max_new_tokens=16)   # on the worker

A round found so (or any one round) may be far from typical; `luck(round, alpha)` says how it
compares with what the generation's α predicts, so a page can say when the shown round is a lucky
(or an unlucky) one:

    luck(r, generation.alpha).lucky      # all γ kept, which happens about α^γ of the time

Chapters 5, 8 and 9 open on a round that keeps some guesses and then rejects one. A seed can reach
such a round only after a rare correction (a token none of the residual's five likeliest, which
turns the text odd: "The cat sat on the ostrich's corpse"); `teaching_seed_steps` tries seeds from
the student's for one whose text up to that round has no rare correction and whose rejected guess
was not hopeless, so the first round a class sees teaches and reads as the models write:

    seed = yield from teaching_seed_steps(service, ids, settings=s, gamma=4, max_new_tokens=16)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from lab.core.adaptive import lower_bound
from lab.core.drafting import LECTURE_POLICY
from lab.core.engine import Decoder
from lab.core.request import Request
from lab.core.sampling import SamplingSettings
from lab.core.trace import RoundTrace

MAX_SEEDS = 200       # seeds tried before saying no round kept everything
MAX_SECONDS = 10.0    # a search's slice of time, so a slow pair keeps the page (and the queue) moving
OUT_OF_REACH = 0.05   # a search stops once even its seeds left would find its round less often than this
EVIDENCE = 20         # guesses judged before a search may say so
Z = 2.0               # the confidence bound's width, in standard errors


@dataclass(frozen=True)
class Found:
    """Where the case is: a seed and a round index (both None when none was found so far), how many
    seeds were tried to their end, how many rounds were checked, and whether time ran out first or the
    search stopped because the guesses judged so far (`kept` of `checked`) put the round out of reach
    of the seeds left (`reach`)."""
    seed: int | None
    index: int | None
    tried: int
    timed_out: bool = False
    rounds: int = 0
    out_of_reach: bool = False
    kept: int = 0
    checked: int = 0


def reach(kept: int, checked: int, gamma: int, rounds_left: int) -> float:
    """At most how likely `rounds_left` more rounds hold one keeping all γ guesses, when the target
    kept `kept` of the `checked` guesses it judged: α at its upper confidence bound (Wilson's, Z
    standard errors), a round keeping all γ about α^γ of the time (the analytic model's independence
    assumption), so 1 − (1 − α^γ)^rounds_left.

    >>> round(reach(0, 60, 4, 3200), 3)       # a draft whose guesses never match: out of reach
    0.048
    >>> round(reach(45, 60, 4, 3200), 3)      # α ≈ 0.75: a round keeping all 4 is common
    1.0
    """
    if checked == 0:
        return 1.0
    upper = 1.0 - lower_bound(checked - kept, kept, Z)      # Wilson's bounds mirror: α's upper is 1 − (1 − α)'s lower
    return 1.0 - (1.0 - upper ** gamma) ** rounds_left


def keeps_all(r: RoundTrace, gamma: int) -> bool:
    """Round r drafted the full γ tokens, kept every one and added its bonus token (a round whose
    kept drafts end the text, at the end-of-text token or the length limit, shows no bonus)."""
    return r.gamma == gamma and gamma > 0 and r.n_accepted == gamma and len(r.emitted_ids) == gamma + 1


LUCKY = 0.25          # a round keeping all γ drafts is lucky when that happens less often than this
NEVER = 0.005         # a guess the target gives p below this was as good as sure to be rejected


@dataclass(frozen=True)
class Luck:
    """How one round compares with the generation it belongs to (α: its per-guess acceptance rate,
    kept ÷ (kept + rejected), lab.core.trace.acceptance_rate — the rate these sums assume).

    `expected_kept` = α + α² + … + α^γ, the drafts a round keeps on average when each is kept with
    probability α given the ones before (the analytic model's independence assumption);
    `all_kept` = α^γ, how often a round keeps all γ."""
    kept: int
    gamma: int
    alpha: float
    expected_kept: float
    all_kept: float
    lucky: bool                    # all γ kept, which happens less than LUCKY of the time
    hopeless: tuple[int, float] | None = None   # (guess index, p) of a rejected guess the target ~never writes
    rare_correction: str | None = None          # the correction, when it is none of its five likeliest tokens


def luck(r: RoundTrace, alpha: float | None) -> Luck | None:
    """Round `r` against its generation's α; None for a round without drafts or without an α."""
    if alpha is None or r.gamma == 0:
        return None
    expected = sum(alpha ** i for i in range(1, r.gamma + 1))
    all_kept = alpha ** r.gamma
    rejected = r.rejected_index
    hopeless = None
    if rejected is not None and r.guesses[rejected].p < NEVER:
        hopeless = (rejected, r.guesses[rejected].p)
    rare = None
    if r.extra_kind == "correction" and r.extra_top and r.extra_token_id not in [c.token_id for c in r.extra_top[:5]]:
        rare = r.extra_text
    return Luck(r.n_accepted, r.gamma, alpha, expected, all_kept,
                lucky=r.n_accepted == r.gamma and all_kept < LUCKY, hopeless=hopeless, rare_correction=rare)


class SeedSearch:
    """Seeds `first_seed` … `first_seed + max_seeds − 1`, round by round, for a round keeping all γ
    drafts; resumable. Call `run()` on the model worker."""

    def __init__(self, pair, prompt_ids: list[int], *, settings: SamplingSettings, gamma: int,
                 max_new_tokens: int, first_seed: int = 0, max_seeds: int = MAX_SEEDS,
                 drafter: str | None = "model"):
        self.pair, self.gamma = pair, gamma
        self.request = Request(prompt_ids, drafter=drafter, policy=LECTURE_POLICY, gamma=gamma, settings=settings,
                               max_new_tokens=max_new_tokens)      # each seed's: `replace(request, seed=...)`
        self.next_seed, self.end = first_seed, first_seed + max_seeds
        self.decoder: Decoder | None = None     # the seed being searched, where it stopped
        self.tried = self.rounds = self.kept = self.checked = 0
        self.found: Found | None = None

    def run(self, max_seconds: float = MAX_SECONDS, clock=time.monotonic) -> Found:
        """Search on for at most `max_seconds`; the case found, or how far the search got. A search
        whose guesses so far put the round out of reach of the seeds left (`reach` below
        OUT_OF_REACH) stops there, and says so each time it is run again."""
        if self.found is not None:
            return self.found
        deadline = clock() + max_seconds
        while True:
            if self.decoder is None:
                if self.next_seed >= self.end:
                    return self._said()
                self.decoder = Decoder(self.pair, replace(self.request, seed=self.next_seed), keep_rows=False,
                                       display_top=0)
            while not self.decoder.done:
                if self.out_of_reach():
                    return self._said(out_of_reach=True)
                if clock() > deadline:
                    return self._said(timed_out=True)
                r = self.decoder.step()
                self.rounds, self.kept, self.checked = self.rounds + 1, self.kept + r.n_accepted, self.checked + r.checked
                if keeps_all(r, self.gamma):
                    self.found = Found(self.next_seed, r.index, self.tried + 1, rounds=self.rounds, kept=self.kept,
                                       checked=self.checked)
                    self.decoder = None
                    return self.found
            self.decoder, self.tried, self.next_seed = None, self.tried + 1, self.next_seed + 1

    def out_of_reach(self) -> bool:
        """Whether the seeds left, each at most `max_new_tokens` rounds long, would find a round keeping
        all γ less often than OUT_OF_REACH (after EVIDENCE guesses judged)."""
        rounds_left = (self.end - self.next_seed) * self.request.max_new_tokens
        return self.checked >= EVIDENCE and reach(self.kept, self.checked, self.gamma, rounds_left) < OUT_OF_REACH

    def _said(self, **how) -> Found:
        return Found(None, None, self.tried, rounds=self.rounds, kept=self.kept, checked=self.checked, **how)


def find_all_kept(pair, prompt_ids: list[int], *, settings: SamplingSettings, gamma: int,
                  max_new_tokens: int, first_seed: int = 0, max_seeds: int = MAX_SEEDS,
                  max_seconds: float = MAX_SECONDS, drafter: str | None = "model",
                  clock=time.monotonic) -> Found:
    """The first seed (from `first_seed` on) and round index whose round keeps all γ drafts of the
    seeded speculative generation; Found(None, None, tried) after `max_seeds` seeds without one, or
    with timed_out=True when `max_seconds` ran out first."""
    return SeedSearch(pair, prompt_ids, settings=settings, gamma=gamma, max_new_tokens=max_new_tokens,
                      first_seed=first_seed, max_seeds=max_seeds, drafter=drafter).run(max_seconds, clock)


def teaching_request(prompt_ids, *, settings: SamplingSettings, gamma: int, seed: int, max_new_tokens: int,
                     variant: str = "aligned") -> Request:
    """The request whose rounds chapters 5, 8 and 9 show: the draft model guessing γ a round (the
    lecture's policy) at `seed`."""
    return Request(prompt_ids, drafter="model", policy=LECTURE_POLICY, gamma=gamma, settings=settings, seed=seed,
                   max_new_tokens=max_new_tokens, variant=variant)


WARM_SECONDS = 300.0  # the warm-up's search at the defaults: before the class arrives, time is cheap


def all_kept_key(prompt_ids, *, settings: SamplingSettings, gamma: int, max_new_tokens: int,
                 first_seed: int = 0, variant: str = "aligned") -> tuple:
    """The service cache's key of a round found keeping all γ drafts of this request."""
    return ("all-kept", tuple(prompt_ids), settings, gamma, max_new_tokens, first_seed, variant)


def cached_all_kept(service, prompt_ids: list[int], *, settings: SamplingSettings, gamma: int, max_new_tokens: int,
                    first_seed: int = 0, variant: str = "aligned", search: SeedSearch | None = None,
                    max_seconds: float = MAX_SECONDS) -> Found:
    """The round keeping all γ drafts of this request (the draft model guessing on the service's pair
    with draft `variant`): from the service's cache when one was found before, else `search` (a SeedSearch of
    this request, resumed where it stopped) or a new one run for `max_seconds`; a round found is
    kept in the cache. Call on the model worker."""
    key = all_kept_key(prompt_ids, settings=settings, gamma=gamma, max_new_tokens=max_new_tokens,
                       first_seed=first_seed, variant=variant)
    found = service.peek(key)
    if found is not None:
        return found
    if search is None:
        search = SeedSearch(service.pair_for(variant), prompt_ids, settings=settings, gamma=gamma,
                            max_new_tokens=max_new_tokens, first_seed=first_seed)
    found = search.run(max_seconds)
    if found.seed is not None:
        service.cached(key, lambda: found)
    return found


def all_kept_steps(service, prompt_ids: list[int], *, settings: SamplingSettings, gamma: int, max_new_tokens: int,
                   first_seed: int = 0, variant: str = "aligned", max_seconds: float = WARM_SECONDS,
                   slice_seconds: float = 0.5):
    """`cached_all_kept` as a long job (a generator the model worker runs a slice at a time, so a
    student's request goes between two slices), searching up to `max_seconds`, then the found seed's
    generation as chapter 8 asks for it (rows kept), so the page's first press finds both cached.
    Returns the Found."""
    key = all_kept_key(prompt_ids, settings=settings, gamma=gamma, max_new_tokens=max_new_tokens,
                       first_seed=first_seed, variant=variant)
    found = service.peek(key)
    if found is None:
        search = SeedSearch(service.pair_for(variant), prompt_ids, settings=settings, gamma=gamma,
                            max_new_tokens=max_new_tokens, first_seed=first_seed)
        deadline = time.monotonic() + max_seconds
        while True:
            found = search.run(slice_seconds)
            if not found.timed_out or time.monotonic() > deadline:
                break
            yield
        if found.seed is None:
            return found
        service.cached(key, lambda: found)
    if found.seed is not None:
        yield from service.generation_steps(teaching_request(
            prompt_ids, settings=settings, gamma=gamma, seed=found.seed, max_new_tokens=max_new_tokens,
            variant=variant), keep_rows=True)
    return found


TEACH_ROUNDS = 40     # rounds tried (over all seeds) for a round that teaches, before keeping the student's seed


def teaches(r: RoundTrace) -> bool:
    """Round r keeps some guesses and then rejects one: every move of a round."""
    return bool(r.guesses) and 0 < r.n_accepted < len(r.guesses)


def reads_oddly(r: RoundTrace) -> bool:
    """Round r's correction is a rare draw, or its rejected guess was hopeless (`luck`)."""
    lk = luck(r, 0.5)
    return lk is not None and (lk.rare_correction is not None or lk.hopeless is not None)


def teaching_seed_steps(service, prompt_ids: list[int], *, settings: SamplingSettings, gamma: int,
                        max_new_tokens: int, first_seed: int = 0, variant: str = "aligned",
                        max_rounds: int = TEACH_ROUNDS):
    """The first seed from `first_seed` on whose generation reaches a round that `teaches` with no
    round up to it `reads_oddly` (cached by the service); `first_seed` when none does within
    `max_rounds` rounds. A generator the model worker runs a round at a time; returns the seed."""
    key = ("teaching-seed", tuple(prompt_ids), settings, gamma, max_new_tokens, first_seed, variant)
    kept = service.peek(key)
    if kept is not None:
        return kept
    seed, rounds, found = first_seed, 0, first_seed
    while rounds < max_rounds:
        decoder = Decoder(service.pair_for(variant), teaching_request(
            prompt_ids, settings=settings, gamma=gamma, seed=seed, max_new_tokens=max_new_tokens), keep_rows=False)
        while not decoder.done and rounds < max_rounds:
            yield
            r = decoder.step()
            rounds += 1
            if reads_oddly(r):
                break
            if teaches(r):
                return service.cached(key, lambda: seed)
        seed += 1
    return service.cached(key, lambda: found)
