"""Speed of the All-reduce page and of the model behind it. Prints figures, asserts nothing.

Run from the repository root: ``.venv/bin/python benchmarks/allreduce_speed.py [runs]``.

* The page's warm rerun in Streamlit's AppTest (the catalog loaded, imports done), after changing
  each view control in turn (algorithm, protocol, message size, overlay) and with plain reruns:
  median and p95, as wall-clock time and as the process's CPU time (the CPU time does not grow
  when other work shares the machine). Target: median under 100 ms (issue 16).
* The model: the full sweep (64 sizes x 7 algorithms x 11 node counts, target under 50 ms), the
  page's view over 8 B .. 16 GiB, and the cluster-size curve (11 node counts with NCCL's pick and
  the fastest choice at each).
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from interconnect.hardware.cluster import resolve_cluster  # noqa: E402
from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS, sweep_allreduce  # noqa: E402
from interconnect.topics.allreduce.view import NODE_COUNTS, allreduce_view, node_count_curve  # noqa: E402

PAGE = "pages/2_All_reduce.py"
#: (accessor, widget key, values cycled through): one typical change per control of the analysis.
CHANGES = [
    ("selectbox", "allreduce.algo", ("ring", "auto")),
    ("selectbox", "allreduce.proto", ("Simple", "auto")),
    ("text_input", "allreduce.size", ("25 MB", "256 MiB")),
    ("selectbox", "allreduce.overlay", ("h100-2node-k8s", "none")),
]


def _percentile(values: list[float], fraction: float) -> float:
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, round(fraction * len(ranked)) - 1))]


def _line(name: str, wall: list[float], cpu: list[float], target: str = "") -> str:
    return (f"{name}: median {statistics.median(wall):.0f} ms wall / {statistics.median(cpu):.0f} ms CPU, "
            f"p95 {_percentile(wall, 0.95):.0f} ms wall / {_percentile(cpu, 0.95):.0f} ms CPU "
            f"({len(wall)} runs{target})")


def bench_page(runs: int) -> None:
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: "missing ScriptRunContext" not in record.getMessage())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(PAGE)
    at.run()
    if at.exception:
        raise SystemExit("the page raised: " + "; ".join(str(e.value) for e in at.exception))
    for accessor, key, values in CHANGES:  # warm every cache once, as a visitor's first clicks do
        for value in values:
            getattr(at, accessor)(key=key).set_value(value)
            at.run()
    results: dict[str, tuple[list[float], list[float]]] = {}
    for run in range(runs):
        for accessor, key, values in [*CHANGES, ("rerun", "", ())]:
            if accessor != "rerun":
                getattr(at, accessor)(key=key).set_value(values[run % len(values)])
            wall, cpu = time.perf_counter(), time.process_time()
            at.run()
            wall, cpu = (time.perf_counter() - wall) * 1e3, (time.process_time() - cpu) * 1e3
            name = key or "plain rerun"
            results.setdefault(name, ([], []))[0].append(wall)
            results[name][1].append(cpu)
            if at.exception:
                raise SystemExit(f"{name}: the page raised")
    every_wall = [t for wall, _ in results.values() for t in wall]
    every_cpu = [t for _, cpu in results.values() for t in cpu]
    print(_line("All-reduce page, warm rerun, all changes", every_wall, every_cpu, "; target median < 100 ms"))
    for name, (wall, cpu) in results.items():
        print("  " + _line(name, wall, cpu))


def _timed(function, repeats: int) -> tuple[list[float], list[float]]:
    wall_times, cpu_times = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        wall_times.append((time.perf_counter() - wall) * 1e3)
        cpu_times.append((time.process_time() - cpu) * 1e3)
    return wall_times, cpu_times


def bench_model(repeats: int) -> None:
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    sizes = [8.0 * 2 ** (i / 2) for i in range(64)]
    counts = [2**i for i in range(11)]
    sweep_allreduce(cluster, sizes, counts)
    print(_line(f"Full sweep, {len(sizes)} sizes x {len(ALLREDUCE_ALGORITHMS)} algorithms x {len(counts)} node counts",
                *_timed(lambda: sweep_allreduce(cluster, sizes, counts), repeats), "; target median < 50 ms"))
    print(_line("The page's view (every algorithm, NCCL's pick and the fastest, 63 sizes)",
                *_timed(lambda: allreduce_view(cluster), repeats)))
    print(_line(f"Cluster-size curve ({len(NODE_COUNTS)} node counts, NCCL's pick and the fastest)",
                *_timed(lambda: node_count_curve(cluster, 2**28), repeats)))


def main(argv: list[str]) -> int:
    runs = int(argv[0]) if argv else 10
    bench_model(max(runs, 20))
    bench_page(runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
