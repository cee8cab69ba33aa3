"""The one place for the lab's colours and the non-colour cues that go with them.

Every state a token or bar can be in has a colour, an icon and a label, so colour is never the only
cue. Colours are chosen for WCAG AA contrast of white text on them (≥ 4.5:1) and are distinct
under the common colour-vision deficiencies (blue/orange rather than red/green). The labels (also
what a screen reader says of a chip) are English messages, read in the page's language by `label`.
"""
from lab.i18n import N_
from uikit.language import gettext as _

TARGET = "#1f4e9e"      # the big model: deep blue
DRAFT = "#b35900"       # the small model: burnt orange
RESIDUAL = "#6a3d9a"    # draft too shy = residual (purple)
OVERLAP = "#2b7a4b"     # both agree: min(p, q) (green)
EAGER = "#b3261e"       # draft too eager: q − p where q > p (red)
MUTED = "#5f6368"       # dropped / not checked
INK = "#1b1b1f"
PAPER = "#ffffff"

# state → (colour, icon, label). Chips show the icon and an underline style as second cues.
TOKEN_STATES = {
    "kept":      (OVERLAP, "✓", N_("draft token kept")),
    "fixed":     (RESIDUAL, "✎", N_("the target's fix")),
    "bonus":     (TARGET, "★", N_("bonus token from the target")),
    "rejected":  (EAGER, "✗", N_("rejected draft token")),
    "dropped":   (MUTED, "–", N_("dropped (its context was wrong)")),
    "easy":      (OVERLAP, "✓", N_("easy: the small model's first guess is the same word")),
    "hard":      (EAGER, "✗", N_("hard: it would have guessed a different word")),
    "target":    (TARGET, "●", N_("written by the target")),
    "draft":     (DRAFT, "◆", N_("written by the draft")),
    "unlikely":  (EAGER, "⚠", N_("a word the big model would pick less than 15% of the time here")),
    "prompt":    (MUTED, "", N_("the prompt")),
}

# Marks that are not tokens (chapter 1's and chapter 4's lanes): a call of each model.
TOKEN_STATES.update({
    "target_call": (TARGET, "■", N_("one target (big-model) call")),
    "draft_call":  (DRAFT, "▪", N_("one cheap draft (small-model) call")),
})

# The second cue besides the icon: how a chip's text is underlined (CSS text-decoration).
UNDERLINE = {
    "kept": "underline solid",
    "fixed": "underline double",
    "bonus": "underline dotted",
    "rejected": "line-through",
    "dropped": "line-through",
    "easy": "none",
    "hard": "underline wavy",
    "target": "none",
    "draft": "none",
    "unlikely": "underline wavy",
    "prompt": "none",
    "target_call": "none",
    "draft_call": "none",
}


def colour(state: str) -> str:
    return TOKEN_STATES[state][0]


def icon(state: str) -> str:
    return TOKEN_STATES[state][1]


def label(state: str) -> str:
    """The state's label in the page's language."""
    return _(TOKEN_STATES[state][2])
