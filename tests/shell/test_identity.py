"""Identities a script cannot mint at will (shell.identity, shell.sessions): signed ids, new ids
limited per client address, tabs per browser capped, messages counted per browser and address."""
import panel as pn
import pytest

from serving.workqueue import Allowance
from shell import identity, sessions
from shell.store import ClassStore
from tests.helpers import FakeClock


def test_only_an_id_this_server_signed_is_an_identity():
    signer = identity.Signer(b"k" * 32)
    bid = signer.new()
    assert signer.verified(bid) == bid
    forged = bid[:-1] + ("0" if bid[-1] != "0" else "1")
    for cookie in (forged, bid.split(".")[0], "a" * 32, identity.Signer(b"other" * 7).new(), "", None, 7, bid + "x"):
        assert signer.verified(cookie) is None, cookie


def test_rotating_cookies_from_one_address_get_a_few_ids_then_the_addresss_pool():
    clock = FakeClock(1000.0)
    signer, new_ids = identity.Signer(b"k" * 32), identity.Buckets(1 / 60, 4, clock=clock)
    ids = [identity.identify(f"{i:032x}", "10.0.0.66", signer, new_ids) for i in range(40)]   # 40 fresh cookies
    assert len(set(ids)) == 5 and ids[4:] == [signer.pooled("10.0.0.66")] * 36
    assert all(signer.verified(i) for i in ids[:4]) and signer.verified(ids[4]) is None   # the pool is no cookie
    other = identity.identify("", "10.0.0.7", signer, new_ids)
    assert signer.verified(other)                                   # another address is not held back
    assert identity.identify(ids[0], "10.0.0.66", signer, new_ids) == ids[0]   # a signed cookie is kept
    clock.advance(60)
    assert signer.verified(identity.identify("", "10.0.0.66", signer, new_ids))   # then one a minute


def test_every_process_of_a_class_counts_the_same_address(tmp_path):
    store = ClassStore(tmp_path / "class.sqlite")
    clock = FakeClock(1000.0)
    one, two = (identity.Buckets(0.0, 3, identity.SharedTable(store, "new-ids"), clock=clock) for _ in range(2))
    assert [one.take("a"), two.take("a"), one.take("a"), two.take("a")] == [True, True, True, False]
    assert identity.Signer(identity._key(store)).verified(identity.Signer(identity._key(store)).new())
    store.stop()


def test_browsers_per_address_is_set_by_the_environment():
    assert identity.browsers_per_address({}) == identity.BROWSERS_PER_ADDRESS
    assert identity.browsers_per_address({"SPECLAB_BROWSERS_PER_ADDRESS": "200"}) == 200
    assert identity.browsers_per_address({"SPECLAB_BROWSERS_PER_ADDRESS": "lots"}) == identity.BROWSERS_PER_ADDRESS


class Page:
    """A served page's document as sessions sees it: a session, and its close."""

    def __init__(self):
        self.session_context, self.closed = object(), []

    def on_session_destroyed(self, fn):
        self.closed.append(fn)

    def close(self):
        for fn in self.closed:
            fn(None)


def test_tabs_of_one_browser_are_capped_with_one_sentence(monkeypatch):
    monkeypatch.setattr(sessions, "_TABS", sessions.Counter())
    tabs = [Page() for _ in range(sessions.TABS_PER_BROWSER + 2)]
    said = []
    for page in tabs:                                          # as each page is built
        sessions.remember_browser(page, "b" * 32, "10.0.0.5")
        said.append(sessions.too_many_tabs(page))
    assert said[:sessions.TABS_PER_BROWSER] == [None] * sessions.TABS_PER_BROWSER
    assert all(isinstance(s, pn.pane.HTML) and "close one of them" in s.object for s in said[-2:])
    tabs[0].close()
    for page in tabs[-2:]:
        page.close()
    again = Page()
    sessions.remember_browser(again, "b" * 32, "10.0.0.5")
    assert sessions.too_many_tabs(again) is None                 # one closed: room for one more


def test_messages_count_against_the_browser_and_its_address(monkeypatch):
    monkeypatch.setattr(sessions, "MESSAGES", Allowance(rate=0.0, burst=5))
    monkeypatch.setattr(sessions, "ADDRESS_MESSAGES", Allowance(rate=0.0, burst=8))
    one, rotated, elsewhere = Page(), [Page() for _ in range(4)], Page()
    sessions.remember_browser(one, "a" * 32, "10.0.0.66")
    assert [sessions.message_allowed(one) for _ in range(6)] == [True] * 5 + [False]
    for i, page in enumerate(rotated):                         # fresh ids, same address
        sessions.remember_browser(page, f"{i}" * 32, "10.0.0.66")
    assert sum(sessions.message_allowed(p) for p in rotated for _ in range(5)) == 3   # the address's 8 in all
    sessions.remember_browser(elsewhere, "c" * 32, "10.0.0.7")
    assert sessions.message_allowed(elsewhere)


@pytest.fixture(autouse=True)
def no_tabs_left(monkeypatch):
    monkeypatch.setattr(sessions, "_TABS", sessions.Counter())


def test_a_browser_whose_changes_are_expensive_waits_for_its_share_of_the_loop(monkeypatch):
    """Pages are also charged the event-loop time they took, per client address: a machine whose
    tour steps take long waits for its share to refill while another machine goes on."""
    from serving.fairshare import Budget
    clock = FakeClock()
    monkeypatch.setattr(sessions, "ADDRESS_LOOP", Budget(0.15, 1.0, clock=clock))
    page, other = Page(), Page()
    sessions.remember_browser(page, "a" * 32, "10.0.0.66")
    sessions.remember_browser(other, "b" * 32, "10.0.0.7")
    assert sessions.message_allowed(page)
    sessions.charge_loop(page, 1.2)                  # a change that took the loop 1.2 s
    assert not sessions.message_allowed(page) and sessions.message_allowed(other)
    clock.advance(2.0)                               # 0.3 s of share back: it may go on
    assert sessions.message_allowed(page)


def test_a_page_whose_connection_is_lost_stops_counting_at_once():
    """A student clicking through chapters leaves a page per click; each stops counting among the
    browser's tabs when its connection is lost, not when Bokeh discards its session later."""
    from bokeh.document import Document
    from bokeh.events import ConnectionLost

    class Served(Document):
        session_context = object()

        def on_session_destroyed(self, *callbacks):   # never called here: discarding comes late
            pass
    pages = []
    for _ in range(sessions.TABS_PER_BROWSER + 5):    # one tab, fifteen chapters in a row
        page = Served()
        sessions.remember_browser(page, "d" * 32, "10.0.0.9")
        assert sessions.too_many_tabs(page) is None
        page.callbacks.trigger_event(ConnectionLost())    # the tab went on to the next chapter
        pages.append(page)
