"""The pseudo-locale `en-XA`, made from the template: every message accented, about 40% longer and
wrapped in brackets, its placeholders, markup and entities kept as they are.

A page in `en-XA` (`?lang=en-XA`) shows at a glance a sentence that escaped the catalog (plain
ASCII words), one glued from pieces (several bracketed runs in one sentence) and a layout that
breaks with longer text (German and Spanish run about 30–40% longer than English).

    pseudo("Press **Write** and watch {n} words.")
    # '[Þŕéšš **Ŵŕîţé** åñð ŵåţçĥ {n} ŵöŕðš. ~~~~ ~~~~ ~~~~]'
"""
from __future__ import annotations

import math
import re

from babel.messages.catalog import Catalog

PLAIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
ACCENTED = "åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ"      # each letter of PLAIN, accented
# Kept as written: {placeholders} (and {{ }}), <tags>, &entities;, %(name)s.
KEEP = re.compile(r"(\{\{|\}\}|\{[^{}]*\}|<[^>]*>|&[a-zA-Z#0-9]+;|%\(\w+\)[sd])")
LONGER = 0.4          # the pseudo-locale's growth: 40% more visible characters
PAD = "~~~~"


def accented(word: str) -> str:
    """`word` with each letter accented, no longer and not bracketed: a value the pseudo-locale puts
    into a message (a count spelled in words)."""
    return word.translate(str.maketrans(PLAIN, ACCENTED))


def pseudo(message: str) -> str:
    """`message` accented, 40% longer and bracketed; "" stays "" (the catalog's header)."""
    if not message:
        return message
    pieces = KEEP.split(message)
    visible = sum(len(p) for i, p in enumerate(pieces) if i % 2 == 0)
    text = "".join(accented(p) if i % 2 == 0 else p for i, p in enumerate(pieces))
    pads = math.ceil(LONGER * visible / (len(PAD) + 1))
    return "[" + text + "".join(" " + PAD for _ in range(pads)) + "]"


def pseudo_catalog(template: Catalog) -> Catalog:
    """The pseudo-locale's catalog: each message of `template` in its pseudo form (both plural forms)."""
    catalog = Catalog(locale="en", domain=template.domain, fuzzy=False)
    for message in template:
        if not message.id:
            continue
        if message.pluralizable:
            catalog.add(message.id, tuple(pseudo(form) for form in message.id), context=message.context)
        else:
            catalog.add(message.id, pseudo(message.id), context=message.context)
    return catalog
