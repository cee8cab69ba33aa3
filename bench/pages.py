"""Per page: how many Bokeh models it sends and how long building and serialising it takes.

    python bench/pages.py [--repeats 5] [--page breakeven]

Each page (every chapter and the bridge, as `chapters.registry.pages()` lists them) is built for a
fresh student on the tiny pair, as a served session builds it (`registry.build`, then its view), put
into a Bokeh document (`get_root`) and serialised (`Document.to_json`, what the server sends a new
page). Prints the model count and the median of `--repeats` builds (the first build of a page, which
imports and warms caches, is left out), in-process, with the goals of issue 32: chapter 10 at most 90
models, every page at most 150 ms. Beside the wall-clock time, the CPU time of the building thread:
on a machine shared with other jobs the wall clock counts their turns too, the CPU time does not
(on an idle machine the two agree), so the goal is judged on the CPU time. `--types` lists a page's
models by type, the most numerous first. The last columns are the same page with every section
built when scrolled to (uikit.lazy) built too: what a student who scrolls to the end has been sent.
"""
from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("SPECLAB_PAIR", "tiny")

from bokeh.document import Document  # noqa: E402

from chapters import registry  # noqa: E402
from serving.service import ModelService  # noqa: E402
from lab.pairs.tiny import tiny_pair  # noqa: E402
from uikit.lazy import show_all  # noqa: E402
from uikit.state import LabState  # noqa: E402

MAX_MODELS = {"breakeven": 90}   # the goals: chapter 10's model count …
MAX_MS = 150                     # … and every page's build + serialisation


def build_once(page, service, shown: bool = False) -> tuple[Document, float, float]:
    """(the page's document, wall-clock and CPU seconds to build and serialise it) for a fresh
    student; `shown`: with its sections built when scrolled to (uikit.lazy) built too."""
    started, cpu = time.perf_counter(), time.thread_time()
    view = registry.build(page, LabState(service))
    doc = Document()
    root = view.__panel__().get_root(doc)
    doc.add_root(root)
    if shown:
        show_all(view.__panel__())
    doc.to_json()
    return doc, time.perf_counter() - started, time.thread_time() - cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="builds per page after a warm-up build")
    ap.add_argument("--page", action="append", help="only these slugs (repeatable)")
    ap.add_argument("--types", action="store_true", help="list each page's models by type")
    args = ap.parse_args(argv)
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    pages = [p for p in registry.pages() if not args.page or p.slug in args.page]
    print(f"{'page':<22}{'models':>8}{'wall ms':>10}{'CPU ms':>9}  {'goal (models, CPU ms)':<33}"
          f"{'all shown: models':>18}{'CPU ms':>8}")
    worst = []
    for page in pages:
        build_once(page, service)                       # warm-up: imports, caches
        runs = [build_once(page, service) for _ in range(args.repeats)]
        doc = runs[-1][0]
        models = len(doc.models)
        wall, cpu = (1000 * statistics.median(r[i] for r in runs) for i in (1, 2))
        goal_models = MAX_MODELS.get(page.slug)
        ok = cpu <= MAX_MS and (goal_models is None or models <= goal_models)
        goal = f"≤ {MAX_MS} ms" + (f", ≤ {goal_models} models" if goal_models else "")
        shown = [build_once(page, service, shown=True) for _ in range(args.repeats)]
        shown_cpu = 1000 * statistics.median(r[2] for r in shown)
        print(f"{page.number or '':>2} {page.slug:<19}{models:>8}{wall:>10.1f}{cpu:>9.1f}  "
              f"{goal + (' ok' if ok else ' MISSED'):<33}{len(shown[-1][0].models):>18}{shown_cpu:>8.1f}")
        if args.types:
            for name, count in collections.Counter(type(m).__name__ for m in doc.models).most_common():
                print(f"{'':<8}{count:>4} {name}")
        if not ok:
            worst.append(page.slug)
    print("all goals met" if not worst else f"missed: {', '.join(worst)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
