"""Drafts for the embedded SmolLM2 target, all plain Hugging Face causal LMs, built, loaded and
exported (the distilled draft's trained part, for models/distil/train.py).

- `weak`: an early exit of the target (its first layers, final norm and tied head); untrained.
- `random`: a tiny model whose q is uniform over the vocabulary (to within a percent), and whose
  greedy guess after token t is a seeded random permutation's perm(t): a random token, not
  token 0 every time (with all-zero logits every argmax ties and lands on token 0, the end-of-text
  token of most vocabularies).
- `distilled`: a few layers trained by us (models/distil/), sharing the target's embeddings, with a
  head over a token shortlist: logits outside the shortlist are the dtype's minimum, so q = 0 there
  exactly and speculative sampling stays exact (Leviathan et al. 2023, Thm 1 needs only q, p).

The shortlist model type is registered with the Auto classes here, in our own code, so loading it
never needs `trust_remote_code`: importing this module (lab.pairs.load does, before loading any model)
is what makes `AutoModelForCausalLM.from_pretrained` accept a saved shortlist draft. The training
loop itself (distillation) lives in models/distil/.
"""
from __future__ import annotations

import copy

import torch
from torch import nn
from transformers import AutoConfig, AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM


class ShortlistLlamaConfig(LlamaConfig):
    model_type = "speclab_shortlist_llama"

    def __init__(self, shortlist_size: int = 8192, **kwargs):
        self.shortlist_size = shortlist_size
        kwargs["tie_word_embeddings"] = False
        super().__init__(**kwargs)


