"""What every chapter page is: metadata, a predict-and-check question, a body, a takeaway.

Subclasses set the class attributes and build their body in `body()`; the shell (app.py) and the
guided tour read the metadata. Widgets a tour step talks about are attributes of the chapter, so the
tour shows the same components as the chapter page.
"""
from __future__ import annotations

import panel as pn
import param

from chapters.state import LabState


class Chapter(pn.viewable.Viewer):
    number: int = 0
    slug: str = ""          # URL path, e.g. "dilemma"
    part: str = ""          # "I" | "II" | "III"
    kicker: str = ""        # e.g. "The dilemma"
    title: str = ""         # the headline, e.g. "Good is slow. Fast is sloppy."
    intro: str = ""         # one short paragraph under the headline (markdown)
    takeaway: str = ""      # one sentence

    state = param.ClassSelector(class_=LabState)

    def __init__(self, state: LabState, **params):
        super().__init__(state=state, **params)
