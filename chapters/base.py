"""What every chapter page is: metadata, a predict-and-check question, a body, a takeaway.

Subclasses set the class attributes and build their body in `body()`; the shell (app.py) and the
guided tour read the metadata. Widgets a tour step talks about are attributes of the chapter, so the
tour shows the same components as the chapter page.

    class DilemmaChapter(Chapter):
        number, slug, part = 1, "dilemma", "I"
        def make_predict(self):               # optional: the "Pause & predict" card
            return PredictCard(self.state, 1, "…?", choices=[...], answer="…")
        def body(self):                       # built once per session
            return pn.Column(self.write_button, self.busy, self.figure)

`__panel__` lays out: header (number, kicker, title, intro) · predict card · body · takeaway; a
chapter with `presets = True` shows the preset bar (uikit.presets: preset prompts and the aligned /
weak / random draft variant switch; with `drafters = True` also the drafter switch, who guesses) at
the top of its body.
A press the page drops (intercept.clicks: its button off, or too fast) is said (`say_dropped`).
Model work goes through `await self.run_model(fn, *args)`: off the event loop, with the "working…"
line shown, and a PromptError shown as one sentence instead of raised. A service request that takes
a `variant` (serving.service) gets the student's draft variant (`self.variant`) unless the call names one.
The working line, the waiting and failure sentences and a dropped press's are in the page's language
(uikit.language); a `message` passed to `run_model` is an English message marked for the catalog, or
already translated.
"""
from __future__ import annotations

import asyncio
import html
import inspect
import logging

import panel as pn
import param

from lab.prompts import PromptError
from serving.service import QueueFull
from intercept.clicks import DISABLED, TOO_FAST, say_dropped_on
from lab.i18n import N_
from uikit.language import gettext as _
from uikit.figures import finish_figures
from intercept.pacing import served
from uikit.panels import Busy, takeaway_box
from uikit.predict import PredictCard, said_in_page
from uikit.presets import PresetBar
from uikit.state import SETTINGS, LabState
from uikit.styles import BOX_CSS, HEADER_CSS, sheet

log = logging.getLogger(__name__)
REFUSED_PAUSE = 2.0   # seconds a refused request keeps its button disabled, so a retry can succeed
WAITING = 1.5         # seconds before a press still waiting for the models says why
# intercept.clicks' sentences for a dropped press, marked here for the catalog (tests/i18n checks
# they are the same words)
DROPPED = (N_("That press came while its button was off (its last press still running, or the page not ready yet), "
              "so it did nothing; press again once the button is on."),
           N_("That press came faster than this browser's share of the class allows, so it did nothing; wait a "
              "second and press again."))


def say_dropped(chapter, sentence: str) -> None:
    """A press `chapter`'s page dropped (intercept.clicks: its button off, or too fast), never silent: said
    beside its buttons on the working line (the tour shows it) and on its problem line."""
    if sentence or chapter.busy.said in (_(DISABLED), _(TOO_FAST)):      # "": a later press ran, clear it
        chapter.busy.say(said_in_page(sentence))
        chapter.show_problem(said_in_page(sentence))


