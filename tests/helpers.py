"""What several test folders share: waiting on a condition with a deadline, running a chapter's
work to its end, a served page's document, a tiny model folder on disk, and scripted traces and
cost profiles with known outcomes."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

from lab.speed.costs import CostProfile
from lab.core.request import Request
from lab.speed.request import Outcome
from lab.core.sampling import GREEDY
from lab.core.trace import GenerationTrace, Guess, RoundTrace

DEAR = [0.1 * (1 + 0.125 * k) for k in range(17)]     # v(5) = 1.5 target calls
CHEAP = [0.1] * 17                                      # a verify pass costs one call whatever its size


def made_profile(verify=(1.0, 1.0, 1.0, 1.0, 1.0), draft=0.1, prefill=2.0, busy=False, **kw) -> CostProfile:
    """A cost profile with the given seconds (verify[k − 1]: a pass over k positions)."""
    base = dict(pair="p", draft_seconds=draft, verify_seconds=tuple(verify), prefill_seconds=prefill,
                prefill_tokens=len(verify) + 3, spread=0.0, load=0.0, cores=2, threads=1, busy=busy)
    return CostProfile(**{**base, **kw})


def scripted_round(i: int, drafted: int, kept: int, source: str = "model") -> RoundTrace:
    """A round that guessed `drafted` tokens and kept the first `kept` (then the target's token)."""
    guesses = [Guess(j, 7, "x", 0.5, 0.5, 1.0, 0.1, True if j < kept else (False if j == kept else None), 0.0)
               for j in range(drafted)]
    extra = "bonus" if kept == drafted and drafted else ("correction" if drafted else "target")
    n = kept + 1
    return RoundTrace(i, [1, 2], drafted, guesses, kept, 7, "x", extra, [], 0.01, [7] * n, ["x"] * n,
                      draft_source=source if drafted else "none")


def scripted_trace(rounds: list[RoundTrace], mode: str = "speculative") -> GenerationTrace:
    return GenerationTrace(mode, [1, 2, 3], GREEDY, 4, 0, 32, 0.0, rounds, text="x" * len(rounds))


def scripted_outcome(spec_rounds, verify, draft, drafter="model") -> Outcome:
    """The outcome of a request whose speculative rounds are `spec_rounds`, against plain decoding of
    the same tokens, priced by a profile of `verify` and `draft` seconds."""
    tokens = sum(len(r.emitted_ids) for r in spec_rounds)
    plain = scripted_trace([scripted_round(i, 0, 0) for i in range(tokens)], "plain")
    profile = made_profile(verify=verify, draft=draft, prefill=0.5)
    return Outcome.of(Request((1, 2, 3), drafter=drafter, policy="constant", gamma=4), plain, scripted_trace(spec_rounds),
                      profile)


# --- waiting: poll a condition with a deadline, never sleep on a guess ----------------------------

class FakeClock:
    """A clock that moves only when told: pass it where the code under test takes a `clock` or a
    `timer`, and `advance` it to stand for seconds of work or waiting."""

    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def wait_until(fn, timeout: float = 30.0, interval: float = 0.1, message: str = ""):
    """Poll `fn()` until it returns something truthy; return it, or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = fn()
            if value:
                return value
        except Exception as err:   # the page may still be building; keep polling
            last_error = err
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {message or fn}"
                         + (f" (last error: {last_error})" if last_error else ""))


async def until(fn, timeout: float = 10.0, interval: float = 0.01, message: str = ""):
    """`wait_until` on an event loop: poll `fn()` between the loop's other work until it is truthy;
    return it, or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        await asyncio.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {message or fn}")


# --- chapter pages --------------------------------------------------------------------------------

class ServedPage:
    """A served page's document as far as `intercept.pacing.served` sees it: it has a session. Make it
    the current one with `panel.io.state.set_curdoc(page)`."""
    session_context = object()


def measured(chapter):
    """Run the chapter's measurement (`measure()`, chapters 12 and 13) to its end: its result."""
    return asyncio.run(chapter.measure())


def step_to_end(chapter):
    """Press Step until the chapter's round is done (chapters 8 and 9)."""
    async def go():
        while not chapter.done:
            await chapter.advance()
    asyncio.run(go())


# --- a tiny model on disk -------------------------------------------------------------------------

WORDS = ["<unk>", "<eos>", "the", "cat", "sat", "on", "mat", "a", "dog", "ran"]


def save_tiny(folder: Path, words=WORDS, seed: int = 0, layers: int = 1, vocab_size: int | None = None) -> Path:
    """A one-layer llama with a word-level tokenizer, saved as a Hugging Face folder."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=vocab_size or len(words), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=layers, num_attention_heads=2, num_key_value_heads=1,
                         max_position_embeddings=64, eos_token_id=1, pad_token_id=1)
    LlamaForCausalLM(config).save_pretrained(folder)
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", eos_token="<eos>").save_pretrained(folder)
    return folder


def run_apart(coro):
    """`asyncio.run(coro)` on a thread of its own: once the browser tests have run, Playwright's sync
    API holds an event loop on the main thread, where asyncio.run refuses to start."""
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def explored(slug: str, service):
    """A chapter's page as exported and its explorer, run with a budget of one state beyond the
    choices (export/)."""
    from export.build import build_page
    from export.explore import Explorer

    async def go():
        built = await build_page(slug, service)
        explorer = Explorer(slug, service, built.frame, max_nodes=1, max_seconds=1)
        await explorer.run()
        return built, explorer
    return asyncio.run(go())


# A Bokeh model as browser-side code sees it, for node: it keeps what is set on it, and a redraw
# that would send its change back to the server (setv without {sync: false}) fails.
JS_MODEL = """class Model {
  constructor(state) { Object.assign(this, state) }
  setv(attrs, options) {
    if (!options || options.sync !== false) throw new Error("a browser redraw must not sync")
    Object.assign(this, attrs)
  }
}
"""
