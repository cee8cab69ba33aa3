"""Turning a student's text into prompt token ids, with limits and one-sentence errors."""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

HELDOUT_PROMPTS = Path(__file__).resolve().parents[1] / "models" / "heldout_prompts.json"
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


def heldout_prompts(path: Path = HELDOUT_PROMPTS) -> dict[str, list[str]]:
    """Category → prompts of a prompt set (default: the held-out set drafts are measured on, never
    trained on). The file is a JSON object of lists; keys starting with "_" are notes."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise PromptError(f"The prompt set {path} could not be read ({err}); give a JSON file of "
                          "category → list of prompts.") from None
    sets = {k: v for k, v in data.items() if not k.startswith("_")} if isinstance(data, dict) else {}
    if not sets or not all(isinstance(v, list) and v and all(isinstance(p, str) for p in v)
                           for v in sets.values()):
        raise PromptError(f"The prompt set {path} must be a JSON object of category → list of prompts.")
    return sets
