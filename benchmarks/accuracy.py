"""How close the all-reduce model is to published nccl-tests / rccl-tests runs. Prints; asserts nothing.

Run: ``.venv/bin/python benchmarks/accuracy.py`` (``--rows`` also prints every size).

Three groups of tables:

* **calibration**: the seven tables of ``/work/shared/reference/calibration`` (copied into
  ``interconnect/data/measurements``), with the cluster each was measured on as
  ``interconnect/data/measurements/manifest.toml`` describes it (and what had to be assumed);
* **reference**: the busbw sweeps of hardware.md §9.J/9.K (Azure single-node A100/H100/H200/GB200,
  Stas Bekman's 8xA100 and 8xH200 sweeps, B200 1 vs 4 nodes on EFA). They shaped the model too;
* **external**: published sweeps found with the search tools, used only as checks and kept here
  with their URL (they are not calibration data of the package).

For each table: model/measured time at small (<= 64 KiB) and large (>= 256 MiB) sizes (geometric
mean over those rows), the range of model/measured busbw over the large rows (the ±25 % bar), and
the geometric-mean error factor over all rows (1.6 = typically 60 % off either way).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interconnect.cluster import resolve_cluster  # noqa: E402
from interconnect.collectives import compare_sweep, load_measurements  # noqa: E402

# --- external checks -------------------------------------------------------------------------------
# Out-of-place (size bytes, time µs) rows as published. Only a subset of rows where the source is long.


@dataclass(frozen=True)
class External:
    id: str
    system: str
    url: str
    cluster: dict
    rows: str
    note: str = ""


EXTERNAL = [
    External(
        "a3mega-2x8xh100-tcpxo",
        "GCP A3 Mega, 2 x 8 H100, 8 x 200 Gbit/s GPUDirect-TCPXO (Ethernet) per node, NCCL nccl-tests",
        "https://github.com/lessizzmore/create-a3mega-ztan-fork/blob/main/ztan-NCCL-test-result",
        {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2, "nic": "200 Gbit/s", "nics_per_node": 8,
         "fabric": "ethernet"},
        """8 135.8|16 123.2|32 123.3|64 123.4|128 123.0|256 123.6|512 126.6|1024 147.1|2048 125.8|4096 126.9
        8192 131.6|16384 138.6|32768 155.2|65536 159.4|131072 159.3|262144 167.1|524288 174.2|1048576 203.2
        2097152 254.0|4194304 364.6|8388608 571.9|16777216 977.6|33554432 1059.9|67108864 1261.6
        134217728 1652.2|268435456 2360.9|536870912 3817.5|1073741824 6759.0|2147483648 12646
        4294967296 24361|8589934592 47535""",
        "Its Ethernet fabric constants were fitted to this run, so it is not independent.",
    ),
    External(
        "mi300x-8gpu-rccl-rocm64",
        "8 x MI300X, one node, rccl-tests (ROCm 6.4, one process per GPU)",
        "https://github.com/hisohara/ai-scripts/blob/main/training/01_rccl-smoketest/README.md",
        {"gpu": "mi300x", "gpus_per_node": 8, "nodes": 1},
        """8 19.28|16 16.32|32 17.10|64 18.59|128 23.05|256 23.36|512 23.21|1024 13.67|2048 13.67|4096 13.72
        8192 13.76|16384 15.47|32768 13.94|65536 14.25|131072 14.60|262144 17.46|524288 27.30|1048576 28.39
        2097152 36.68|4194304 52.96|8388608 84.78|16777216 149.9|33554432 246.3|67108864 432.5
        134217728 800.3|268435456 1540.4|536870912 3027.1|1073741824 5990.7|2147483648 11940
        4294967296 23841|8589934592 47617""",
    ),
    External(
        "mi300x-8gpu-rccl-amd-docs",
        "8 x MI300X, one node, rccl-tests -g 8 (AMD Instinct system acceptance guide example output)",
        "https://instinct.docs.amd.com/projects/system-acceptance/en/latest/ (MI300X RCCL benchmarking)",
        {"gpu": "mi300x", "gpus_per_node": 8, "nodes": 1},
        """8 34.13|16 38.73|32 39.48|64 39.18|128 39.36|256 41.24|512 44.23|1024 45.84|2048 44.60|4096 45.01
        8192 43.72|16384 55.70|32768 44.39|65536 44.35|131072 47.47|262144 59.18|524288 57.96|1048576 58.47
        2097152 59.86|4194304 90.74|8388608 110.8|16777216 169.7|33554432 257.6|67108864 428.1
        134217728 801.8|268435456 1546.5|536870912 3038.1|1073741824 6003.9|2147483648 11938
        4294967296 23849|8589934592 47488""",
    ),
    External(
        "oci-a100-2node-roce",
        "OCI BM.GPU4.8, 2 x 8 A100 40GB, cluster network 16 x 100 Gbit/s RoCE per node, NCCL 2.26.5",
        "https://github.com/oracle-japan/ocitutorials/blob/master/content/hpc/benchmark/run-nccltests-ubuntu/index.md",
        {"gpu": "a100-sxm", "gpus_per_node": 8, "nodes": 2, "nic": "100 Gbit/s", "nics_per_node": 16,
         "fabric": "roce"},
        """10737418240 104989""",
        "One 10 GiB row (busbw 191.76 GB/s); the same page gives 232 GB/s on one node.",
    ),
    External(
        "dgx-h100-2node-ib",
        "2 x DGX H100 (8 x 400 Gbit/s InfiniBand), nccl-tests -g 8, mid sizes erratic in the source",
        "public GitHub file (same author as hardware.md §9.G), found with find_string",
        {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2},
        """16 39.09|32 39.07|64 38.80|128 39.71|512 39.28|1024 39.56|2048 40.22|4096 40.82
        536870912 3345.7|1073741824 5961.9|2147483648 9270.2|4294967296 17662|8589934592 34409
        17179869184 68195""",
        "Rows from 8 KiB to 256 MiB are omitted: they swing by 10x in the source.",
    ),
]


def _rows(text: str) -> tuple[np.ndarray, np.ndarray]:
    pairs = [item.split() for line in text.split("\n") for item in line.split("|") if item.strip()]
    return np.array([float(a) for a, _ in pairs]), np.array([float(b) for _, b in pairs])


def _fmt(value: float | None, digits: int = 2) -> str:
    return "   -  " if value is None else f"{value:6.{digits}f}"


def _report(name: str, cluster, size, time, rows: bool, note: str = "") -> None:
    comparison = compare_sweep(cluster, size, time)
    large = comparison.large_busbw_ratios
    large_range = f"{large.min():.2f}-{large.max():.2f}" if large.size else "    -    "
    flags = "" if not large.size or (large.min() >= 0.75 and large.max() <= 1.25) else "  <-- outside ±25 %"
    small = comparison.small_time_ratio
    if small is not None:
        small_rows = comparison.time_ratio[comparison.size_bytes <= 64 * 1024]
        if small_rows.min() < 0.4 or small_rows.max() > 2.5:
            flags += "  <-- small outside x2.5"
    print(f"  {name:28s} n={cluster.ranks:<5d} small {_fmt(small)}  large {_fmt(comparison.large_time_ratio)}  "
          f"busbw(>=256MiB) {large_range:9s}  geomean x{comparison.geomean_error_factor:.2f}  "
          f"[{comparison.size_bytes.size} rows]{flags}")
    if note:
        print(f"      note: {note}")
    if rows:
        for i in range(comparison.size_bytes.size):
            print(f"      {int(comparison.size_bytes[i]):>12d} B  measured {comparison.measured_time_us[i]:>10.1f} us  "
                  f"model {comparison.model_time_us[i]:>10.1f} us  x{comparison.time_ratio[i]:5.2f}  "
                  f"{comparison.algorithm[i]}/{comparison.protocol[i]}")


def main(argv: list[str]) -> int:
    rows = "--rows" in argv
    print("model/measured time: small = sizes <= 64 KiB, large = sizes >= 256 MiB (geometric means);")
    print("busbw = model/measured busbw over the >= 256 MiB rows; geomean = typical error factor, all rows\n")
    for role, title in (("calibration", "Calibration tables (shared/reference/calibration)"),
                        ("reference", "Reference sweeps (hardware.md 9.J / 9.K)")):
        print(title)
        for table in load_measurements(role):
            _report(table.id, table.cluster(), table.size_bytes, table.time_us, rows, table.assumption)
        print()
    print("External checks (published runs found with the search tools; URLs in this file)")
    for ext in EXTERNAL:
        inputs = dict(ext.cluster)
        cluster, _ = resolve_cluster(inputs.pop("gpu"), **inputs)
        size, time = _rows(ext.rows)
        _report(ext.id, cluster, size, time, rows, ext.note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
