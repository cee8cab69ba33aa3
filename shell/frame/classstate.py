"""One server's class: everything a served lab keeps across its pages, in one object.

A server (one process, or each of the `--num-procs` processes) holds a class: the pair it serves and
its model service, the students' browsers (their tabs and allowances, their settings across page
loads), the open sessions, the class poll and each page's ballot, the line of pages waiting for
their build, the garbage collector's policy, the lecturer's token attempts, the gate every page request passes (shell.room.gate), the start-up load and
warm-up, and the class's shared store when several processes serve it. All of it lives in one
`ClassState`, made when the server starts (shell/start.py, else the first page) and kept in Panel's
process-wide cache (`pn.state.as_cached`); a page reaches it with `class_state()` and hands a chapter
what it needs through the student's LabState (its model service, its ballot). The server's class
installs the library interception (intercept.install), once, with its page gate. Importing the
shell makes none of it: no file is opened, nothing patched, until the server starts.

    the_class = class_state()            # this server's, made on first use
    the_class = ClassState()             # a fresh one, alone in memory (tests)
"""
from __future__ import annotations

import panel as pn

import intercept
from serving.runtime import PairInUse
from shell.room.browsers import Browsers
from shell.frame.heap import Heap
from shell.room.identity import Signer, browsers_per_address, new_id_limit, signing_key, votes_per_address
from shell.room.attempts import Attempts
from shell.room.gate import PageGate
from shell.room.line import PageLine
from shell.frame.loading import PairLoader
from shell.poll.answers import Ballots
from shell.poll.shared import class_poll
from shell.room.sessions import OpenPages, browser_id
from shell.room.snapshots import Snapshots
from shell.frame.warmup import WarmUp
from uikit.panels import Badges

CACHE_KEY = "speclab-class-state"     # its key in Panel's process-wide cache


class ClassState:
    """The class one server holds. `store`: the class's shared store (shell.store.shared.ClassStore) when
    several processes serve it, else None (everything in this process's memory); `problem`: the
    sentence every page shows when the store could not be opened; `environ`: where the settings a
    lecturer may set are read (default os.environ)."""

    def __init__(self, store=None, problem: str | None = None, environ=None):
        self.store, self._problem = store, problem
        per_address = browsers_per_address(environ)
        self.pair = PairInUse()                          # the pair in use and its model service
        self.heap = Heap()                               # the garbage collector's policy (shell.frame.heap)
        self.heap_tick = self.heap.tick                  # one function object: scheduled once per server
        self.loader = PairLoader(self.pair, self.heap)   # the start-up load, with progress
        self.warmup = WarmUp()                           # the default demos, once the pair is in
        self.line = PageLine()                           # pages waiting for their build (shell.room.line)
        self.signer = Signer(signing_key(store))         # browser ids (shell.room.identity)
        self.new_ids = new_id_limit(store, environ)
        self.browsers = Browsers(per_address)            # each page's browser, tabs and allowances
        self.snapshots = Snapshots(store=store)          # settings across page loads
        self.open_pages = OpenPages(store, self.heap, self.pair.service)    # the open sessions
        self.attempts = Attempts(store=store)            # wrong lecturer tokens
        from shell.lecturer.controls import configured_token
        self.gate = PageGate(per_address, self.signer, self.attempts, configured_token)   # page requests
        self.poll = class_poll(store, votes_per_address(environ))    # the class poll's votes
        self.ballots = Ballots(self.poll, lambda: browser_id(self))        # each page's way into it
        self.badges = Badges()                           # every open page's pair badge
        from shell.lecturer.classwide import share_with_other_processes, take_share_of_cores
        take_share_of_cores()
        if store is not None:
            share_with_other_processes(self)

    @classmethod
    def open(cls, environ=None) -> ClassState:
        """The class of a server starting now: with the class's shared store when several processes
        serve it (shell.store.shared.open_class_store), and the library interception installed with
        its page gate (intercept.install: every page request, message, value and click checked)."""
        from shell.store.shared import open_class_store
        store, problem = open_class_store(environ)
        the_class = cls(store, problem, environ)
        intercept.install(the_class.gate)
        return the_class

    def store_problem(self) -> str | None:
        """The sentence every page shows while the class store is refused or failing, else None."""
        return self._problem if self.store is None else self.store.problem

    def start_models(self) -> None:
        """Load the pair in the background (pages show its progress meanwhile), then compute the
        default demos for first clicks; once per server, later calls change nothing."""
        self.loader.start()
        self.warmup.start(self.loader)


def class_state() -> ClassState:
    """This server's class state, made on the first call (the server's start, or its first page)."""
    return pn.state.as_cached(CACHE_KEY, ClassState.open)
