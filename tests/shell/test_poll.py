"""The class poll without a browser: the store's rules, its listeners, the cards and the lecturer's view."""
import threading

import pytest

from shell.poll.answers import Ballot, PollStore, Question
from shell.poll.view import PollView, left_out_text, status_html
from shell.poll.shared import SharedPollStore
from shell.store.redis.store import RedisStore
from shell.store.sqlite import SQLiteStore
from tests.shell.redisserver import RedisServer
from uikit.predict import PredictCard


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(params=["memory", "sqlite", "redis"])
def make_store(request, tmp_path):
    """A fresh poll store: one process's (in memory) or in the class's shared store (a SQLite file or a
    Redis server: shell.store), which must keep the same rules; each call a store of its own."""
    made = []

    def make(salt=b"test", per_address=None):
        if request.param == "memory":
            return PollStore(salt=salt, per_address=per_address)
        if request.param == "sqlite":
            made.append(SQLiteStore(tmp_path / f"class-{len(made)}.sqlite", interval=3600))
        else:
            made.append(RedisStore(request.getfixturevalue("redis_server").url, interval=3600,
                                   prefix=f"{tmp_path.name}-{len(made)}:"))
        return SharedPollStore(made[-1], per_address=per_address)
    yield make
    for store in made:
        store.stop()


def store_with_questions(make_store):
    store = make_store()
    store.ask(Question(10, "choice", ("faster", "slower")))
    store.ask(Question(2, "number", bounds=(0, 20)))
    return store


def test_one_vote_per_browser_its_latest_answer(make_store):
    store = store_with_questions(make_store)
    assert store.vote(10, "a" * 32, "faster") is None
    assert store.vote(10, "b" * 32, "slower") is None
    assert store.vote(10, "c" * 32, "slower") is None
    assert store.tally(10).counts == (1, 2)
    assert store.vote(10, "a" * 32, "slower") is None        # a changed answer moves the vote
    assert store.tally(10).counts == (0, 3) and store.tally(10).answered == 3


def test_numbers_are_a_histogram_of_the_numbers(make_store):
    store = store_with_questions(make_store)
    for browser, n in (("a", 12), ("b", 12), ("c", 7)):
        assert store.vote(2, browser, n) is None
    counts = store.tally(2).counts
    assert len(counts) == 21 and counts[12] == 2 and counts[7] == 1


@pytest.mark.parametrize("number, value, says", [
    (11, "faster", "There is no question 11"),
    ("10", "faster", "There is no question '10'"),
    (10, "x" * 10_000, "at most 200 characters"),
    (10, "sooner", "'sooner' is not one of question 10's choices"),
    (10, {"evil": 1}, "one of its choices"),
    (2, 21, "from 0 to 20"),
    (2, -1, "from 0 to 20"),
    (2, 2.5, "takes a whole number"),
    (2, True, "takes a whole number"),
    (2, "12", "takes a whole number"),
    (2, float("nan"), "takes a whole number"),
])
def test_a_bad_vote_gets_one_sentence_and_changes_nothing(make_store, number, value, says):
    store = store_with_questions(make_store)
    store.vote(10, "a", "faster")
    before = (store.tally(10), store.tally(2))
    heard = []
    store.subscribe(lambda n, what: heard.append((n, what)))
    sentence = store.vote(number, "b", value)
    assert says in sentence and sentence.count(". ") == 0 and len(sentence) < 200
    assert (store.tally(10), store.tally(2)) == before and heard == []


def test_votes_are_anonymous(make_store):
    store = store_with_questions(make_store)
    store.vote(10, "f" * 32, "faster")
    tally = store.tally(10)
    assert "f" * 32 not in repr(tally) and "f" * 32 not in repr(store.__dict__)
    other = make_store(salt=b"other")
    assert other.voter("f" * 32) != store.voter("f" * 32)   # salted per server


def test_reveal_freezes_votes_reset_clears(make_store):
    store = store_with_questions(make_store)
    store.vote(10, "a", "faster")
    store.reveal(10)
    assert store.tally(10).revealed
    assert "already revealed" in store.vote(10, "a", "slower")
    assert store.vote(10, "a", "faster") is None                # the same answer (a reload) is fine
    assert store.tally(10).counts == (1, 0)
    store.reset(10)
    assert store.tally(10).counts == (0, 0) and not store.tally(10).revealed
    store.vote(10, "a", "faster"), store.vote(2, "a", 3)
    store.reveal(2)
    store.reset_all()
    assert store.tally(10).answered == store.tally(2).answered == 0 and not store.tally(2).revealed


