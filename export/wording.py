"""What a served page says of the machine it runs on, said in the export as the recording's fact.

A served page flags figures timed while its machine was busy (uikit.verdicts.why_busy, here in English:
"The machine was busy while timing (load 4.5 on 2 cores), so these figures are unreliable.").
In the export that sentence is about the lecturer's machine on the day it was exported, not the
student's who opens the copy at home, so every exported page and recording says it as a fact of the
recording: "Recorded on a machine that was busy (load 4.5 on 2 cores while timing), so these
recorded figures are unreliable." Every other "this machine" (chapter 10's "Measured on this
machine: 0.52×", "this machine's verify cost") is "the recording machine", which each exported
page's offline note names. The served pages keep their own words.

The sentences are found by their own wording: `why_busy` is asked for each of its sentences with
probe numbers, and the numbers' places become the pattern's, so a changed wording is followed.

    text = as_recorded(text)
"""
from __future__ import annotations

import re
from functools import lru_cache
from types import SimpleNamespace

from uikit.verdicts import why_busy

_LOAD, _CORES, _SPREAD = "98765.4", "7777", "876"     # probe numbers no sentence holds otherwise
_NUMBER = r"\d+(?:\.\d+)?"


def _pattern(sentence: str, probes: dict[str, str]) -> re.Pattern:
    pattern = re.escape(sentence)
    for name, probe in probes.items():
        escaped = re.escape(probe)
        if pattern.count(escaped) != 1:
            raise ValueError(f"why_busy's sentence {sentence!r} does not hold {probe} once")
        pattern = pattern.replace(escaped, f"(?P<{name}>{_NUMBER})")
    return re.compile(pattern)


@lru_cache(maxsize=1)
def busy_sentences() -> tuple[tuple[re.Pattern, str], ...]:
    """(the served sentence's pattern, the recording's words) for each sentence why_busy says."""
    loaded = SimpleNamespace(busy=True, load=float(_LOAD), cores=int(_CORES), spread=0.0)
    noisy = SimpleNamespace(busy=True, load=0.0, cores=int(_CORES), spread=int(_SPREAD) / 100)
    return (
        (_pattern(why_busy(loaded), {"load": _LOAD, "cores": _CORES}),
         "Recorded on a machine that was busy (load {load} on {cores} cores while timing), so these "
         "recorded figures are unreliable."),
        (_pattern(why_busy(noisy), {"spread": _SPREAD}),
         "Recorded on a machine that was busy (repeated runs of one call differed by {spread}% while "
         "timing), so these recorded figures are unreliable."),
    )


_THIS_MACHINE = re.compile(r"\b([Tt])his machine\b")


def as_recorded(text: str) -> str:
    """`text` (a page, a recording) with every busy-machine sentence said of the recording, and
    "this machine" said as the recording machine."""
    for pattern, words in busy_sentences():
        text = pattern.sub(lambda m, words=words: words.format(**m.groupdict()), text)
    return _THIS_MACHINE.sub(lambda m: ("T" if m.group(1) == "T" else "t") + "he recording machine", text)
