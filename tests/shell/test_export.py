"""The export records the served lab's own outcomes (export/): builds of a page are the same
model for model, a recorded press is the chapter's callback over the pair's ModelService, and the
numbers written for the default request are the service's."""
from __future__ import annotations

import asyncio
import base64
import html
import json
import re

import numpy as np
import pytest

from chapters.ch04_guess_check_keep import GuessCheckKeepChapter
from chapters.ch11_timeline import MAX_NEW_TOKENS as CH11_TOKENS
from export.build import build_page
from export.answers import model_ids
from export.explore import Explorer
from export.files import page_html
from export.record import fingerprint
from uikit.state import LabState


@pytest.fixture(scope="module")
def extension():
    import panel as pn
    pn.extension(inline=True)


def test_two_builds_of_a_page_are_the_same_models(tiny_service, extension):
    async def go():
        return await build_page("guess-check-keep", tiny_service), await build_page("guess-check-keep", tiny_service)
    a, b = asyncio.run(go())
    assert b.frame.start > a.frame.start
    assert fingerprint(b.doc, b.frame.to(a.frame)) == fingerprint(a.doc, lambda i: i)
    assert fingerprint(b.doc, lambda i: i) != fingerprint(a.doc, lambda i: i)     # the mapping matters


def explored(slug: str, service, max_nodes: int):
    """The page `slug` built as a session builds it, and the graph of states its controls reach."""
    async def go():
        built = await build_page(slug, service)
        return built, await Explorer(slug, service, built.frame, max_nodes=max_nodes, max_seconds=60).run()
    return asyncio.run(go())


def texts(patch: dict) -> str:
    return html.unescape(html.unescape(" ".join(str(e.get("new")) for e in patch["events"] if e.get("attr") == "text")))


def test_a_recorded_next_round_is_the_services_round(tiny_service, extension):
    built, graph = explored("guess-check-keep", tiny_service, max_nodes=3)
    next_key = next(k for k, (w, how, _) in _controls(built).items() if getattr(w, "label", "") == "▶ Next round")
    patch_index, target = graph.nodes[0].edges[next_key]
    shown = texts(graph.patches[patch_index])
    # the service's round 1 of a new student's request, as the served page's first click asks for it
    _, fn, args, kwargs = GuessCheckKeepChapter.warmup(LabState(tiny_service))[0]
    r, _ = fn(*args, **kwargs)
    n = len(r.emitted_ids)
    assert f">{n}</b><span>target call{'' if n == 1 else 's'}<" in shown     # standard decoding's count
    assert ">1</b><span>target call<" in shown                              # draft + verify: one round
    for text in r.emitted_texts:
        assert html.escape(text).strip() in shown or text.strip() in shown
    assert graph.nodes[target].path == [next_key]


def test_an_answer_is_a_layer_recorded_in_every_state(tiny_service, extension):
    """Chapter 4's card: in the opening state an answer is only said; after a recorded round (its
    result on screen) the same answer gets the card's verdict; taking it back restores the state."""
    built, graph = explored("guess-check-keep", tiny_service, max_nodes=3)
    wrong = "The draft’s: it wrote most of the tokens"
    buttons = built.chapter.predict.buttons
    assert graph.cards == [{"kind": "choice", "buttons": {model_ids(b, built.doc)[0]: b.label for b in buttons}}]
    assert all(wrong not in key for key in graph.nodes[0].edges)          # answers are no press of the graph
    next_key = next(k for k, (w, how, _) in _controls(built).items() if getattr(w, "label", "") == "▶ Next round")
    after_round = graph.nodes[0].edges[next_key][1]
    opening_in, opening_out = graph.nodes[0].answers["0"][wrong]
    round_in, _ = graph.nodes[after_round].answers["0"][wrong]
    assert f"You said <b>{wrong}</b>" in texts(graph.patches[opening_in])
    assert "✗ Not quite: the answer is" in texts(graph.patches[round_in])
    assert "Choose your answer before you look." in texts(graph.patches[opening_out])
    assert all(set(node.answers["0"]) == {b.label for b in buttons} for node in graph.nodes)


def test_a_number_card_has_a_layer_for_every_whole_number(tiny_service, extension):
    built, graph = explored("easy-words", tiny_service, max_nodes=2)
    card = built.chapter.predict
    assert graph.cards[0]["kind"] == "number" and graph.cards[0]["bounds"] == list(card.bounds)
    assert graph.cards[0]["problem"].startswith("Type a whole number from")
    layer = graph.nodes[0].answers["0"]
    assert set(layer) == {str(v) for v in range(card.bounds[0], card.bounds[1] + 1)}
    assert "You said <b>7</b>" in texts(graph.patches[layer["7"][0]])