def test_first_definition_of_a_question_stands_and_specs_are_checked(make_store):
    store = store_with_questions(make_store)
    assert store.ask(Question(10, "choice", ("other",))).choices == ("faster", "slower")
    with pytest.raises(ValueError):
        Question(0, "choice", ("a",))
    with pytest.raises(ValueError):
        Question(3, "number", bounds=(0, 10_000))
    with pytest.raises(ValueError):
        Question(3, "essay")


def test_listeners_hear_every_change_and_threads_do_not_lose_votes(make_store):
    store = store_with_questions(make_store)
    heard = []
    stop = store.subscribe(lambda n, what: heard.append((n, what)))
    threads = [threading.Thread(target=store.vote, args=(10, f"browser{i}", ("faster", "slower")[i % 2]))
               for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.tally(10).counts == (20, 20) and len(heard) == 40
    stop()
    store.reveal(10)
    assert len(heard) == 40


def test_connected_counts_browsers_not_pages(make_store):
    store = store_with_questions(make_store)
    store.join("s1", "a"), store.join("s2", "a"), store.join("s3", "b")
    assert store.tally(10).connected == 2
    store.leave("s3")
    assert store.tally(10).connected == 1


def said(store, number) -> tuple[int, int, int, str]:
    """(here, connected, answered, the sentence) of question `number`'s tally."""
    t = store.tally(number)
    return t.here, t.connected, t.answered, t.summary()


def test_the_count_never_exceeds_the_browsers_here_in_any_state(make_store):
    """Browsers leaving, coming back, a reset and a question never opened: "N of M browsers here"
    always has N ≤ M, and answers of browsers that left are said apart."""
    store = store_with_questions(make_store)
    assert store.tally(5) is None                                   # never opened: no tally at all
    view = PollView(store)
    assert "No one has opened this question yet" in view.questions[5].status.object
    for sid, browser in (("s1", "a"), ("s2", "b"), ("s3", "c"), ("s4", "c")):
        store.join(sid, browser)
    for browser in "abc":
        store.vote(10, browser, "slower")
    assert said(store, 10) == (3, 3, 3, "3 of 3 browsers here have answered")
    store.leave("s1"), store.leave("s2")                            # two students leave
    assert said(store, 10) == (1, 1, 3, "1 of 1 browser here has answered · 2 answers from browsers that have left")
    store.leave("s3")                                               # c still has a tab open
    assert said(store, 10)[:2] == (1, 1)
    store.leave("s4")                                               # nobody here: the projector alone
    assert said(store, 10) == (0, 0, 3, "No browser has a question page open now · 3 answers from browsers "
                                        "that have left")
    store.join("s5", "a")                                           # a reconnects: its vote is here again
    store.join("s6", "d")                                           # and a new student arrives
    assert said(store, 10) == (1, 2, 3, "1 of 2 browsers here has answered · 2 answers from browsers that "
                                        "have left")
    assert said(store, 2) == (0, 2, 0, "0 of 2 browsers here have answered")    # opened, unanswered
    store.reset(10)                                                 # a reset forgets every answer
    assert said(store, 10) == (0, 2, 0, "0 of 2 browsers here have answered")
    store.vote(10, "d", "faster"), store.vote(2, "a", 4)
    store.reset_all()
    assert said(store, 10)[::2] == said(store, 2)[::2] == (0, 0)
    view.refresh({None})
    assert "0 of 2 browsers here have answered." in view.questions[10].status.object


def test_students_card_and_lecturer_say_the_same_count(make_store, state):
    store = make_store()
    ballots = [Ballot(store, browser, session_id=f"s{i}") for i, browser in enumerate("abc")]
    cards = [PredictCard(state, 3, "How many calls?", choices=["1", "5"], answer="1", ballot=b) for b in ballots]
    view = PollView(store)
    for card, choice in zip(cards, ("1", "5", "5")):
        card.__panel__()
        card.commit(choice)
    ballots[2].close()                                              # c leaves after answering
    store.reveal(3)
    caption = cards[0].class_answers.chart.words.object
    expected = "2 of 2 browsers here have answered · 1 answer from a browser that has left"
    assert expected in caption and expected in view.questions[3].status.object


def test_card_votes_changes_its_vote_and_shows_the_class_on_reveal(make_store, state):
    store = make_store()
    mine, theirs = Ballot(store, "me"), Ballot(store, "them")
    card = PredictCard(state, 3, "How many calls?", choices=["1", "5"], answer="1", ballot=mine)
    card.__panel__()
    other = PredictCard(state, 3, "How many calls?", choices=["1", "5"], answer="1", ballot=theirs)
    card.commit("5")
    other.commit("5")
    assert store.tally(3).counts == (0, 2) and "change your answer" in card.verdict_text
    card.commit("1")                                         # before the reveal: replaces the vote
    assert store.tally(3).counts == (1, 1) and card.committed == "1"
    assert not card.class_answers.view.visible
    store.reveal(3)
    assert card.class_revealed and card.class_answers.view.visible and card.locked
    assert all(b.disabled for b in card.buttons)
    assert "✓ Right." in card.verdict_text                # the static answer is computed at once
    assert "1 (50%) · you ✓" in card.class_answers.chart.source.data["label"][0]
    assert "your answer" in card.class_answers.chart.words.object
    card.commit("5")                                         # locked now
    assert store.tally(3).counts == (1, 1) and card.committed == "1"
    store.reset(3)
    assert not card.class_revealed and not card.locked and "press your answer again" in card.notice_text


def test_card_refuses_a_crafted_number_in_one_sentence(make_store, state):
    store = make_store()
    card = PredictCard(state, 2, "How many?", answer=lambda: 7, bounds=(0, 20), ballot=Ballot(store, "me"))
    card.number_box.value = 10 ** 9                             # what a crafted message could send
    card.lock_button.clicks += 1
    assert card.committed is None and "from 0 to 20" in card.notice_text
    assert store.tally(2).answered == 0
    card.number_box.value = 9
    card.lock_button.clicks += 1
    assert card.committed == 9 and card.notice_text == "" and store.tally(2).counts[9] == 1


def test_live_answer_waits_for_the_run_on_reveal(make_store, state):
    store = make_store()
    card = PredictCard(state, 2, "How many?", answer=lambda: 7, bounds=(0, 20), ballot=Ballot(store, "me"))
    card.commit(9)
    store.reveal(2)
    assert "run the experiment below" in card.verdict_text and card.class_answers.view.visible
    card.reveal()
    assert "Not quite" in card.verdict_text


def test_projected_card_counts_votes_as_they_arrive_and_shows_the_bars_after_the_reveal(make_store, state):
    """The projector says how many answered while the class answers, never what: the bars, their
    counts and the answer's mark show after the lecturer's reveal."""
    store = make_store()
    card = PredictCard(state, 4, "Whose?", choices=["x", "y"], answer="x", ballot=Ballot(store, "projector"))
    card.projected()
    assert card.class_answers.view.visible
    store.join("s1 page", "s1")
    store.join("s2 page", "s2")
    store.vote(4, "s1", "y")
    store.vote(4, "s2", "y")
    chart = card.class_answers.chart
    assert chart.source.data["n"] == [0, 0] and not any(chart.source.data["label"])    # no bars, no counts
    assert "2 of 2 browsers here have answered" in chart.words.object and "✓" not in chart.words.object
    assert "B y" not in chart.words.object
    store.reveal(4)
    assert chart.source.data["n"] == [0, 2] and "revealed" in chart.words.object
    assert "✓ the answer" in chart.words.object


def test_lecturer_view_follows_the_store(make_store):
    store = store_with_questions(make_store)
    view = PollView(store)
    q10 = view.questions[10]
    assert q10.chart is not None and 'data-q="10"' in q10.status.object
    store.vote(10, "a", "slower")
    assert q10.chart.source.data["n"] == [0, 1]
    assert "No browser has a question page open now · 1 answer from a browser that has left" in q10.status.object
    q10.reveal_button.clicks += 1
    assert store.tally(10).revealed and q10.reveal_button.disabled and "revealed" in q10.status.object
    q10.reset_button.clicks += 1
    assert store.tally(10).answered == 0 and not q10.reveal_button.disabled
    store.vote(10, "a", "slower")
    view.reset_all_button.clicks += 1
    assert store.tally(10).answered == 0
    assert view.questions[1].chart is None and "No one has opened" in view.questions[1].status.object
    store.ask(Question(1, "choice", ("a", "b")))
    assert view.questions[1].chart is not None


def test_the_lecturer_counts_questions_as_the_students_cards_do(make_store):
    from chapters import registry
    view = PollView(store_with_questions(make_store))
    q12 = view.questions[12]                    # chapter 12 asks the 11th question (chapter 11 asks none)
    assert registry.question_position(registry.page_by_number(12).chapter_class) == 11
    assert q12.reveal_button.label == "Reveal question 11" and q12.reset_button.label == "Reset question 11"
    assert "Question 11 · chapter 12" in q12.head.object
    assert view.questions[3].reveal_button.label == "Reveal question 3"


def test_status_line_is_plain_text():
    assert "<" not in status_html(1, None).split(">", 1)[1].rsplit("<", 1)[0]


def test_a_page_gets_a_burst_of_votes_in_one_update(make_store):
    from bokeh.document import Document

    from shell.poll.answers import DocumentWatch

    class Page(Document):                       # a served page's document, its next ticks held here
        ticks = []

        def add_next_tick_callback(self, callback):
            self.ticks.append(callback)

    store, page, seen = store_with_questions(make_store), Page(), []
    DocumentWatch(store, seen.append, doc=page)
    for i in range(40):
        store.vote(10, f"browser{i}", "slower")
    store.reveal(2)
    assert len(page.ticks) == 1 and seen == []          # one callback scheduled for the whole burst
    page.ticks.pop()()
    assert seen == [{10, 2}]
    store.vote(10, "late", "faster")
    assert len(page.ticks) == 1                         # the next change schedules the next update


def test_the_store_is_plain_python():
    """shell.poll.store holds the votes without Panel (a second process could share it): importing it
    alone loads no Panel, and a server's class keeps its poll in memory when it serves alone."""
    import subprocess
    import sys
    code = ("import sys, shell.poll.store, shell.poll.shared; assert 'panel' not in sys.modules "
            "and 'bokeh' not in sys.modules; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
    import shell.poll.answers
    import shell.poll.store
    from shell.frame.classstate import ClassState
    assert shell.poll.answers.Question is shell.poll.store.Question
    assert type(ClassState().poll) is PollStore      # one process serves the tests: the poll in memory


def test_forty_fresh_cookies_from_one_address_count_as_its_few_browsers(make_store):
    """A script voting with a fresh cookie each time, from one address: the server gives it a few
    ids and then the address's pool (shell.room.identity), and counts at most `per_address` of its
    browsers per question; a student at another address still counts."""
    from shell.room import identity
    from tests.helpers import FakeClock
    store = make_store(per_address=4)
    store.ask(Question(10, "choice", ("faster", "slower")))
    signer, new_ids = identity.Signer(b"k" * 32), identity.Buckets(1 / 60, 4, clock=FakeClock(0.0))
    said = [store.vote(10, identity.identify(f"{i:032x}", "10.0.0.66", signer, new_ids), "slower", "10.0.0.66")
            for i in range(40)]
    assert sum(store.tally(10).counts) <= 4
    assert store.vote(10, "s" * 32, "faster", "10.0.0.7") is None and store.tally(10).counts[0] == 1
    # minting slowly for an hour gains nothing either: the address's share is full
    later = [store.vote(10, signer.new(), "slower", "10.0.0.66") for _ in range(60)]
    assert sum(store.tally(10).counts) == 5 and all(s is None for s in said + later)
    assert store.tally(10).left_out >= 60          # kept for their browsers, left out of the histogram
    store.reset(10)
    assert store.vote(10, signer.new(), "slower", "10.0.0.66") is None     # a reset question counts anew


def test_students_sharing_an_address_keep_their_answers_left_out_of_the_histogram(make_store):
    """Three students behind one address with one answer counted per address: each keeps their own
    answer (a changed one too), the histogram counts the first, the tally says 2 were left out and
    names the setting; the students are still here and answered; a reset forgets them all."""
    store = make_store(per_address=1)
    store.ask(Question(3, "choice", ("1", "5", "6", "10")))
    for i, browser in enumerate(("a", "b", "c")):
        store.join(f"session {i}", browser)
    assert [store.vote(3, b, v, "10.0.0.9") for b, v in (("a", "1"), ("b", "5"), ("c", "6"))] == [None] * 3
    assert store.vote(3, "c", "10", "10.0.0.9") is None              # a left-out answer changes too
    assert [store.answer_of(3, b) for b in "abc"] == [0, 1, 3]
    assert [store.left_out(3, b) for b in "abc"] == [False, True, True]
    tally = store.tally(3)
    assert tally.counts == (1, 0, 0, 0) and tally.left_out == 2 and tally.answered == 3 and tally.gone == 0
    assert tally.summary().startswith("3 of 3 browsers here have answered") and "2 not in the histogram" in tally.summary()
    assert "2 answers left out" in left_out_text(tally) and "SPECLAB_VOTES_PER_ADDRESS" in left_out_text(tally)
    store.reveal(3)
    assert store.vote(3, "b", "5", "10.0.0.9") is None                # a reload after the reveal: still kept
    assert "already revealed" in store.vote(3, "b", "1", "10.0.0.9")
    store.reset(3)
    assert store.tally(3).left_out == 0 and store.answer_of(3, "b") is None
    assert store.vote(3, "b", "5", "10.0.0.9") is None and store.tally(3).counts == (0, 1, 0, 0)


def test_a_dropped_press_of_the_lecturers_poll_buttons_is_said_under_the_question():
    """Reveal pressed again after the reveal (its button off): one sentence under its status line."""
    from shell.poll.view import QuestionPoll
    from intercept.clicks import DISABLED
    store = PollStore()
    store.ask(Question(3, "choice", ("yes", "no")))
    view = QuestionPoll(store, 3, "Is it?")
    store.reveal(3)
    view.refresh()
    assert view.reveal_button.disabled and DISABLED not in view.status.object
    view.reveal_button.clicks += 1
    assert "did nothing" in view.status.object and "revealed to the class" in view.status.object
