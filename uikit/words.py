"""What pages say of a request: who guesses (the drafter switch's words and the badge's), and how
many a round (a draft length policy in words). The lab keeps the request's figures (lab.core.request,
lab.speed.request); the words are the pages'.

>>> describe(Request((1,), drafter="model", policy="constant", gamma=4))
'the draft model, γ = 4 guesses a round'
"""
from __future__ import annotations

from lab.core.request import Request

WHO = {"model": "the draft model", "lookup": "copying from the text (prompt lookup)",
       "hybrid": "copying from the text where it repeats, the draft model otherwise"}
CONTROL = {"model": "draft model", "lookup": "copy from the text", "hybrid": "both"}   # the switch's words
SCHEDULE_WORDS = {"constant": "γ = {g} guesses a round", "heuristic": "γ adapting from {g} (+2 after a round "
                  "that kept every guess, −1 after a miss)", "auto": "as many guesses (up to {g}) as their recent "
                  "hit rate pays for"}


def describe(request: Request) -> str:
    """Who guesses and how many, in words: "the draft model, γ = 4 guesses a round"."""
    return f"{WHO[request.drafter]}, {policy_words(request.policy, request.gamma)}"


def policy_words(policy: str, gamma: int) -> str:
    """A draft length policy text ("constant", "heuristic+confidence:0.4", …) in words."""
    parts = policy.split("+")
    words = SCHEDULE_WORDS.get(parts[0].split(":")[0], parts[0]).format(g=gamma)
    for extra in parts[1:]:
        name, _, value = extra.partition(":")
        if name == "confidence":
            words += f", stopping after a guess the draft gives under {float(value or 0.4):.0%}"
    return words
