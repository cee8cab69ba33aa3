"""Speculative Lab — serve with `panel serve app.py`.

One URL per page: `/app` is the landing page, `/app?chapter=<slug>` a chapter (each chapter class
names its slug), `/app?tour=N` the guided tour. Links are ordinary links, so bookmarks, deep links
and the browser's back/forward buttons just work. Each page load is a new Panel session that builds
its own widgets and figures; a student's prompt, settings and answers follow them from page to page
through a cookie naming their (server-side, in-memory) settings. Everything the page needs is
served by this server: classrooms are offline. The server's pieces live in shell/.
"""
import sys

# The models' layers are packed for the CPU (lab/pairs/packing.py): the packed weights replace the dense ones,
# and a verify pass then costs little more than one call, so the served lab drafts as `python -m lab
# measure` does. SPECLAB_PACK=0 keeps them dense.
from shell.frame.app import build_app, configure

configure(sys.argv[1:])   # `panel serve app.py --args --pair NAME ...`: Bokeh sets argv while app.py runs
build_app().servable()
