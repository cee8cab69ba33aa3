"""What the language tests read in a browser: a page's visible text (Bokeh's shadow roots included,
parts named by class left out), a figure's words, and the English words left in a text."""
from __future__ import annotations

import re

from lab import i18n
from lab.i18n.catalogs import TEMPLATE, po_path, read_catalog
from lab.pairs.tiny import tiny_pair
from tests.ui.helpers import act

# The page's visible text, inside Bokeh's shadow roots, without the parts named by class (a name
# ending in "-" is a prefix): model output (token chips, and a clickable strip's chip buttons) and
# the menu (each language named in its own). A key's cap (<kbd>Esc</kbd>) is named as keyboards print
# it; <code> is code or the text the models read; `tok` marks a token inside a sentence or a table,
# `var` a variable of chapter 9's listing and its value.
PAGE_TEXT = """(skip) => { const out = [];
  const skipped = (n) => skip.some(c => c.endsWith('-') ? [...n.classList].some(k => k.startsWith(c))
                                                       : n.classList.contains(c));
  const walk = (n) => {
    if (n.nodeType === 1 && (skipped(n) || ['STYLE', 'SCRIPT', 'KBD', 'CODE', 'svg'].includes(n.nodeName)
                             || getComputedStyle(n).display === 'none'))
      return;
    if (n.shadowRoot) walk(n.shadowRoot);
    for (const c of n.childNodes) { if (c.nodeType === 3) out.push(c.textContent); else if (c.nodeType === 1) walk(c); }
  };
  walk(document.body); return out.join(' ').replace(/\\s+/g, ' '); }"""
SKIPPED = ["chips", "chip", "chip-", "tok", "var", "languages"]
# The words of a figure: its categories, axis titles and labels drawn on it.
FIGURE_TEXT = """() => { const out = [];
  for (const d of Bokeh.documents) for (const m of d.all_models) {
    if (m.type === 'Label') out.push(m.text);
    if ('axis_label' in m && m.axis_label) out.push(m.axis_label);
    if (m.type === 'FactorRange') out.push(...m.factors);
  }
  return out.join(' | '); }"""
SUMMARY = ("The small model finished in {small}, the big model in {big} ({ratio}× the small model’s time; both make "
           "one call per word: {per_big} vs {per_small} a call, as this pair’s cost profile times them for chapters "
           "3, 10 and 11).")
LANGUAGES = ("zh", "es", i18n.PSEUDO)
SIZES = {"1280": {"width": 1280, "height": 720}, "1920": {"width": 1920, "height": 1080}}


MATH = {"min", "max"}      # functions a formula names in every language: min(1, p/q)


def vocabulary(texts) -> set[str]:
    return {w.lower() for text in texts for w in re.findall(r"[A-Za-z]{3,}", text)}


def english_words(text: str, language: str) -> list[str]:
    """The English words in `text`, proper names (the lab's, the models') and Roman numerals left out.
    In Spanish, a word of the lab's English messages that Spanish does not use itself."""
    pair = tiny_pair()
    for name in ("Speculative Lab", "KV Cache Lab", "GPU", "JSON", "SmolLM2", "top-k", "top-p", pair.target_label,
                 pair.draft_label, pair.dtype):
        text = text.replace(name, " ")
    words = [w for w in re.findall(r"[A-Za-z]{2,}", text) if not re.fullmatch(r"[IVX]+", w) and w not in MATH]
    if language != "es":
        return [w for w in words if w != pair.device]
    english = vocabulary(m.id if isinstance(m.id, str) else " ".join(m.id) for m in read_catalog(TEMPLATE) if m.id)
    spanish = vocabulary(m.string if isinstance(m.string, str) else " ".join(m.string)
                         for m in read_catalog(po_path("es"), "es") if m.id)
    return [w for w in words if w.lower() in english - spanish]


def said(language: str, message: str) -> str:
    """The words of `message` in `language` up to its first placeholder."""
    return i18n.translate(language, message).split("{")[0].strip()


def labelled(page, hook: str, language: str, english: str):
    """The page's `act-<hook>` button (tests.ui.helpers.act), once its label reads `english` in `language`."""
    button = act(page, hook).first
    button.wait_for()
    label = button.inner_text().strip()
    assert label == i18n.translate(language, english), f"{hook}: {label!r} is not {english!r} in {language}"
    return button
