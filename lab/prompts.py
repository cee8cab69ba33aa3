"""Turning a student's text into prompt token ids, with limits and one-sentence errors."""
from __future__ import annotations

import unicodedata

MAX_PROMPT_CHARS = 1000
MAX_PROMPT_TOKENS = 256
DEFAULT_PROMPT = "The cat sat on the"


class PromptError(ValueError):
    """A prompt that cannot be used; `str(err)` tells the student what to do."""


def clean_prompt(text) -> str:
    """Strip control characters (newlines and tabs stay) and check the length."""
    if not isinstance(text, str):
        raise PromptError("The prompt must be text; type a few words to start from.")
    if len(text) > MAX_PROMPT_CHARS:
        raise PromptError(f"The prompt is {len(text):,} characters long; keep it under "
                          f"{MAX_PROMPT_CHARS:,} characters.")
    cleaned = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch)[0] != "C")
    if not cleaned.strip():
        raise PromptError("The prompt is empty; type a few words to start from.")
    return cleaned


def encode_prompt(tokenizer, text) -> list[int]:
    """Prompt text → token ids (no chat template: the models continue the text as written)."""
    ids = tokenizer.encode(clean_prompt(text), add_special_tokens=False)
    if not ids:
        raise PromptError("The prompt has no tokens this model knows; try ordinary words.")
    if len(ids) > MAX_PROMPT_TOKENS:
        raise PromptError(f"The prompt is {len(ids)} tokens long; keep it under {MAX_PROMPT_TOKENS} tokens.")
    return ids
