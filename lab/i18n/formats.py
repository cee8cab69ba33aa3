"""Numbers and percentages as the page's language writes them (Babel's CLDR data): the decimal
sign, the grouping, the percent sign's place ("15 %" in Spanish, "15%" in Chinese and English);
English (and the pseudo-locale) as Python formats them.

    number("es", 1234.5, 1)    # '1234,5'
    percent("es", 0.15)        # '15 %'
"""
from __future__ import annotations

import re

from babel import Locale
from babel.numbers import format_decimal, format_percent, get_decimal_symbol, get_group_symbol

from lab.i18n.catalogs import DEFAULT, PSEUDO


def _locale(language: str) -> str:
    return DEFAULT if language == PSEUDO else language


def number(language: str, value: float, digits: int = 0, group: bool = False) -> str:
    """`value` with exactly `digits` decimals (grouped by thousands only when `group`). English is
    Python's own formatting (what the lab wrote before it had catalogs), to the last digit."""
    if _locale(language) == DEFAULT:
        return f"{value:{',' if group else ''}.{digits}f}"
    pattern = ("#,##0" if group else "0") + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=_locale(language))


def percent(language: str, fraction: float, digits: int = 0) -> str:
    """`fraction` as a percentage with `digits` decimals: 0.15 → "15%" ("15 %" in Spanish)."""
    if _locale(language) == DEFAULT:
        return f"{fraction:.{digits}%}"
    locale = Locale.parse(_locale(language))
    pattern = locale.percent_formats[None].pattern          # the language's own: "#,##0 %" in Spanish
    if digits:
        pattern = re.sub(r"0(?=[^0#]*$)", "0." + "0" * digits, pattern, count=1)
    return format_percent(fraction, format=pattern, locale=locale)


def number_format(language: str) -> dict:
    """How `number` writes in `language`, for browser code that writes the same (assets/analytic.js:
    analytic.number): {"python": True} where it is Python's own formatting (English), else the
    language's decimal sign and thousands separator (Babel rounds the shortest decimal of the value
    half to even, which the browser repeats)."""
    if _locale(language) == DEFAULT:
        return {"python": True}
    return {"python": False, "decimal": get_decimal_symbol(language), "group": get_group_symbol(language)}
