"""Layers recorded in every state of a page and laid over it in the browser: predict answers and the
tour's projector scale.

A student answers a predict card, or a projector reports its scale, at any point of a page: after
three rounds of chapter 4, with a slider moved. So these are not states of the page's graph
(export/explore.py) but layers over each state: for each recorded state, each predict card
and each answer it takes (every choice, every whole number in a number card's bounds), the patch
that pressing that answer makes there (`in`, the card's own callback: the verdict for that state,
the buttons locked, the preset bar's reading) and the patch that takes the answer back (`out`). The
player (assets/export.js) moves between states with the answers lifted (`out`), applies the
recorded press, and lays them again (`in` of the new state): what a student sees is exactly what
the served page shows for the same presses in the same order.

Taking an answer back is done on the card's public state (`committed`, the student's `answers`),
and checked: the page must be back where it was, model for model (record.fingerprint), else that
state keeps no layer for the card and the player says the answer was not recorded there.

A tour step's projector scale (shell/tour/fit.py: how much larger than 1280×720 the screen is) is
recorded the same way from the step's opening, for each scale the browser may report. The free room
the browser then reports is shared among the step's figures in the browser (assets/export.js,
`fitSizes`, tested against StageSizer.fit), from the plan `fit_plan` writes: the figures, their sizes
at scale 1, and how many are stacked.

    layers = Layers(graph)
    layers.record(live, tape, mapped, node, digest)     # in the state `node`, the live build there
"""
from __future__ import annotations

import json

from panel.io.state import set_curdoc

from export.record import fingerprint
from shell.frame.standalone import bokeh_models
from shell.tour.fit import SMALLEST, figure_sizes, stacked
from uikit.predict import PredictCard, answer_problem

SCALES = [round(1 + i * 0.05, 2) for i in range(1, 21)]   # what assets/tour.js reports, above 1


def page_cards(built) -> list[PredictCard]:
    """The predict cards the page shows: its chapter's, or the tour step's chapter's."""
    chapters = [built.chapter] if built.chapter is not None else []
    if built.tour is not None and built.tour_chapter is not None:
        chapters.append(built.tour_chapter)
    cards = [getattr(c, "predict", None) for c in chapters]
    return [c for c in cards if isinstance(c, PredictCard) and _on_page(c, built)]


def model_ids(widget, doc) -> list[str]:
    """The ids of `widget`'s Bokeh models in `doc` (shell.frame.standalone.bokeh_models)."""
    return [model.id for model in bokeh_models(widget, doc)]


def _on_page(card: PredictCard, built) -> bool:
    return bool(model_ids(card.buttons[0] if card.buttons else card.lock_button, built.doc))


def card_widgets(cards: list[PredictCard]) -> set[int]:
    """The ids of the cards' widgets (answered through the layers, never pressed as the page's own)."""
    out = set()
    for card in cards:
        out |= {id(w) for w in (*card.buttons, card.number_box, card.lock_button) if w is not None}
    return out


def answers(card: PredictCard) -> list:
    """Every answer the card takes: its choices, or each whole number in its bounds."""
    return list(card.choices) if card.kind == "choice" else list(range(card.bounds[0], card.bounds[1] + 1))


def card_spec(card: PredictCard, doc, mapped) -> dict:
    """What the player needs to know of a card: which models answer it, and with what (a choice's
    button by the choice itself, the English poll key its layers are recorded under, whatever
    language its label is in)."""
    if card.kind == "choice":
        return {"kind": "choice", "buttons": {mapped(model_ids(b, doc)[0]): choice
                                              for b, choice in zip(card.buttons, card.choices)}}
    lo, hi = card.bounds
    return {"kind": "number", "lock": mapped(model_ids(card.lock_button, doc)[0]),
            "box": mapped(model_ids(card.number_box, doc)[0]), "bounds": [lo, hi],
            "problem": answer_problem("number", None, card.bounds, lo - 1)}


def press_answer(card: PredictCard, value) -> None:
    """Answer as the student does: press the choice, or type the number and press "Lock in"."""
    if card.kind == "choice":
        card.buttons[card.choices.index(value)].clicks += 1
    else:
        card.number_box.value = value
        card.lock_button.clicks += 1


def take_back(card: PredictCard, answers_before: dict) -> None:
    """The card as it was before the answer: nothing committed, the student's answers as they were."""
    card.param.update(committed=None, correct=None)
    if card.number_box is not None:
        card.number_box.value = None
    card.state.answers = answers_before


class Layers:
    """Records the layers of a page's states into its graph (`Graph.patches`, shared and deduplicated)."""

    def __init__(self, graph):
        self.graph = graph
        self._index: dict[str, int] = {}
        self.skipped = 0          # (state, card) pairs whose answer could not be taken back exactly

    def patch(self, patch: dict) -> int:
        """The index of `patch` in the graph's patches (one copy of each)."""
        key = json.dumps(patch, sort_keys=True, separators=(",", ":"))
        if key not in self._index:
            self._index[key] = len(self.graph.patches)
            self.graph.patches.append(patch)
        return self._index[key]

    def use_cards(self, built, mapped) -> None:
        """The page's cards (from its first build), as the graph tells the player."""
        self.graph.cards = [card_spec(c, built.doc, mapped) for c in page_cards(built)]

    def record(self, live, tape, mapped, node, digest: str) -> bool:
        """Each card's answers in the state the live build is in (`node`, whose fingerprint is
        `digest`); returns False when the build was left elsewhere (it must be built again)."""
        node.answers = {}
        for i, card in enumerate(page_cards(live)):
            if card.committed is not None or card.locked:
                continue
            before, layer = dict(card.state.answers), {}
            with set_curdoc(live.doc):
                for value in answers(card):
                    press_answer(card, value)
                    laid = tape.take()
                    take_back(card, before)
                    layer[str(value)] = [self.patch(laid), self.patch(tape.take())]
            if fingerprint(live.doc, mapped) != digest or _makes_models(layer, self.graph.patches):
                self.skipped += 1
                return False
            node.answers[str(i)] = layer
        return True

    def record_projector(self, live, tape, mapped, digest: str) -> bool:
        """A tour step's patches for each projector scale, from its opening state, and its fit plan."""
        deck = live.tour.deck
        self.graph.fit = fit_plan(live.tour, mapped)
        scales = {}
        with set_curdoc(live.doc):
            for scale in SCALES:
                deck.scale = scale
                laid = tape.take()
                deck.scale = 1.0
                scales[str(round(scale * 100))] = [self.patch(laid), self.patch(tape.take())]
        self.graph.scales = scales
        return fingerprint(live.doc, mapped) == digest


def _makes_models(layer: dict, patches: list[dict]) -> bool:
    """Whether a layer's patches define new models (a layer only changes models the state has)."""
    return any('"type":"object"' in json.dumps(patches[j], separators=(",", ":"))
               for pair in layer.values() for j in pair)


def fit_plan(tour, mapped) -> dict:
    """What the browser needs to share a step's free room among its figures as StageSizer.fit does:
    each figure's id, its height and width at scale 1 where they grow (None where not), whether its
    width is fixed, and how many figures are stacked."""
    figures = []
    for fig in tour.sizer.figures():
        base = figure_sizes(fig)
        figures.append({"id": mapped(fig.id), "height": base.get((fig, "height")), "width": base.get((fig, "width")),
                        "fixed": bool(fig.width and fig.sizing_mode in (None, "fixed"))})
    return {"figures": figures, "stacked": stacked(tour.stage), "smallest": SMALLEST}
