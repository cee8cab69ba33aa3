"""Speculative Lab — serve with `panel serve app.py`.

One URL per page: `/app` is the landing page, `/app?chapter=<slug>` a chapter (each chapter class
names its slug), `/app?tour=N` the guided tour. Links are ordinary links, so bookmarks, deep links
and the browser's back/forward buttons just work. Each page load is a new Panel session that builds
its own widgets and figures; a student's prompt, settings and answers follow them from page to page
through a cookie naming their (server-side, in-memory) settings. Everything the page needs is
served by this server: classrooms are offline. The server's pieces live in shell/.
"""
import os
import sys

# A served lab keeps its models' layers dense unless told otherwise (SPECLAB_PACK=1, lab/packing.py):
# packed layers are a copy, and a 40-student class's server then peaked at 2.1 GB.
os.environ.setdefault("SPECLAB_PACK", "0")

from lab import runtime  # noqa: E402
from shell.app import build_app, configure  # noqa: E402

runtime.use_args(sys.argv[1:])   # `panel serve app.py --args --pair NAME ...`: Bokeh sets argv while app.py runs
configure()
build_app().servable()
