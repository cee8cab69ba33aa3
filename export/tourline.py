"""A tour step's page follows the steps before it, as the served tour does.

The served tour keeps one session's chapter objects across its steps (shell/tour/items.py): what
the lecturer pressed on step 12 (▶ Next round, twice) is still on screen in step 13. In the export
each step is a page of its own, recorded from its chapter's opening state (export/explore.py).
So each step's recording starts with the presses the tour itself asks for on the chapter's earlier
steps (each step's `action`, `presses` times: the lecture's line), pressed on the chapter's object
whether or not the step shows the button, each press a state of its own; then the step's own
controls are explored from where the line ends, and from the opening.

Every press is named the same on every step's page: by the chapter's attribute that holds the
widget (its label where none does), with the value chosen for a radio group. The player
(assets/export-tour.js) keeps the names of what was pressed on a chapter's steps for the browser tab's
session and, on each step's page, follows them through that page's recording from its opening. A
press the page's recording does not hold where it comes (a lecturer's own press off the tour's
line, beyond the page's budget) is passed over, and the page says so in one sentence. A press the
page computes in the browser (chapter 6's draws: `computed_names`) is run again by its code, in
the order the presses were made, whether or not the step shows its button.

The tour names each press by its English label (shell/tour/steps.py `action`, a message of the
catalogs); a page in another language finds the button by that label in its language
(`i18n.translate`), as its chapter writes it.

    lecture_line(13)             # ['▶ Next round', '▶ Next round']
    lecture_line(13, "es")       # ['▶ Siguiente ronda', '▶ Siguiente ronda']
    find_button(built, "✎ Write")
"""
from __future__ import annotations

import panel as pn

from chapters import registry
from lab import i18n
from shell.tour.steps import TOUR, first_step


def press_names(chapter) -> dict[int, str]:
    """id(widget) → the name of the chapter's attribute that holds it."""
    if chapter is None:
        return {}
    return {id(v): k for k, v in vars(chapter).items() if isinstance(v, pn.widgets.Widget)}


def press_name(widget, how, attrs: dict[int, str]) -> str:
    """The name of a press the same on every page: the widget's attribute (else its label), and for a
    radio group the value chosen."""
    base = attrs.get(id(widget)) or getattr(widget, "label", "") or widget.name
    return base if how == "click" else f"{base}={how}"


def note_names(found: dict[str, tuple], built, names: dict[str, str]) -> dict[str, tuple]:
    """`found` (press key → (widget, how, side)) as it is, each press's name noted in `names` on a
    tour step's build."""
    if built.tour is not None:
        attrs = press_names(built.tour_chapter)
        for key, (widget, how, _) in found.items():
            names.setdefault(key, press_name(widget, how, attrs))
    return found


def computed_names(built, mapped) -> dict[str, str]:
    """A tour step's presses its page computes in the browser (build.computed_in_browser): each
    press's name → the id of its code, which the player runs for that press when it follows the
    chapter's presses through the page (the code leaves the recorded state as it is, so a press
    the recording lacks is no longer missed)."""
    if built.tour is None:
        return {}
    attrs = press_names(built.tour_chapter)
    return {press_name(button, "click", attrs): mapped(code.id) for button, code in built.codes.values()}


def lecture_line(step: int, language: str = i18n.DEFAULT) -> list[str]:
    """The labels of the buttons the tour presses on the earlier steps of `step`'s chapter, in order,
    as a page in `language` shows them."""
    number = TOUR[step - 1]["chapter"]
    if not number:
        return []
    line = []
    for spec in TOUR[first_step(number) - 1:step - 1]:
        if spec.get("action"):
            line += [i18n.translate(language, spec["action"])] * spec.get("presses", 1)
    return line


def chapter_actions(slug: str, language: str = i18n.DEFAULT) -> set[str]:
    """The labels of the buttons the tour presses on page `slug`'s chapter (its lecture's own presses:
    "✎ Write", "▶ Next round", "Use my models"; none for a chapter the tour presses nothing on), as a
    page in `language` shows them."""
    page = registry.page_by_slug(slug)
    number = page.number if page is not None else None
    return {i18n.translate(language, s["action"]) for s in TOUR
            if number and s["chapter"] == number and s.get("action")}


def find_button(built, label: str):
    """The tour step's chapter's button with this label, shown on the step or not (None if none)."""
    chapter = built.tour_chapter
    if chapter is None:
        return None
    buttons = [v for v in vars(chapter).values() if isinstance(v, pn.widgets.Button)]
    buttons += built.tour.items.body(chapter_number(built)).select(pn.widgets.Button)
    return next((b for b in buttons if b.label == label), None)


def chapter_number(built) -> int:
    return TOUR[built.tour.deck.step - 1]["chapter"]
