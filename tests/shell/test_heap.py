"""shell.frame.heap: what lives a second leaves the collector's reach; a sweep frees the closed pages."""
import gc
import weakref

import pytest

from shell.frame import heap
class Page:
    """A page-like cycle: freed only by the cyclic collector, never by reference counts alone."""
    def __init__(self):
        self.me = self


class Room:
    """A fake wall clock and event-loop CPU clock: each `second` the loop is busy or quiet."""
    def __init__(self):
        self.wall = self.cpu = 0.0
        self.policy = heap.Heap(clock=lambda: self.wall, cpu=lambda: self.cpu)

    def second(self, busy=False, ticks=1):
        for _ in range(ticks):
            self.wall += 1.0
            self.cpu += 0.6 if busy else 0.02
            self.policy.tick()

    def close(self, sessions):
        for _ in range(sessions):
            self.policy.session_closed()


@pytest.fixture(scope="module")
def frozen():
    """The test process's heap frozen once for the module (a full collection of it takes a second):
    each test's `settle` then collects only what is new, as the server's does after start-up."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()                              # leave the test process's collector as it found it
    gc.collect()


@pytest.fixture
def room(frozen):
    r = Room()
    r.policy.settle()                          # the test process's heap, as the server's at start-up
    return r


def closed_page(room):
    """A page that has lived a second (frozen by a tick), then closed: a weak reference to it."""
    page = Page()
    alive = weakref.ref(page)
    room.second(busy=True)
    del page
    return alive


def test_a_page_that_lived_a_tick_survives_collections_until_a_sweep(room):
    alive = closed_page(room)
    room.close(1)
    gc.collect()                               # Panel's collection after a session closes
    assert alive() is not None                 # out of the collector's reach (that is the point)
    room.policy.sweep()
    assert alive() is None and room.policy.sweeps == 1 and room.policy.closed == 0


def test_a_quiet_room_is_swept_once_enough_sessions_have_closed(room):
    alive = closed_page(room)
    room.wall += heap.MIN_SPACING
    room.second(ticks=heap.QUIET_TICKS)        # quiet, but nothing has closed: no sweep
    room.close(heap.QUIET_CLOSED - 1)
    room.second(ticks=heap.QUIET_TICKS)        # too few closed pages to be worth a sweep
    assert room.policy.sweeps == 0 and alive() is not None
    room.close(1)
    room.second(busy=True)                     # a busy second: the quiet starts again
    room.second(ticks=heap.QUIET_TICKS - 1)
    assert room.policy.sweeps == 0 and alive() is not None
    room.second()                              # the room has been quiet long enough
    assert room.policy.sweeps == 1 and alive() is None


def test_a_busy_room_is_not_swept_until_many_sessions_have_closed(room):
    alive = closed_page(room)
    room.wall += heap.MIN_SPACING
    for _ in range(heap.MAX_CLOSED - 1):
        room.close(1)
        room.second(busy=True)                 # students dragging sliders and opening pages
    assert room.policy.sweeps == 0 and alive() is not None and room.policy.quiet == 0
    room.close(1)                              # one more: the memory bound forces the sweep
    room.second(busy=True)
    assert room.policy.sweeps == 1 and alive() is None


def test_sweeps_are_spaced_even_in_a_quiet_room(room):
    room.wall += heap.MIN_SPACING
    room.close(heap.QUIET_CLOSED)
    room.second(ticks=heap.QUIET_TICKS)
    assert room.policy.sweeps == 1
    room.close(heap.QUIET_CLOSED)
    room.second(ticks=int(heap.MIN_SPACING) - 1)
    assert room.policy.sweeps == 1             # too soon after the last one
    room.second()
    assert room.policy.sweeps == 2


def test_a_quiet_room_is_swept_now_and_then_for_garbage_no_session_left(room):
    alive = closed_page(room)                  # a cycle some background work left behind
    room.wall += heap.STRAY_SPACING - heap.QUIET_TICKS - 2   # the page lived a second of it
    room.second(ticks=heap.QUIET_TICKS)
    assert room.policy.sweeps == 0 and alive() is not None
    room.second()
    assert room.policy.sweeps == 1 and alive() is None


def test_settle_freezes_what_is_alive_and_counts_it(room):
    assert gc.get_freeze_count() > 1000 and abs(room.policy.kept - gc.get_freeze_count()) < 1000
    assert sum(len(gc.get_objects(g)) for g in range(3)) < 1000
