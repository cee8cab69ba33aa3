"""What the browser tests of the export share: a page that opens the exported folder from file://
with every other request blocked (the `offline` fixture), opening one of its files, and an export
made once in a run for all the tests that read it (`made_once`)."""
from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from tests.ui.helpers import VIEWPORT


@pytest.fixture
def offline(browser):
    """A page whose non-file requests are aborted and counted; asserts none and no console error."""
    context = browser.new_context(viewport=VIEWPORT)
    pg = context.new_page()
    errors, blocked = [], []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text[:300]))
    pg.on("pageerror", lambda e: errors.append(str(e)[:300]))

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    pg.set_default_timeout(30000)
    yield pg
    context.close()
    assert not blocked, f"requests left the folder: {blocked[:5]}"
    assert not errors, f"console errors: {errors[:5]}"


def open_file(pg, site, name: str) -> None:
    pg.goto(f"file://{site / name}")
    pg.wait_for_selector("html[data-export-ready='1']", timeout=60000)


def made_once(tmp_path_factory, name: str, make) -> Path:
    """The folder `name`, written by `make(folder)` once in the whole run. A file's browser tests and
    its other tests are units of their own (tests/tiers.py), which may run on two pytest-xdist
    workers: the workers share their base temp folder's parent, so the first to ask makes it (under
    a lock) and the other reads it. A `make` that fails leaves nothing marked made."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / f"{name}.made").exists():
            shutil.rmtree(out, ignore_errors=True)
            make(out)
            (root / f"{name}.made").write_text("")
    return out
