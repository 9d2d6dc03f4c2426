"""How close the all-gather, reduce-scatter and all-to-all models are to published runs. Prints only.

Run: ``.venv/bin/python benchmarks/collectives_accuracy.py``.

Every dataset of ``interconnect/data/measurements/manifest.toml`` whose ``collective`` is not
all-reduce (``benchmarks/accuracy.py`` covers all-reduce): the Ultra-Scale Playbook's all-gather and
reduce-scatter busbw at 256 MB on 1 to 64 nodes of 8 x H100, Stas Bekman's 8 x H200 points, and
runs posted in NVIDIA/nccl issues. For each: model/measured time and busbw, and the algorithm and
protocol the model picked. A ratio outside x0.5-x2 is flagged; the flag is information, not a failure:
some of these runs were posted because they were slow.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interconnect.hardware.collectives import COLLECTIVE_LABELS, compare_collective, load_measurements  # noqa: E402


def main() -> int:
    print("model/measured time per published point (busbw ratio is the inverse); flagged outside x0.5-x2\n")
    datasets = [m for m in load_measurements(collective=None) if m.collective != "all_reduce"]
    by_collective: dict[str, list] = {}
    for measurement in datasets:
        by_collective.setdefault(measurement.collective, []).append(measurement)
    for name, items in by_collective.items():
        systems = {(m.cluster_inputs.get("gpu"), m.source.split(",")[0]) for m in items}
        print(f"{COLLECTIVE_LABELS[name]} ({len(items)} datasets, {len(systems)} sources)")
        ratios = []
        for m in items:
            cluster = m.cluster()
            # as the run was driven: forced NCCL_ALGO / NCCL_PROTO and the launch mode's per-call cost
            comparison = compare_collective(cluster, name, m.size_bytes, m.time_us, m.algorithm, m.protocol, m.launch)
            for i in range(comparison.size_bytes.size):
                ratio = float(comparison.time_ratio[i])
                ratios.append(ratio)
                flag = "" if 0.5 <= ratio <= 2.0 else "  <-- outside x0.5-x2"
                print(f"  {m.id:30s} n={cluster.ranks:<5d} {int(comparison.size_bytes[i]):>12d} B  "
                      f"busbw measured {comparison.measured_busbw_gbps[i]:7.1f}  "
                      f"model {comparison.model_busbw_gbps[i]:7.1f} GB/s  time x{ratio:5.2f}  "
                      f"{comparison.algorithm[i]}/{comparison.protocol[i]}{flag}")
        geomean = float(np.exp(np.mean(np.abs(np.log(ratios)))))
        print(f"  typical error factor over {len(ratios)} points: x{geomean:.2f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
