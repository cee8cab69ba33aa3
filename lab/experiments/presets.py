"""Preset prompts a lecturer shows in one click: one where drafting clearly wins, one where it loses,
and two in between (code, JSON).

Drafting pays when the target's next tokens are easy to guess. An edit prompt asks for a copy of a
text with one change, so most of the answer is already in the prompt: prompt lookup and a good draft
guess long runs (models/heldout_prompts.json, category "edit", measured in models/drafting/). A
story opening leaves the target free to go anywhere: few guesses survive and the draft's calls are
wasted. Code and JSON sit between: their syntax is predictable, their content less so. On the embedded
pair (greedy, γ 4, 24 tokens) the share of guesses kept is 0.77 on the edit, 0.41 on JSON, 0.38 on
code and 0.10 on the story; the weak draft keeps at most 0.01 of its guesses, the random one none.

    for preset in PRESETS:
        preset.key, preset.label, preset.prompt, preset.why
    state.prompt = preset_by_key("edit").prompt
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    key: str          # stable name (tests, URLs)
    label: str        # the button's words
    prompt: str       # the text both models continue
    why: str          # one sentence: what drafting does on it, and why


PRESETS = (
    Preset("edit", "Edit a record",
           'Original: {"name": "Alice Smith", "age": 30, "city": "Paris", "email": "alice@example.com", '
           '"active": true}\nThe same record with age 31: {"name": "Alice Smith", "age": 31,',
           "Drafting wins: the rest of the record is a copy of the one above, so long guesses are kept."),
    Preset("story", "Story opening",
           "The old lighthouse keeper climbed the stairs one last time. He",
           "Drafting loses: a story can go anywhere, so few guesses are kept and the draft's calls are wasted."),
    Preset("code", "Code",
           'import json\n\n\ndef load_config(path):\n    """Read a JSON configuration file."""\n',
           "In between: the syntax and the names are easy to guess, the logic less so."),
    Preset("json", "JSON",
           '{"name": "Alice", "age": 30, "city":',
           "In between: keys, quotes and commas are easy to guess, the values less so."),
)


def preset_by_key(key: str) -> Preset:
    for preset in PRESETS:
        if preset.key == key:
            return preset
    raise KeyError(f"There is no preset {key!r}; choose one of {', '.join(p.key for p in PRESETS)}.")


def preset_for_prompt(prompt: str) -> Preset | None:
    """The preset whose prompt this is, if any (the bar marks it as chosen)."""
    return next((p for p in PRESETS if p.prompt == prompt), None)
