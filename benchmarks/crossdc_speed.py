"""Speed of the Across-sites page and its core (prints figures, asserts nothing).

* the page's warm rerun in Streamlit's AppTest, alternating a widget change and a plain rerun
  (issue target: median under 60 ms);
* the core: one scenario (:func:`interconnect.topics.crossdc.model.evaluate`), the page's whole view with
  its ten 64-point curves (:func:`interconnect.topics.crossdc.view.crossdc_view`), and the 75-cell
  check against Streaming DiLoCo's Table 4.

Run from the repository root: ``.venv/bin/python benchmarks/crossdc_speed.py [runs]``.
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PAGE = "pages/6_Across_sites.py"
#: Controls changed between reruns, one per timed change: (AppTest accessor, widget key, values).
CHANGES = [("number_input", "crossdc.sites", (4, 2)), ("selectbox", "crossdc.method", ("streaming-diloco", "diloco")),
           ("text_input", "crossdc.bw", ("2.5 Gbit/s", "10 Gbit/s"))]
TARGET_MS = 60.0


def percentile(values: list[float], fraction: float) -> float:
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(fraction * len(ranked)) - 1))]


def timed(function, repeat: int) -> float:
    """Median milliseconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def page_rerun(runs: int) -> str:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(PAGE)
    start = time.perf_counter()
    at.run()
    first_ms = (time.perf_counter() - start) * 1000
    if at.exception:
        raise SystemExit("the page raised: " + "; ".join(str(e.value) for e in at.exception))
    timings, changed = [], 0
    for run in range(runs):
        if run % 2 == 0:
            accessor, key, values = CHANGES[(run // 2) % len(CHANGES)]
            getattr(at, accessor)(key=key).set_value(values[(run // (2 * len(CHANGES))) % 2])
            changed += 1
        start = time.perf_counter()
        at.run()
        timings.append((time.perf_counter() - start) * 1000)
        if at.exception:
            raise SystemExit(f"rerun {run} raised: " + "; ".join(str(e.value) for e in at.exception))
    return (f"Across sites page warm rerun: median {statistics.median(timings):.0f} ms, "
            f"p95 {percentile(timings, 0.95):.0f} ms ({runs} runs: {changed} after a control change, "
            f"{runs - changed} plain; target median < {TARGET_MS:g} ms; first run {first_ms:.0f} ms)")


def core() -> list[str]:
    from interconnect.topics.crossdc.model import Scenario, evaluate, make_method
    from interconnect.topics.crossdc.view import PageInputs, crossdc_view, table4_check

    scenario = Scenario(1e10, 4, 1.0, 1.25e9, 0.05, make_method("streaming-diloco"), gpus_per_site=64)
    evaluate(scenario)
    inputs = PageInputs(1e10, 4, 64, "h100-sxm", "streaming-diloco", 1.25e9, 0.05)
    crossdc_view(inputs)
    return [
        f"core: one scenario (evaluate) {timed(lambda: evaluate(scenario), 50):.2f} ms median",
        f"core: the page's view, 5 methods x two 64-point curves {timed(lambda: crossdc_view(inputs), 20):.1f} ms "
        "median (uncached)",
        f"core: Table 4 check, 75 cells {timed(table4_check, 5):.0f} ms median",
    ]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())
    for line in core():
        print(line, flush=True)
    print(page_rerun(runs), flush=True)


if __name__ == "__main__":
    main()
