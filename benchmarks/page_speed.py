"""How long a warm rerun of each page takes in Streamlit's AppTest (prints figures, asserts nothing).

A warm rerun is what a visitor waits for after moving a control: the catalog is loaded and the
imports are done, so the time is the page script plus Streamlit's own bookkeeping. Each page gets
one cold first run, then RUNS timed reruns that alternate between changing a widget (when the
page lists one) and a plain rerun.

Run from the repository root: ``.venv/bin/python benchmarks/page_speed.py [runs]``.
To add a page, add a :class:`PageBench` to ``PAGES`` (its file may be missing: it is skipped).
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
RUNS = 30


@dataclass(frozen=True)
class PageBench:
    name: str
    path: str  # relative to the repository root, as AppTest.switch_page wants it
    widget: tuple[str, str, tuple] | None = None  # (AppTest accessor, widget key, values to cycle through)
    target_ms: float | None = 100.0


PAGES = [
    PageBench("cliff", "pages/1_Bandwidth_cliff.py", ("radio", "cliff.dir", ("per", "both"))),
    PageBench("all-reduce", "pages/2_All_reduce.py", ("selectbox", "allreduce.algo", ("auto", "ring")),
              target_ms=150.0),
    PageBench("reach", "pages/5_Reach.py", ("select_slider", "reach.d_slider", (11.0, 2000.0)), target_ms=60.0),
    PageBench("catalog", "pages/9_Catalog.py", ("radio", "catalog.kind", ("gpu", "scale-out")), target_ms=None),
]


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (p90 of 30 runs is the 27th fastest)."""
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(fraction * len(ranked)) - 1))]


def check(at: AppTest, what: str) -> None:
    if at.exception:
        raise SystemExit(f"{what}: the page raised:\n" + "\n".join(str(e.value) for e in at.exception))


def bench(page: PageBench, runs: int) -> str:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    check(at, "app.py")
    home_title = at.title[0].value if at.title else None
    at.switch_page(page.path)
    start = time.perf_counter()
    at.run()
    first_ms = (time.perf_counter() - start) * 1000
    check(at, page.path)
    if not at.title or at.title[0].value == home_title:
        raise SystemExit(f"switch_page({page.path!r}) did not leave the home page")

    timings: list[float] = []
    changed = 0
    for run in range(runs):
        if page.widget and run % 2 == 0:
            accessor, key, values = page.widget
            getattr(at, accessor)(key=key).set_value(values[(run // 2 + 1) % len(values)])
            changed += 1
        start = time.perf_counter()
        at.run()
        timings.append((time.perf_counter() - start) * 1000)
        check(at, f"{page.path} rerun {run}")

    how = f"{changed} after changing {page.widget[1]}, {runs - changed} plain" if page.widget else "plain reruns"
    target = f"; target < {page.target_ms:g} ms" if page.target_ms else ""
    return (f"{page.name} page warm rerun: median {statistics.median(timings):.0f} ms, "
            f"p90 {percentile(timings, 0.9):.0f} ms ({runs} runs: {how}{target}; first run {first_ms:.0f} ms)")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    # AppTest runs outside a server, so Streamlit warns "missing ScriptRunContext" (harmless). A filter,
    # not a level: Streamlit resets its loggers' levels when it loads its config.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())
    for page in PAGES:
        if not (ROOT / page.path).is_file():
            print(f"{page.name} page: skipped ({page.path} does not exist yet)")
            continue
        print(bench(page, runs), flush=True)


if __name__ == "__main__":
    main()
