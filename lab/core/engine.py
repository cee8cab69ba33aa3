"""The speculative engine: one round at a time, on a real Hugging Face causal-LM pair.

Batch size 1. Each model keeps its own KV cache, which always holds the committed text minus its
last token; after a round the caches are cropped back to that (the rollback after a rejection).

    decoder = Decoder(pair, Request(prompt_ids, gamma=4))     # lab.core.request
    while not decoder.done:
        round_trace = decoder.step()        # γ draft calls, one target call, the commit

Who drafts is a drafter of lab.core.drafting (the draft model, prompt lookup, or both) and how many
tokens a round drafts is a `DraftPolicy` (constant γ, transformers' heuristic schedule, a
confidence stop, or "auto", priced with the cost profile its caller passes, else fixed estimates:
lab.core.adaptive); neither changes what is accepted, so the output stays exactly the target's.
The decoder never looks a profile up: a server's model service hands it the one it measured for the
pair (serving.serviceprofiles), a script the one it measured itself (lab.speed.costs.measure_profile).

    decoder = Decoder(pair, Request(prompt_ids, drafter="hybrid", policy=DraftPolicy(4, "heuristic")))
    decoder = Decoder(pair, Request(prompt_ids, policy="auto:12"), profile=measure_profile(pair))

`generate()` runs a decoder to the end and returns a `GenerationTrace`; a request's `mode="plain"`
(`request.plain()`) is ordinary autoregressive decoding in the same trace format (one target call per
token), by the target, or by the draft model alone with `writer="draft"` (chapter 1 races both).

Every tensor of a round lives on the pair's device (`pair.device`: the CPU, a CUDA GPU or MPS), with
p and q in float64 there (lab.core.sampling); the seeded generator is a CPU one, so a seed gives the same
uniforms on every device. A trace's rows come back to the CPU as numpy arrays.
"""
from __future__ import annotations

from dataclasses import replace

import torch

from lab.core.adaptive import schedule_for
from lab.core.drafting import DRAFTERS, DraftPolicy, Guesses, check_gamma, make_drafter
from lab.core.kv import CachedModel
from lab.core.request import Request
from lab.pairs.modelpair import ModelPair
from lab.core.sampling import GREEDY, SamplingSettings, accept_probability, probabilities, residual, sample
from lab.core.trace import Candidate, GenerationTrace, Guess, RoundTrace

DISPLAY_TOP = 8


def top_candidates(row: torch.Tensor, tokenizer, k: int = DISPLAY_TOP) -> list[Candidate]:
    """The k most likely tokens of a probability row (V,), zero-probability entries left out."""
    if k <= 0:
        return []
    probs, ids = torch.topk(row, min(k, row.shape[-1]))
    return [Candidate(i, tokenizer.decode([i]), pr) for pr, i in zip(probs.tolist(), ids.tolist()) if pr > 0]


