"""Every state a page's controls lead to, recorded by pressing them: the page's own callbacks run.

From the page as it opens (node 0), each control the page shows is pressed in turn, as a browser
would: a button's click (`clicks`), each other choice of a radio group (`value`). Each press runs
the chapter's own Python callback (model work through the page's ModelService: the served lab's
outcomes) and its document changes become one patch (export/record.py); a press the page
computes in the browser records only what its served press does beyond that (build.py). A press
that leads to a state seen before (same fingerprint: "Start again", a preset already shown) links
to it; a new state is explored in turn, until the page's budget is spent. First, outside the budget, every choice
the preset bar offers (preset × draft variant × drafter) is recorded with its first result
(export/combos.py); the page's player (assets/export.js) reaches a choice from any state of
another by reopening the page there. A predict card's answers are no state of their own: they are recorded in
every state as a layer over it (export/answers.py), so answering keeps the page as it is.
A tour step's page first presses the tour's own presses of its chapter's earlier steps (the lecture's
line, export/tourline.py), so the step follows the ones before it as the served tour does.

Each branch is recorded on a build of its own (`build_page` again, then the presses that lead to it):
builds of a page make the same models in the same order, so every patch names the exported build's ids.

    graph = await explore("guess-check-keep", service, export_frame)
    graph.nodes, graph.patches
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from functools import partial

import panel as pn
from panel.io.state import set_curdoc

from export.answers import Layers, card_widgets, model_ids, page_cards
from export.build import Built, build_page
from export.combos import Choices
from export.record import IdFrame, Tape, fingerprint
from export.tourline import computed_names, find_button, lecture_line, note_names
from lab.i18n import DEFAULT
from shell.tour.steps import TOUR
from uikit.presets import PresetBar

MAX_NODES = 30          # states recorded per page beyond the preset bar's choices' first results
MAX_SECONDS = 40.0      # time spent on them (the embedded pair's whole lab: bench/export.py)


@dataclass
class Node:
    path: list[str]                       # the presses from the opening state
    parent: int | None = None
    via: int | None = None                # the patch from the parent
    edges: dict[str, list[int]] = field(default_factory=dict)   # press key → [patch, node]
    context: str = ""                     # the side control pressed at the opening on the way here
    answers: dict = field(default_factory=dict)   # card → answer → [patch in, patch out] (answers.py)
    measured: bool = False                # a choice's first result or a state after it (combos.py)


@dataclass
class Graph:
    nodes: list[Node] = field(default_factory=list)
    patches: list[dict] = field(default_factory=list)

    jumps: dict[str, dict[str, int]] = field(default_factory=dict)   # context ("*": any) → key → node
    cards: list[dict] = field(default_factory=list)      # the page's predict cards (answers.card_spec)
    scales: dict[str, list[int]] = field(default_factory=dict)   # a tour step's: scale % → [in, out]
    fit: dict = field(default_factory=dict)              # a tour step's figures (answers.fit_plan)
    names: dict[str, str] = field(default_factory=dict)  # a tour step's: press key → its name (tourline.py)
    computed: dict[str, str] = field(default_factory=dict)   # a tour step's: press name → its browser code
    tour: dict = field(default_factory=dict)             # a tour step's: {"chapter": n, "step": s}
    remeasured: dict = field(default_factory=dict)       # context → bar key → a first result (combos.py)

    def to_json(self) -> dict:
        return {"nodes": [{"parent": n.parent, "via": n.via, "edges": n.edges, "context": n.context,
                           **({"answers": n.answers} if n.answers else {}),
                           **({"measured": True} if n.measured else {})} for n in self.nodes],
                "patches": self.patches, "jumps": self.jumps, "cards": self.cards, "scales": self.scales,
                **({"fit": self.fit} if self.fit else {}), **({"names": self.names} if self.tour else {}),
                **({"computed": self.computed} if self.computed else {}),
                **({"tour": self.tour} if self.tour else {}),
                **({"remeasured": self.remeasured} if self.remeasured else {})}


def side_controls(chapter) -> set[int]:
    """The ids of the widgets of the chapter's preset bar."""
    bar = getattr(chapter, "preset_bar", None)
    return {id(w) for w in bar.__panel__().select(pn.widgets.Widget)} if isinstance(bar, PresetBar) else set()


