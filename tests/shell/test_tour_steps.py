"""The guided tour's steps without a browser: every component a step names exists on its chapter,
and the stage's figures follow the projector's scale and free room (quick: a chapter that renames
an attribute fails here, not only in the browser tests)."""
from shell.tour.steps import TOUR

N = len(TOUR)
EVERY_CHAPTERS = {"predict", "takeaway", "body", "busy", "overview", "closing"}


def names_shown(spec) -> list[str]:
    """The chapter attribute names a step's `show` item uses (rows, lanes and sized items opened)."""
    if isinstance(spec, list):
        return [name for item in spec for name in names_shown(item)]
    if isinstance(spec, dict):
        return [name for key in ("strip", "count", "item") if spec.get(key) for name in names_shown(spec[key])]
    return [spec] if isinstance(spec, str) else []


def test_the_tour_shows_only_what_each_chapter_declares():
    from chapters.registry import page_by_number
    undeclared = {(step["chapter"], name) for step in TOUR if step["chapter"]
                  for name in names_shown(step.get("show", []))
                  if name not in EVERY_CHAPTERS
                  and name not in page_by_number(step["chapter"]).chapter_class.tour_parts}
    assert not undeclared, f"tour steps show names their chapter does not declare in tour_parts: {sorted(undeclared)}"
    assert names_shown([["a", {"lane": "x", "strip": "b", "count": None}], {"item": "c", "width": 9}]) == ["a", "b", "c"]


def test_every_declared_part_is_on_its_built_chapter():
    from chapters import registry
    from serving.service import ModelService
    from lab.pairs.tiny import tiny_pair
    from uikit.state import LabState

    pair = tiny_pair()
    state = LabState(ModelService(lambda: pair))
    missing = []
    for page in registry.chapter_pages():
        chapter = registry.build(page, state)
        chapter.body()                       # some chapters finish wiring their widgets here
        missing += [(page.number, name) for name in page.chapter_class.tour_parts
                    if getattr(chapter, name, None) is None]
    assert not missing, f"declared tour parts missing on the built chapter: {missing}"


def test_every_step_finds_its_components_without_a_browser():
    """Each step's `show` names exist on its chapter (quick: fails as soon as a chapter renames one)."""
    import panel as pn

    from uikit.state import LabState
    from shell.tour.view import Tour
    from serving.service import ModelService
    from lab.pairs.tiny import tiny_pair

    pair = tiny_pair()
    tour = Tour(LabState(ModelService(lambda: pair)), step=1)
    problems = []
    for n in range(1, N + 1):
        tour.show(n)
        assert tour.deck.rendered == n
        for obj in tour.stage.objects:
            for found in [obj, *obj.select(pn.viewable.Viewable)]:
                classes = getattr(found, "css_classes", []) or []
                if "tour-missing" in classes or "tour-error" in classes or "tour-note" in classes:
                    problems.append((n, found.object if hasattr(found, "object") else found))
    assert not problems, problems


def test_figures_grow_into_the_room_the_browser_reports():
    """The projector's scale, then the free room: a step's figure takes both, and keeps them when the
    step comes back; a fixed-width figure also takes the free width; negative room shrinks it."""
    from serving.service import ModelService
    from lab.pairs.tiny import tiny_pair
    from shell.tour.view import Tour
    from uikit.state import LabState

    pair = tiny_pair()
    tour = Tour(LabState(ModelService(lambda: pair)), step=19)        # chapter 6: sliders beside region_fig
    fig = tour.chapter(6).region_fig
    w0, h0 = fig.width, fig.height
    tour.deck.scale = 1.5
    assert (fig.width, fig.height) == (round(w0 * 1.5), round(h0 * 1.5))
    tour.deck.room = {"step": 19, "height": 200, "width": 300}
    assert (fig.width, fig.height) == (round(w0 * 1.5) + 300, round(h0 * 1.5) + 200)
    tour.deck.room = {"step": 18, "height": 500, "width": 500}         # another step's report: ignored
    assert fig.height == round(h0 * 1.5) + 200
    tour.deck.step = 20
    tour.deck.step = 19                                                 # back: the fitted size at once
    assert (fig.width, fig.height) == (round(w0 * 1.5) + 300, round(h0 * 1.5) + 200)
    tour.deck.room = {"step": 19, "height": -10_000, "width": 0}       # would scroll: shrinks, to a floor
    assert fig.height == round(h0 * 1.5 * 0.6)


