"""The overlap model beside a published measurement of DDP overlap (prints figures, asserts nothing).

Measurement: PyTorch's own DistributedDataParallel benchmark (pytorch/pytorch
``benchmarks/distributed/ddp/README.md``, commit bf69c149): ResNet-50/101 and ResNeXt-50/101 at batch 32
per GPU on DGX-1 machines (8 x V100, NVLink, 4 x 100 Gbit/s InfiniBand), PyTorch 1.4, NCCL; iteration
time without DDP on one GPU, with DDP on 1-16 GPUs (25 MB buckets), and the throughput change with
1 MB buckets. Data: ``interconnect/data/published/pytorch-ddp-benchmark.csv``.

Model: the measured one-GPU iteration as compute, fp32 gradients in 25 MiB buckets timed by the
all-reduce model of the dgx-1-v100 cluster, bucketed overlap (``models/ddp_benchmark.py``), twice:
"bytes only" (what the model did before it charged anything per bucket) and with the sourced costs of
``interconnect/data/published/ddp-bucket-costs.toml`` (launch per bucket, SM contention, the wait for
the slowest GPU).

Run from the repository root: ``.venv/bin/python benchmarks/overlap_accuracy.py``.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interconnect.topics.overlap.ddp_benchmark import DDP_BENCHMARK_SOURCE, compare_ddp_benchmark  # noqa: E402
from interconnect.topics.overlap.model import load_bucket_costs  # noqa: E402


def _pct(value: float | None) -> str:
    return f"{value:+.1%}" if value is not None else "-"


def main() -> None:
    costs = load_bucket_costs()
    rows = compare_ddp_benchmark(costs)
    print(f"Source: {DDP_BENCHMARK_SOURCE}")
    for name, cost in (("launch per bucket", costs.launch), ("SM contention", costs.sm_contention),
                       ("GPU speed spread", costs.gpu_spread)):
        print(f"  {name}: {cost.text} ({cost.basis}; {cost.source})")
    print("\nIteration time, and what the extra GPUs cost over one GPU with DDP (measured) against the model's wait "
          "for the slowest GPU + SM contention + exposed communication (ms).")
    print(f"{'model':<17} {'GPUs':>4} {'meas.':>6} {'model':>6} {'ratio':>6} {'bytes only':>10} | "
          f"{'extra: meas.':>12} {'model':>6} {'ratio':>6} {'bytes only':>10} "
          f"{'= wait':>7} {'+ SMs':>6} {'+ exp.':>6} | "
          f"{'1 MB: meas.':>11} {'model':>7} {'bytes only':>10}")
    for r in rows:
        extra_ratio = f"{r.model_comm_overhead_s / r.measured_comm_overhead_s:6.2f}" if r.gpus > 1 else f"{'-':>6}"
        print(f"{r.model:<17} {r.gpus:>4} {r.measured_s * 1e3:>6.0f} {r.model_s * 1e3:>6.1f} {r.ratio:>6.3f} "
              f"{r.bytes_only_s / r.measured_s:>10.3f} | {r.measured_comm_overhead_s * 1e3:>12.1f} "
              f"{r.model_comm_overhead_s * 1e3:>6.1f} {extra_ratio} {r.bytes_only_comm_overhead_s * 1e3:>10.2f} "
              f"{r.model_wait_s * 1e3:>7.2f} {r.model_contention_s * 1e3:>6.2f} {r.model_exposed_s * 1e3:>6.2f} | "
              f"{_pct(r.measured_bucket1_diff):>11} {_pct(r.model_bucket1_diff):>7} "
              f"{_pct(r.bytes_only_bucket1_diff):>10}")
    multi = [r for r in rows if r.gpus > 1]
    ratios, plain = [r.ratio for r in rows], [r.bytes_only_s / r.measured_s for r in rows]
    extra = [r.model_comm_overhead_s / r.measured_comm_overhead_s for r in multi]
    plain_extra = [r.bytes_only_comm_overhead_s / r.measured_comm_overhead_s for r in multi]
    print(f"\nIteration time, model / measured: median {statistics.median(ratios):.3f}, range "
          f"{min(ratios):.3f}-{max(ratios):.3f} (bytes only: {statistics.median(plain):.3f}, "
          f"{min(plain):.3f}-{max(plain):.3f}) over {len(rows)} DDP runs.")
    print(f"Extra time on 2-16 GPUs, model / measured: median {statistics.median(extra):.2f}, range "
          f"{min(extra):.2f}-{max(extra):.2f} (bytes only: {statistics.median(plain_extra):.2f}, "
          f"{min(plain_extra):.2f}-{max(plain_extra):.2f}); the runs spend "
          f"{min(r.measured_comm_overhead_s for r in multi) * 1e3:.0f}-"
          f"{max(r.measured_comm_overhead_s for r in multi) * 1e3:.0f} ms, the model "
          f"{min(r.model_comm_overhead_s for r in multi) * 1e3:.1f}-"
          f"{max(r.model_comm_overhead_s for r in multi) * 1e3:.1f} ms.")
    measured = [r.measured_bucket1_diff for r in rows if r.measured_bucket1_diff is not None]
    modelled = [r.model_bucket1_diff for r in rows]
    before = [r.bytes_only_bucket1_diff for r in multi]
    slower = sum(1 for r in rows if r.model_bucket1_diff < 0)
    print(f"1 MB buckets instead of 25 MB: the runs change throughput by {min(measured):+.1%} to {max(measured):+.1%}; "
          f"the model by {min(modelled):+.1%} to {max(modelled):+.1%} (slower in {slower} of {len(rows)} runs); bytes "
          f"only it made them faster, {min(before):+.1%} to {max(before):+.1%}.")
    print("The launch time was taken from the four one-GPU rows (their 1 MB column is in-sample); the 16 "
          "multi-GPU rows judge all three constants. Not modelled: DDP's per-parameter bookkeeping (one GPU with DDP "
          f"is {min(r.single_gpu_ddp_s - r.single_gpu_s for r in rows) * 1e3:.0f}-"
          f"{max(r.single_gpu_ddp_s - r.single_gpu_s for r in rows) * 1e3:.0f} ms slower than without), the rest "
          "of the iteration-time gap.")
    big = {r.model: r for r in rows if r.gpus == 8}
    print("Order of the extra time at 8 GPUs, smallest first: measured "
          + ", ".join(m for m in sorted(big, key=lambda m: big[m].measured_comm_overhead_s))
          + "; model " + ", ".join(m for m in sorted(big, key=lambda m: big[m].model_comm_overhead_s)) + ".")


if __name__ == "__main__":
    main()
