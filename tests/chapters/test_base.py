"""What every chapter does: model work that fails is one sentence, and the page stays usable."""
from tests.helpers import until


def test_a_failing_model_call_is_one_sentence_and_the_page_stays_usable(state):
    import asyncio

    from chapters.base import Chapter

    def boom():
        raise RuntimeError("out of memory")

    ch = Chapter(state)
    assert asyncio.run(ch.run_model(boom)) is None
    assert "could not finish" in ch.problem.object and not ch.busy.active


def test_a_refused_request_is_one_sentence_and_its_button_waits_before_it_comes_back(state, monkeypatch):
    import asyncio
    import time

    import panel as pn

    from chapters import base
    from serving.service import QueueFull
    from uikit.panels import button_disabled

    async def refuse(*args, **kwargs):
        raise QueueFull("Still working on your earlier requests; wait for them to finish, then try again.")
    monkeypatch.setattr(state.service, "run_as", refuse)
    monkeypatch.setattr(base, "REFUSED_PAUSE", 0.3)
    ch, button, seen = base.Chapter(state), pn.widgets.Button(label="Use my models"), []

    async def press():
        with button_disabled(button):
            start = time.perf_counter()
            task = asyncio.ensure_future(ch.run_model(abs, -1))
            await until(lambda: ch.problem.object, message="the refusal's sentence")
            seen.append((button.disabled, task.done(), ch.problem.object))   # said at once, still disabled
            return await task, time.perf_counter() - start
    got, seconds = asyncio.run(press())
    assert got is None and seconds >= 0.3 and not button.disabled
    assert seen[0][0] and not seen[0][1] and "Still working on your earlier requests" in seen[0][2]


def _bar_chapter(presets: bool):
    """A small chapter with (or without) the preset bar, redoing one generation on every change."""
    from chapters.base import Chapter

    class Generation(Chapter):
        number, slug = 99, "generation"

        async def load(self):
            # the page's request names its variant: the student's on a page with the preset bar
            self.result = await self.run_model(self.state.service.generation,
                                               self.request(self.prompt_ids(), max_new_tokens=8))

        async def on_settings_changed(self, changed):
            await self.load()
    Generation.presets = presets
    return Generation


def _settle(chapter, before):
    """Wait (on the event loop) until the chapter has redone its result."""
    return until(lambda: chapter.result is not before, message="the chapter to redo its result")


def test_a_chapter_with_presets_shows_the_bar_and_a_click_redoes_its_result(make_chapter, state):
    import asyncio

    from lab.experiments.presets import preset_by_key

    ch = make_chapter(_bar_chapter(True), state, load=True)
    assert ch.preset_bar is not None and ch.__panel__().objects[1] is ch.preset_bar.__panel__()   # body's top
    first = ch.result

    async def click(widget_change):
        before = ch.result
        widget_change()
        await _settle(ch, before)
    asyncio.run(click(lambda: setattr(ch.preset_bar.buttons["json"], "clicks", 1)))
    assert state.prompt == preset_by_key("json").prompt
    assert ch.result is not first and ch.result.prompt_ids == state.prompt_ids()
    aligned = ch.result
    asyncio.run(click(lambda: setattr(ch.preset_bar.variant_switch, "value", "random")))
    assert state.variant == "random" and ch.result is not aligned
    random = [d for r in ch.result.rounds for d in r.guesses]          # the uniform draft's guesses
    assert random and state.service.pair_for("random").draft_label == "random draft (uniform)"
    assert [d.token_id for d in random] != [d.token_id for r in aligned.rounds for d in r.guesses]


def test_a_chapter_without_presets_has_no_bar_and_keeps_the_pairs_own_draft(make_chapter, state):
    import asyncio

    ch = make_chapter(_bar_chapter(False), state, load=True)
    assert ch.preset_bar is None and ch.variant == "aligned"
    state.variant = "random"                  # chosen on another page: this page shows no switch
    asyncio.run(ch.load())
    assert {d.token_id for r in ch.result.rounds for d in r.guesses} != {0}


def test_a_press_waiting_for_busy_models_says_so_beside_its_button_and_then_runs(state, monkeypatch):
    """Issue 49.7: a press while the models warm up (or serve the class) is heard: after WAITING
    seconds the working line beside the button says it runs when they are free, and it does."""
    import asyncio
    import threading

    from chapters import base
    monkeypatch.setattr(base, "WAITING", 0.05)
    free = threading.Event()

    def slow():
        free.wait(30)
        return "done"
    ch = base.Chapter(state)

    async def press():
        task = asyncio.ensure_future(ch.run_model(slow, message="The big model writes the words…"))
        await until(lambda: "no need to press again" in ch.busy.message, message="the waiting line")
        said = ch.busy.message
        free.set()
        return said, await task
    said, result = asyncio.run(press())
    assert said.startswith("The big model writes the words — waiting for the models") and result == "done"
    assert not ch.busy.active and ch.busy.said == ""


def test_a_refused_or_failed_press_is_said_beside_its_button(state, monkeypatch):
    """The tour shows a chapter's buttons and working line, not its problem line: a press the models
    refuse or fail is said on the working line too, until the next press."""
    import asyncio

    from chapters import base
    from serving.service import QueueFull

    async def refuse(*args, **kwargs):
        raise QueueFull("You are asking faster than the models can answer; wait a moment, then try again.")
    monkeypatch.setattr(base, "REFUSED_PAUSE", 0.01)
    ch = base.Chapter(state)
    real = state.service.run_as
    monkeypatch.setattr(state.service, "run_as", refuse)
    assert asyncio.run(ch.run_model(abs, -1)) is None
    assert "asking faster" in ch.busy.said and "asking faster" in ch.busy._pane.object
    monkeypatch.setattr(state.service, "run_as", real)
    assert asyncio.run(ch.run_model(abs, -1)) == 1 and ch.busy.said == ""      # the next press clears it

    def boom():
        raise RuntimeError("out of memory")
    assert asyncio.run(ch.run_model(boom)) is None and "could not finish" in ch.busy.said


def test_a_press_the_page_drops_is_said_on_its_working_line(state, monkeypatch):
    """A chapter on a served page says a dropped press (its button off: a press during warm-up) beside
    its buttons and on its problem line, never silently (issue 49.7)."""
    import panel as pn
    from bokeh.document import Document
    from panel.io.state import set_curdoc

    from chapters import base
    from intercept.clicks import DISABLED, on_click, say_dropped_on

    monkeypatch.setattr(base, "served", lambda: True)    # the page as served (its panes built in a plain document)
    page, ran = Document(), []
    with set_curdoc(page):
        ch = base.Chapter(state)
        button = pn.widgets.Button(label="Next round", disabled=True)
        on_click(button, ran.append)
        button.clicks += 1
    assert ran == [] and ch.busy.said == DISABLED and "did nothing" in ch.problem.object
    button.disabled = False
    with set_curdoc(page):
        button.clicks += 1                               # a press that runs: the sentence goes
    assert len(ran) == 1 and ch.busy.said == "" and ch.problem.object == ""
    say_dropped_on(page, None)