def _takes_variant(fn) -> bool:
    """Whether a service request has a `variant` parameter (the student's draft variant,
    lab.pairs.variants). Not cached: pages may pass a fresh closure each time, and a cache would keep
    them all alive."""
    try:
        return "variant" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class Chapter(pn.viewable.Viewer):
    number: int = 0
    slug: str = ""          # URL path, e.g. "dilemma"
    part: str = ""          # a key of chapters.registry.PARTS: "I" … "IV"
    kicker: str = ""        # e.g. "The dilemma"
    title: str = ""         # the headline, e.g. "Good is slow. Fast is sloppy."
    intro: str = ""         # one short paragraph under the headline (markdown)
    takeaway: str = ""      # one sentence
    # The attributes of this chapter's object the guided tour's steps show by name (shell/tour/steps.py),
    # besides every chapter's "predict", "takeaway", "body" and "busy": declared here, beside the
    # attributes, so a rename is caught by tests/shell/test_tour_steps.py without a browser.
    tour_parts: tuple[str, ...] = ()
    question: str = ""      # its "Pause & predict" question ("" for none)
    presets: bool = False   # show the preset bar (preset prompts, the aligned / weak / random draft variant)
    drafters: bool = False  # and on it the drafter switch, who guesses (draft model, copy from the text, both)

    state = param.ClassSelector(class_=LabState)

    def __init__(self, state: LabState, **params):
        super().__init__(state=state, **params)
        self.busy = Busy()
        self.problem = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=(4, 0))
        self.predict: PredictCard | None = self.make_predict()
        self.preset_bar: PresetBar | None = PresetBar(state, self.drafters) if self.presets else None
        if self.preset_bar is not None and self.predict is not None:
            self.preset_bar.wait_for_answer(self.predict)
        self._view = None
        say_dropped_on(pn.state.curdoc if served() else None, lambda s: say_dropped(self, s))
        hook = self.on_settings_changed
        if inspect.iscoroutinefunction(hook):    # a chapter that asks the models again
            async def changed(*events):
                await hook({e.name for e in events})
        else:
            def changed(*events):
                hook({e.name for e in events})
        state.param.watch(changed, list(SETTINGS))

    # --- for subclasses ---
    def make_predict(self) -> PredictCard | None:
        """The chapter's "Pause & predict" card, or None."""
        return None

    def on_settings_changed(self, changed: set[str]) -> None:
        """The student changed some of `changed` (names in uikit.state.SETTINGS); drop or redo the
        results that no longer apply. May be `async` (it then runs on the event loop)."""

    def body(self):
        """The interactive part of the page (built once per session)."""
        return pn.pane.Markdown("")

    def page_intro(self) -> str:
        """The intro as shown; a chapter may fill in live numbers (the class attribute stays plain)."""
        return self.intro

    # --- shared behaviour ---
    @classmethod
    def warmup(cls, student: LabState) -> list[tuple]:
        """What this page's first click asks the model service for at a new student's defaults, as
        (what, fn, args, kwargs) jobs: the server computes them once at start-up (shell/frame/warmup.py),
        so the click finds them in the service's cache. A page without model work asks for nothing."""
        return []

    def request(self, prompt_ids: list[int], **kwargs):
        """The student's request for this page (lab.speed.request.Request: uikit.state.LabState.request with
        this page's draft variant); on a page without the drafter switch, the draft model guesses."""
        if not self.drafters:
            kwargs.setdefault("drafter", "model")
        return self.state.request(prompt_ids, variant=self.variant, **kwargs)

    @property
    def variant(self) -> str:
        """The draft variant of this page's rounds: the student's choice on a page with the preset
        bar, else the pair's own draft model ("aligned"), since the page shows no switch."""
        return self.state.variant if self.presets else "aligned"

    def header(self) -> pn.pane.HTML:
        num = f"{self.number:02d} · " if self.number else ""
        intro = pn.pane.Markdown(self.page_intro(), css_classes=["ch-intro"], sizing_mode="stretch_width",
                                 stylesheets=[HEADER_CSS, sheet("chapter-intro")],
                                 margin=(0, 10)) if self.intro else None
        head = pn.pane.HTML(f'<div class="ch-head"><span class="num">{num}{html.escape(self.kicker)}</span>'
                            f'<h1>{html.escape(self.title)}</h1></div>',
                            stylesheets=[HEADER_CSS], sizing_mode="stretch_width", margin=(0, 10))
        return pn.Column(head, intro, sizing_mode="stretch_width", margin=0) if intro else head

    def show_problem(self, sentence: str = "") -> None:
        """Show (or, with "", clear) a one-sentence problem for the student."""
        self.problem.object = (f'<div class="error" role="alert">{html.escape(sentence)}</div>'
                               if sentence else "")

    async def run_model(self, fn, *args, message: str = "", busy: Busy | None = None,
                        **kwargs):
        """`fn(*args, **kwargs)` on the model worker, with the working line shown.

        Returns None (and shows one sentence) when the student's input cannot be used or the model
        work fails; the page stays usable. A request refused for asking too much (QueueFull) returns
        REFUSED_PAUSE seconds later: the button that asked stays disabled meanwhile, so clicking on
        does not cost the event loop the class shares a turn per click.
        """
        if "variant" not in kwargs and _takes_variant(fn):
            kwargs["variant"] = self.variant
        refused, sentence = None, ""
        line, message = busy or self.busy, said_in_page(message) or _("The models are working…")
        with line.working(message):
            try:
                result = await self._awaited(self.state.service.run_as(self.state.owner, fn, *args, **kwargs),
                                             line, message)
            except QueueFull as err:                    # clicking faster than the models run
                refused = err
            except (PromptError, ValueError) as err:   # the student's input: say what to change
                sentence = str(err)
            except Exception as err:                    # a model failure must not freeze the page
                log.exception("model work failed in chapter %s", self.number)
                sentence = _("The models could not finish this ({error}); press the button again, or reload the "
                             "page if it keeps happening.").format(error=type(err).__name__)
        if sentence:
            self.show_problem(sentence)
            line.say(sentence)
            return None
        if refused is not None:
            self.show_problem(str(refused))
            line.say(str(refused))                      # beside the button pressed (the tour shows no other)
            await asyncio.sleep(REFUSED_PAUSE)
            return None
        self.show_problem("")
        return result

    @staticmethod
    async def _awaited(work, line: Busy, message: str):
        """Await `work`; when it has not answered within WAITING seconds (the models are loading,
        warming up for the class or serving other students), the working line says so: the press
        was heard and runs in turn."""
        task = asyncio.ensure_future(work)
        done, __ = await asyncio.wait({task}, timeout=WAITING)
        if not done:
            line.message = _("{working} — waiting for the models (they may still be warming up, or busy with the "
                             "class); your press runs as soon as they are free, no need to press again…").format(
                working=message.rstrip("…. "))
        return await task

    def prompt_ids(self) -> list[int] | None:
        """The student's prompt ids, or None with the problem shown."""
        ids = self.state.safe_prompt_ids()
        self.show_problem(self.state.error if ids is None else "")
        return ids

    def __panel__(self):
        if self._view is None:
            parts = [self.header()]
            if self.predict is not None:
                parts.append(self.predict)
            if self.preset_bar is not None:
                parts.append(self.preset_bar)
            parts += [self.body(), self.problem]
            if self.takeaway:
                parts.append(takeaway_box(self.takeaway))
            self._view = pn.Column(*parts, sizing_mode="stretch_width", css_classes=["chapter"],
                                   margin=0)
            finish_figures(self._view)
        return self._view