class Decoder:
    """Speculative (or plain) decoding of one prompt, stepped one round at a time."""

    def __init__(self, pair: ModelPair, request: Request, *, keep_rows: bool = True,
                 display_top: int = DISPLAY_TOP, profile=None):
        """Decode `request` (lab.core.request) on `pair`, the pair drafting with the request's draft
        variant. Not the request, so separate: `keep_rows` (keep each round's p and q rows) and
        `display_top` (top candidates kept per position) choose what the trace keeps for display, not
        which tokens it holds; `profile`, the pair's cost profile (a lab.speed.costs.CostProfile) the
        auto policy prices a round with (None: fixed estimates, lab.core.adaptive), is the machine's."""
        mode, writer, settings, gamma = request.mode, request.writer, request.settings, request.gamma
        prompt_ids, seed, max_new_tokens = request.prompt_ids, request.seed, request.max_new_tokens
        # Who drafts and how many: the pair's defaults (lab.pairs.load.ModelPair) unless the request says.
        drafter = request.drafter or getattr(pair, "drafter", "model")
        policy = request.policy or getattr(pair, "policy", "constant")
        if writer not in ("target", "draft") or (writer == "draft" and mode != "plain"):
            raise ValueError("writer='draft' is only for plain decoding by the draft model.")
        if mode not in ("speculative", "plain"):
            raise ValueError(f"mode must be 'speculative' or 'plain'; got {mode!r}.")
        if drafter not in DRAFTERS:
            raise ValueError(f"The drafter must be one of {', '.join(DRAFTERS)}; got {drafter!r}.")
        if not prompt_ids:
            raise ValueError("The prompt is empty; type a few words to start from.")
        if max_new_tokens < 1:
            raise ValueError("max_new_tokens must be at least 1.")
        self.request = request
        self.pair, self.mode, self.settings = pair, mode, settings
        # γ: the caller's (a student's slider) if given, else the policy's; the policy keeps its
        # schedule, confidence stop and cap on draft-model calls either way.
        policy = DraftPolicy.parse(policy) if isinstance(policy, str) else policy
        self.policy = policy if gamma is None or mode != "speculative" else replace(policy, gamma=check_gamma(gamma))
        self.gamma = self.policy.gamma if mode == "speculative" else 0
        self.schedule = schedule_for(self.policy, profile, drafter)
        self.seed, self.max_new_tokens, self.keep_rows = seed, max_new_tokens, keep_rows
        self.display_top = display_top          # top candidates kept per position for display
        self.ids = list(prompt_ids)
        self.n_prompt = len(prompt_ids)
        self.generator = torch.Generator().manual_seed(seed)
        self.rounds: list[RoundTrace] = []
        self.stop_reason: str | None = None
        # The model whose text this is ("target", or "draft" writing alone): it scores every round.
        self.writer = writer
        self.writer_model = CachedModel(pair.target if writer == "target" else pair.draft)
        # q rows are as wide as the target's logits (a padded head can be wider than the tokenizer)
        self.drafter = (make_drafter(drafter, pair.draft, pair.target.config.vocab_size,
                                     device=self.writer_model.device)
                        if mode == "speculative" else None)
        # Prefill: the caches take the prompt minus its last token, which each round feeds.
        self.prefill_seconds = self.writer_model.forward(self.ids[:-1])[1] if len(self.ids) > 1 else 0.0
        if self.drafter is not None:
            self.prefill_seconds += self.drafter.prefill(self.ids)

    @property
    def draft_cache(self) -> CachedModel | None:
        """The drafter's draft-model cache (None for plain decoding and for prompt lookup alone)."""
        return getattr(self.drafter, "cache", None)

    @property
    def new_ids(self) -> list[int]:
        return self.ids[self.n_prompt:]

    @property
    def done(self) -> bool:
        return self.stop_reason is not None

    def _decode(self, token_id: int) -> str:
        return self.pair.tokenizer.decode([token_id])

    def step(self) -> RoundTrace:
        """One round: draft up to γ tokens, verify them in one target call, commit."""
        if self.done:
            raise RuntimeError("This generation has finished; start a new one.")
        remaining = self.max_new_tokens - len(self.new_ids)
        gamma = min(self.schedule.gamma, remaining - 1) if self.drafter else 0   # never past the end
        proposed = (self.drafter.propose(self.ids, gamma, self.settings, self.generator, self.policy,
                                         self.schedule.caps(self.ids)) if gamma > 0 else Guesses())
        tokens, q_rows, draft_secs = proposed.tokens, proposed.q_rows, proposed.seconds
        gamma = len(tokens)                          # a drafter may propose fewer

        # One call of the writing model (the target, when drafting) scores every drafted position
        # plus one more: p rows (γ + 1, V).
        logits, call_secs = self.writer_model.forward(self.ids[self.writer_model.length:] + tokens)
        p_rows = probabilities(logits[-(gamma + 1):], self.settings)

        # Left to right: keep x_i with probability min(1, p/q); stop at the first rejection.
        tok = self.pair.tokenizer
        guesses, n_accepted, rejected = [], 0, False
        for i, x in enumerate(tokens):
            p, q = p_rows[i], q_rows[i]
            a = accept_probability(p, q, x)
            if rejected:
                u, kept = None, None
            else:
                u = float(torch.rand((), generator=self.generator, dtype=torch.float64))
                kept = u < a
                rejected = not kept
                n_accepted += kept
            guesses.append(Guess(i, x, self._decode(x), float(q[x]), float(p[x]), a, u, kept,
                                    draft_secs[i], top_candidates(q, tok, self.display_top),
                                    top_candidates(p, tok, self.display_top)))

        # The extra token: a correction from the residual, else the bonus from p at position γ.
        if n_accepted < gamma:
            source, kind = residual(p_rows[n_accepted], q_rows[n_accepted]), "correction"
        else:
            source, kind = p_rows[gamma], ("bonus" if gamma > 0 else "target")
        extra = sample(source, self.generator)

        emitted = tokens[:n_accepted] + [extra]
        eos = self.pair.eos_token_id
        if eos is not None and eos in emitted:
            emitted = emitted[: emitted.index(eos) + 1]
            self.stop_reason = "eos"
        self.ids += emitted
        if self.stop_reason is None and len(self.new_ids) >= self.max_new_tokens:
            self.stop_reason = "max_new_tokens"
        self.writer_model.rollback(len(self.ids) - 1)
        if self.drafter is not None:
            self.drafter.commit(self.ids)
            self.schedule.update(gamma, n_accepted, proposed.source, self.ids, proposed.sure)

        trace = RoundTrace(
            index=len(self.rounds), prefix_ids=self.ids[: len(self.ids) - len(emitted)],
            gamma=gamma, guesses=guesses, n_accepted=n_accepted, extra_token_id=extra,
            extra_text=self._decode(extra), extra_kind=kind, extra_top=top_candidates(source, tok, self.display_top),
            target_seconds=call_secs, emitted_ids=emitted,
            emitted_texts=[self._decode(t) for t in emitted], stop_reason=self.stop_reason,
            draft_source=proposed.source if gamma else "none",
            p_rows=p_rows.float().cpu().numpy() if self.keep_rows else None,
            q_rows=torch.stack(q_rows).float().cpu().numpy() if self.keep_rows and q_rows else None)
        self.rounds.append(trace)
        return trace

    def trace(self) -> GenerationTrace:
        return GenerationTrace(
            mode=self.mode if self.writer == "target" else "plain-draft", prompt_ids=self.ids[: self.n_prompt], settings=self.settings,
            gamma=self.gamma, seed=self.seed, max_new_tokens=self.max_new_tokens,
            prefill_seconds=self.prefill_seconds, rounds=list(self.rounds),
            drafter=self.drafter.name if self.drafter else "", policy=self.policy.describe() if self.drafter else "",
            text=self.pair.tokenizer.decode(self.new_ids))


def generate(pair: ModelPair, request: Request, *, keep_rows: bool = False, display_top: int = DISPLAY_TOP,
             on_round=None, profile=None) -> GenerationTrace:
    """Decode `request` to the end; `on_round(round_trace)` is called after every round (a caller's
    progress, not part of the request); `keep_rows`, `display_top` and `profile` as `Decoder`'s."""
    decoder = Decoder(pair, request, keep_rows=keep_rows, display_top=display_top, profile=profile)
    while not decoder.done:
        round_trace = decoder.step()
        if on_round is not None:
            on_round(round_trace)
    return decoder.trace()
