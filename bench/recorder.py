"""What a bench measured: latencies per interaction, errors, and the served lab's log."""
from __future__ import annotations

import statistics
import time
from collections import defaultdict
from pathlib import Path


SLOW = 1.0        # seconds: an interaction this slow is listed with when it started
SHOWN_SLOW = 8


class Recorder:
    """Latencies by interaction name, and the errors of a run, printed as a p50/p95 table."""

    def __init__(self):
        self.latency = defaultdict(list)
        self.started = defaultdict(list)   # wall-clock start of each latency, to match the server log
        self.errors: list[str] = []

    def add(self, name: str, seconds: float):
        self.latency[name].append(seconds)
        self.started[name].append(time.time() - seconds)

    def merge(self, other: "Recorder"):
        for name, xs in other.latency.items():
            self.latency[name].extend(xs)
            self.started[name].extend(other.started[name])
        self.errors.extend(other.errors)

    def report(self):
        print(f"\n{'interaction':22} {'n':>5} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}")
        for name, xs in sorted(self.latency.items()):
            xs = sorted(xs)
            p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
            print(f"{name:22} {len(xs):5d} {statistics.median(xs) * 1e3:9.0f} {p95 * 1e3:9.0f} {xs[-1] * 1e3:9.0f}")
        slow = sorted(((x, t, name) for name, xs in self.latency.items()
                       for x, t in zip(xs, self.started[name]) if x > SLOW), reverse=True)
        for x, t, name in slow[:SHOWN_SLOW]:
            clock = time.strftime("%H:%M:%S", time.localtime(t)) + f",{int(t % 1 * 1000):03d}"
            print(f"slow: {name} took {x:.2f} s from {clock} (the server log's clock)")
        print(f"errors: {len(self.errors)}")
        for e in self.errors[:10]:
            print("  ", e)


def report_server_log(log: Path) -> None:
    """Print how many tracebacks the server logged (and the last lines of the first), leaving out
    tornado's notices of a tab closed while the server was sending: they are not a lab error."""
    err = log.read_text(errors="replace")
    benign = ("WebSocketClosedError", "StreamClosedError")
    blocks = [b for b in err.split("Traceback")[1:] if not any(x in b for x in benign)]
    closed = err.count("Traceback") - len(blocks)
    print(f"server tracebacks: {len(blocks)} (plus {closed} 'tab closed while sending' notices)")
    if blocks:
        print("first one (its last lines):\n" + "\n".join(blocks[0].splitlines()[-14:]))
    print(f"server log: {log}")