# What would give each question's answer away (the lecture's words for it), chapter by chapter:
# the headings of a chapter's steps after its question must say none of it before the reveal.
GIVEAWAYS = {
    3: ("in one call", "one call", "takes one"),                      # how many calls to check five words
    4: ("the writing is the target", "target's writing", "is the target's"),   # whose writing is the text
    5: ("were right", "cannot use", "can't use", "discard"),         # can the check at position 3 be used
    6: ("min(1, p / q)", "p / q", "0.75", "p/q"),                    # how often to keep the eager guess
    7: ("only the residual", "reproduces the target", "counts that overlap twice", "(p − q)+, normalised"),
    8: ("bonus", "γ + 1", "five tokens", "5 tokens", "extra row"),    # tokens a fully accepted round adds
    9: ("argmax", "==", "top token"),                                  # the accept test at temperature 0
    10: ("always faster", "never faster", "slower"),
}


def test_no_heading_after_a_question_states_its_answer():
    """A step heading after its chapter's Pause & predict step shows on the projector before the
    lecturer's reveal: it poses the experiment, it never says the answer (issue 49, item 5)."""
    from chapters.registry import page_by_number
    told = []
    for n, step in enumerate(TOUR, start=1):
        chapter = step["chapter"]
        asked = [i for i, s in enumerate(TOUR, start=1) if s["chapter"] == chapter and "predict" in str(s["show"])]
        if not asked or n <= asked[0]:
            continue
        assert page_by_number(chapter).chapter_class.question       # a chapter that asks
        text = step["text"].lower()
        told += [(n, phrase) for phrase in GIVEAWAYS.get(chapter, ()) if phrase.lower() in text]
    assert not told, f"tour headings that state the answer before the reveal (step, phrase): {told}"


def test_chapter_3_steps_name_the_positions_its_chart_shows():
    from chapters.ch03_checking import MAX_POSITIONS
    measure = next(s for s in TOUR if s.get("prefetch") == "measure" and s["chapter"] == 3)
    assert f"… {MAX_POSITIONS} positions" in measure["text"]


def test_the_badge_on_each_step_says_the_sampling_of_its_chapter():
    """Issue 49.4: the tour's one session shows many chapters; its badge says what the chapter on
    screen samples with: chapter 9's slider temperature on its steps, the session's greedy on
    chapter 10's, whatever was built before."""
    from lab.pairs.tiny import tiny_pair
    from serving.service import ModelService
    from shell.tour.view import Tour
    from uikit.panels import PairBadge
    from uikit.state import LabState

    pair = tiny_pair()
    state = LabState(ModelService(lambda: pair))
    tour, badge = Tour(state, step=1), PairBadge(state)
    ch9 = next(n for n, s in enumerate(TOUR, start=1) if s["chapter"] == 9 and "temperature_slider" in str(s["show"]))
    tour.show(ch9)
    said = tour.chapter(9).settings.describe()
    assert "temperature 0" != said and f"sampling on this page: <b>{said}</b>" in badge._pane.object
    tour.show(ch9 + 1)                                    # chapter 10: the session's own settings
    assert TOUR[ch9]["chapter"] == 10 and "sampling: greedy (temperature 0)" in badge._pane.object
    tour.show(ch9)
    assert f"sampling on this page: <b>{said}</b>" in badge._pane.object
