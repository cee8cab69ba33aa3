"""What several test folders share: scripted traces and cost profiles with known outcomes."""
from lab.costs import CostProfile
from lab.request import Outcome, Request
from lab.sampling import GREEDY
from lab.trace import DraftStep, GenerationTrace, RoundTrace

DEAR = [0.1 * (1 + 0.125 * k) for k in range(17)]     # v(5) = 1.5 target calls
CHEAP = [0.1] * 17                                      # a verify pass costs one call whatever its size


def made_profile(verify=(1.0, 1.0, 1.0, 1.0, 1.0), draft=0.1, prefill=2.0, busy=False, **kw) -> CostProfile:
    """A cost profile with the given seconds (verify[k − 1]: a pass over k positions)."""
    base = dict(pair="p", draft_seconds=draft, verify_seconds=tuple(verify), prefill_seconds=prefill,
                prefill_tokens=len(verify) + 3, spread=0.0, load=0.0, cores=2, threads=1, busy=busy)
    return CostProfile(**{**base, **kw})


def scripted_round(i: int, drafted: int, kept: int, source: str = "model") -> RoundTrace:
    """A round that guessed `drafted` tokens and kept the first `kept` (then the target's token)."""
    drafts = [DraftStep(j, 7, "x", 0.5, 0.5, 1.0, 0.1, True if j < kept else (False if j == kept else None), 0.0)
              for j in range(drafted)]
    extra = "bonus" if kept == drafted and drafted else ("correction" if drafted else "target")
    n = kept + 1
    return RoundTrace(i, [1, 2], drafted, drafts, kept, 7, "x", extra, [], 0.01, [7] * n, ["x"] * n,
                      draft_source=source if drafted else "none")


def scripted_trace(rounds: list[RoundTrace], mode: str = "speculative") -> GenerationTrace:
    return GenerationTrace(mode, [1, 2, 3], GREEDY, 4, 0, 32, 0.0, rounds, text="x" * len(rounds))


def scripted_outcome(spec_rounds, verify, draft, drafter="model") -> Outcome:
    """The outcome of a request whose speculative rounds are `spec_rounds`, against plain decoding of
    the same tokens, priced by a profile of `verify` and `draft` seconds."""
    tokens = sum(len(r.emitted_ids) for r in spec_rounds)
    plain = scripted_trace([scripted_round(i, 0, 0) for i in range(tokens)], "plain")
    profile = made_profile(verify=verify, draft=draft, prefill=0.5)
    return Outcome.of(Request((1, 2, 3), drafter=drafter), plain, scripted_trace(spec_rounds), profile)