def controls(built: Built, mapped, at_opening: bool) -> dict[str, tuple]:
    """Press key → (widget, how, side) for every control the page shows now: `how` is "click" or a
    value; `side` for the preset bar's (offered at the opening state only). A predict card's are
    not among them (answers.py records them in every state). On a tour step, a press of its chapter
    the page computes in the browser without showing its button ("~label": chapter 6's Draw on
    step 21) is one too, so a press made on another step is followed through this one's states."""
    found = {}
    content = built.page.content
    side, answered = side_controls(built.chapter), card_widgets(page_cards(built))
    widgets = [w for w in content.select(pn.widgets.Widget) if id(w) not in answered]
    widgets.sort(key=lambda w: id(w) in side)        # the chapter's own controls first
    for widget in widgets:
        if not widget.visible or getattr(widget, "disabled", False) or (id(widget) in side and not at_opening):
            continue
        ids = model_ids(widget, built.doc)
        if not ids:
            continue
        key = mapped(ids[0])
        if isinstance(widget, pn.widgets.Button):
            found[key] = (widget, "click", id(widget) in side)
        elif isinstance(widget, pn.widgets.RadioButtonGroup):
            values = list(widget.options.values()) if isinstance(widget.options, dict) else list(widget.options)
            for i, value in enumerate(values):
                if value != widget.value:
                    found[f"{key}:{i}"] = (widget, value, id(widget) in side)
    for button in built.unshown:      # a tour step's presses its page runs without their button (build.py)
        if not button.disabled:
            found[f"~{button.label}"] = (button, "click", False)
    return found


SETTLE_SECONDS = 300.0   # the longest a press's model work may take


def repeating(task) -> bool:
    """A periodic callback's task (Panel's busy-state cleanup): it never ends by itself."""
    return "PeriodicCallback" in getattr(task.get_coro(), "__qualname__", "")


async def settle(before: set) -> None:
    """Wait for the tasks a press started (an async callback's model work), and those they start."""
    me, deadline = asyncio.current_task(), time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        # With a tornado IOLoop on this loop, Panel starts an async watcher's task on the loop's next turn
        await asyncio.sleep(0)
        pending = [t for t in asyncio.all_tasks() if t is not me and t not in before and not t.done()
                   and not repeating(t)]
        if not pending:
            return
        await asyncio.wait(pending, timeout=max(0.1, deadline - time.monotonic()))
    raise TimeoutError(f"a press did not finish within {SETTLE_SECONDS:.0f} s: {pending}")


async def press(built: Built, widget, how) -> None:
    """Press `widget` as a browser would and wait for what it started. On a preset the bar then
    measures who wins (uikit.presets; a served page measures it once the student may see it), so
    the recorded state and its answers' layers say it, never "Measuring who wins on it…"."""
    before = set(asyncio.all_tasks())
    with set_curdoc(built.doc):
        if how == "click" and id(widget) in (built.in_browser or {}):
            built.in_browser[id(widget)]()      # the browser computes the rest (build.computed_in_browser)
        elif how == "click":
            widget.clicks += 1
        else:
            widget.value = how
        await settle(before)
        bar = getattr(built.chapter, "preset_bar", None)
        if isinstance(bar, PresetBar):
            await bar.measure()


def spent(explorer) -> bool:
    """Whether `explorer` has spent its budget of states or seconds."""
    return (len(explorer.graph.nodes) - explorer.free >= explorer.max_nodes
            or time.monotonic() - explorer.started > explorer.max_seconds)


def lay(explorer, n: int, digest: str) -> None:
    """Record the answers' layers of state `n`, where `explorer`'s live build is now."""
    if not explorer.layers.record(explorer.live, explorer.tape, explorer.mapped, explorer.graph.nodes[n], digest):
        explorer.live_node = None      # not back where it was: the next press builds the page again