def test_a_tour_step_opens_after_the_tours_presses_on_the_steps_before(tiny_service, extension):
    """Step 4 shows chapter 1's summary of the race the lecturer wrote on step 3 (the served tour
    keeps the chapter across steps): its recording starts with step 3's Write pressed, named as step
    3's own Write is, so the player follows the lecturer's press from one step's page to the next."""
    async def go():
        step3 = await build_page("", tiny_service, 3)
        graph3 = await Explorer("", tiny_service, step3.frame, 3, max_nodes=2, max_seconds=60).run()
        step4 = await build_page("", tiny_service, 4)
        graph4 = await Explorer("", tiny_service, step4.frame, 4, max_nodes=2, max_seconds=60).run()
        return step3, graph3, step4, graph4
    step3, graph3, step4, graph4 = asyncio.run(go())
    write = next(k for k, (w, how, _) in _controls(step3).items() if getattr(w, "label", "") == "✎ Write")
    assert graph3.names[write] == graph4.names["~✎ Write"] == "write_button"
    assert graph4.tour == {"chapter": 1, "step": 4} and graph4.to_json()["names"] == graph4.names
    patch, after = graph4.nodes[0].edges["~✎ Write"]
    assert "The small model finished in" in texts(graph4.patches[patch])
    assert "The small model finished in" not in page_html(step4.doc, "step 4")    # the step opens fresh
    assert graph4.nodes[after].parent == 0 and graph4.nodes[after].path == ["~✎ Write"]


def test_progress_paces_pages_and_tour_steps_apart():
    """The time left: the chapter pages' pace for the pages left, tour steps (a smaller budget) at
    their share of it until one is done, then at their own pace."""
    import io
    from export.site import Progress
    now, out = [0.0], io.StringIO()
    progress = Progress(3, 10, step_share=0.25, stream=out, clock=lambda: now[0])
    now[0] = 100.0
    progress.page("guess-check-keep", 12)
    assert progress.estimate() == 2 * 100 + 10 * 25
    assert out.getvalue().endswith("12 recorded states in 100 s; 100 s so far, about 8 min left\n")
    now[0] = 160.0
    progress.page("timeline", 5)
    now[0] = 163.0
    progress.page("tour step 1", 1, "step")
    assert progress.estimate() == 80 + 9 * 3
    assert out.getvalue().endswith("3/13 tour step 1: 1 recorded states in 3 s; 163 s so far, about 2 min left\n")


def test_a_press_waits_for_an_async_watcher_the_ioloop_starts(extension):
    """Once a tornado IOLoop runs on the event loop (a periodic callback made one), Panel starts an async
    watcher on the loop's next turn: the recorded press still waits for its work (as chapter 12's
    measuring again on a newly chosen draft variant, which an export recorded half done without it)."""
    import param
    from tornado.ioloop import IOLoop
    from export.explore import settle

    class Choice(param.Parameterized):
        value = param.Integer(0)

    async def go():
        IOLoop.current()                       # the IOLoop a periodic callback makes
        done, choice = [], Choice()

        async def measure(event):
            await asyncio.sleep(0.05)
            done.append(event.new)
        choice.param.watch(measure, "value")
        before = set(asyncio.all_tasks())
        choice.value = 1
        await settle(before)
        return done
    assert asyncio.run(go()) == [1]


def _controls(built):
    from export.explore import controls
    return controls(built, lambda i: i, True)


def decoded(column) -> list[float]:
    """A ColumnDataSource column as Bokeh serialized it: a list, or a typed array in base64."""
    if isinstance(column, list):
        return [float(v) for v in column]
    raw = base64.b64decode(column["array"]["data"])
    return np.frombuffer(raw, dtype=column["dtype"]).tolist()


def test_the_exported_timeline_is_the_services_outcome(tiny_service, extension):
    async def go():
        built = await build_page("timeline", tiny_service)
        state = LabState(tiny_service)
        request = state.request(state.prompt_ids(), variant="aligned", drafter="model", max_new_tokens=CH11_TOKENS)
        outcome = await tiny_service.run_as(None, tiny_service.outcome, request)
        return built, outcome
    built, outcome = asyncio.run(go())
    text = page_html(built.doc, "timeline")
    docs = json.loads(re.search(r'<script type="application/json" id="[^"]+">\s*(.*?)\s*</script>', text, re.S).group(1))
    sources = [m["attributes"]["data"] for m in _objects(docs) if m.get("name") == "ColumnDataSource"]
    rights = [decoded(dict(d["entries"])["right"]) for d in sources
              if isinstance(d, dict) and "right" in dict(d.get("entries", []))]
    assert [b for _, _, b, _ in outcome.timed.blocks] in rights


def _objects(obj):
    if isinstance(obj, dict):
        if obj.get("type") == "object":
            yield obj
        for v in obj.values():
            yield from _objects(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _objects(v)


def test_links_into_the_tour_open_its_frame_page(tmp_path):
    """A chapter's or the landing page's link into the tour opens tour.html at the step (the frame
    page that keeps fullscreen, export/deck.py); a step's own links open the step pages in it."""
    from export.deck import write_deck
    from export.files import relink
    assert relink('<a href="?tour=11">') == '<a href="tour.html#step=11">'
    assert relink('<a href="?tour=11">', tour_step=True) == '<a href="tour-11.html">'
    text = write_deck(tmp_path, 4).read_text()
    assert 'data-tour-steps="4"' in text and 'id="speclab-tour-frame"' in text
    assert 'src="static/export-wrapper.js"' in text and "http" not in text
    assert write_deck(tmp_path, 0) is None
