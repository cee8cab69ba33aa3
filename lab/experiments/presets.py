"""Preset prompts a lecturer shows in one click, and who wins on each, measured.

Four texts of different kinds: a record to copy with one change, a story's opening, a function's
header and the start of a JSON object. Which drafter wins on one — the draft model, or copying from
the text (prompt lookup) — and by how much depends on the pair, the machine and the settings, so the
preset bar never says it in fixed words: it measures the student's request on the preset with each
drafter (lab.speed.request.Outcome), `winner` picks who won, and the bar says it with the α and the
speed-up measured (uikit.presets.reading, in the page's language).

    for preset in PRESETS:
        preset.key, preset.label, preset.prompt, preset.what
    state.prompt = preset_by_key("edit").prompt
    winner({"model": outcome_a, "lookup": outcome_b})    # "lookup", or None when no drafter beats plain
"""
from __future__ import annotations

from dataclasses import dataclass

MEASURED_DRAFTERS = ("model", "lookup")   # the two drafters a preset is measured with (lab.speed.request.WHO)


@dataclass(frozen=True)
class Preset:
    key: str          # stable name (tests, URLs)
    label: str        # the button's words
    prompt: str       # the text both models continue
    what: str         # what the text is, in a few words (never who wins: that is measured)


PRESETS = (
    Preset("edit", "Edit a record",
           'Original: {"name": "Alice Smith", "age": 30, "city": "Paris", "email": "alice@example.com", '
           '"active": true}\nThe same record with age 31: {"name": "Alice Smith", "age": 31,',
           "a record to write again with one change, its rest already in the prompt"),
    Preset("story", "Story opening",
           "The old lighthouse keeper climbed the stairs one last time. He",
           "the opening of a story, free to go anywhere"),
    Preset("code", "Code",
           'import json\n\n\ndef load_config(path):\n    """Read a JSON configuration file."""\n',
           "a function's header and docstring, its body to write"),
    Preset("json", "JSON",
           '{"name": "Alice", "age": 30, "city":',
           "the start of a JSON object: keys, quotes and commas around free values"),
)


def preset_by_key(key: str) -> Preset:
    for preset in PRESETS:
        if preset.key == key:
            return preset
    raise KeyError(f"There is no preset {key!r}; choose one of {', '.join(p.key for p in PRESETS)}.")


def preset_for_prompt(prompt: str) -> Preset | None:
    """The preset whose prompt this is, if any (the bar marks it as chosen)."""
    return next((p for p in PRESETS if p.prompt == prompt), None)


def winner(outcomes: dict) -> str | None:
    """The drafter (a key of `outcomes`, drafter → lab.speed.request.Outcome) that decodes fastest and
    beats plain decoding beyond the machine's noise (Outcome.verdict_word); None when none does."""
    faster = [d for d, o in outcomes.items() if o.verdict_word() == "faster"]
    return max(faster, key=lambda d: outcomes[d].speedup) if faster else None
