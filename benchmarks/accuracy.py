"""How close the all-reduce model is to published nccl-tests / rccl-tests runs. Prints; asserts nothing.

Run: ``.venv/bin/python benchmarks/accuracy.py`` (``--rows`` also prints every size).

Three groups of tables:

* **calibration**: the seven calibration tables of ``interconnect/data/measurements``, with the
  cluster each was measured on as ``interconnect/data/measurements/manifest.toml`` describes it
  (and what had to be assumed);
* **reference**: the other sweeps of that manifest (Azure single-node A100/H100/H200/GB200, Stas
  Bekman's 8xA100 and 8xH200 sweeps, B200 1 vs 4 nodes on EFA, which shaped the model, and multi-node
  runs on InfiniBand, RoCE and EFA marked ``pending``: targets the model is not yet held to);
* **external**: further published sweeps, used only as checks and kept here
  with their URL (they are not calibration data of the package).

Then, for every run of the manifest (every collective), the calibration of issue 24
(:func:`~interconnect.hardware.collectives.calibrate`: a wire efficiency and an extra latency, the hardware
unchanged): the geometric-mean error factor before and after calibrating on that same run, and, for runs
of the same system (:data:`SAME_SYSTEM`), the error on each later run before and after applying the
calibration taken from the first: the test of a calibration on data it has not seen.

For each table, per size band, against the targets of issue 8 (``ACCURACY_TARGETS``):

* small (<= 64 KiB): model/measured time, lowest-highest row, target within x2;
* middle (1-128 MiB): model/measured time, lowest-highest row, target within x1.5;
* large (>= 256 MiB): model/measured busbw, lowest-highest row, target within ±20 %;
* geomean: the geometric-mean error factor over every row, target at most x1.35.

A band is "ok" when every row of it meets the target, "MISS" otherwise, "-" when the table has no
row there. A forced ``NCCL_ALGO`` / ``NCCL_PROTO`` of a run is passed to the model. The summary at
the end counts the tables that meet each target.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interconnect.hardware.cluster import resolve_cluster  # noqa: E402
from interconnect.hardware.collectives import (  # noqa: E402
    ACCURACY_TARGETS,
    apply_calibration,
    calibrate,
    compare_collective,
    compare_sweep,
    load_measurements,
)

#: Runs of one system in the manifest: the first calibrates, the others check (same machines or the same
#: cloud instance type, as their sources say; the collective is the same within a group).
SAME_SYSTEM = {
    "8-node H100 InfiniBand cluster of nccl-tests#309": ["h100-2of8node-ib", "h100-4of8node-ib", "h100-8node-ib",
                                                         "h100-8node-ib-minctas24", "h100-2of8node-ib-ring"],
    "CoreWeave GB200 NVL72 (README tables)": ["gb200-nvl72-2rack", "gb200-nvl72-20rack", "gb200-nvl72-1rack"],
    "AWS p5.48xlarge, 2 nodes (Slurm, then EKS)": ["aws-p5-2node-efa", "aws-p5-2node-efa-eks"],
    "AWS p6-b200 (Stas Bekman, 1 and 4 nodes)": ["mle-4x8xb200-efa", "mle-8xb200-1node"],
    "Ultra-Scale Playbook all-gather on AWS p5": ["playbook-ag-2nodes", "playbook-ag-4nodes", "playbook-ag-8nodes",
                                                  "playbook-ag-16nodes", "playbook-ag-32nodes", "playbook-ag-64nodes"],
    "Ultra-Scale Playbook reduce-scatter on AWS p5": ["playbook-rs-2nodes", "playbook-rs-4nodes", "playbook-rs-8nodes",
                                                      "playbook-rs-16nodes", "playbook-rs-32nodes",
                                                      "playbook-rs-64nodes"],
}

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
    launch: str = "process-per-gpu"
    #: NCCL_ALGO / NCCL_PROTO the run's own harness sets ("auto" where it sets none).
    algorithm: str = "auto"
    protocol: str = "auto"


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
        launch="single-process",
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
        "h100-8gpu-nvidia-exemplar",
        "8 x H100 (DGX H100), one node, nccl-tests one process per GPU (NVIDIA recipe sample output)",
        "https://github.com/NVIDIA/exemplar-performance/blob/HEAD/microbenchmarks/nccl/README.md",
        {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 1},
        """8 13.67|16 13.00|64 14.92|128 15.87|256 16.10|512 16.70|1024 16.94|2048 17.14|4096 23.59
        8192 17.40|16384 17.93|32768 19.33|65536 19.54|131072 19.89|262144 20.43|524288 20.66
        1048576 27.37|2097152 42.21|4194304 54.19|8388608 83.04|16777216 123.8|33554432 199.3
        67108864 324.7|134217728 586.4|268435456 1112.5|536870912 2151.0|1073741824 4029.4
        2147483648 7939.1|4294967296 15749|8589934592 31307|17179869184 62648""",
        "The 32 B row (68.14 us out-of-place, 13.52 us in-place) is omitted as a one-off outlier.",
    ),
    External(
        "h100-8gpu-aws-p5",
        "AWS p5.48xlarge, 8 x H100, one node (busbw/algbw = 1.75), nccl-tests under AWS Batch",
        "https://github.com/aws-samples/awsome-distributed-training/blob/main/1.architectures/3.aws-batch/README.md",
        {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 1},
        """8 12.90|16 12.88|32 22.25|64 14.48|128 15.47|256 15.72|512 16.19|1024 16.43|2048 16.62
        4096 16.76|8192 16.85|16384 17.46|32768 18.78|65536 19.09|131072 19.37|262144 20.27
        524288 21.17|1048576 28.56|2097152 43.45|4194304 55.44|8388608 84.29|16777216 124.0
        33554432 198.6|67108864 326.6|134217728 592.8|268435456 1121.4|536870912 2165.3
        1073741824 4253.0|2147483648 8463.7|4294967296 15791|8589934592 31289|17179869184 62239""",
    ),
    External(
        "h100-8gpu-g8-voltagepark",
        "8 x H100 SXM, one node, NCCL 2.24.3, nccl-tests -g 8 (one process drives all 8 GPUs)",
        "https://github.com/ZiyanIshani/vpbenchmarking/blob/HEAD/results/nccl/nccl_allreduce_20260224_223444.txt",
        {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 1},
        """8 33.18|16 32.76|32 32.76|64 33.23|128 33.27|256 33.01|512 33.50|1024 33.36|2048 33.44
        4096 33.19|8192 33.09|16384 32.95|32768 32.74|65536 33.62|131072 34.26|262144 35.05
        524288 36.97|1048576 38.74|2097152 43.23|4194304 55.70|8388608 84.47|16777216 125.88
        33554432 200.39|67108864 328.56|134217728 588.39|268435456 1112.19|536870912 2152.91
        1073741824 4010.54|2147483648 7918.12|4294967296 15753.1|8589934592 31335.8""",
        "Single-process -g 8: the ~33 us floor is launch overhead of that mode (13 us with one process per GPU).",
        "single-process",
    ),
    External(
        "mi300x-8gpu-rocm-blog",
        "8 x MI300X, one node, rccl-tests one process per GPU, RCCL 2.22.3, ROCm 6.3 (no graph mode)",
        "https://github.com/ROCm/rocm-blogs/blob/HEAD/blogs/software-tools-optimization/mi300x-rccl-xgmi/README.md",
        {"gpu": "mi300x", "gpus_per_node": 8, "nodes": 1},
        """8 16.61|16 16.12|32 16.56|64 17.94|128 22.94|256 22.93|512 22.91|1024 13.11|2048 13.09
        4096 13.27|8192 13.30|16384 13.54|32768 13.31|65536 13.77|131072 14.14|262144 16.87
        524288 24.41|1048576 27.42|2097152 34.81|4194304 51.72|8388608 83.68|16777216 148.8
        33554432 244.1|67108864 429.1|134217728 797.4|268435456 1537.1|536870912 3026.2
        1073741824 5970.6|2147483648 11891|4294967296 23680|8589934592 47278|17179869184 94254""",
        "Same blog with -G 1 (graph mode): 6-9 us from 32 B to 64 KiB.",
    ),
    External(
        "oke-a100-2node-roce",
        "OCI BM.GPU4.8 on OKE, 2 x 8 A100 40GB, 16 x 100 Gbit/s RoCE per node, nccl-tests MPIJob",
        "https://github.com/oracle-quickstart/oci-hpc-oke/blob/main/README.md (a 2025 version)",
        {"gpu": "a100-sxm", "gpus_per_node": 8, "nodes": 2, "nic": "100 Gbit/s", "nics_per_node": 16,
         "fabric": "roce"},
        """8 36.47|16 38.86|32 38.53|64 39.25|128 38.85|256 40.68|512 39.27|1024 41.97|2048 43.36
        4096 44.54|8192 48.16|16384 49.40|32768 49.66|65536 51.69|131072 54.86|262144 67.95
        524288 73.94|1048576 85.58|2097152 99.19|4194304 127.0|8388608 174.3|16777216 282.7
        33554432 452.3|67108864 821.7|134217728 1542.0|268435456 3042.7|536870912 6436.0
        1073741824 9187.8|2147483648 18289|4294967296 34176|8589934592 67689""",
        "busbw 238 GB/s at 8 GiB; other OKE pages and README versions give 180 (NCCL 2.14.3) and 190 (2.25.1).",
    ),
    External(
        "azure-ndv4-a100-2node-ib",
        "Azure ML, 2 x Standard_ND96asr_v4 (8 x A100 40GB, 8 x 200 Gbit/s HDR InfiniBand per node)",
        "public GitHub markdown 'Running GPU Enabled HPC Applications on Azure Machine Learning Platform', "
        "repository not identified",
        {"gpu": "a100-sxm", "gpus_per_node": 8, "nodes": 2, "nic": "ib-hdr", "nics_per_node": 8,
         "fabric": "infiniband"},
        """8 37.76|16 37.45|32 36.38|64 37.00|128 36.50|256 37.62|512 38.44|1024 40.18|2048 44.38
        4096 47.48|8192 64.17|16384 105.5|32768 65.22|65536 73.32|131072 66.52|262144 68.98
        524288 79.28|1048576 96.57|2097152 127.5|4194304 147.0|8388608 210.7|16777216 332.4
        33554432 614.9|67108864 947.8|134217728 1682.8|268435456 2975.4|536870912 5744.6
        1073741824 11080|2147483648 21872|4294967296 43176|8589934592 85820""",
    ),
    External(
        "gcp-a3-2x8xh100-tcpx",
        "GCP A3 (a3-highgpu-8g) on GKE, 2 x 8 H100, 4 x 200 Gbit/s GPUDirect-TCPX per node",
        "https://github.com/GoogleCloudPlatform/ai-infra-cluster-provisioning/blob/HEAD/"
        "sample_workloads/nccltest/a3/README.md",
        {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2, "nic": "gpudirect-tcpx", "nics_per_node": 4},
        """1048576 1788.7|2097152 1645.1|4194304 1701.3|8388608 1891.3|16777216 1932.8
        33554432 2190.8|67108864 2367.6|134217728 3539.5|268435456 5969.3|536870912 11625
        1073741824 23144|2147483648 45662|4294967296 90227|8589934592 179880""",
        "The harness forces NCCL_ALGO=Ring, NCCL_PROTO=Simple (sample_workloads/nccltest/gke/values.yaml, "
        "ncclPlugin.envs, plugin v3.1.9 on NCCL 2.19.4): algbw 48 GB/s = half the 100 GB/s egress. "
        "The flat 1.7 ms from 1 to 16 MiB is TCPX latency.",
        algorithm="ring",
        protocol="Simple",
    ),
    External(
        "h100-4node-ib-voltagepark",
        "4 x 8 H100 SXM, InfiniBand (README: 3.2 Tbit/s per node), NCCL 2.24.3, one process per GPU",
        "https://github.com/ZiyanIshani/vpbenchmarking/blob/HEAD/results/nccl/nccl_multinode/"
        "nccl_allreduce_20260224_225706.txt",
        {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 4, "nic": "ib-ndr", "nics_per_node": 8,
         "fabric": "infiniband"},
        """8 38.37|16 37.15|32 37.19|64 37.40|128 39.22|256 39.54|512 38.38|1024 39.76|2048 41.11
        4096 44.98|8192 53.19|16384 56.41|32768 57.42|65536 60.10|131072 59.27|262144 69.81
        524288 79.34|1048576 92.47|2097152 154.66|4194304 160.50|8388608 230.19|16777216 272.07
        33554432 373.03|67108864 579.49|134217728 944.74|268435456 2169.01|536870912 3578.60
        1073741824 6411.42|2147483648 12681.1|4294967296 25265.5|8589934592 50291.8""",
    ),
]


def _rows(text: str) -> tuple[np.ndarray, np.ndarray]:
    pairs = [item.split() for line in text.split("\n") for item in line.split("|") if item.strip()]
    return np.array([float(a) for a, _ in pairs]), np.array([float(b) for _, b in pairs])


@dataclass
class Tally:
    """How many tables meet each target (and which miss it)."""

    met: dict[str, int]
    total: dict[str, int]
    misses: dict[str, list[str]]

    @classmethod
    def empty(cls) -> Tally:
        bands = ("small", "middle", "large", "geomean")
        return cls({b: 0 for b in bands}, {b: 0 for b in bands}, {b: [] for b in bands})

    def add(self, band: str, name: str, ok: bool | None) -> None:
        if ok is None:
            return
        self.total[band] += 1
        if ok:
            self.met[band] += 1
        else:
            self.misses[band].append(name)


def _band(ratios: np.ndarray, low: float, high: float) -> tuple[str, bool | None]:
    if not ratios.size:
        return f"{'-':>15s}", None
    ok = bool(ratios.min() >= low and ratios.max() <= high)
    return f"{ratios.min():5.2f}-{ratios.max():<5.2f} {'ok  ' if ok else 'MISS'}", ok


def _report(tally: Tally, name: str, cluster, size, time, rows: bool, note: str = "", algorithm: str = "auto",
            protocol: str = "auto", launch: str = "process-per-gpu") -> None:
    comparison = compare_sweep(cluster, size, time, algorithm, protocol, launch)
    small_factor = ACCURACY_TARGETS["small_time_factor"]
    middle_factor = ACCURACY_TARGETS["middle_time_factor"]
    large_fraction = ACCURACY_TARGETS["large_busbw_fraction"]
    small, small_ok = _band(comparison.small_time_ratios, 1 / small_factor, small_factor)
    middle, middle_ok = _band(comparison.middle_time_ratios, 1 / middle_factor, middle_factor)
    large, large_ok = _band(comparison.large_busbw_ratios, 1 - large_fraction, 1 + large_fraction)
    geomean_ok = comparison.geomean_error_factor <= ACCURACY_TARGETS["geomean_error_factor"]
    for band, ok in (("small", small_ok), ("middle", middle_ok), ("large", large_ok), ("geomean", geomean_ok)):
        tally.add(band, name, ok)
    forced = "" if algorithm == "auto" and protocol == "auto" else f" (forced {algorithm}/{protocol})"
    if launch != "process-per-gpu":
        forced += f" ({launch})"
    geomean = f"x{comparison.geomean_error_factor:4.2f} {'ok  ' if geomean_ok else 'MISS'}"
    print(f"  {name:40s} n={cluster.ranks:<5d} {small}  {middle}  {large}  {geomean} "
          f"[{comparison.size_bytes.size} rows]{forced}")
    if note:
        print(f"      note: {note}")
    if rows:
        for i in range(comparison.size_bytes.size):
            print(f"      {int(comparison.size_bytes[i]):>12d} B  measured {comparison.measured_time_us[i]:>10.1f} us  "
                  f"model {comparison.model_time_us[i]:>10.1f} us  x{comparison.time_ratio[i]:5.2f}  "
                  f"{comparison.algorithm[i]}/{comparison.protocol[i]}")


def _calibrated(cluster, calibration):
    share = calibration.wire_efficiency
    return apply_calibration(cluster, extra_latency_us=calibration.extra_latency_us,
                             network_efficiency=share if calibration.wire == "network" else None,
                             scaleup_efficiency=share if calibration.wire == "scale-up" else None)


def _calibration_report() -> None:
    runs = {m.id: m for m in load_measurements(collective=None)}
    print("\nCalibrated on each run (wire efficiency of the line rate, extra latency per call; geomean error factor)")
    print(f"  {'run':30s} {'collective':15s} {'wire':8s} {'model':>6s} {'fitted':>7s} {'xlat':>8s}  "
          f"{'before':>7s} {'after':>7s}")
    calibrations = {}
    for m in runs.values():
        c = calibrate(m.cluster(), m.size_bytes, m.time_us, m.collective, m.algorithm, m.protocol, m.launch)
        calibrations[m.id] = c
        fitted = "-" if c.wire_efficiency is None else f"{c.wire_efficiency:.1%}"
        print(f"  {m.id:30s} {m.collective:15s} {c.wire:8s} {c.model_efficiency:6.1%} {fitted:>7s} "
              f"{c.extra_latency_us:+7.1f}us  x{c.error_before:5.3f} x{c.error_after:5.3f}")
    print("\nCalibrated on one run of a system, checked on each of its other runs (geomean error factor, "
          "before -> after)")
    verdicts = {"better": 0, "same": 0, "worse": 0}
    for system, ids in SAME_SYSTEM.items():
        print(f"  {system}")
        for source in ids:
            c = calibrations[source]
            fitted = "-" if c.wire_efficiency is None else f"{c.wire_efficiency:.1%}"
            checks = []
            for other in ids:
                if other == source:
                    continue
                m = runs[other]
                cluster = m.cluster()
                before = compare_collective(cluster, m.collective, m.size_bytes, m.time_us, m.algorithm,
                                            m.protocol, m.launch).geomean_error_factor
                after = compare_collective(_calibrated(cluster, c), m.collective, m.size_bytes, m.time_us,
                                           m.algorithm, m.protocol, m.launch).geomean_error_factor
                verdict = "better" if after < before - 1e-4 else "worse" if after > before + 1e-4 else "same"
                verdicts[verdict] += 1
                checks.append(f"{other} {before:.3f}->{after:.3f}")
            print(f"    on {source} ({fitted}, {c.extra_latency_us:+.1f} us): " + "; ".join(checks))
    print(f"  checks: {verdicts['better']} better, {verdicts['same']} the same, {verdicts['worse']} worse")


def _header() -> None:
    print(f"  {'run':40s} {'ranks':7s} {'small time':>15s}  {'middle time':>15s}  {'large busbw':>15s}  geomean")


def main(argv: list[str]) -> int:
    rows = "--rows" in argv
    targets = ACCURACY_TARGETS
    print("Targets (model/measured, every row of the band): small (<= 64 KiB) time within "
          f"x{targets['small_time_factor']:g}; middle (1-128 MiB) time within x{targets['middle_time_factor']:g};")
    print(f"large (>= 256 MiB) busbw within ±{targets['large_busbw_fraction']:.0%}; geometric-mean error over all "
          f"rows at most x{targets['geomean_error_factor']:g}.\n")
    tally = Tally.empty()
    for role, title in (("calibration", "Calibration tables (manifest.toml, role = calibration)"),
                        ("reference", "Reference sweeps (manifest.toml; [pending] = not yet held to the bar)")):
        print(title)
        _header()
        for table in load_measurements(role):
            name = f"{table.id} [pending]" if table.pending else table.id
            _report(tally, name, table.cluster(), table.size_bytes, table.time_us, rows, table.assumption,
                    table.algorithm, table.protocol, table.launch)
        print()
    print("External checks (published runs; URLs in this file)")
    _header()
    for ext in EXTERNAL:
        inputs = dict(ext.cluster)
        cluster, _ = resolve_cluster(inputs.pop("gpu"), **inputs)
        size, time = _rows(ext.rows)
        _report(tally, ext.id, cluster, size, time, rows, ext.note, ext.algorithm, ext.protocol, ext.launch)
    print("\nSummary: tables meeting each target (of those with rows in the band)")
    for band in ("small", "middle", "large", "geomean"):
        missed = ", ".join(tally.misses[band]) or "none"
        print(f"  {band:8s} {tally.met[band]:3d} of {tally.total[band]:3d}   missed: {missed}")
    _calibration_report()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
