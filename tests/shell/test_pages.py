"""The shell's page filling, without a browser."""
import asyncio

import panel as pn

from shell.frame.pages import PageAsk, page_content
from intercept.pacing import PAGE_TURN_YIELDS, PIECE_OBJECTS, TINY_SECTION, page_pieces, show_in_pieces
from shell.tour.steps import TOUR
from uikit.state import LabState


def test_a_chapter_page_is_shown_in_a_few_turns_its_figures_in_a_turn_of_their_own(tiny_service):
    view = page_content(PageAsk("breakeven"), LabState(tiny_service)).view
    sections = view.objects[-1]
    expected = list(sections.objects)
    turns = page_pieces(expected)
    assert [s for turn in turns for s in turn] == expected     # every section, in order, each once
    assert 2 <= len(turns) < len(expected)                     # fewer turns than sections
    body = max(expected, key=lambda s: sum(1 for _ in s.select()))   # the figures
    assert body in turns[-1] and sum(1 for _ in body.select()) > PIECE_OBJECTS // 2
    assert all(sum(1 for _ in s.select()) <= TINY_SECTION for s in turns[-1][turns[-1].index(body) + 1:])
    slot = pn.Column()
    seen = []   # how many sections were shown each time another task got a turn

    async def classmate():
        while len(seen) < 50 and len(sections.objects) < len(expected):
            seen.append(len(sections.objects) if slot.objects else -1)
            await asyncio.sleep(0)

    async def both():
        await asyncio.gather(show_in_pieces(slot, view), classmate())
    asyncio.run(both())

    assert slot.objects == [view]
    assert sections.objects == expected
    # The other task ran while the page was partly shown: between turns, after the first, before the last.
    between = {sum(len(t) for t in turns[:i + 1]) for i in range(len(turns) - 1)}
    shown = set(n for n in seen if n >= 0)
    assert len(turns[0]) in shown and shown <= between


def test_a_page_without_sections_is_shown_at_once(tiny_service):
    view = page_content(PageAsk(""), LabState(tiny_service)).view   # the landing page: one pane
    slot = pn.Column()
    asyncio.run(show_in_pieces(slot, pn.Column(view)))
    assert len(slot.objects) == 1 and slot.objects[0].objects == [view]


def test_pages_opened_together_build_one_piece_per_turn(tiny_service):
    """Two classmates' pages fill at the same time: between two turns of a third task (a slider
    move's next step) at most one piece of either page is shown, the third task gets several turns
    between two pieces, and both pages end complete."""
    views = [page_content(PageAsk(slug), LabState(tiny_service)).view for slug in ("breakeven", "guess-check-keep")]
    expected = [list(v.objects[-1].objects) for v in views]
    sizes = {len(turn) for e in expected for turn in page_pieces(e)}   # sections a piece shows
    slots = [pn.Column(), pn.Column()]
    built = []   # sections shown on both pages together, each time the third task got a turn

    def shown():
        return sum(len(v.objects[-1].objects) for v, s in zip(views, slots) if s.objects)

    async def classmate():
        total = sum(len(e) for e in expected)
        while len(built) < 200 and shown() < total:
            built.append(shown())
            await asyncio.sleep(0)
        built.append(shown())

    async def all_three():
        await asyncio.gather(*(show_in_pieces(s, v) for s, v in zip(slots, views)), classmate())
    asyncio.run(all_three())

    assert [v.objects[-1].objects for v in views] == expected
    steps = [b - a for a, b in zip(built, built[1:]) if b != a]
    assert set(steps) <= sizes and len(steps) == sum(len(page_pieces(e)) for e in expected)
    # and the third task had several turns between two pieces (a slider move needs a few)
    pieces = [i for i, (a, b) in enumerate(zip(built, built[1:])) if b != a]
    assert min(b - a for a, b in zip(pieces, pieces[1:])) >= PAGE_TURN_YIELDS


def test_a_page_whose_tab_closed_is_discarded_at_the_next_check():
    """Bokeh's own session bookkeeping: a loaded page asks to end with its tab; at the next cleanup
    check it is gone once disconnected, while a connected page and a page that never asked stay."""
    from bokeh.application import Application
    from bokeh.server.contexts import ApplicationContext
    from bokeh.util.token import generate_jwt_token
    from tornado.ioloop import IOLoop

    from intercept.pacing import end_with_its_tab

    async def go():
        app = ApplicationContext(Application(), io_loop=IOLoop.current())
        sessions = {}
        for sid in ("closed", "open", "never-asked"):
            sessions[sid] = await app.create_session_if_needed(sid, token=generate_jwt_token(sid))
        tab = object()
        sessions["open"].subscribe(tab)                     # its page is still connected
        contexts = {sid: s.document.session_context for sid, s in sessions.items()}
        for sid in ("closed", "open"):
            end_with_its_tab(contexts[sid])
        await app._cleanup_sessions(15_000)                 # Bokeh's check, 15 s linger
        end_with_its_tab(contexts["closed"])                # once discarded: nothing to do, no error
        return {session.id for session in app.sessions}

    assert asyncio.run(go()) == {"open", "never-asked"}


def test_the_landing_numbers_chapters_as_the_navigation_does():
    import re

    from chapters import registry
    from shell.frame.pages import landing_html, nav_html
    landing, nav = landing_html(), nav_html("")
    for page in registry.chapter_pages():
        assert f'<li value="{page.number}"><a href="?chapter={page.slug}">' in landing
        assert f">{page.number} · {page.short_title}<" in nav.replace("&#x27;", "'").replace("’", "’")
    part3 = landing[landing.index("<h2>Part III"):]
    part3 = part3[:part3.index("</section>")]
    assert re.findall(r'value="(\d+)"', part3) == [str(p.number) for p in registry.pages() if p.part == "III"]
    assert re.findall(r'value="(\d+)"', part3)[0] == "5"


