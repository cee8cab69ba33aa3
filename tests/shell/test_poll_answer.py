"""The lecturer's histogram marks the correct answer once the question is revealed (where the
lecturer's page knows it: a fixed answer, or the chapter's result on screen), and a tab that closes
leaves the class's counts at once (shell.room.tabclose), not when Bokeh discards its session."""
from bokeh.document import Document
from bokeh.events import ConnectionLost

from shell.poll.answers import Ballot, PollStore
from shell.poll.view import PollView
from shell.room.tabclose import when_tab_closes
from uikit.predict import PredictCard
from uikit.state import LabState

CHOICES = ["1", "5", "6", "10"]


def marked(view, number):
    """(the ✓ bar's index or None, whether the legend says so) on the lecturer's histogram."""
    chart = view.questions[number].chart
    return chart.counts[2], "✓ the answer" in chart.words.object


def test_the_lecturers_histogram_marks_a_fixed_answer_once_revealed(tiny_service):
    store = PollStore(salt=b"t")
    lecturer = Ballot(store, "lecturer", votes=False)
    PredictCard(LabState(tiny_service), 3, "How many?", choices=CHOICES, answer="1", ballot=lecturer)
    Ballot(store, "a", "sa").vote(3, "1")
    Ballot(store, "b", "sb").vote(3, "5")
    view = PollView(store, current=3, ballot=lecturer)
    assert marked(view, 3) == (None, False)              # nothing marked before the reveal
    store.reveal(3)
    assert marked(view, 3) == (0, True) and view.questions[3].chart.counts[0] == (1, 1, 0, 0)


def test_an_answer_from_the_experiment_is_marked_once_the_lecturers_page_has_run_it(tiny_service):
    store = PollStore(salt=b"t")
    lecturer = Ballot(store, "lecturer", votes=False)
    card = PredictCard(LabState(tiny_service), 3, "How many?", choices=CHOICES, answer=lambda: "5", ballot=lecturer)
    Ballot(store, "a", "sa").vote(3, "5")
    view = PollView(store, current=3, ballot=lecturer)
    store.reveal(3)
    assert marked(view, 3) == (None, False)              # the experiment has not run on this page
    card.reveal()                                        # it has now: the histogram follows at once
    assert marked(view, 3) == (1, True)


def test_a_closed_tab_calls_back_at_once_and_a_failing_callback_stays_quiet():
    doc, calls = Document(), []
    when_tab_closes(doc, lambda: calls.append("left"))
    when_tab_closes(doc, lambda: 1 / 0)                  # logged, never raised into the websocket handler
    doc.callbacks.trigger_event(ConnectionLost())
    assert calls == ["left"]


def test_a_closed_tab_leaves_the_open_pages_once_and_its_page_counts_as_garbage_when_discarded():
    from shell.frame.heap import Heap
    from shell.room.sessions import OpenPages
    heap = Heap()
    room, heard = OpenPages(heap=heap), []
    room.subscribe(lambda number, what: heard.append(what))
    room.join("s1", Document(), None)
    room.leave("s1", discarded=False)                    # the tab closed: out of the count at once
    assert len(room) == 0 and heard == ["sessions", "sessions"] and heap.closed == 0
    room.leave("s1")                                     # Bokeh discards the session later
    assert heard == ["sessions", "sessions"] and heap.closed == 1
