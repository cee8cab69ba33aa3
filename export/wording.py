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
probe numbers, in the page's language, and the numbers' places become the pattern's, so a changed
wording or translation is followed. The recording's words are messages of the catalogs; so are "this
machine" (every way the language's catalog says it, "|" between them) and "the recording machine".

    text = as_recorded(text)             # an English page
    text = as_recorded(text, "zh")       # a Chinese page: 本机实测 → 录制所用的机器实测
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from types import SimpleNamespace

from export.language import speaking
from lab.i18n import DEFAULT
from uikit.language import gettext as _, ngettext, number, percent
from uikit.verdicts import why_busy

_LOAD, _SPREAD = 98765.4, 8.76          # probe figures no sentence holds otherwise
_CORES = (1, 7777)                      # a core count in each form: one core, many cores
_NUMBER = r"\d+(?:[.,]\d+)?"
_SHARE = r"\d+(?:[.,]\d+)?(?:\s|\xa0|\u202f|\\u00a0|\\u202f)?%"


def escaped(text: str) -> str:
    """`text` as a page's JSON writes it (Bokeh's document, a recording's patches: every character
    beyond ASCII as a \\u escape); the same text where it is ASCII."""
    return json.dumps(text)[1:-1]


def _pattern(sentence: str, probes: dict[str, tuple[str, str]], form=lambda s: s) -> re.Pattern:
    """The pattern of `sentence` written in `form`, each probe's place (it must hold each once) a group
    that matches what the probe's place may hold."""
    marks = {}
    for name, (probe, matches) in probes.items():
        if sentence.count(probe) != 1:
            raise ValueError(f"why_busy's sentence {sentence!r} does not hold {probe} once")
        marks[name] = f"@@{name}@@"
        sentence = sentence.replace(probe, marks[name])
    pattern = re.escape(form(sentence))
    for name, (_probe, matches) in probes.items():
        pattern = pattern.replace(re.escape(marks[name]), f"(?P<{name}>{matches})")
    return re.compile(pattern)


def _written(said: str, probes: dict[str, tuple[str, str]], words: str) -> list[tuple[re.Pattern, object]]:
    """(pattern, replacement) of a served sentence and the recording's words, as the text writes them
    and as its JSON does (`escaped`)."""
    found = []
    for form in (lambda s: s, escaped):
        if found and form(said) == said:
            break                         # ASCII: one form
        found.append((_pattern(said, probes, form), lambda m, w=form(words): w.format(**m.groupdict())))
    return found


def _loaded(cores: int) -> str:
    return ngettext("Recorded on a machine that was busy (load {load} on {cores} core while timing), so these "
                    "recorded figures are unreliable.",
                    "Recorded on a machine that was busy (load {load} on {cores} cores while timing), so these "
                    "recorded figures are unreliable.", cores)


@lru_cache(maxsize=None)
def busy_sentences(language: str = DEFAULT) -> tuple[tuple[re.Pattern, object], ...]:
    """(the served sentence's pattern, the recording's words for what it matched) for each sentence
    why_busy says in `language`, as a page's text and as its JSON write it."""
    found = []
    with speaking(language):
        load = number(_LOAD, 1)
        for cores in _CORES:
            said = why_busy(SimpleNamespace(busy=True, load=_LOAD, cores=cores, spread=0.0))
            found += _written(said, {"load": (load, _NUMBER), "cores": (str(cores), r"\d+")}, _loaded(cores))
        said = why_busy(SimpleNamespace(busy=True, load=0.0, cores=_CORES[1], spread=_SPREAD))
        words = _("Recorded on a machine that was busy (repeated runs of one call differed by {share} while "
                  "timing), so these recorded figures are unreliable.")
        found += _written(said, {"share": (percent(_SPREAD), _SHARE)}, words)
    return tuple(found)


@lru_cache(maxsize=None)
def machine_words(language: str = DEFAULT) -> tuple[tuple[re.Pattern, str], ...]:
    """(pattern, replacement) for each way `language` writes "this machine" (capitalized or not, as
    text and as JSON): its words for "the recording machine", capitalized alike."""
    with speaking(language):
        # Translators: every way your catalog writes "this machine" (the machine
        # a served page runs on), separated by "|"; the export says each of them
        # as "the recording machine".
        this = _("this machine")
        # Translators: the machine that recorded the offline copy, said in
        # place of "this machine" (above).
        recording = _("the recording machine")
    found = {}
    for way in sorted({w.strip() for w in this.split("|") if w.strip()}, key=len, reverse=True):
        for first in dict.fromkeys((str.lower, str.upper)):
            said, words = first(way[:1]) + way[1:], first(recording[:1]) + recording[1:]
            for form in (lambda s: s, escaped):
                found[form(said)] = form(words)
    return tuple((re.compile(rf"(?<![A-Za-z]){re.escape(said)}(?![A-Za-z])"), words) for said, words in found.items())


def as_recorded(text: str, language: str = DEFAULT) -> str:
    """`text` (a page, a recording, in `language`) with every busy-machine sentence said of the
    recording, and "this machine" said as the recording machine."""
    for pattern, words in busy_sentences(language):
        text = pattern.sub(words, text)
    for pattern, words in machine_words(language):
        text = pattern.sub(words.replace("\\", "\\\\"), text)
    return text
