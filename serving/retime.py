"""Re-time a busy cost profile at the server's next quiet moment, so a class is priced by one
trustworthy profile without anyone pressing "Measure".

A profile timed while the machine was loaded is flagged busy (lab.speed.costs): its figures are not
to be trusted, and every verdict on chapters 10–13 prices with it. The `Retimer` looks every few
seconds; when a loaded draft variant's shared profile is busy and the server is quiet — no student's
model work for QUIET_FOR seconds (a class between activities, or gone) and a load average under the
cores — it measures that profile again on the worker,
a timed call at a time under the server's own owner (a student's click goes between two calls), and
every later request is priced by the new one (ModelService.outcome names the figure it replaces).
A profile flagged busy again is tried at the next quiet moment after lab.speed.costs.RETRY_AFTER.

    retimer = Retimer(service); retimer.start()     # shell.frame.warmup, after the warm-up
    retimer.check()                                  # one look now: the variants re-timed (tests)
"""
from __future__ import annotations

import logging
import threading
import time

from lab.speed import costs

log = logging.getLogger(__name__)

CHECK_EVERY = 5.0     # seconds between two looks
QUIET_FOR = 30.0      # seconds without a student's model work before a quiet moment


def quiet(service, load: float | None = None, n_cores: int | None = None, quiet_for: float = QUIET_FOR) -> bool:
    """A quiet moment: no job waits for the model worker, no student's model work ran for `quiet_for`
    seconds (a class clicking keeps the worker for itself: a timing amid its clicks would both delay
    them and be flagged busy again), and the one-minute load average is under the cores (what
    lab.speed.costs.is_busy would flag a profile for)."""
    load = costs.load_average() if load is None else load
    n_cores = costs.cores() if n_cores is None else n_cores
    return service.pending() == 0 and service.idle_for() >= quiet_for and load < n_cores


class Retimer:
    """Looks every `every` seconds for a busy shared profile and re-times it when `is_quiet(service)`."""

    def __init__(self, service, every: float = CHECK_EVERY, is_quiet=quiet):
        self.service, self.every, self.is_quiet = service, every, is_quiet
        self.stopped = threading.Event()
        self.retimed = 0                       # profiles measured again so far

    def busy_variants(self) -> list[str]:
        """The loaded draft variants whose shared profile is flagged busy and old enough to time again."""
        from lab.pairs.variants import VARIANTS
        now = time.monotonic()
        return [v for v in VARIANTS if (p := self.service.profiles.already_measured(v)) is not None
                and p.busy and now - p.measured_at > costs.RETRY_AFTER]

    def check(self) -> list[str]:
        """One look: re-time every busy profile while the server stays quiet; the variants re-timed."""
        done = []
        for variant in self.busy_variants():
            if not self.is_quiet(self.service):
                break
            profiles = self.service.profiles
            old = profiles.already_measured(variant)
            new = self.service.submit(profiles.of_steps, variant, retry_busy=True).result()
            if new is not old:
                self.retimed += 1
                done.append(variant)
                log.info("re-timed the %s draft's cost profile at a quiet moment: %s", variant,
                         "still busy" if new.busy else "reliable now")
        return done

    def run(self) -> None:
        while not self.stopped.wait(self.every):
            try:
                self.check()
            except Exception:            # a failed timing: the next look tries again
                log.warning("re-timing a busy cost profile failed", exc_info=True)

    def start(self) -> "Retimer":
        threading.Thread(target=self.run, name="re-time", daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopped.set()
