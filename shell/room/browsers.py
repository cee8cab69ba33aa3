"""Which browser shows each served page, how many tabs it has open, and what it may send.

A page is known by its browser (shell.room.identity) and its client address. Every tab of one browser
shares one allowance of clicks and messages (intercept.clicks, intercept.inbox), as it shares one
model queue, and a client address shares a few browsers' worth; the event-loop time its pages take is
charged to its address, the unit a class is fair between. One `Browsers` per server, in its class
state (shell.frame.classstate); its tables are keyed by the pages' documents and let go with them.

    browsers.remember(doc, bid, address)     # a served page's browser: it counts among its tabs
    browsers.too_many_tabs(doc)              # None, or the sentence shown instead of the page
    browsers.click_allowed(doc); browsers.message_allowed(doc); browsers.message_wait(doc)
"""
from __future__ import annotations

import html
import weakref
from collections import Counter

import panel as pn

from serving.fairshare import Budget
from serving.workqueue import BURST, RATE, Allowance
from intercept.pacing import served
from uikit.language import ngettext, number

TABS_PER_BROWSER = 10          # open pages of one browser (all its tabs) on this process
# Every message a page sends (a slider move, a tour step, a click) counts against its browser and its
# client address (intercept.inbox), twice. Read: a drag's moves pass (a browser sends up to ~60 a
# second); past that the page's websocket is not read until a token comes. Applied: a few tour steps or
# clicks a second, and a drag redrawn at 8 a second; past that a property's latest value waits.
READ_RATE, READ_BURST = 40.0, 120
MESSAGE_RATE, MESSAGE_BURST = 20.0, 60
# … and the event-loop time its pages took (intercept.inbox, the page's `cost` check: applying its
# changes and clicks, its redraws, building a tour's next step, writing its updates), per client
# address: one machine's pages may take LOOP_SHARE of the loop per browser it may have, with LOOP_SAVED seconds per browser saved
# for a burst (a chapter's page filled, a few tour steps); past that its next change or click waits.
# Every page of a class waits behind what runs on the loop, so the saved burst is short: a machine
# flooding the tour holds the others' clicks for about a burst at most, not for tens of seconds.
LOOP_SHARE, LOOP_SAVED = 0.1, 1.0


class Browsers:
    """The browser and client address of every served page, its open tabs, and the allowances its
    clicks and messages spend. `per_address`: how many browsers one client address stands for
    (shell.room.identity.browsers_per_address)."""

    def __init__(self, per_address: int):
        self.per_address = per_address
        self.ids: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()         # page → its browser id
        self.addresses: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # page → its client address
        self.tabs: Counter = Counter()       # browser id, or "address …" → its open pages on this process
        self._counted: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # page → what it counts in tabs
        share = max(2, per_address // 2)     # an address's allowances: this many browsers'
        # Clicks per browser, all its tabs together: as many a second as model actions
        # (serving.workqueue.RATE; a student stepping through chapter 9's code clicks about 3), and
        # twice the model queue's burst at once, so a burst the queue would refuse still reaches it
        # and is answered in a sentence.
        self.clicks = Allowance(RATE, 2 * BURST)
        self.address_clicks = Allowance(RATE * share, 2 * BURST * share)
        self.reads = Allowance(READ_RATE, READ_BURST)
        self.address_reads = Allowance(READ_RATE * share, READ_BURST * share)
        self.messages = Allowance(MESSAGE_RATE, MESSAGE_BURST)
        self.address_messages = Allowance(MESSAGE_RATE * share, MESSAGE_BURST * share)
        self.address_loop = Budget(LOOP_SHARE * share, LOOP_SAVED * share)

    def remember(self, doc, bid: str, address: str = "") -> None:
        """Note that the page `doc` is shown by the browser `bid` from `address` (its tabs then share
        one allowance); a served page counts among its browser's and its address's open tabs until
        its connection is lost or its session closes, whichever is first (a page left for the next
        chapter stops counting at once)."""
        self.ids[doc] = bid
        self.addresses[doc] = address
        if served(doc) and hasattr(doc, "on_session_destroyed"):
            self._counted[doc] = keys = [bid] + ([f"address {address}"] if address else [])
            self.tabs.update(keys)
            doc.on_session_destroyed(lambda context: self._uncount(doc))
            if hasattr(doc, "on_event"):
                from bokeh.events import ConnectionLost
                doc.on_event(ConnectionLost, lambda event: self._uncount(doc))

    def _uncount(self, doc) -> None:
        keys = self._counted.pop(doc, None)
        if keys:
            self.tabs.subtract(keys)

    def too_many_tabs(self, doc) -> pn.pane.HTML | None:
        """One sentence instead of the page when this page's browser has TABS_PER_BROWSER tabs open
        already (or its address that many per browser it may have); None otherwise. A refused tab
        does not count."""
        bid, address = self.ids.get(doc), self.addresses.get(doc, "")
        if bid is None or not served(doc):
            return None
        over = self.tabs[bid] > TABS_PER_BROWSER or (
            address and self.tabs[f"address {address}"] > TABS_PER_BROWSER * self.per_address)
        if not over:
            return None
        self._uncount(doc)
        said = ngettext("This browser has {n} page of the lab open already; close it, then reload this page.",
                        "This browser has {n} pages of the lab open already; close one of them, then reload this "
                        "page.", TABS_PER_BROWSER).format(n=number(TABS_PER_BROWSER))
        return pn.pane.HTML(f'<p class="notice" role="alert">{html.escape(said)}</p>', sizing_mode="stretch_width")

    def click_allowed(self, doc) -> bool:
        """Whether the browser showing `doc` may click now (intercept.clicks drops the click if not):
        twenty tabs of one browser share one allowance, as they share one model queue."""
        bid = self.ids.get(doc)
        if bid is None:
            return True
        address = self.addresses.get(doc, "")
        if address and not self.address_loop.ok(address):
            return False        # its machine's clicks and changes have used their share of the event loop
        return self.clicks.allowed(bid) and (not address or self.address_clicks.allowed(address))

    def charge_loop(self, doc, seconds: float) -> None:
        """A page took `seconds` of the event loop: charge its client address."""
        if address := self.addresses.get(doc, ""):
            self.address_loop.charge(address, seconds)

    def message_wait(self, doc) -> float:
        """Seconds before a message of the page `doc` may be read (0: now, and one of its browser's
        and its address's reads is spent)."""
        bid = self.ids.get(doc)
        if bid is None:
            return 0.0
        address = self.addresses.get(doc, "")
        wait = max(self.reads.wait(bid), self.address_reads.wait(address) if address else 0.0)
        if wait == 0:
            self.reads.allowed(bid)
            if address:
                self.address_reads.allowed(address)
        return wait

    def message_allowed(self, doc) -> bool:
        """Whether the browser showing `doc` may send a message now (spends one of its browser's and
        of its address's allowances)."""
        bid = self.ids.get(doc)
        if bid is None:
            return True
        address = self.addresses.get(doc, "")
        if address and not self.address_loop.ok(address):
            return False
        return self.messages.allowed(bid) and (not address or self.address_messages.allowed(address))
