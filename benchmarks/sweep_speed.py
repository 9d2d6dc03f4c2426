"""How long a full all-reduce sweep takes: 64 sizes x 7 algorithms x 11 node counts (1..1024).

Run: ``.venv/bin/python benchmarks/sweep_speed.py [repeats]``. Prints the median of N runs; the
page budget is 50 ms. Performance is measured here, never asserted in the tests (project rule).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interconnect.hardware.cluster import resolve_cluster  # noqa: E402
from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS, allreduce, sweep_allreduce  # noqa: E402

SIZES = [8.0 * 2 ** (i / 2) for i in range(64)]  # 8 B .. ~26 GiB, half-octave steps
NODE_COUNTS = [2**i for i in range(11)]  # 1 .. 1024


def main(argv: list[str]) -> int:
    repeats = int(argv[0]) if argv else 50
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    sweep_allreduce(cluster, SIZES, NODE_COUNTS)  # warm-up (imports, catalog)
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        sweep_allreduce(cluster, SIZES, NODE_COUNTS, ALLREDUCE_ALGORITHMS)
        timings.append(time.perf_counter() - start)
    chooser = []
    for _ in range(repeats):
        start = time.perf_counter()
        for nodes in NODE_COUNTS:
            allreduce(cluster.with_nodes(nodes), SIZES)
        chooser.append(time.perf_counter() - start)
    cells = len(SIZES) * len(ALLREDUCE_ALGORITHMS) * len(NODE_COUNTS)
    print(f"sweep_allreduce: {len(SIZES)} sizes x {len(ALLREDUCE_ALGORITHMS)} algorithms x "
          f"{len(NODE_COUNTS)} node counts = {cells} times, median of {repeats}: "
          f"{statistics.median(timings) * 1e3:.2f} ms (min {min(timings) * 1e3:.2f} ms; budget 50 ms)")
    print(f"allreduce (NCCL chooser, every protocol) at the same {len(NODE_COUNTS)} node counts: "
          f"median {statistics.median(chooser) * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
