"""shell.heap: what lives a second leaves the collector's reach; a sweep frees the closed pages."""
import gc
import weakref

import pytest

from shell import heap


class Page:
    """A page-like cycle: freed only by the cyclic collector, never by reference counts alone."""
    def __init__(self):
        self.me = self


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def policy():
    clock = Clock()
    h = heap.Heap(clock=clock)
    h.settle()                                 # the test process's heap, as the server's at start-up
    yield h, clock
    gc.unfreeze()   # leave the test process's collector as it found it
    gc.collect()


def close(h, sessions):
    for _ in range(sessions):
        h.session_closed()


def closed_page():
    page = Page()
    return weakref.ref(page), page


def test_a_page_that_lived_a_tick_survives_collections_until_a_sweep(policy):
    h, clock = policy
    alive, page = closed_page()
    h.tick()                                   # the page has lived a second: frozen
    del page                                   # its tab closes
    h.session_closed()
    gc.collect()                               # Panel's collection after a session closes
    assert alive() is not None                 # out of the collector's reach (that is the point)
    h.sweep()
    assert alive() is None and h.sweeps == 1 and h.closed == 0


def test_a_quiet_room_is_swept_once_enough_sessions_have_closed(policy):
    h, clock = policy
    alive, page = closed_page()
    h.tick()
    del page
    clock.now += heap.MIN_SPACING
    for _ in range(heap.QUIET_TICKS):         # quiet, but nothing has closed: no sweep
        h.tick()
    assert h.sweeps == 0 and alive() is not None
    close(h, heap.QUIET_CLOSED - 1)
    for _ in range(heap.QUIET_TICKS):         # too few closed pages to be worth a sweep
        h.tick()
    assert h.sweeps == 0
    h.session_closed()
    building = [[] for _ in range(2 * heap.QUIET_OBJECTS)]   # a page opens: a busy second
    h.tick()
    assert h.sweeps == 0 and h.quiet == 0
    for _ in range(heap.QUIET_TICKS - 1):
        h.tick()
    assert h.sweeps == 0 and alive() is not None
    h.tick()                                   # the room has been quiet long enough
    assert h.sweeps == 1 and alive() is None and building


def test_a_busy_room_is_not_swept_until_many_sessions_have_closed(policy):
    h, clock = policy
    clock.now += heap.MIN_SPACING
    kept = []
    alive, page = closed_page()
    h.tick()
    del page
    for i in range(heap.MAX_CLOSED - 1):
        h.session_closed()
        kept.append([[] for _ in range(heap.QUIET_OBJECTS)])   # a page being built every second
        h.tick()
    assert h.sweeps == 0 and alive() is not None
    assert h.quiet == 0
    h.session_closed()                         # one more: the memory bound forces the sweep
    h.tick()
    assert h.sweeps == 1 and alive() is None


def test_sweeps_are_spaced_even_in_a_quiet_room(policy):
    h, clock = policy
    clock.now += heap.MIN_SPACING
    close(h, heap.QUIET_CLOSED)
    for _ in range(heap.QUIET_TICKS):
        h.tick()
    assert h.sweeps == 1
    close(h, heap.QUIET_CLOSED)
    clock.now += heap.MIN_SPACING / 2
    for _ in range(3 * heap.QUIET_TICKS):
        h.tick()
    assert h.sweeps == 1                       # too soon after the last one
    clock.now += heap.MIN_SPACING / 2
    h.tick()
    assert h.sweeps == 2


def test_a_quiet_room_is_swept_now_and_then_for_garbage_no_session_left(policy):
    h, clock = policy
    alive, page = closed_page()
    h.tick()
    del page                                   # a cycle some background work left behind
    clock.now += heap.STRAY_SPACING - 1
    for _ in range(heap.QUIET_TICKS):
        h.tick()
    assert h.sweeps == 0 and alive() is not None
    clock.now += 1
    h.tick()
    assert h.sweeps == 1 and alive() is None


def test_settle_freezes_what_is_alive_and_counts_it(policy):
    h, _ = policy
    h.settle()
    assert gc.get_freeze_count() > 1000 and h.kept == gc.get_freeze_count()
    assert sum(len(gc.get_objects(g)) for g in range(3)) < 1000
