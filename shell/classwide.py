"""The lecturer's actions for the whole class, however many processes serve it.

With one server process (the default) an action is what it always was: reset clears this process's
model results and reloads its pages; a pair switch loads the pair here. When several processes
serve the class (shell.store), the process that took the lecturer's click does the same and
announces it in the class's shared store; every other process applies it at its next look
(within half a second): it clears its results and reloads its pages, or loads the same pair and
redraws its pages' badges. The model service shares the cost profile and the request outcomes
(serving.service) through the same store, and each process gets its share of the cores for torch.

    n = reset_class(except_id)          # pages sent back to the landing page, in every process
    switched_everywhere(name)           # after this process switched the pair
"""
from __future__ import annotations

import logging
import os

from lab.pairs.load import loaded
from serving import runtime
from shell.sessions import CLASSROOM
from shell.store import CLASS, share_cores
from uikit.panels import pair_switched

log = logging.getLogger(__name__)


def reset_class(except_id: str | None = None) -> int:
    """Clear every model result and send every page but `except_id` back to the landing page, in
    this process and (announced) in the others; returns how many pages that is."""
    runtime.service().clear()
    n = CLASSROOM.reload_all(except_id=except_id)
    if CLASS is not None:
        n += CLASS.sessions_elsewhere()
        CLASS.announce("reset")
    return n


def switched_everywhere(name: str) -> None:
    """This process has switched the pair to `name`: the other processes switch too."""
    if CLASS is not None:
        CLASS.announce("pair", name)


def _reset_here(data) -> None:
    runtime.service().clear(shared=False)        # the announcing process cleared the shared ones
    n = CLASSROOM.reload_all()
    log.info("the lecturer reset the class (%d pages of this process reloaded)", n)


def _switch_here(name) -> None:
    def done(future):
        if future.exception() is None:
            pair_switched()
            log.info("the lecturer switched the pair to %s", name)
        else:
            log.warning("the lecturer's pair %s could not be loaded in this process: %s", name, future.exception())
    runtime.switch_pair(name).add_done_callback(done)


if CLASS is not None:
    threads = share_cores()
    if threads is not None:          # one line per process at start (before shell.app sets the levels)
        log.setLevel(logging.INFO)
        log.info("serving process %d: torch on %d %s%s", os.getpid(), threads,
                 "thread" if threads == 1 else "threads",
                 ", sharing the pair loaded before the fork" if loaded() is not None else "")
    runtime.service().share(CLASS)
    CLASS.every_tick(runtime.service().share_profiles)
    CLASS.on("reset", _reset_here)
    CLASS.on("pair", _switch_here)
