"""Ready before class: prepare and load the pair when the server starts, before any browser.

`panel serve` runs app.py only for a browser's session, so nothing of the lab runs at start on its
own; Panel's `--setup` runs this script once as the server starts:

    panel serve app.py --setup shell/start.py [--args --pair NAME --lang zh ...]

It makes the server's class state (shell.frame.classstate: its store, poll, sessions…), hands it the
server's `--args` (as app.py does) and starts the background load (one progress line in
the terminal) and then the start-up warm-up (shell.frame.warmup). A page opened meanwhile shows the load's
progress; without `--setup` the same starts at the first page.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the lab's packages, as for app.py

from shell.frame.app import start_models  # noqa: E402
from shell.frame.language import lecturer_language  # noqa: E402

args = sys.argv[sys.argv.index("--args") + 1:] if "--args" in sys.argv else []
start_models(args=args)
lecturer_language(args, warn=True)    # `--lang CODE`, the pages' default language: one the lab lacks is said now
