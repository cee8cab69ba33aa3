"""A server stopped while its model worker is inside a long computation (Ctrl-C during the warm-up)
ends within the exit wait, says so in one line and exits cleanly, instead of waiting on the worker
and aborting as Python shuts down under it."""
import subprocess
import sys
import time

from tests.ui.helpers import ROOT

SCRIPT = """
import time
from serving.workqueue import FairQueue
queue = FairQueue()
started = []
queue.submit(None, lambda: (started.append(1), time.sleep(60)), (), {})
while not started:
    time.sleep(0.01)
print("computing", flush=True)
"""


def test_a_stop_during_a_long_job_ends_within_the_exit_wait():
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    assert done.returncode == 0 and "computing" in done.stdout
    assert "the model worker was still computing after 3 s; ended without waiting for it" in done.stderr
    assert "terminate called" not in done.stderr and "Traceback" not in done.stderr
    assert took < 30                        # the 60 s job was not waited for


def test_a_stop_between_jobs_exits_at_once_without_a_word():
    done = subprocess.run([sys.executable, "-c", "from serving.workqueue import FairQueue; FairQueue()"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