class Explorer:
    """One page's exploration (see the module's docstring)."""

    def __init__(self, slug: str, service, export_frame: IdFrame, tour_step: int | None = None,
                 max_nodes: int = MAX_NODES, max_seconds: float = MAX_SECONDS, tour_steps: int | None = None,
                 language: str = DEFAULT, menu: tuple[str, ...] = ()):
        self.slug, self.service, self.export_frame, self.tour_step = slug, service, export_frame, tour_step
        self.max_nodes, self.max_seconds, self.tour_steps = max_nodes, max_seconds, tour_steps   # tour: build_page's
        self.language, self.build = language, partial(build_page, slug, service, tour_step, tour_steps, language, menu)
        self.graph = Graph([Node([])])
        self.live, self.live_node, self.tape = None, None, None    # the build pressed now, its state, its Tape
        self.seen, self.visited, self.jumps = {}, set(), {}   # fingerprint → state; explored; context → key → state
        self.layers = Layers(self.graph)
        # combos.py: the states past the budget, the preset bar's choices' states, presses that changed nothing
        self.free, self.choice_nodes, self.idle = 0, set(), set()

    async def _fresh(self) -> None:
        if self.tape is not None:
            self.tape.close()
        self.live = await self.build()         # every build of the page the same
        self.mapped, self.live_node = self.live.frame.to(self.export_frame), 0
        self.tape = Tape(self.live.doc, self.mapped)

    async def go_to(self, n: int) -> None:
        if self.live_node == n:
            return
        await self._fresh()
        for key in self.graph.nodes[n].path:
            await press(self.live, *self._control(key))
        self.tape.take()
        self.live_node = n

    def _controls(self, at_opening: bool) -> dict[str, tuple]:
        """`controls` of the live build, each press's name noted on a tour step (tourline.py)."""
        return note_names(controls(self.live, self.mapped, at_opening), self.live, self.graph.names)

    def _control(self, key: str) -> tuple:
        """The widget and press of `key` in the live build ("~label": a lecture's line press)."""
        return (find_button(self.live, key[1:]), "click") if key.startswith("~") else self._controls(True)[key][:2]

    async def _line(self) -> int:
        """Press a tour step's lecture's line (tourline.py) from the opening, each press its own state."""
        self.graph.tour = {"chapter": TOUR[self.tour_step - 1]["chapter"], "step": self.tour_step}
        if self.tour_steps is not None and self.tour_steps < len(TOUR):   # a tour exported in part
            self.graph.tour.update(steps=self.tour_steps, of=len(TOUR))
        n = 0
        for label in lecture_line(self.tour_step, self.language):
            await self.go_to(n)
            widget = find_button(self.live, label)
            if widget is None or widget.disabled:
                break
            note_names({f"~{label}": (widget, "click", False)}, self.live, self.graph.names)
            await press(self.live, widget, "click")
            n = self._arrive(n, f"~{label}", apart=True)     # apart: the chapter behind a look-alike differs
        return n

    async def run(self) -> Graph:
        """Record the opening's layers (answers.py), a tour step's lecture's line (tourline.py) and
        every choice of the preset bar with its first result (combos.py); then, within the budget,
        explore depth first from the end of the line, from the opening and from each choice."""
        await self._fresh()
        digest = fingerprint(self.live.doc, self.mapped)
        self.seen[digest] = 0
        self.graph.computed = computed_names(self.live, self.mapped)
        self.layers.use_cards(self.live, self.mapped)
        lay(self, 0, digest)
        if self.live_node == 0 and self.live.tour is not None:
            self.layers.record_projector(self.live, self.tape, self.mapped, digest)
            self.live_node = None    # presses on a build of their own: sizing made models, ids moved on
        self.led: dict[tuple, list[int]] = {}    # (context, key) → the states it led to (from elsewhere)
        end = await self._line() if self.tour_step is not None else 0
        self.choices = await Choices(self).run()     # choice → its state (combos.py)
        self.free = len(self.graph.nodes) - 1    # the line's and the choices' states: outside the budget
        self.started = time.monotonic()
        for n in [end] * bool(end) + [0] + [n for n in self.choices.values() if n]:
            await self._visit(n)
        self.tape.close()
        self.graph.jumps = self.jumps
        return self.graph

    async def press_in(self, n: int, key: str, always: bool = False, side: bool = False) -> int | None:
        """Press `key` in state `n` (if it is there now) and record it; returns the state reached.
        `always`: even when the budget is spent (a choice of the preset bar and its first result);
        `side`: the preset bar's controls too, whatever the state (combos.py's one press from a result)."""
        if not always and spent(self):
            return None
        await self.go_to(n)
        found = self._controls(side or n in self.choice_nodes)
        if key not in found:
            return None
        await press(self.live, found[key][0], found[key][1])
        return self._arrive(n, key)

    async def _own_keys(self, n: int) -> list[str]:
        """The chapter's own controls shown in state `n` (the bar's and learned ones left out)."""
        await self.go_to(n)
        learned = self.jumps.setdefault(self.graph.nodes[n].context, {})
        return [k for k, (_, _, is_side) in self._controls(False).items() if not is_side and k not in learned]

    async def _step(self, n: int, key: str, always: bool = False) -> int | None:
        """The state the chapter's control `key` leads to from state `n` (recorded, or pressed now); one
        that led to one state from two others ("Start again") leads there from the context's every state."""
        if key in self.graph.nodes[n].edges:
            return self.graph.nodes[n].edges[key][1]
        target = await self.press_in(n, key, always)
        if target is None:
            return None
        context = self.graph.nodes[n].context
        if self.graph.nodes[target].parent == n and target != n:
            self.graph.nodes[target].context = context
            self.graph.nodes[target].measured |= self.graph.nodes[n].measured
        if target != n:
            led = self.led.setdefault((context, key), [])
            led.append(target)
            if len(led) >= 2 and len(set(led)) == 1:
                self.jumps.setdefault(context, {})[key] = target
        return target

    async def first_results(self, n: int, wanted=lambda widget: True) -> list[str]:
        """Press the chapter's own controls `wanted` in state `n` (all if none is) once, whatever the budget:
        first those that left another choice's state as it was ("Start again"), which keep the build there.
        Returns the keys pressed."""
        shown = await self._own_keys(n)
        keys = [k for k in shown if wanted(self._controls(False)[k][0])] or shown
        for key in sorted(keys, key=lambda k: k not in self.idle):
            if await self._step(n, key, always=True) == n:
                self.idle.add(key)
        return keys

    async def _visit(self, n: int) -> None:
        """Press each of the chapter's own controls in state `n`, then visit the states they led to:
        every control of a state is recorded before one press is followed further (a long line of
        ▶ Next round never leaves a page's other experiment unrecorded, as it left chapter 6's Draw 1000)."""
        if spent(self) or n in self.visited:
            return
        self.visited.add(n)
        targets = []
        for key in await self._own_keys(n):
            targets.append(await self._step(n, key))
        for target in targets:
            if target is not None and target not in self.visited:
                await self._visit(target)

    def _arrive(self, n: int, key: str, apart: bool = False) -> int:
        """Record the press `key` in state `n` that has just run; returns the state it led to (a new
        one when `apart`, even if it looks like one seen before)."""
        patch = self.tape.take()
        digest = fingerprint(self.live.doc, self.mapped)
        target = None if apart else self.seen.get(digest)
        fresh = target is None
        if fresh:
            target = len(self.graph.nodes)
            self.graph.nodes.append(Node(self.graph.nodes[n].path + [key], n, len(self.graph.patches)))
            self.seen.setdefault(digest, target)
        self.graph.nodes[n].edges[key] = [len(self.graph.patches), target]
        self.graph.patches.append(patch)
        self.live_node = target
        if fresh:
            lay(self, target, digest)
        return target
