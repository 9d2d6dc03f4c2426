"""How long a warm rerun of each page takes in Streamlit's AppTest (prints figures, asserts nothing).

A warm rerun is what a visitor waits for after moving a control: the catalog is loaded and the
imports are done, so the time is the page script plus Streamlit's own bookkeeping. Each page gets
one cold first run, then RUNS timed reruns that alternate between changing a widget (when the
page lists one) and a plain rerun. AppTest reruns the whole script (it does not run fragments on
their own), so these are upper bounds for a browser, where a control inside a fragment reruns
only that fragment. Wall time and CPU time are both printed; the budget is judged on CPU time, which
other jobs on a shared machine do not inflate. AppTest makes a new script cache on every run, so it
compiles each page again every time; a server compiles a page once. The bytecode is therefore kept
across runs here, as the server keeps it (``--compile-every-run`` measures AppTest's own way).

Run from the repository root: ``.venv/bin/python benchmarks/page_speed.py [runs] [--compile-every-run]``.
To add a page, add a :class:`PageBench` to ``PAGES`` (its file may be missing: it is skipped).
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from streamlit.runtime.scriptrunner import script_cache
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
RUNS = 30


@dataclass(frozen=True)
class PageBench:
    name: str
    path: str  # relative to the repository root, as AppTest.switch_page wants it
    widget: tuple[str, str, tuple] | None = None  # (AppTest accessor, widget key, values to cycle through)
    target_ms: float | None = 100.0


#: Budgets from the hardening issue: 60 ms a warm rerun, 100 ms for the three heaviest pages.
PAGES = [
    PageBench("home", "app.py", None, target_ms=60.0),
    PageBench("cliff", "pages/1_Bandwidth_cliff.py", ("radio", "cliff.dir", ("per", "both")), target_ms=60.0),
    PageBench("all-reduce", "pages/2_All_reduce.py", ("number_input", "allreduce.nodes", (4, 8)), target_ms=100.0),
    PageBench("overlap", "pages/3_Overlap.py", ("number_input", "overlap.nodes", (4, 8)), target_ms=100.0),
    PageBench("seating", "pages/4_Seating_chart.py", ("radio", "seating.colour", ("tp", "pp")), target_ms=100.0),
    PageBench("reach", "pages/5_Reach.py", ("text_input", "reach.d_text", ("11 m", "2 km")), target_ms=60.0),
    PageBench("across sites", "pages/6_Across_sites.py", ("number_input", "crossdc.sites", (2, 3)), target_ms=60.0),
    PageBench("claims", "pages/7_Claims.py", None, target_ms=60.0),
    PageBench("unit traps", "pages/8_Unit_traps.py", ("radio", "units.qdir", ("both", "per")), target_ms=60.0),
    PageBench("catalog", "pages/9_Catalog.py", ("radio", "catalog.kind", ("gpu", "scale-out")), target_ms=60.0),
]


_BYTECODE: dict[str, object] = {}
_compile = script_cache.ScriptCache.get_bytecode


def _bytecode_kept(self: script_cache.ScriptCache, script_path: str) -> object:
    """A page's bytecode, compiled once per process as a server's script cache does."""
    if script_path not in _BYTECODE:
        _BYTECODE[script_path] = _compile(self, script_path)
    return _BYTECODE[script_path]


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (p95 of 30 runs is the 29th fastest)."""
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
    if page.path != "app.py":
        at.switch_page(page.path)
    start = time.perf_counter()
    at.run()
    first_ms = (time.perf_counter() - start) * 1000
    check(at, page.path)
    if page.path != "app.py" and (not at.title or at.title[0].value == home_title):
        raise SystemExit(f"switch_page({page.path!r}) did not leave the home page")

    timings: list[float] = []
    cpu_timings: list[float] = []
    changed = 0
    for run in range(runs):
        if page.widget and run % 2 == 0:
            accessor, key, values = page.widget
            getattr(at, accessor)(key=key).set_value(values[(run // 2 + 1) % len(values)])
            changed += 1
        start, cpu_start = time.perf_counter(), time.process_time()
        at.run()
        timings.append((time.perf_counter() - start) * 1000)
        cpu_timings.append((time.process_time() - cpu_start) * 1000)
        check(at, f"{page.path} rerun {run}")

    median, p95 = statistics.median(timings), percentile(timings, 0.95)
    cpu_median = statistics.median(cpu_timings)
    # Judged on CPU time: the page's own work, which other jobs on a shared machine do not inflate.
    verdict = "ok" if page.target_ms and cpu_median <= page.target_ms else "OVER" if page.target_ms else ""
    control = page.widget[1] if page.widget else "(plain reruns)"
    return (f"{page.name:<14} {median:>7.0f} {p95:>7.0f} {cpu_median:>7.0f} {page.target_ms or 0:>7.0f} {verdict:>5}  "
            f"{first_ms:>6.0f}  {control}")


def main() -> None:
    arguments = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    runs = int(arguments[0]) if arguments else RUNS
    if "--compile-every-run" not in sys.argv:
        script_cache.ScriptCache.get_bytecode = _bytecode_kept
    # AppTest runs outside a server, so Streamlit warns "missing ScriptRunContext" (harmless). A filter,
    # not a level: Streamlit resets its loggers' levels when it loads its config.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())
    print(f"warm rerun in AppTest, {runs} runs per page (half after changing the control), milliseconds; "
          "wall time, and the CPU time the budget is judged on (load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start); "
          + ("each page compiled on every run, as AppTest does" if "--compile-every-run" in sys.argv
             else "each page compiled once, as a server does"))
    print(f"{'page':<14} {'median':>7} {'p95':>7} {'CPU med':>7} {'budget':>7} {'':>5}  {'first':>6}  control")
    for page in PAGES:
        if not (ROOT / page.path).is_file():
            print(f"{page.name:<14} skipped ({page.path} does not exist yet)")
            continue
        print(bench(page, runs), flush=True)


if __name__ == "__main__":
    main()
