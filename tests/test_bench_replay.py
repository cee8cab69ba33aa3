"""bench/replay.py replays the auto policy on a recorded greedy text: its rounds are the engine's
(who guessed, how many, how many kept), so what it prices for another setting is what the engine
would do; and no policy it replays beats its oracle."""
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]

import replay  # noqa: E402

from lab.core import adaptive  # noqa: E402
from lab.core.engine import generate  # noqa: E402
from lab.core.kv import CachedModel  # noqa: E402
from lab.core.request import Request  # noqa: E402
from lab.pairs.tiny import tiny_pair  # noqa: E402


def recorded(pair, prompt: list[int], tokens: int) -> replay.Texts:
    new = generate(pair, Request(prompt, max_new_tokens=tokens).plain(), display_top=0).new_ids
    logits, _ = CachedModel(pair.draft).forward(prompt + new)
    q = logits[len(prompt) - 1: len(prompt) - 1 + len(new)].softmax(-1)
    return replay.Texts({"prompt": prompt, "new": new, "draft": q.argmax(-1).tolist(), "conf": q.max(-1).values.tolist()})


def test_the_replayed_rounds_are_the_engines_and_the_oracle_bounds_them():
    pair = tiny_pair()
    words = pair.tokenizer.encode("the cat sat on the mat and the cat sat on the")
    same = dataclasses.replace(pair, draft=pair.target)        # a draft model whose every guess is kept
    kinds = set()
    for pair, prompt in ((pair, words), (pair, words[:5]), (pair, words * 2), (same, words[:5]), (same, words * 2)):
        t = recorded(pair, prompt, 40)
        trace = generate(pair, Request(prompt, drafter="hybrid", policy=f"auto:{replay.GAMMA}", max_new_tokens=40),
                         display_top=0)
        assert trace.new_ids == t.new
        engine = [(r.draft_source, r.gamma, r.n_accepted) for r in trace.rounds]
        rounds = replay.policy_rounds(t, adaptive.prices(None))
        assert [r[:3] for r in rounds] == engine
        kinds |= {(source, k > 1, kept == k) for source, k, kept in engine if k}
        time, _, _ = replay.replay_policy(t, adaptive.prices(None))
        best, _, _ = replay.replay_oracle(t, adaptive.prices(None))
        assert best <= time + 1e-9
    # the comparison covered both sources, rounds kept whole and cut short, the draft model's longer rounds
    assert {("model", True, True), ("model", False, False), ("lookup", False, True), ("lookup", False, False)} <= kinds, kinds
