"""The line of pages waiting for their chapter (shell.room.line): one build at a time in the order pages
were opened, each waiting page told its place, the pace measured, the students' own work first."""
import asyncio
import time

import pytest

from shell.room import line as line_module
from shell.room.line import HOLD_MAX, KEEPING_UP, LeftTheLine, PageLine


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_pages_are_built_one_at_a_time_in_the_order_they_were_opened_each_told_its_place():
    line = PageLine()
    tickets = [line.join() for _ in range(3)]
    assert [line.ahead(t) for t in tickets] == [0, 1, 2]
    assert line.place(tickets[0]) == "Preparing your page…"
    assert line.place(tickets[2]).startswith("Preparing your page — 2 ahead of you, about ")
    events, shown = [], {t.number: [] for t in tickets}
    gates = {t.number: asyncio.Event() for t in tickets}

    async def page(ticket):
        async with line.turn(ticket, shown[ticket.number].append):
            events.append(("start", ticket.number))
            assert line.building is ticket and line.waiting() == 3 - sum(kind == "end" for kind, _ in events)
            await gates[ticket.number].wait()
            events.append(("end", ticket.number))

    async def started(number):
        while ("start", number) not in events:
            await asyncio.sleep(0.01)

    async def run():
        tasks = [asyncio.create_task(page(tickets[0]))]
        await asyncio.wait_for(started(tickets[0].number), 5)
        # the third page's browser is ready before the second's: the second still goes first
        tasks += [asyncio.create_task(page(tickets[2])), asyncio.create_task(page(tickets[1]))]
        for ticket in tickets:
            await asyncio.wait_for(started(ticket.number), 5)
            gates[ticket.number].set()
        await asyncio.gather(*tasks)

    asyncio.run(run())
    assert events == [(kind, t.number) for t in tickets for kind in ("start", "end")]   # one at a time, in order
    assert shown[tickets[0].number] == []                             # let in at once: no line to show
    assert shown[tickets[2].number][0].startswith("Preparing your page — 2 ahead of you")
    assert shown[tickets[1].number][0].startswith("Preparing your page — 1 ahead of you")
    assert shown[tickets[2].number][-1] == "Preparing your page…"       # its turn: no place any more
    assert line.waiting() == 0 and line.built == 3


def test_a_page_whose_browser_is_not_ready_is_passed_over():
    line = PageLine()
    slow, ready = line.join(), line.join()      # `slow`: its browser has not said it is ready yet
    built = []

    async def page(ticket):
        async with line.turn(ticket):
            built.append(ticket.number)

    asyncio.run(page(ready))
    assert built == [ready.number]
    assert line.ahead(slow) == 0 and line.waiting() == 1
    later = line.join()
    assert line.ahead(later) == 1
    asyncio.run(page(slow))
    asyncio.run(page(later))
    assert built == [ready.number, slow.number, later.number] and line.waiting() == 0


def test_a_page_closed_while_it_waits_stops_waiting():
    line = PageLine()
    first, second = line.join(), line.join()
    outcome = []

    async def run():
        gate = asyncio.Event()

        async def building():
            async with line.turn(first):
                await gate.wait()

        async def waiting():
            try:
                async with line.turn(second):
                    outcome.append("built")
            except LeftTheLine:
                outcome.append("left")
        tasks = [asyncio.create_task(building()), asyncio.create_task(waiting())]
        await asyncio.sleep(0.01)
        line.leave(second)                   # its tab closed
        await asyncio.wait_for(tasks[1], 1)  # woken at once, not at its next refresh
        gate.set()
        await tasks[0]

    asyncio.run(run())
    assert outcome == ["left"] and line.waiting() == 0


def test_the_wait_a_page_is_told_comes_from_the_builds_measured():
    clock = Clock()
    line = PageLine(clock=clock)
    first = line.join()
    assert line.pace == line_module.FIRST_PACE

    async def builds(seconds, n):
        for _ in range(n):
            ticket = line.join()
            async with line.turn(ticket):
                clock.now += seconds            # the build took this long

    asyncio.run(builds(4.0, 20))
    assert 3.9 < line.pace <= 4.0               # measured: the builds took 4 s each
    assert line.wait_for(4) == pytest.approx(5 * line.pace)
    assert line.ahead(first) == 0 and "about" not in line.place(first)
    later = [line.join() for _ in range(4)]
    assert line.place(later[-1]) == (f"Preparing your page — 4 ahead of you, about {round(5 * line.pace)} s. "
                                     "It appears here by itself.")
    assert line.load_line().startswith(f"Server busy: new pages wait ~{round(5 * line.pace)} s (5 in line")
    for ticket in [first, *later]:
        line.leave(ticket)
    assert line.load_line() == f"Server keeping up: a page takes {line.pace:.1f} s to build, none waiting."


