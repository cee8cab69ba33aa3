"""Numbers and percentages as the page's language writes them (Babel's CLDR data): the decimal
sign, the grouping, the percent sign's place ("15 %" in Spanish, "15%" in Chinese and English);
English (and the pseudo-locale) as Python formats them.

    number("es", 1234.5, 1)    # '1234,5'
    percent("es", 0.15)        # '15 %'
"""
from __future__ import annotations

import re

from babel import Locale
from babel.numbers import format_decimal, format_percent

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
