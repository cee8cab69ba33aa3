"""Clicks through intercept.clicks: a disabled button's click runs nothing, too-fast clicks of one browser
are dropped while another browser's run, and no module registers a click any other way."""
import ast
import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import panel as pn
from bokeh.document import Document
from bokeh.events import ButtonClick
from panel.io.state import set_curdoc

from tests.helpers import ServedPage
from intercept.clicks import allow_clicks_when, on_click

REPO = Path(__file__).resolve().parents[2]


def crafted_click(button: pn.widgets.Button) -> None:
    """A click as the server receives it from a client, whatever the page shows: Bokeh's ButtonClick
    event on the button's model (a browser never sends one for a disabled button; a crafted client can),
    its document current while the event runs (not a served page, whatever an earlier test left)."""
    doc = Document()
    model = button.get_root(doc)
    doc.add_root(model)
    with set_curdoc(doc):
        doc.callbacks.trigger_event(ButtonClick(model))


def test_panel_runs_a_disabled_buttons_click_and_the_guard_does_not():
    button, plain, guarded = pn.widgets.Button(label="Run"), [], []
    button.on_click(plain.append)     # Panel's own registration, unguarded
    on_click(button, guarded.append)
    crafted_click(button)
    assert len(plain) == len(guarded) == 1
    button.disabled = True
    crafted_click(button)
    assert len(plain) == 2, "Panel now ignores a disabled button's click itself: intercept.clicks can drop that check"
    assert len(guarded) == 1
    button.disabled = False
    crafted_click(button)
    assert len(guarded) == 2


def test_an_async_callback_is_guarded_too():
    """The clicks come on a thread of their own, where no event loop runs (the browser tests'
    Playwright keeps one running on the main thread): there Panel runs an async callback to its end
    before the click returns."""
    button, ran = pn.widgets.Button(label="Ask"), []

    async def ask(event):
        await asyncio.sleep(0)
        ran.append(event.new)
    on_click(button, ask)

    def two_clicks():
        button.disabled = True
        crafted_click(button)
        button.disabled = False
        crafted_click(button)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(two_clicks).result(timeout=30)
    assert ran == [2]                 # the second click (clicks == 2) ran, the first did not


def test_clicks_past_the_allowance_of_a_page_are_dropped_and_other_pages_click_on():
    slow, fast, free = ServedPage(), ServedPage(), ServedPage()
    left = {slow: 3, fast: 1}

    def allowed(doc):
        left[doc] -= 1
        return left[doc] >= 0
    allow_clicks_when(slow, allowed)
    allow_clicks_when(fast, allowed)
    button, ran = pn.widgets.Button(label="Draw"), []
    on_click(button, lambda e: ran.append(pn.state.curdoc))
    for page in (fast, fast, slow, fast, slow, slow, slow, free):
        with set_curdoc(page):
            button.clicks += 1
    assert ran == [fast, slow, slow, slow, free]       # a page given no check may always click
    allow_clicks_when(fast, None)
    with set_curdoc(fast):
        button.clicks += 1
    assert ran[-1] is fast            # its check taken away: it clicks again


def clicks_registered(path: Path) -> tuple[list[int], list[int]]:
    """The lines of `path` that register a click: through a button's `.on_click(…)`, and through the
    guard's `on_click(button, …)`."""
    calls = [node for node in ast.walk(ast.parse(path.read_text(), str(path))) if isinstance(node, ast.Call)]
    return ([c.lineno for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "on_click"],
            [c.lineno for c in calls if isinstance(c.func, ast.Name) and c.func.id == "on_click"])


def test_no_module_registers_a_click_but_through_the_guard():
    guard = REPO / "intercept" / "clicks.py"
    modules = [REPO / "app.py", *(p for folder in ("shell", "chapters", "uikit", "intercept")
                                  for p in (REPO / folder).rglob("*.py"))]
    unguarded = [f"{p.relative_to(REPO)}:{line}" for p in modules if p != guard for line in clicks_registered(p)[0]]
    assert not unguarded, f"register these clicks with intercept.clicks.on_click(button, fn): {unguarded}"
    guarded = {p.relative_to(REPO).parts[0] for p in modules if clicks_registered(p)[1]}
    assert guarded == {"shell", "chapters", "uikit"}          # the scan reads the modules that have buttons
    assert clicks_registered(guard)[0]                        # the guard itself registers through Button.on_click



def test_a_dropped_click_says_one_sentence_to_its_student():
    """Never silent: a disabled button's click and a too-fast one each say their sentence, through
    the button's own `say`, else through the one its page registered."""
    from intercept.clicks import DISABLED, TOO_FAST, say_dropped_on
    said, ran = [], []
    button = pn.widgets.Button(label="Tick the clock", disabled=True)
    on_click(button, ran.append, say=said.append)
    crafted_click(button)
    assert ran == [] and said == [DISABLED]

    page, heard = ServedPage(), []
    say_dropped_on(page, heard.append)
    allow_clicks_when(page, lambda doc: False)          # this browser has clicked too fast
    other = pn.widgets.Button(label="Next round")
    on_click(other, ran.append)
    with set_curdoc(page):
        other.clicks += 1
    assert ran == [] and heard == [TOO_FAST]
    allow_clicks_when(page, None)
    with set_curdoc(page):
        other.clicks += 1
    assert len(ran) == 1 and heard == [TOO_FAST, ""]    # a click that runs clears the sentence
    with set_curdoc(page):
        other.clicks += 1
    assert len(ran) == 2 and heard == [TOO_FAST, ""]    # and then says nothing
    say_dropped_on(page, None)


def test_a_button_says_where_its_page_said_when_it_was_wired():
    """A tour step holds several chapters on one page, each registering its working line in turn: a
    button wired while chapter A was being built says its dropped click on A's line, not on the line of
    the chapter built last."""
    from intercept.clicks import DISABLED, say_dropped_on
    page, first, last = ServedPage(), [], []
    early = pn.widgets.Button(label="Draw", disabled=True)
    late = pn.widgets.Button(label="Step", disabled=True)
    with set_curdoc(page):
        say_dropped_on(page, first.append)
        on_click(early, lambda e: None)
        say_dropped_on(page, last.append)              # the next chapter of the tour is built
        on_click(late, lambda e: None)
        early.clicks += 1
        late.clicks += 1
    assert first == [DISABLED] and last == [DISABLED]
    say_dropped_on(page, None)


def test_a_pages_click_check_is_one_of_the_checks_its_session_registered():
    """The click check lives in the page's checks (intercept.checks), beside its message checks:
    setting one keeps the others, and a page without any clicks freely."""
    from intercept.checks import PageChecks, checks_of, register_page
    page, admit = ServedPage(), (lambda doc: True)
    register_page(page, PageChecks(admit=admit))
    allow_clicks_when(page, lambda doc: False)
    assert checks_of(page).admit is admit and checks_of(page).click(page) is False
    button, ran = pn.widgets.Button(label="Draw"), []
    on_click(button, ran.append)
    with set_curdoc(page):
        button.clicks += 1
    assert ran == []
    register_page(page, None)
    with set_curdoc(page):
        button.clicks += 1
    assert len(ran) == 1 and checks_of(page) == PageChecks()
