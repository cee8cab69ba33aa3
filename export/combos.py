"""Every choice a page's preset bar offers, recorded before any deeper press: the opening's prompt
and each preset, × each draft variant (aligned, weak, random: those the pair has) × each drafter
(who guesses: the draft model, copying from the text, both; on the pages that offer the switch).

A choice's state is reached a press at a time on one build: from the opening, each prompt's state
(the opening itself, or the preset pressed there), and from it every variant × drafter in an order
where each choice differs from the one before in one switch (`walk`), so each is one press from the
one before. Then, in every choice's state, the chapter's own action the guided tour presses (its
lecture's press: chapter 1's Write, chapter 4's Next round, chapter 10's "Use my models"; every one of
its controls where the tour presses none, as chapter 12's "Measure all six") is pressed once: the
choice's first result. All of it
lies outside the page's budget (export/explore.py spends MAX_NODES and MAX_SECONDS on deeper
states afterwards), so every choice's first result is in every export.

Each choice's states share a context (`context`): the player (assets/export.js) reaches another
choice from any of them through `jumps[context][key]`, the choice's state (the page reopened there),
and the chosen preset's own button leads nowhere (null: the served page does nothing).

A page that measures a newly chosen choice itself once the student has measured (chapters 12 and 13:
their `on_settings_changed` measures again when results are on screen) is recognised by pressing
it: one press of the bar in a choice's first result, recorded (`remeasures`). Where it leads to the
chosen choice's first result, every state from a first result on is `measured` and the player takes
`remeasured[context][key]`, the chosen choice's first result, instead of its unmeasured state.

    walk([Axis([None, "p1", "p2"], 0, True), Axis(["p9:0", "p9:1"], 0)])
    # [((0, 1), (0, 0), "p9:1"), ((1, 0), (0, 0), "p1"), ((1, 1), (1, 0), "p9:1"),
    #  ((2, 0), (0, 0), "p2"), ((2, 1), (2, 0), "p9:1")]
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from lab.experiments.presets import preset_for_prompt
from export.answers import model_ids
from export.tourline import chapter_actions
from uikit.presets import PresetBar


@dataclass(frozen=True)
class Axis:
    """One switch of the bar: the press key choosing each of its values (None: no press chooses it,
    the opening's own prompt), which one the opening has, and whether it is the row of preset buttons."""
    keys: list[str | None]
    start: int
    buttons: bool = False


def axes(built, mapped) -> list[Axis]:
    """The bar's switches on the live build (ids mapped into the exported build's): the prompt (the
    preset buttons), the draft variant and, where shown, the drafter."""
    bar = getattr(built.chapter, "preset_bar", None)
    if not isinstance(bar, PresetBar):
        return []

    def key(widget) -> str | None:
        ids = model_ids(widget, built.doc)
        return mapped(ids[0]) if ids else None

    chosen = preset_for_prompt(built.state.prompt)
    presets = [key(b) for b in bar.buttons.values()]
    found = [Axis(presets, list(bar.buttons).index(chosen.key), True) if chosen else Axis([None, *presets], 0, True)]
    for switch in (bar.variant_switch, bar.drafter_switch):
        values = list(switch.options.values()) if isinstance(switch.options, dict) else list(switch.options)
        if switch.visible and len(values) > 1 and key(switch) is not None:
            found.append(Axis([f"{key(switch)}:{i}" for i in range(len(values))], values.index(switch.value)))
    return found


def count(found: list[Axis]) -> int:
    """How many choices the bar offers (1 on a page without it)."""
    return math.prod(len(a.keys) for a in found)


def _snake(orders: list[list[int]]):
    """Every tuple of the orders' values, each differing from the one before in one place."""
    if not orders:
        yield ()
        return
    tails = list(_snake(orders[1:]))
    for i, value in enumerate(orders[0]):
        for tail in (tails if i % 2 == 0 else reversed(tails)):
            yield (value, *tail)


def walk(found: list[Axis]) -> list[tuple[tuple, tuple, str]]:
    """(choice, the choice it is one press from, that press's key) for every choice but the
    opening's, each after the one it is pressed from: a prompt from the opening, then its variants ×
    drafters one switch at a time."""
    if not found:
        return []
    start = tuple(a.start for a in found)
    orders = [[a.start] + [i for i in range(len(a.keys)) if i != a.start] for a in found]
    steps = []
    for prompt in orders[0]:
        first = (prompt, *start[1:])
        if prompt != start[0]:
            steps.append((first, start, found[0].keys[prompt]))
        previous = first
        for tail in list(_snake(orders[1:]))[1:]:
            choice = (prompt, *tail)
            place = next(i for i in range(len(choice)) if choice[i] != previous[i])
            steps.append((choice, previous, found[place].keys[choice[place]]))
            previous = choice
    return steps


def context(choice: tuple, start: tuple) -> str:
    """The context of a choice's states ("" the opening's, as every page's opening state)."""
    return "" if choice == start else ".".join(str(i) for i in choice)


def jumps(found: list[Axis], nodes: dict[tuple, int]) -> dict[str, dict[str, int | None]]:
    """context → press key of the bar → the state of the choice it makes (None: it changes nothing)."""
    start = tuple(a.start for a in found)
    out = {}
    for choice in nodes:
        here = out.setdefault(context(choice, start), {})
        for place, axis in enumerate(found):
            for value, key in enumerate(axis.keys):
                other = (*choice[:place], value, *choice[place + 1:])
                if key is None or (other == choice and not axis.buttons):
                    continue
                if other == choice:
                    here[key] = None
                elif other in nodes:
                    here[key] = nodes[other]
    return out


class Choices:
    """Records every choice's state and first result on an Explorer (explore.py); `run()` returns
    the choices' states."""

    def __init__(self, explorer):
        self.x = explorer

    async def run(self) -> dict[tuple, int]:
        x = self.x
        await x.go_to(0)
        found = axes(x.live, x.mapped)
        if not found:
            return {}
        start = tuple(a.start for a in found)
        nodes = {start: 0}
        x.choice_nodes.add(0)
        for choice, previous, key in walk(found):
            if previous not in nodes:
                continue
            made = len(x.graph.nodes)
            target = await x.press_in(nodes[previous], key, always=True)
            if target is None:
                continue
            nodes[choice] = target
            x.choice_nodes.add(target)
            if target >= made:
                x.graph.nodes[target].context = context(choice, start)
        # its first result: the press the tour makes, where it makes one (as the page's language labels it)
        actions = chapter_actions(x.slug, x.language)
        results = {}                          # choice → the state its first result leads to
        for choice, node in nodes.items():
            keys = await x.first_results(node, lambda widget: getattr(widget, "label", None) in actions)
            reached = {x.graph.nodes[node].edges[k][1] for k in keys if k in x.graph.nodes[node].edges} - {node}
            if len(reached) == 1:
                results[choice] = reached.pop()
        made = jumps(found, nodes)
        for name, keys in made.items():
            x.jumps.setdefault(name, {}).update(keys)
        if await self.remeasures(found, nodes, results):
            for result in results.values():
                x.graph.nodes[result].measured = True
            x.graph.remeasured = after_measuring(made, nodes, results)
        return nodes

    async def remeasures(self, found: list[Axis], nodes: dict[tuple, int], results: dict[tuple, int]) -> bool:
        """Whether the page measures a newly chosen choice itself once the student has measured: the
        bar's press from one choice's first result to another choice, pressed and recorded, leads to
        that choice's first result."""
        x, start = self.x, tuple(a.start for a in found)
        for choice, previous, key in walk(found):
            if choice in results and previous in results:
                made = len(x.graph.nodes)
                target = await x.press_in(results[previous], key, always=True, side=True)
                if target is not None and target >= made:
                    x.graph.nodes[target].context = context(choice, start)
                return target == results[choice]
        return False


def after_measuring(made: dict[str, dict[str, int | None]], nodes: dict[tuple, int],
                    results: dict[tuple, int]) -> dict[str, dict[str, int | None]]:
    """context → press key of the bar → the first result of the choice it makes (None: it changes
    nothing), for a page that measures a newly chosen choice once the student has measured."""
    chosen = {n: choice for choice, n in nodes.items()}
    return {name: {key: None if target is None else results[chosen[target]]
                   for key, target in keys.items() if target is None or chosen.get(target) in results}
            for name, keys in made.items()}
