"""Tiny random-weight model pairs the tests (and benchmarks) build for themselves, offline.

A word-level tokenizer over a small vocabulary shared by a target and a draft of the same family
("llama" or "gpt2"). Larger initial weights make the distributions peaky enough that drafts are
sometimes right and sometimes wrong, which is what the engine's tests need.

>>> pair = tiny_pair("llama")
>>> pair.tokenizer.decode(pair.tokenizer.encode("the cat sat"))
'the cat sat'
"""
from __future__ import annotations

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, decoders
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from lab.pairs.modelpair import ModelPair

WORDS = ("the a cat dog sat ran on in under mat rug sofa bed and then quickly slowly big small "
         "red blue happy sad tree house garden park sun moon day night it was is . ,").split()


def tiny_tokenizer(words=WORDS) -> PreTrainedTokenizerFast:
    vocab = {"<unk>": 0, "<eos>": 1, **{w: i + 2 for i, w in enumerate(words)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.decoder = decoders.WordPiece(prefix="##")   # joins words with spaces
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", eos_token="<eos>",
                                   pad_token="<eos>")


def tiny_model(family: str, vocab_size: int, *, layers: int, width: int, seed: int, init: float = 0.3):
    torch.manual_seed(seed)
    if family == "llama":
        config = LlamaConfig(vocab_size=vocab_size, hidden_size=width, intermediate_size=2 * width,
                             num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                             max_position_embeddings=512, initializer_range=init,
                             eos_token_id=1, pad_token_id=1, bos_token_id=None, tie_word_embeddings=False)
        model = LlamaForCausalLM(config)
    elif family == "gpt2":
        config = GPT2Config(vocab_size=vocab_size, n_embd=width, n_layer=layers, n_head=4,
                            n_positions=512, initializer_range=init, eos_token_id=1, pad_token_id=1,
                            bos_token_id=1)
        model = GPT2LMHeadModel(config)
    else:
        raise ValueError(f"unknown family {family!r}; use 'llama' or 'gpt2'")
    return model.eval()


def tiny_pair(family: str = "llama", seed: int = 0, draft_seed: int | None = None) -> ModelPair:
    """A 2-layer target and a 1-layer draft over the same word vocabulary, random weights.

    The draft shares the target's embeddings and first layer, so it agrees with the target often
    but not always (α strictly between 0 and 1), like a real distilled draft.
    """
    tok = tiny_tokenizer()
    target = tiny_model(family, len(tok), layers=2, width=32, seed=seed)
    draft = tiny_model(family, len(tok), layers=1, width=32, seed=seed if draft_seed is None else draft_seed)
    if draft_seed is None:   # an "aligned" draft: the target's embeddings, first layer and head
        own = dict(draft.state_dict())
        for name, value in target.state_dict().items():
            if name in own and own[name].shape == value.shape:
                own[name] = value.clone()
        draft.load_state_dict(own)
    return ModelPair(target=target, draft=draft, tokenizer=tok, name=f"tiny-{family}",
                     target_label=f"tiny {family} target", draft_label=f"tiny {family} draft")
