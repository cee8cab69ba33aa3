"""What pages say of a request: who guesses (the drafter switch's words and the badge's), and how
many a round (a draft length policy in words). The lab keeps the request's figures (lab.core.request,
lab.speed.request); the words are the pages', in the page's language (uikit.language).

>>> describe(Request((1,), drafter="model", policy="constant", gamma=4))
'the draft model, γ = 4 guesses a round'
"""
from __future__ import annotations

from lab.core.request import Request
from lab.i18n import N_
from uikit.language import gettext as _, percent

# English messages: shown through `_` (the badge, the preset bar and describe() translate them)
WHO = {"model": N_("the draft model"), "lookup": N_("copying from the text (prompt lookup)"),
       "hybrid": N_("copying from the text where it repeats, the draft model otherwise")}
CONTROL = {"model": N_("draft model"), "lookup": N_("copy from the text"), "hybrid": N_("both")}   # the switch's
SCHEDULE_WORDS = {"constant": N_("γ = {g} guesses a round"), "heuristic": N_("γ adapting from {g} (+2 after a round "
                  "that kept every guess, −1 after a miss)"), "auto": N_("as many guesses (up to {g}) as their recent "
                  "hit rate pays for")}


def describe(request: Request) -> str:
    """Who guesses and how many, in words: "the draft model, γ = 4 guesses a round"."""
    return _("{who}, {how_many}").format(who=_(WHO[request.drafter]),
                                         how_many=policy_words(request.policy, request.gamma))


def policy_words(policy: str, gamma: int) -> str:
    """A draft length policy text ("constant", "heuristic+confidence:0.4", …) in words."""
    parts = policy.split("+")
    schedule = parts[0].split(":")[0]
    words = (_(SCHEDULE_WORDS[schedule]) if schedule in SCHEDULE_WORDS else parts[0]).format(g=gamma)
    for extra in parts[1:]:
        name, __, value = extra.partition(":")
        if name == "confidence":
            words += _(", stopping after a guess the draft gives under {share}").format(
                share=percent(float(value or 0.4)))
    return words