def test_a_closed_page_leaves_nothing_behind(the_class):
    """A page's problem spot, a guarded widget and its poll ballot are registered by document and
    widget; once the session is discarded the document is collected (weak keys alone would keep
    it: each registered `say` and the ballot's watches hold the page)."""
    import gc
    import weakref

    from bokeh.application import Application
    from bokeh.application.handlers import FunctionHandler
    from bokeh.application.handlers.document_lifecycle import DocumentLifecycleHandler
    from bokeh.server.contexts import ApplicationContext
    from bokeh.util.token import generate_jwt_token
    from panel.io.state import set_curdoc
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
    from tornado.ioloop import IOLoop

    from intercept import validate

    class Page:                                    # holds its document, as the shell's page does
        def __init__(self, doc):
            self.doc, self.widget = doc, pn.widgets.IntInput(value=1)

        def say(self, sentence):
            pass

    def modify(doc):
        with set_curdoc(doc):
            page = Page(doc)
            validate.on_problems(page.say)
            validate.guard(page.widget, page.say)
            the_class.ballots.page_ballot().watch(10, lambda: None, lambda: True)
            doc.page = page

    async def open_and_close():
        application = Application(FunctionHandler(modify), DocumentLifecycleHandler())   # as the server has it
        app = ApplicationContext(application, io_loop=IOLoop.current())
        request = HTTPServerRequest(start_line=RequestStartLine("GET", "/app", "HTTP/1.1"),
                                    headers=HTTPHeaders({"Host": "127.0.0.1"}))
        session = await app.create_session_if_needed("closing", request, token=generate_jwt_token("closing"))
        doc = weakref.ref(session.document)
        assert validate.page_spot(doc()) is not None and the_class.ballots.of(doc()) is not None
        session.request_expiration()                          # closed: discarded at Bokeh's next check
        await app._cleanup_sessions(15_000)
        assert session.id not in {s.id for s in app.sessions}
        assert validate.page_spot(doc()) is None and the_class.ballots.of(doc()) is None   # forgotten on closing
        return doc

    doc = asyncio.run(open_and_close())
    gc.collect()
    assert doc() is None


def test_the_landing_course_line_is_the_lecturers_or_none():
    """`--args --course TEXT` (or the export's --course) is the kicker over the title, escaped; without
    it there is no course line at all (never a course code that is not the lecturer's)."""
    from shell.frame.pages import course_line, landing_html
    assert course_line([]) is None and course_line(["--course", "  "]) is None
    assert course_line(["--lecturer-token", "x", "--course", "CS 101 · Week 6"]) == "CS 101 · Week 6"
    plain = landing_html(argv=[])
    assert '<div class="eyebrow">' not in plain and "DSAI" not in plain
    landing = landing_html(argv=["--course", '<script>x</script> & "Week 6"'])
    assert '<div class="eyebrow">&lt;script&gt;x&lt;/script&gt; &amp; &quot;Week 6&quot;</div>' in landing
    assert "<script>" not in landing


def test_the_address_asks_for_a_page_and_the_tours_step():
    """?chapter=slug, ?tour=N (a step out of range is the nearest one), and a chapter that does not
    exist: the landing page with one sentence."""
    assert PageAsk.from_args({"chapter": [b"breakeven"]}) == PageAsk("breakeven")
    assert PageAsk.from_args({"tour": [b"17"]}) == PageAsk(tour=True, step=17)
    assert PageAsk.from_args({"tour": [b"999"]}).step == len(TOUR) and PageAsk.from_args({"tour": [b"x"]}).step == 1
    lost = PageAsk.from_args({"chapter": [b"no-such-page"]})
    assert lost.landing and "There is no chapter called “no-such-page”" in lost.notice
    assert PageAsk("breakeven").title.startswith("Speculative Lab · ") and PageAsk(tour=True).title.endswith("Guided tour")


def test_a_pages_content_is_its_chapter_its_tour_step_or_the_landing_page(tiny_service):
    """What the server and the export both show: a chapter under its part's opening (the chapter
    object handed back), the tour opened at its step, the landing page with the student's answers."""
    from chapters import registry
    state = LabState(tiny_service)
    chapter = page_content(PageAsk("guess-check-keep"), state)
    assert type(chapter.chapter).slug == "guess-check-keep" and chapter.problem is None
    assert chapter.view.objects[-1] is chapter.chapter.__panel__()       # the page shows that chapter
    first = registry.chapter_pages()[0]       # the first page of its part: its opening above it
    assert "partopen" in page_content(PageAsk(first.slug), state).view.objects[0].object
    tour = page_content(PageAsk(tour=True, step=17), state)
    assert tour.view is tour.tour and tour.tour.deck.step == 17 and tour.chapter is None
    state.answers = {"3": {"correct": True}}
    assert "you have answered <b>1</b>" in page_content(PageAsk(""), state).view.object


def test_a_chapter_that_cannot_be_built_says_so_and_hands_back_why(tiny_service, monkeypatch):
    from chapters import registry

    def broken(page, state):
        raise RuntimeError("no figures today")
    monkeypatch.setattr(registry, "build", broken)
    content = page_content(PageAsk("breakeven"), LabState(tiny_service))
    assert isinstance(content.problem, RuntimeError) and content.chapter is None
    assert "could not be built" in content.view.objects[-1].object
