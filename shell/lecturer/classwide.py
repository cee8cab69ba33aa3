"""The lecturer's actions for the whole class, however many processes serve it.

With one server process (the default) an action is what it always was: reset clears this process's
model results and reloads its pages; a pair switch loads the pair here. When several processes
serve the class (shell.store.shared: one machine's SQLite file, or a Redis server several machines
share), the process that took the lecturer's click does the same and announces it in the class's
shared store; every other process, on every machine, applies it at its next look (within half a
second): it clears its results and reloads its pages, or loads the same pair and redraws its pages'
badges. The model service shares the cost profile and the request outcomes
(serving.service) through the same store, and each process gets its share of the cores for torch.
Every function is given the server's class state (shell.frame.classstate).

    n = reset_class(the_class, except_id)     # pages sent back to the landing page, in every process
    switched_everywhere(the_class, name)      # after this process switched the pair
    take_share_of_cores()                     # once per forked process, at start
    share_with_other_processes(the_class)     # once, when the class has a shared store
"""
from __future__ import annotations

import contextlib
import logging
import os

from serving.runtime import loaded_before_fork
from shell.store.shared import StoreFault, share_cores

log = logging.getLogger(__name__)


def reset_class(the_class, except_id: str | None = None) -> int:
    """Clear every model result and send every page but `except_id` back to the landing page, in
    this process and (announced) in the others; returns how many pages that is."""
    the_class.pair.service().clear()
    n = the_class.open_pages.reload_all(except_id=except_id)
    if the_class.store is not None:
        n += the_class.store.sessions_elsewhere()
        with contextlib.suppress(StoreFault):     # said by the store, on the lecturer's view too
            the_class.store.announce("reset")
    return n


def switched_everywhere(the_class, name: str) -> None:
    """This process has switched the pair to `name`: the other processes switch too."""
    if the_class.store is not None:
        with contextlib.suppress(StoreFault):
            the_class.store.announce("pair", name)


def take_share_of_cores() -> None:
    """In a process `--num-procs` forked, torch takes this process's share of the cores, said in one
    line per process at start (before shell.frame.app sets the levels), whether or not the store opened."""
    threads = share_cores()
    if threads is not None:
        log.setLevel(logging.INFO)
        log.info("serving process %d: torch on %d %s%s", os.getpid(), threads,
                 "thread" if threads == 1 else "threads",
                 ", sharing the pair loaded before the fork" if loaded_before_fork() is not None else "")


def share_with_other_processes(the_class) -> None:
    """The class's shared store carries the lecturer's actions, the cost profile and the request
    outcomes between the serving processes."""
    store, service = the_class.store, the_class.pair.service()
    service.share(store)

    def share_profiles() -> None:          # once the pair is loaded: the watch thread never loads it
        if the_class.loader.ready:
            service.profiles.sync(store)
    store.every_tick(share_profiles)

    def reset_here(data) -> None:
        service.clear(shared=False)        # the announcing process cleared the shared ones
        n = the_class.open_pages.reload_all()
        log.info("the lecturer reset the class (%d pages of this process reloaded)", n)

    def switch_here(name) -> None:
        def done(future):
            if future.exception() is None:
                the_class.badges.pair_switched()
                log.info("the lecturer switched the pair to %s", name)
            else:
                log.warning("the lecturer's pair %s could not be loaded in this process: %s", name,
                            future.exception())
        the_class.pair.switch(name).add_done_callback(done)

    store.on("reset", reset_here)
    store.on("pair", switch_here)
