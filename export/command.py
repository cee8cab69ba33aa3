"""`python -m lab export DIR [--pair NAME] [--lang CODE|all] [--page SLUG ...] [--tour N] [--course TEXT]
[--verbose]`: the lab as a static folder (site.py), in one language or, with `--lang all`, in each of
them (DIR/<code>/, under a DIR/index.html that offers them: export/language.py). DIR must be new,
empty or an earlier export (which is replaced).

The lab's command line (lab/__main__.py) calls `main` with the command's arguments. The terminal shows
the export's own progress lines and real errors, as the served lab's log does (shell.frame.quietlog):
transformers' loading bars and notices and Bokeh's validation warnings (W-1002: a layout with no
children yet) only with --verbose or SPECLAB_VERBOSE=1."""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path


def quiet(detail: bool) -> None:
    """The served lab's quiet log (shell.frame.quietlog); `detail`: everything, as the libraries print it."""
    if not detail:
        from shell.frame.quietlog import configure_logging
        configure_logging(False)


def main(argv: list[str] | None = None) -> int:
    from export.explore import MAX_NODES, MAX_SECONDS
    ap = argparse.ArgumentParser(prog="python -m lab export",
                                 description="Write the whole lab as a static site that opens offline.")
    ap.add_argument("dir", help="the folder to write (index.html and the pages' files)")
    ap.add_argument("--pair", help="a named pair from models/pairs.toml (default: the embedded pair)")
    ap.add_argument("--lang", help="the pages' language: en (the default), es, zh, en-XA (the pseudo-locale); "
                                   "all: each shipped language in DIR/<code>/, with links between them")
    ap.add_argument("--page", action="append", help="export only this page (its slug, e.g. accept-rule) and "
                                                    "the landing page that links it; repeat for several")
    ap.add_argument("--states", type=int, default=MAX_NODES,
                    help="the most states recorded per page beyond every preset, draft variant and drafter "
                         f"choice's first result, which are always recorded (default {MAX_NODES})")
    ap.add_argument("--seconds", type=float, default=MAX_SECONDS,
                    help=f"the most seconds spent on those states of one page (default {MAX_SECONDS:.0f})")
    ap.add_argument("--tour", type=int, help="export the guided tour's first N steps (default: all of them, "
                                             "none with --page)")
    ap.add_argument("--verbose", action="store_true",
                    help="also print the libraries' own progress bars and warnings (also SPECLAB_VERBOSE=1)")
    ap.add_argument("--course", help="the course line over the landing page's title (default: none; "
                                     "shell.frame.pages.course_line reads it from these arguments)")
    args = ap.parse_args(argv)
    from export.language import UnknownLanguage, languages
    from export.site import FolderTaken, make_room
    try:
        spoken = languages(args.lang)   # before the models load: a language it lacks says so at once
        make_room(Path(args.dir))       # and a folder it may not write
    except (FolderTaken, UnknownLanguage) as err:
        print(f"export: {err}", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from shell.frame.quietlog import verbose
    quiet(args.verbose or verbose([]))
    from serving import runtime
    from shell.frame.app import panel_settings
    from export.site import export_languages

    panel_settings()
    started = time.monotonic()
    print("export: loading the models…", file=sys.stderr, flush=True)
    service = runtime.PairInUse(["--pair", args.pair] if args.pair else []).service()
    service.pair    # noqa: B018  (load now, so the pages' progress is the export's own)
    written = asyncio.run(export_languages(Path(args.dir), service, args.page, args.tour, spoken,
                                           max_nodes=args.states, max_seconds=args.seconds))
    print(f"export: {len(written['pages'])} pages, {written['bytes'] / 1e6:.1f} MB in {args.dir}, "
          f"{time.monotonic() - started:.0f} s. Open {Path(args.dir) / 'index.html'}.", file=sys.stderr)
    return 0
