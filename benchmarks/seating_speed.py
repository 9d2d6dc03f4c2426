"""Speed of the Seating Chart page and its core (prints figures, asserts nothing).

Run from the repository root: ``.venv/bin/python benchmarks/seating_speed.py [runs]``. Prints:

* the page's warm rerun in AppTest (median and p95; alternating a control change and a plain rerun,
  as ``benchmarks/page_speed.py`` times the other pages); target < 100 ms median (issue 16);
* the layout search over every factorization of 1,024 GPUs (128 nodes of 8 x H100), cold (first
  call: the collective tables are built) and warm, per model preset; target < 200 ms;
* the GPU grid of a 72-rack GB200 NVL72 cluster (5,184 GPUs): traces and build time; target: a few
  traces, not one per GPU.
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUNS = 30


def percentile(values: list[float], fraction: float) -> float:
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(fraction * len(ranked)) - 1))]


def plain_reruns(path: str, runs: int) -> float:
    """Median plain warm rerun of another page, measured in the same run as a yardstick (on a machine
    shared with other work the absolute figures move; the ratio moves less)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(path)
    at.run()
    at.run()
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        at.run()
        timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings)


def page(runs: int) -> str:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/4_Seating_chart.py")
    start = time.perf_counter()
    at.run()
    first_ms = (time.perf_counter() - start) * 1000
    if at.exception:
        raise SystemExit("the page raised: " + "; ".join(str(e.value) for e in at.exception))
    values = ("pp", "tp")
    for value in values:  # warm both cached views once, as a visitor's second click would find them
        at.radio(key="seating.colour").set_value(value).run()
    timings = []
    for run in range(runs):
        if run % 2 == 0:
            at.radio(key="seating.colour").set_value(values[(run // 2) % 2])
        start = time.perf_counter()
        at.run()
        timings.append((time.perf_counter() - start) * 1000)
        if at.exception:
            raise SystemExit(f"rerun {run} raised: " + "; ".join(str(e.value) for e in at.exception))
    return (f"seating page warm rerun: median {statistics.median(timings):.0f} ms, "
            f"p95 {percentile(timings, 0.95):.0f} ms "
            f"({runs} runs, half after changing seating.colour; target < 100 ms median; first run {first_ms:.0f} ms)")


def search() -> list[str]:
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model import Workload, search_layouts
    from interconnect.workloads.presets import load_model_presets

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=128)
    lines = []
    for model in load_model_presets().values():
        workload = Workload(global_batch=1024)
        start = time.perf_counter()
        found = search_layouts(model, cluster, workload)
        cold = (time.perf_counter() - start) * 1000
        warm = []
        for _ in range(5):
            start = time.perf_counter()
            search_layouts(model, cluster, workload)
            warm.append((time.perf_counter() - start) * 1000)
        best = found.best.layout.label() if found.best else "none fits"
        lines.append(f"search, 1,024 GPUs, {model.name}: {found.tried} factorizations ({found.valid} valid, "
                     f"{found.fitting} fit) in {cold:.0f} ms cold, {statistics.median(warm):.0f} ms warm "
                     f"(target < 200 ms); fastest {best}")
    return lines


def grid() -> str:
    from interconnect.topics.seating.figures import gpu_grid_figure
    from interconnect.topics.seating.model import Layout

    layout = Layout(tp=8, pp=9, dp=72)
    gpu_grid_figure(layout, 72, "tp", domain_label="rack")  # imports and Plotly's validators
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        figure = gpu_grid_figure(layout, 72, "tp", domain_label="rack")
        timings.append((time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    size = len(figure.to_json())
    to_json = (time.perf_counter() - start) * 1000
    return (f"grid of 72 GB200 NVL72 racks (5,184 GPUs): {len(figure.data)} traces, built in "
            f"{statistics.median(timings):.0f} ms, {size / 1e3:.0f} kB of JSON in {to_json:.0f} ms")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())
    for line in search():
        print(line, flush=True)
    print(grid(), flush=True)
    print(page(runs), flush=True)
    yardstick = plain_reruns("pages/2_All_reduce.py", max(5, runs // 2))
    print(f"yardstick in the same run: All-reduce page plain warm rerun median {yardstick:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
