"""The lab in the students' language: gettext catalogs read with Babel, locale-aware numbers.

Every sentence a person reads is an English message id, translated by the catalog of the page's
language (lab/i18n/locales/LANG/LC_MESSAGES/speclab.po). Nothing here knows about pages or sessions:
each function takes the language it speaks; the page's language (one per session, never one per
process) is kept by the page that asks (uikit.language).

    from lab import i18n
    i18n.translate("es", "Big model")                          # 'Modelo grande'
    i18n.translate_plural("es", "{n} word", "{n} words", 3)     # the catalog's plural rule
    i18n.number("es", 1234.5, 1), i18n.percent("es", 0.15)     # '1234,5', '15 %'
    i18n.negotiate("es-CO,es;q=0.9,en;q=0.5")                   # 'es'

Pages mark their messages with `_("…")`, `ngettext(…)` (uikit.language, in the page's language)
or `N_("…")` (translated where shown). The catalogs are compiled in memory from the .po text at first
use (lab.i18n.catalogs): no compiled
file is kept in git or on disk, so none can go stale. `en-XA`, the pseudo-locale, is made from the
template (lab.i18n.pseudo). `python -m lab i18n` extracts the template and updates the catalogs
(lab.i18n.command).
"""
from __future__ import annotations

from functools import cache

from lab.i18n.catalogs import DEFAULT, PSEUDO, known, languages, negotiate, shipped, translations
from lab.i18n.formats import number, number_format, percent

__all__ = ("DEFAULT", "PSEUDO", "N_", "Said", "known", "languages", "negotiate", "number", "number_format", "percent",
           "plural_rule", "plural_samples", "shipped", "translate", "translate_plural", "translations")


def N_(message: str) -> str:
    """Mark `message` for the catalog without translating it here (a class attribute, a constant):
    it is translated where it is shown."""
    return message


class Said(str):
    """A sentence made in a process that speaks no language (a loader's stage, a store's fault): the
    English sentence itself (the command line, the log, `str`), keeping its catalog message and named
    values, so each page shows it in its own language (`in_language`; values that are `Said` too are
    translated with it). Runs of spaces collapse, so an empty value leaves no gap.

        Said(N_("loading {target} and {draft}"), target="SmolLM2-135M", draft="the draft")
    """

    message: str
    values: dict

    def __new__(cls, message: str, **values):
        said = super().__new__(cls, " ".join(message.format(**values).split()) if values else message)
        said.message, said.values = message, values
        return said

    def in_language(self, language: str) -> str:
        text = translate(language, self.message)
        if not self.values:
            return text
        values = {k: v.in_language(language) if isinstance(v, Said) else v for k, v in self.values.items()}
        return " ".join(text.format(**values).split())


def translate(language: str, message: str) -> str:
    """`message` in `language` (the English itself where the catalog has no translation)."""
    return translations(language).gettext(message)


def translate_plural(language: str, singular: str, plural: str, n: int) -> str:
    """The form of a message for the count `n`, by `language`'s plural rule."""
    return translations(language).ngettext(singular, plural, n)


# Counts that reach every form of a plural rule: CLDR's rules tell forms apart below 1000 and by
# whole millions (Spanish "1.000.000 de rondas")
_COUNTS = (*range(1001), 10**6, 2 * 10**6, 10**9)


def plural_rule(language: str) -> str:
    """`language`'s plural rule, the C expression of its catalog's Plural-Forms header ("(n != 1)"
    in English), for browser code that picks a count's form as gettext does (analytic.plural)."""
    forms = translations(language).info().get("plural-forms", "")
    rule = next((part.strip()[len("plural="):] for part in forms.split(";") if part.strip().startswith("plural=")),
                "")
    return rule or "(n != 1)"


@cache
def plural_samples(language: str) -> tuple[int, ...]:
    """One count for each form of `language`'s plural rule, in the rule's order: a plural message's
    `translate_plural` at each is every form of it (for browser code, which picks one by `plural_rule`)."""
    translation = translations(language)
    pick = getattr(translation, "plural", lambda n: int(n != 1))
    found: dict[int, int] = {}
    for n in _COUNTS:
        found.setdefault(pick(n), n)
    return tuple(found[i] for i in sorted(found))
