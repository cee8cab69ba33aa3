"""The launcher's hold on the server processes it forks (`python -m serving --num-procs N`).

Tornado forks the N processes and waits on them (`fork_processes`); a process that dies is started
again. What it leaves to us:

- **Stopping.** SIGTERM or SIGINT (Ctrl-C) to the launcher alone would leave the processes it forked
  serving, adopted by PID 1, holding the port. `own_children()` makes the launcher stop them: it
  sends each SIGINT, waits up to `STOP_WAIT` seconds, kills what is left, prints one line
  ("stopped") and exits 0, with no traceback from tornado's `os.wait()`.
- **Quiet children.** Each forked process ends at once and quietly on SIGINT (no "Interrupted,
  shutting down" per process, no KeyboardInterrupt traceback), so Ctrl-C, which reaches every
  process of the terminal's group, prints only the launcher's line.
- **A process that dies** is one line in the log (`DeathLine` rewrites tornado's), and the others
  keep serving while tornado starts it again.

Only the launcher (POSIX) calls this; `panel serve --num-procs N` started directly keeps tornado's
behaviour.
"""
from __future__ import annotations

import logging
import os
import signal
import sys

STOP_WAIT = 6.0       # seconds a process has to end on SIGINT before it is killed
_launcher_pid: int | None = None


def own_children(total: int) -> None:
    """From now on, SIGTERM and SIGINT to this process stop it and every process it forks; each
    forked process ends quietly on SIGINT; a process that dies is one log line."""
    global _launcher_pid
    _launcher_pid = os.getpid()
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    os.register_at_fork(after_in_child=_in_child)
    logging.getLogger("tornado.general").addFilter(DeathLine(total))


def _in_child() -> None:
    """In a process the launcher forked: SIGINT ends it quietly; SIGTERM is Bokeh's again (it
    installs its own handler when its server starts)."""
    if _launcher_pid is None or os.getppid() != _launcher_pid:
        return      # a process forked further down (none today): its own parent's business
    signal.signal(signal.SIGINT, _quiet_exit)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _quiet_exit(signum, frame) -> None:
    """A forked process's SIGINT: end now, quietly (a second SIGINT, from the terminal and from the
    launcher, changes nothing). `os._exit` skips the interpreter's shutdown, which collects every
    object of the process (the pair and the libraries loaded before the fork: many seconds on a
    busy machine, each page of memory copied as it is touched); the process's sockets, files and
    memory go with it, and the class store writes each change in a transaction of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def _stop(signum, frame) -> None:
    """The launcher's SIGTERM and SIGINT: stop the children, say one line, exit."""
    if os.getpid() != _launcher_pid:     # a child before `_in_child` ran: end as it would
        raise SystemExit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # a second Ctrl-C does not cut the stopping short
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    killed = stop_children()
    end = "\r" if sys.stderr.isatty() else ""          # over the terminal's "^C"
    late = (f" ({len(killed)} server process{'es' if len(killed) > 1 else ''} did not end within "
            f"{STOP_WAIT:.0f} s and {'were' if len(killed) > 1 else 'was'} killed)") if killed else ""
    sys.stdout.flush()
    sys.stderr.write(f"{end}stopped{late}\n")
    sys.stderr.flush()
    os._exit(0)


def stop_children(wait: float = STOP_WAIT) -> list[int]:
    """SIGINT to every process this one forked, SIGKILL to those still there after `wait` seconds;
    returns the pids that had to be killed. Each is reaped here."""
    import psutil
    children = psutil.Process().children()
    for child in children:
        try:
            child.send_signal(signal.SIGINT)
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(children, timeout=wait)
    for child in alive:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=2)
    return [child.pid for child in alive]


class DeathLine(logging.Filter):
    """Tornado's line for a server process that died ("child 0 (pid 123) killed by signal 9,
    restarting"), said for the lecturer: which process, how it ended, that the others serve on."""

    def __init__(self, total: int):
        super().__init__()
        self.total = total

    def filter(self, record: logging.LogRecord) -> bool:
        msg, args = record.msg, record.args
        if not isinstance(msg, str) or not msg.startswith("child %d (pid %d)") or not isinstance(args, tuple):
            return True
        index, pid, *code = args
        where = f"server process {index + 1} of {self.total} (pid {pid})"
        if "restarting" not in msg:       # "exited normally": tornado does not start it again
            record.msg, record.args = f"{where} ended", ()
            return True
        if "signal" in msg:
            try:
                how = f"was killed ({signal.Signals(code[0]).name})"
            except ValueError:
                how = f"was killed (signal {code[0]})"
        else:
            how = f"exited with status {code[0]}"
        others = "the other keeps" if self.total == 2 else "the others keep"
        record.msg, record.args = f"{where} {how}; starting it again, {others} serving", ()
        return True
