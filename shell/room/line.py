"""The line of pages waiting for their chapter: when the server falls behind, a page says its place.

A page's frame (template, navigation, pager) is sent at once; its chapter is built afterwards, in
pieces, on the event loop every student shares (intercept.pacing.page_turn). When a class opens pages
faster than the machine builds them, building them all together makes every page wait for all of
them, blank, and every click wait behind them. So pages take turns:

- one chapter is built at a time, in the order the pages were opened (a page whose browser has not
  yet said it is ready is passed over until it is);
- the next build starts only once the loop keeps up with the students already on their pages (a
  turn of the loop, their clicks included, takes under KEEPING_UP seconds of the loop's CPU: time
  the machine gives other programs, or the model worker holds the GIL, is not work waiting on the
  loop), or after HOLD_MAX seconds of holding back: their clicks go first, and builds follow at the
  rate the machine keeps up with;
- a build that has not ended after STUCK seconds no longer keeps the next page out;
- a waiting page shows its place ("Preparing your page — 12 ahead of you, about 20 s"), refreshed
  every REFRESH seconds; the wait is estimated from the builds measured (`pace`);
- the lecturer's view shows the server's load in one line (`load_line`).

Both sentences are made when a page shows them, in that page's language (uikit.language).

    line = PageLine()                           # one per server (shell.frame.classstate)
    ticket = line.join()                        # at the page's creation: its place
    async with line.turn(ticket, show_place):   # its build, once let in
        ...
    line.leave(ticket)                          # the page closed while waiting
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import OrderedDict
from typing import Callable

from uikit.language import gettext as _, ngettext, number

KEEPING_UP = 0.02     # CPU seconds: a loop turn this short means the students' own work is answered
HOLD_MAX = 1.0        # seconds a build waits for the loop to keep up before it goes anyway
HOLD_STEP = 0.02      # seconds between two looks at the loop while holding back
REFRESH = 5.0         # seconds between two updates of a waiting page's place (each is a message)
STUCK = 30.0          # seconds after which a build that has not ended no longer keeps the next out
FIRST_PACE = 0.5      # seconds a build is assumed to take before one has been measured
PACE_WEIGHT = 0.2     # weight of the latest build in the measured pace (moving average)


class LeftTheLine(Exception):
    """The page closed before its turn: nothing to build."""


class Ticket:
    """One page's place in the line."""

    __slots__ = ("number", "ready", "gone", "let_in", "said")

    def __init__(self, number: int):
        self.number = number
        self.ready = False             # its browser has the frame and its fill waits for its turn
        self.gone = False              # its page closed
        self.let_in = asyncio.Event()  # set when it is let in (or has gone)
        self.said = ""                 # the place it last showed


class PageLine:
    """Pages waiting for their build, in the order they were opened; one build at a time. One per
    server (its class state); `clock` (wall) and `cpu` (the loop thread's CPU time) are for tests."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, cpu: Callable[[], float] = time.thread_time):
        self._clock, self._cpu = clock, cpu
        self._numbers = itertools.count()
        self._waiting: OrderedDict[int, Ticket] = OrderedDict()
        self.building: Ticket | None = None
        self._since = 0.0             # when the page being built was let in
        self.pace = FIRST_PACE        # seconds per build, measured (admission to last piece shown)
        self.built = 0                # builds done
        self.held = 0.0               # seconds builds waited for the loop to keep up, all together

    # --- places -----------------------------------------------------------------------------------
    def join(self) -> Ticket:
        ticket = Ticket(next(self._numbers))
        self._waiting[ticket.number] = ticket
        return ticket

    def leave(self, ticket: Ticket) -> None:
        """The page closed (or its build is over): out of the line; the next page's turn."""
        ticket.gone = True
        ticket.let_in.set()
        self._waiting.pop(ticket.number, None)
        if self.building is ticket:
            self.building = None
        self._let_next_in()

    def ahead(self, ticket: Ticket) -> int:
        """Pages before `ticket`: the one being built and those waiting that were opened earlier."""
        if self.building is ticket:
            return 0
        earlier = sum(1 for number in self._waiting if number < ticket.number)
        return earlier + (self.building is not None)

    def waiting(self) -> int:
        """Pages waiting or being built."""
        return len(self._waiting) + (self.building is not None)

    def wait_for(self, ahead: int) -> float:
        """Seconds until a page with `ahead` pages before it is shown, at the measured pace."""
        return (ahead + 1) * self.pace

    def place(self, ticket: Ticket) -> str:
        """What a waiting page says of its place."""
        ahead = self.ahead(ticket)
        if ahead == 0:
            return _("Preparing your page…")
        return ngettext("Preparing your page — {n} ahead of you, about {wait}. It appears here by itself.",
                        "Preparing your page — {n} ahead of you, about {wait}. It appears here by itself.",
                        ahead).format(n=number(ahead), wait=about(self.wait_for(ahead)))

    def load_line(self) -> str:
        """The server's load in one line, for the lecturer."""
        n = self.waiting()
        if n > 1:
            return _("Server busy: new pages wait ~{wait} ({n} in line; a page takes {pace} s to build).").format(
                wait=about(self.wait_for(n - 1)), n=number(n), pace=number(self.pace, 1))
        return _("Server keeping up: a page takes {pace} s to build, none waiting.").format(pace=number(self.pace, 1))

    # --- turns ------------------------------------------------------------------------------------
    def _let_next_in(self) -> None:
        if self.building is not None:
            return
        for ticket in self._waiting.values():       # the earliest page whose browser is ready
            if ticket.ready:
                del self._waiting[ticket.number]
                self.building, self._since = ticket, self._clock()
                ticket.let_in.set()
                return

    async def _keep_up(self) -> None:
        """Return once a turn of the loop is short (the students' own work answered), or after HOLD_MAX."""
        started = self._clock()
        while True:
            turn = self._cpu()
            await asyncio.sleep(0)
            now = self._clock()
            if self._cpu() - turn < KEEPING_UP or now - started >= HOLD_MAX:
                self.held += now - started
                return
            await asyncio.sleep(HOLD_STEP)

    @contextlib.asynccontextmanager
    async def turn(self, ticket: Ticket, show_place: Callable[[str], None] = lambda said: None):
        """Wait for this page's turn (showing its place through `show_place` while it changes),
        then build it; the build's time goes into the measured pace. Raises LeftTheLine when the
        page closed before its turn."""
        ticket.ready = True
        try:
            self._let_next_in()
            while self.building is not ticket:
                if ticket.gone:
                    raise LeftTheLine()
                said = self.place(ticket)
                if said != ticket.said:
                    ticket.said = said
                    show_place(said)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(ticket.let_in.wait(), REFRESH)
                if self.building is not None and self._clock() - self._since > STUCK:
                    self.building = None             # a build that never ends does not stop the line
                    self._let_next_in()
            if ticket.said:                          # it showed a place: now it is being prepared
                show_place(self.place(ticket))
            started = self._clock()
            await self._keep_up()
            yield
            self.pace += PACE_WEIGHT * (self._clock() - started - self.pace)
            self.built += 1
        finally:
            self.leave(ticket)


def about(seconds: float) -> str:
    """A wait in words a student reads at a glance: '5 s', '40 s', '2 min' (the page's language)."""
    if seconds < 60:
        return _("{n} s").format(n=number(max(1, round(seconds))))
    return _("{n} min").format(n=number(round(seconds / 60)))
