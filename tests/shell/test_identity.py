"""Identities a script cannot mint at will (shell.room.identity, shell.room.browsers): signed ids, new ids
limited per client address, tabs per browser capped, messages counted per browser and address."""
import panel as pn
import pytest

from serving.workqueue import Allowance
from shell.room import identity
from shell.room.browsers import TABS_PER_BROWSER, Browsers
from shell.store.sqlite import SQLiteStore
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
    store = SQLiteStore(tmp_path / "class.sqlite")
    clock = FakeClock(1000.0)
    one, two = (identity.Buckets(0.0, 3, identity.SharedTable(store, "new-ids"), clock=clock) for _ in range(2))
    assert [one.take("a"), two.take("a"), one.take("a"), two.take("a")] == [True, True, True, False]
    assert identity.Signer(identity.signing_key(store)).verified(identity.Signer(identity.signing_key(store)).new())
    store.stop()


def test_browsers_per_address_is_set_by_the_environment():
    assert identity.browsers_per_address({}) == identity.BROWSERS_PER_ADDRESS
    assert identity.browsers_per_address({"SPECLAB_BROWSERS_PER_ADDRESS": "200"}) == 200
    assert identity.browsers_per_address({"SPECLAB_BROWSERS_PER_ADDRESS": "lots"}) == identity.BROWSERS_PER_ADDRESS


def test_a_class_counts_one_vote_per_address_unless_told_otherwise():
    """Four browsers one address may have, but one vote per question from it by default; a lecturer
    whose students share computers raises it with SPECLAB_VOTES_PER_ADDRESS."""
    from shell.frame.classstate import ClassState
    from shell.poll.store import Question
    assert identity.votes_per_address({}) == identity.VOTES_PER_ADDRESS == 1
    assert identity.votes_per_address({"SPECLAB_VOTES_PER_ADDRESS": "0"}) == 1
    for environ, counted in (({}, 1), ({"SPECLAB_VOTES_PER_ADDRESS": "3"}, 3)):
        poll = ClassState(environ=environ).poll
        poll.ask(Question(10, "choice", ("faster", "slower")))
        said = [poll.vote(10, f"{i:032x}", "slower", "10.0.0.66") for i in range(identity.BROWSERS_PER_ADDRESS)]
        assert sum(poll.tally(10).counts) == counted
        assert all(s is None for s in said)          # every student's answer is kept, the rest left out
        assert poll.tally(10).left_out == identity.BROWSERS_PER_ADDRESS - counted
        assert poll.vote(10, "f" * 32, "faster", "10.0.0.7") is None      # another address still counts


class Page:
    """A served page's document as sessions sees it: a session, and its close."""

    def __init__(self):
        self.session_context, self.closed = object(), []

    def on_session_destroyed(self, fn):
        self.closed.append(fn)

    def close(self):
        for fn in self.closed:
            fn(None)


@pytest.fixture
def browsers():
    """A server's browsers (one per class state): four browsers per client address."""
    return Browsers(per_address=4)


def test_tabs_of_one_browser_are_capped_with_one_sentence(browsers):
    tabs = [Page() for _ in range(TABS_PER_BROWSER + 2)]
    said = []
    for page in tabs:                                          # as each page is built
        browsers.remember(page, "b" * 32, "10.0.0.5")
        said.append(browsers.too_many_tabs(page))
    assert said[:TABS_PER_BROWSER] == [None] * TABS_PER_BROWSER
    assert all(isinstance(s, pn.pane.HTML) and "close one of them" in s.object for s in said[-2:])
    tabs[0].close()
    for page in tabs[-2:]:
        page.close()
    again = Page()
    browsers.remember(again, "b" * 32, "10.0.0.5")
    assert browsers.too_many_tabs(again) is None                 # one closed: room for one more


def test_messages_count_against_the_browser_and_its_address(browsers):
    browsers.messages, browsers.address_messages = Allowance(rate=0.0, burst=5), Allowance(rate=0.0, burst=8)
    one, rotated, elsewhere = Page(), [Page() for _ in range(4)], Page()
    browsers.remember(one, "a" * 32, "10.0.0.66")
    assert [browsers.message_allowed(one) for _ in range(6)] == [True] * 5 + [False]
    for i, page in enumerate(rotated):                         # fresh ids, same address
        browsers.remember(page, f"{i}" * 32, "10.0.0.66")
    assert sum(browsers.message_allowed(p) for p in rotated for _ in range(5)) == 3   # the address's 8 in all
    browsers.remember(elsewhere, "c" * 32, "10.0.0.7")
    assert browsers.message_allowed(elsewhere)


def test_a_browser_whose_changes_are_expensive_waits_for_its_share_of_the_loop(browsers):
    """Pages are also charged the event-loop time they took, per client address: a machine whose
    tour steps take long waits for its share to refill while another machine goes on."""
    from serving.fairshare import Budget
    clock = FakeClock()
    browsers.address_loop = Budget(0.15, 1.0, clock=clock)
    page, other = Page(), Page()
    browsers.remember(page, "a" * 32, "10.0.0.66")
    browsers.remember(other, "b" * 32, "10.0.0.7")
    assert browsers.message_allowed(page)
    browsers.charge_loop(page, 1.2)                  # a change that took the loop 1.2 s
    assert not browsers.message_allowed(page) and browsers.message_allowed(other)
    clock.advance(2.0)                               # 0.3 s of share back: it may go on
    assert browsers.message_allowed(page)


def test_a_page_whose_connection_is_lost_stops_counting_at_once(browsers):
    """A student clicking through chapters leaves a page per click; each stops counting among the
    browser's tabs when its connection is lost, not when Bokeh discards its session later."""
    from bokeh.document import Document
    from bokeh.events import ConnectionLost

    class Served(Document):
        session_context = object()

        def on_session_destroyed(self, *callbacks):   # never called here: discarding comes late
            pass
    pages = []
    for _ in range(TABS_PER_BROWSER + 5):    # one tab, fifteen chapters in a row
        page = Served()
        browsers.remember(page, "d" * 32, "10.0.0.9")
        assert browsers.too_many_tabs(page) is None
        page.callbacks.trigger_event(ConnectionLost())    # the tab went on to the next chapter
        pages.append(page)