def test_a_build_waits_while_the_students_on_their_pages_keep_the_loop_busy():
    """A classmate's clicks (turns of the loop that use its CPU) go before a new page's build; once
    the loop keeps up, the build starts."""
    cpu = [0.0]
    line = PageLine(cpu=lambda: cpu[0])
    events = []

    async def classmate(turns):
        for i in range(turns):
            cpu[0] += 2 * KEEPING_UP             # a click's redraw: the loop's CPU, in this turn
            events.append(("click", i))
            await asyncio.sleep(0)

    async def page():
        async with line.turn(line.join()):
            events.append(("build", None))

    async def run():
        await asyncio.gather(classmate(30), page())

    asyncio.run(run())
    assert events.index(("build", None)) == len(events) - 1      # every click first
    assert 0 < line.held < HOLD_MAX


def test_a_build_goes_after_holding_back_at_most_hold_max():
    """Students who never stop clicking do not keep new pages out for ever."""
    cpu = [0.0]
    line = PageLine(cpu=lambda: cpu[0])
    started = []

    async def run():
        stop = asyncio.Event()

        async def busy():
            while not stop.is_set():
                cpu[0] += 2 * KEEPING_UP
                await asyncio.sleep(0)

        task = asyncio.create_task(busy())
        begin = time.monotonic()
        async with line.turn(line.join()):
            started.append(time.monotonic() - begin)
        stop.set()
        await task

    asyncio.run(run())
    assert HOLD_MAX <= started[0] < HOLD_MAX + 2


def test_a_wait_in_words():
    assert [line_module.about(s) for s in (0.2, 4.4, 59, 61, 150)] == ["1 s", "4 s", "59 s", "1 min", "2 min"]


def test_a_page_opened_behind_others_shows_its_place_in_its_frame_and_a_closed_one_leaves(the_class):
    """Served pages (a real Bokeh session each): the frame a browser first receives already says how
    many pages are ahead; a page whose tab closes leaves the line, and the pages behind it move up."""
    from bokeh.application import Application
    from bokeh.application.handlers import FunctionHandler
    from bokeh.application.handlers.document_lifecycle import DocumentLifecycleHandler
    from bokeh.server.contexts import ApplicationContext
    from bokeh.util.token import generate_jwt_token
    from panel.io.state import set_curdoc
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
    from tornado.ioloop import IOLoop

    from shell.frame import app
    line = the_class.line

    def modify(doc):
        with set_curdoc(doc):
            doc.page = app.SessionPage(app.PageAsk("breakeven"), "b" * 32, doc.session_context.id, None, the_class)

    async def open_three():
        context = ApplicationContext(Application(FunctionHandler(modify), DocumentLifecycleHandler()),
                                     io_loop=IOLoop.current())
        request = HTTPServerRequest(start_line=RequestStartLine("GET", "/app?chapter=breakeven", "HTTP/1.1"),
                                    headers=HTTPHeaders({"Host": "127.0.0.1"}))
        sessions = [await context.create_session_if_needed(sid, request, token=generate_jwt_token(sid))
                    for sid in ("first", "second", "third")]
        frames = [s.document.page.place.object for s in sessions]
        sessions[1].request_expiration()                     # the second tab closes
        await context._cleanup_sessions(15_000)
        return frames, sessions[2].document.page

    frames, third = asyncio.run(open_three())
    assert "Preparing your page…" in frames[0]
    assert "1 ahead of you" in frames[1] and "2 ahead of you" in frames[2]
    assert line.waiting() == 2 and line.ahead(third.ticket) == 1


def test_a_build_that_never_ends_does_not_stop_the_line(monkeypatch):
    clock = Clock()
    line = PageLine(clock=clock)
    monkeypatch.setattr(line_module, "REFRESH", 0.01)
    stuck, next_one = line.join(), line.join()
    built = []

    async def run():
        async def never_ends():
            async with line.turn(stuck):
                await asyncio.Event().wait()
        hung = asyncio.create_task(never_ends())
        await asyncio.sleep(0)
        assert line.building is stuck

        async def waits():
            async with line.turn(next_one):
                built.append(next_one.number)
        waiting = asyncio.create_task(waits())
        await asyncio.sleep(0.05)
        assert built == []                           # a build in progress keeps it out …
        clock.now += line_module.STUCK + 1
        await asyncio.wait_for(waiting, 1)           # … until it has taken STUCK seconds
        hung.cancel()

    asyncio.run(run())
    assert built == [next_one.number]
