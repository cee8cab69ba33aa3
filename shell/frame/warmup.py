"""Start-up warm-up: the default demos computed once per server, so a first click answers at once.

A new student starts from the default prompt and settings (uikit.state.LabState). Once the pair has
loaded, the server measures the pair's cost profile that every page prices time with, then computes
what each chapter declares its first click asks the model service for at those defaults
(`Chapter.warmup`: chapter 1's race, 2's guesses, 4's first rounds, the rounds 5, 8 and 9 share, 7's
p and q, and the default request's outcome that 10–13 show), then the lab's default drafting of
that request (chapter 12's default row, the lecturer's view: shell.lecturer.drafting), so the page
finds it in the service's cache. The jobs go one at a time through the model worker under the server's own owner, and a long generation goes a round at a time
(ModelService.generation_steps), so a student who clicks meanwhile is served between two rounds and
never waits behind the whole warm-up.

    WarmUp().start(loader)   # once per server (its class state's), after the pair is loaded
    run(service)             # the same, now, on this thread

After the warm-up the server keeps one thing going: a cost profile timed while the machine was busy
is timed again at the next quiet moment (serving.retime), not on a student's press.
"""
from __future__ import annotations

import logging
import threading
import time

from serving import startup
from shell.lecturer import drafting as lecturer_drafting
from uikit.state import LabState

log = logging.getLogger(__name__)


def jobs(service) -> list[tuple[str, object, tuple, dict]]:
    """(what, fn, args, kwargs) for each default demo: the pair's cost profile, then what each chapter
    declares (Chapter.warmup), each once."""
    from chapters import registry
    student = LabState(service)                # what a new student starts from
    # First the pair's cost profile (serving.serviceprofiles): chapter 1's race, chapter 3 and every request's
    # outcome are priced with it. One job of some seconds, timed before the class arrives (a profile
    # timed under a class's load is flagged busy); a timed call at a time, so a student's click goes
    # between two calls rather than after them all.
    out = [("the pair's cost profile", service.profiles.of_steps, (), {})]
    for page in registry.chapter_pages():
        out += [job for job in page.chapter_class.warmup(student) if job[0] not in {j[0] for j in out}]
    return out + [lecturer_drafting.warmup_job(service)]



def run(service, owner=None) -> list[str]:
    """Compute every default demo on the model worker, one job at a time; returns what was done.
    A job that fails is logged and skipped: the chapter will compute it on its first click."""
    done, started, todo = [], time.monotonic(), jobs(service)
    startup.announce(service, len(todo), log)       # "about N s (this machine is busy: load …)"
    for what, fn, args, kwargs in todo:
        try:
            service.submit(fn, *args, owner=owner, **kwargs).result()
            done.append(what)
        except Exception:
            log.warning("warm-up: %s could not be computed", what, exc_info=True)
    log.info("warm-up: %d default demos ready in %.0f s", len(done), time.monotonic() - started)
    return done


class WarmUp:
    """A server's warm-up: `work(service)` (default `run`) on the pair's model service once the pair
    has loaded, started once."""

    def __init__(self, work=None):
        """`work`: what to run on the service (a test passes its own); None: `run`."""
        self.work = work or run
        self.started = False
        self.done = False          # the work has run (the lecturer's view says what it is waiting for)
        self.retimer = None        # re-times a busy cost profile once the warm-up is done (serving.retime)
        self._lock = threading.Lock()

    def start(self, loader, interval: float = 0.5) -> bool:
        """Start in the background unless started already (returns whether it started now), looking
        every `interval` seconds whether `loader` (shell.frame.loading.PairLoader) has the pair; the work
        runs on the service of the loader's pair."""
        with self._lock:
            if self.started:
                return False
            self.started = True
        threading.Thread(target=self._when_loaded, args=(loader, interval), name="warm-up", daemon=True).start()
        return True

    def _when_loaded(self, loader, interval: float) -> None:
        while not (loader.ready or loader.error):
            time.sleep(interval)
        if loader.ready:
            from serving.retime import Retimer
            service = loader.pair_in_use.service()
            self.work(service)
            self.done = True
            # from now on a cost profile timed under load is timed again at the next quiet moment
            self.retimer = Retimer(service).start()
