"""The page's language: every page (a Panel session) speaks one, kept on its own document, so two
students on one server read the lab in two languages; the process has none.

    from uikit.language import gettext as _, ngettext, number, percent, say
    _("Big model")                                  # in the language of the page built or clicked
    say(store.problem)                              # a sentence made outside the page (lab.i18n.Said)
    ngettext("{n} word", "{n} words", n).format(n=n)   # by the language's plural rule
    percent(0.15), number(2.345, 1)                 # '15 %' and '2,3' on a Spanish page
    browser_language()                              # the same number format and plural rule, for browser code

The frame chooses a page's language once, when it is built (shell.frame.language), and keeps it on
the page's Bokeh document (`use_language`); every callback of the page runs with its document as
Panel's current one, so what a click writes is in the page's language too. Outside a page (a test,
the command line) the language is English. A chapter's metadata reads in the page's language on
its page and in English on its class (`Translated`), which the navigation, the registry and the
tests read.
"""
from __future__ import annotations

import panel as pn

from lab import i18n

KEY = "speclab_language"    # the document's template variable that holds the page's language


def page_language(doc=None) -> str:
    """The language of `doc` (default: Panel's current document, the page being built or clicked)."""
    doc = doc if doc is not None else pn.state.curdoc
    return (doc.template_variables.get(KEY) if doc is not None else None) or i18n.DEFAULT


def use_language(language: str, doc=None) -> None:
    """Make `language` (a code lab.i18n.known returns) the language of `doc` (default: the current one)."""
    doc = doc if doc is not None else pn.state.curdoc
    doc.template_variables[KEY] = language


def gettext(message: str) -> str:
    """`message` in the page's language (imported as `_`, the name the catalog's extraction reads)."""
    return i18n.translate(page_language(), message)


def say(sentence: str) -> str:
    """A sentence made outside the page (`lab.i18n.Said`: a store's fault, a loader's stage) or a
    marked message (`N_`), in the page's language."""
    if isinstance(sentence, i18n.Said):
        return sentence.in_language(page_language())
    return gettext(sentence)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count `n`, by the page's language's plural rule."""
    return i18n.translate_plural(page_language(), singular, plural, n)


def number(value: float, digits: int = 0, group: bool = False) -> str:
    """`value` with `digits` decimals, as the page's language writes it."""
    return i18n.number(page_language(), value, digits, group)


def percent(fraction: float, digits: int = 0) -> str:
    """`fraction` as a percentage, as the page's language writes it."""
    return i18n.percent(page_language(), fraction, digits)


def browser_language() -> dict:
    """How the page's language writes numbers and picks a count's form, for a page's browser code
    (assets/analytic.js: `analytic.number(x, digits, language.format)`, `analytic.plural(language.plural)`),
    so what it writes reads as what Python writes: {"format": …, "plural": the rule}."""
    language = page_language()
    return {"format": i18n.number_format(language), "plural": i18n.plural_rule(language)}


def plural_samples() -> tuple[int, ...]:
    """One count per form of the page's language's plural rule, in the rule's order: a message's
    `ngettext` at each gives the browser every form of it (`analytic.plural` picks one by the count)."""
    return i18n.plural_samples(page_language())


class Translated:
    """A class attribute that is an English message on its class (the registry, the navigation and
    tests read it there) and the page's language on an instance; set on an instance, it holds the new
    English and still reads translated.

        class DilemmaChapter(Chapter):
            title = Translated("Good is slow. Fast is sloppy.")
        DilemmaChapter.title          # 'Good is slow. Fast is sloppy.'
        chapter.title                 # '好的慢，快的糙。' on a Chinese page
    """

    def __init__(self, message: str):
        self.message = message
        self.name = ""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None) -> str:
        if obj is None:
            return self.message
        return gettext(obj.__dict__.get(self.name, self.message))

    def __set__(self, obj, value: str) -> None:
        obj.__dict__[self.name] = value
