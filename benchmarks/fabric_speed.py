"""Speed of the Fabric page's core: building fabrics, the picture, the Playbook hypothesis, a warm rerun.

Prints (asserts nothing; performance is measured here, never in the tests):

1. building the fabric of each published design and of 1,024 / 16,384 / 131,072 H100 (median of runs);
2. the picture of a three-tier fabric for each path, and the Playbook chart, built from scratch (the
   page caches both);
3. the Playbook hypothesis, cold (first call) and warm;
4. a warm rerun of the page in AppTest (median and p90 of the runs; the page caches the fabric, the
   picture and the hypothesis).

Run from the repository root: ``.venv/bin/python benchmarks/fabric_speed.py [runs]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(function, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        out.append((time.perf_counter() - start) * 1e3)
    return out


def report(label: str, values: list[float]) -> None:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    print(f"  {label:<52} median {statistics.median(values):8.2f} ms   p90 {p90:8.2f} ms   (n={len(values)})")


def main(runs: int = 20) -> None:
    from interconnect.hardware.fabric import build_fabric, get_fabric_data, server_inputs
    from interconnect.topics.fabric.playbook import playbook_hypothesis

    data = get_fabric_data()
    print("1. Building a fabric")
    for design in data.designs.values():
        report(design.id, timed(lambda d=design: build_fabric(d.inputs), runs))
    for gpus in (1024, 16384, 131072):
        inputs, _ = server_inputs("dgx-h100", gpus, "quantum-x800-q3400" if gpus > 100_000 else "quantum-2-qm9700")
        report(f"{gpus:,} H100", timed(lambda i=inputs: build_fabric(i), runs))

    print("2. Figures, from scratch")
    from interconnect.topics.fabric.figures import PATHS, fabric_figure, playbook_figure

    big = build_fabric(data.designs["superpod-64su"].inputs)
    fabric_figure(big, "cross_pod")  # first build imports and validates Plotly's classes
    for path in PATHS:
        report(f"picture, {path}", timed(lambda p=path: fabric_figure(big, p), max(3, runs // 4)))
    start = time.perf_counter()
    rows, tapered = playbook_hypothesis()
    print(f"3. Playbook hypothesis, cold: {(time.perf_counter() - start) * 1e3:.0f} ms")
    report("Playbook hypothesis, warm", timed(playbook_hypothesis, runs))
    report("Playbook chart", timed(lambda: playbook_figure(rows, tapered), max(3, runs // 4)))

    print("4. Warm rerun in AppTest")
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page("pages/10_Fabric.py")
    at.run()
    report("Fabric page, warm rerun", timed(at.run, max(5, runs // 2)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