class ShortlistHead(nn.Module):
    """lm_head over `ids` only; every other token gets the lowest finite logit (q = 0 after softmax)."""

    def __init__(self, hidden_size: int, vocab_size: int, shortlist_size: int):
        super().__init__()
        self.vocab_size = vocab_size
        self.weight = nn.Parameter(torch.zeros(shortlist_size, hidden_size))
        self.register_buffer("ids", torch.arange(shortlist_size, dtype=torch.long))

    def forward_small(self, hidden: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(hidden, self.weight)  # (B, T, K)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        small = self.forward_small(hidden)  # (B, T, K)
        full = small.new_full((*small.shape[:-1], self.vocab_size), torch.finfo(small.dtype).min)
        return full.index_copy_(-1, self.ids, small)  # (B, T, V)


class ShortlistLlamaForCausalLM(LlamaForCausalLM):
    config_class = ShortlistLlamaConfig
    _tied_weights_keys = {}    # it and _init_weights are transformers internals: tests/test_internals.py

    def __init__(self, config: ShortlistLlamaConfig):
        super().__init__(config)
        self.lm_head = ShortlistHead(config.hidden_size, config.vocab_size, config.shortlist_size)
        self.post_init()

    def _init_weights(self, module):
        if isinstance(module, ShortlistHead):
            return  # ids and weights always come from the checkpoint
        super()._init_weights(module)


AutoConfig.register(ShortlistLlamaConfig.model_type, ShortlistLlamaConfig, exist_ok=True)
AutoModelForCausalLM.register(ShortlistLlamaConfig, ShortlistLlamaForCausalLM, exist_ok=True)


def make_weak(target: LlamaForCausalLM, n_layers: int = 2) -> LlamaForCausalLM:
    """The target's first `n_layers`, its final norm and tied head: an untrained early-exit draft."""
    config = copy.deepcopy(target.config)
    config.num_hidden_layers = n_layers
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[:n_layers]
    draft = LlamaForCausalLM(config)
    state = {k: v for k, v in target.state_dict().items()
             if not k.startswith("model.layers.") or int(k.split(".")[2]) < n_layers}
    draft.load_state_dict(state, strict=False)
    draft.tie_weights()
    return draft.eval()


def make_random(vocab_size: int, bos_token_id=None, eos_token_id=None, pad_token_id=None) -> LlamaForCausalLM:
    """A one-layer model whose q is uniform over the vocabulary and whose greedy guesses are random
    tokens (`uniform_guesses`)."""
    config = LlamaConfig(vocab_size=vocab_size, hidden_size=8, intermediate_size=8, num_hidden_layers=1,
                         num_attention_heads=1, num_key_value_heads=1, head_dim=8,
                         max_position_embeddings=8192, tie_word_embeddings=False,
                         bos_token_id=bos_token_id, eos_token_id=eos_token_id, pad_token_id=pad_token_id)
    draft = LlamaForCausalLM(config)
    with torch.no_grad():
        for p in draft.parameters():
            p.zero_()
    return uniform_guesses(draft)


RANDOM_SEED = 0
RANDOM_SPREAD = 1e-3     # logits within ±0.003: q within 0.3 % of uniform, its argmax still clear


@torch.no_grad()
def uniform_guesses(draft: LlamaForCausalLM, seed: int = RANDOM_SEED, spread: float = RANDOM_SPREAD) -> LlamaForCausalLM:
    """`draft` (the random draft: its layers all zero, so its last hidden state is the last token's
    embedding) made to guess perm(t) after token t, for a random permutation `perm` seeded by
    `seed`, while q stays uniform to within `spread`·√d. In place; returns `draft`.

    Each token's embedding e_t is a random direction; the head's row perm(t) is that direction
    scaled by `spread`, every row of unit length: the logit of token j is spread·cos(row j, e_t)·√d,
    largest (cos = 1) exactly at j = perm(t). Any guess keeps speculative decoding exact: the accept
    rule compares a guess with the target, whatever q was.
    """
    embed, head = draft.get_input_embeddings(), draft.get_output_embeddings()
    vocab, hidden = embed.weight.shape
    directions = torch.randn(vocab, hidden, generator=torch.Generator().manual_seed(seed))
    directions /= directions.norm(dim=1, keepdim=True)                       # (V, d) unit rows
    perm = torch.randperm(vocab, generator=torch.Generator().manual_seed(seed + 1))
    rows = torch.empty_like(directions)
    rows[perm] = directions * spread                                         # row perm(t) ∥ e_t
    if head.weight is embed.weight:                                          # tied: give the head its own
        head.weight = torch.nn.Parameter(head.weight.detach().clone())
        draft.config.tie_word_embeddings = False
    embed.weight.copy_(directions.to(embed.weight.dtype))
    head.weight.copy_(rows.to(head.weight.dtype))
    draft.model.norm.weight.fill_(1.0)
    return draft


def make_shortlist_draft(target: LlamaForCausalLM, shortlist: torch.Tensor, n_layers: int = 2,
                         init_layers: list[int] | None = None) -> ShortlistLlamaForCausalLM:
    """A shortlist draft initialised from target layers `init_layers` (default: the first `n_layers`)."""
    base = target.config.to_dict()
    for key in ("model_type", "architectures", "transformers_version", "tie_word_embeddings", "layer_types"):
        base.pop(key, None)
    base["num_hidden_layers"] = n_layers
    config = ShortlistLlamaConfig(shortlist_size=int(shortlist.numel()), **base)
    config.architectures = ["ShortlistLlamaForCausalLM"]
    draft = ShortlistLlamaForCausalLM(config)
    init_layers = init_layers or list(range(n_layers))
    src = target.state_dict()
    state = {"model.embed_tokens.weight": src["model.embed_tokens.weight"],
             "model.norm.weight": src["model.norm.weight"]}
    for i, j in enumerate(init_layers):
        prefix = f"model.layers.{j}."
        state.update({f"model.layers.{i}." + k[len(prefix):]: v for k, v in src.items() if k.startswith(prefix)})
    draft.load_state_dict(state, strict=False)
    with torch.no_grad():
        draft.lm_head.ids.copy_(shortlist.long())
        draft.lm_head.weight.copy_(src["model.embed_tokens.weight"][shortlist.long()])
    return draft.eval()


def load_distilled(folder, target: LlamaForCausalLM) -> ShortlistLlamaForCausalLM:
    """Assemble the shipped distilled draft with the target's embeddings into a full fp32 model."""
    import json
    from pathlib import Path
    from safetensors.torch import load_file

    folder = Path(folder)
    info = json.loads((folder / "draft.json").read_text())
    state = load_file(str(folder / "draft.safetensors"))
    draft = make_shortlist_draft(target, state["lm_head.ids"], n_layers=info["num_hidden_layers"])
    missing, unexpected = draft.load_state_dict({k: v.float() if v.is_floating_point() else v
                                                 for k, v in state.items()}, strict=False)
    assert set(missing) <= {"model.embed_tokens.weight"} and not unexpected, (missing, unexpected)
    return draft.float().eval()


def export_distilled(draft: ShortlistLlamaForCausalLM, folder, meta: dict | None = None) -> None:
    """Write our trained part of a shortlist draft (layers, norm, head, shortlist) in bf16; no embeddings."""
    import json
    from pathlib import Path
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: (v if k == "lm_head.ids" else v.to(torch.bfloat16)).contiguous()
             for k, v in draft.state_dict().items() if k != "model.embed_tokens.weight"}
    info = {"num_hidden_layers": draft.config.num_hidden_layers,
            "shortlist_size": draft.config.shortlist_size, **(meta or {})}
    # write both then swap in, so a process preparing the pair never reads half a file
    save_file(state, str(folder / "draft.safetensors.tmp"))
    (folder / "draft.json.tmp").write_text(json.dumps(info, indent=1))
    (folder / "draft.json.tmp").replace(folder / "draft.json")
    (folder / "draft.safetensors.tmp").replace(folder / "draft.safetensors")
