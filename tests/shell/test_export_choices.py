"""Every choice a page's preset bar offers (its own prompt and each preset × each draft variant × each
drafter) is recorded with its first result, whatever the page's budget: chapter 4's first round and
chapter 10's "Use my models" in every choice, each the served page's own for that choice, and the
player can reach every choice from every other (export/combos.py)."""
from __future__ import annotations

import asyncio
import html
import itertools

import pytest

from lab.experiments.presets import PRESETS
from export.answers import model_ids
from export.build import build_page
from export.combos import Axis, axes, context, count, walk
from export.explore import press
from tests.helpers import explored


def offered(bar) -> int:
    """How many choices the served page's bar offers: prompts × variants × drafters shown."""
    drafters = len(bar.drafter_switch.options) if bar.drafter_switch.visible else 1
    return (1 + len(PRESETS)) * len(bar.variant_switch.options) * drafters


def along(graph, n: int):
    """The recorded events that lead from the opening to state n, in order."""
    patches = []
    while n:
        patches.append(graph.patches[graph.nodes[n].via])
        n = graph.nodes[n].parent
    return [e for patch in reversed(patches) for e in patch["events"]]


def shown(built, graph, n: int) -> tuple:
    """The bar's choice as state n shows it: (the preset lit, the variant's index, the drafter's)."""
    bar = built.chapter.preset_bar
    ids = {model_ids(b, built.doc)[0]: i + 1 for i, b in enumerate(bar.buttons.values())}
    variant, drafter = (model_ids(s, built.doc)[0] for s in (bar.variant_switch, bar.drafter_switch))
    lit, active = 0, {variant: 0, drafter: 0}
    for e in along(graph, n):
        model = e.get("model", {}).get("id")
        if e.get("attr") == "button_type" and model in ids:
            lit = ids[model] if e["new"] == "primary" else (0 if lit == ids[model] else lit)
        elif e.get("attr") == "active" and model in active:
            active[model] = e["new"]
    return lit, active[variant], active[drafter]


def texts(patch: dict) -> str:
    return html.unescape(html.unescape(" ".join(str(e.get("new")) for e in patch["events"] if e.get("attr") == "text")))


async def served(slug: str, service, choice: tuple, found: list[Axis], button: str, pane: str) -> str:
    """A served page of its own, the bar's `choice` made there (its preset clicked, its switches set)
    and the chapter's `button` pressed: the text of the chapter's `pane` then."""
    built = await build_page(slug, service)
    bar, chapter = built.chapter.preset_bar, built.chapter
    if choice[0]:
        await press(built, list(bar.buttons.values())[choice[0] - 1], "click")
    for switch, i in zip((bar.variant_switch, bar.drafter_switch), choice[1:]):
        await press(built, switch, list(switch.options.values())[i])
    await press(built, getattr(chapter, button), "click")
    return getattr(chapter, pane).object


@pytest.mark.parametrize("slug, button, pane", [("guess-check-keep", "next_button", "last_round"),
                                                ("breakeven", "use_models", "live")])
def test_every_choice_is_recorded_with_the_served_pages_first_result(tiny_service, extension, slug, button, pane):
    built, explorer = explored(slug, tiny_service)
    graph, bar = explorer.graph, built.chapter.preset_bar
    found = axes(built, lambda i: i)
    assert [len(a.keys) for a in found] == [1 + len(PRESETS), len(bar.variant_switch.options),
                                            len(bar.drafter_switch.options)]
    choices = list(itertools.product(*(range(len(a.keys)) for a in found)))
    assert count(found) == offered(bar) == len(choices) == len(explorer.choices) >= 30
    key = model_ids(getattr(built.chapter, button), built.doc)[0]
    start = tuple(a.start for a in found)
    for choice in choices:
        n = explorer.choices[choice]
        assert shown(built, graph, n) == choice
        assert graph.nodes[n].context == context(choice, start)
        patch, result = graph.nodes[n].edges[key]                  # its first result, recorded
        assert graph.nodes[result].context == context(choice, start)
        expected = asyncio.run(served(slug, tiny_service, choice, found, button, pane))
        assert expected and html.unescape(expected) in texts(graph.patches[patch]), choice
        # every other choice is one press away: a recorded press, or the page reopened there
        jumps = graph.jumps[context(choice, start)]
        for place, axis in enumerate(found):
            for value, k in enumerate(axis.keys):
                other = (*choice[:place], value, *choice[place + 1:])
                if k is None or (other == choice and not axis.buttons):
                    continue
                assert jumps[k] == (None if other == choice else explorer.choices[other])
    assert len(graph.nodes) - explorer.free <= 1        # beyond the choices, the budget's one state


def test_the_walk_makes_each_choice_one_press_from_one_made_before():
    found = [Axis([None, "a", "b"], 0, True), Axis(["v:0", "v:1", "v:2"], 1), Axis(["d:0", "d:1"], 0)]
    steps = walk(found)
    made = {(0, 1, 0)}
    for choice, previous, key in steps:
        assert previous in made and choice not in made
        differ = [i for i in range(3) if choice[i] != previous[i]]
        assert len(differ) == 1 and found[differ[0]].keys[choice[differ[0]]] == key
        made.add(choice)
    assert len(made) == count(found) == 18
