"""PyTorch's published DDP benchmark, and the overlap model run on the same systems.

The measurement (``data/published/pytorch-ddp-benchmark.csv``, read by
:func:`interconnect.topics.overlap.ddp_data.load_ddp_benchmark`, re-exported here) comes from pytorch/pytorch
``benchmarks/distributed/ddp/README.md``: torchvision models at batch 32 per GPU on DGX-1 machines
(8 x V100 on NVLink, 4 x 100 Gbit/s InfiniBand each), PyTorch 1.4 with NCCL, as the iteration time
on 1 GPU without DDP, then 1 to 16 GPUs with DDP's default 25 MB buckets, and the throughput change
with 1 MB buckets. It is a real DDP overlap measurement: the GPUs never wait for a full gradient
all-reduce, so any gap over the single-GPU time is what stays exposed, plus DDP's own bookkeeping.

:func:`compare_ddp_benchmark` runs :func:`interconnect.topics.overlap.model.schedule_from_times` with the
measured single-GPU iteration as compute (one third forward, two thirds backward, the SGD step at
HBM speed), fp32 gradients cut into buckets, and bucket times from the all-reduce model of the
``dgx-1-v100`` cluster. It runs twice: with the sourced per-bucket costs
(:func:`~interconnect.topics.overlap.model.load_bucket_costs`: a launch time per bucket on the compute
lane, the SM contention while a collective runs, and the wait for the slowest of the GPUs) and
without them (bytes only), so that the benchmark shows what each adds.
"""

from __future__ import annotations

from dataclasses import dataclass

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.overlap.ddp_data import load_ddp_benchmark
from interconnect.topics.overlap.model import (
    BucketCosts,
    ModelShape,
    bucket_times_s,
    gpu_rates,
    gradient_production,
    load_bucket_costs,
    make_buckets,
    schedule_from_times,
    slowest_rank_lag,
)

__all__ = ["DDP_BENCHMARK_SOURCE", "DdpRow", "compare_ddp_benchmark", "load_ddp_benchmark"]

DDP_BENCHMARK_SOURCE = ("PyTorch, benchmarks/distributed/ddp/README.md (pytorch/pytorch, commit bf69c149): DDP on "
                        "DGX-1 V100 machines, PyTorch 1.4, NCCL")
_GRADIENT_BYTES = 4  # PyTorch 1.4 trains these models in fp32
#: SGD with momentum reads weight, gradient and momentum and writes weight and momentum: 5 x 4 bytes.
_SGD_BYTES_PER_PARAM = 20
_MIB = 2**20


@dataclass(frozen=True)
class DdpRow:
    """One measured configuration next to the model. Times in seconds."""

    model: str
    params: int
    gpus: int
    machines: int
    measured_s: float
    single_gpu_s: float
    single_gpu_ddp_s: float
    model_s: float
    model_exposed_s: float
    model_algorithm: str
    measured_bucket1_diff: float | None
    model_bucket1_diff: float
    model_launch_s: float = 0.0
    model_contention_s: float = 0.0
    model_wait_s: float = 0.0
    bytes_only_s: float = 0.0
    bytes_only_exposed_s: float = 0.0
    bytes_only_bucket1_diff: float = 0.0

    # The bucket diffs are the change in throughput with 1 MB buckets instead of 25 MB (negative: slower).

    @property
    def measured_comm_overhead_s(self) -> float:
        """Measured time over one GPU *with* DDP, s: what the extra GPUs cost, DDP's bookkeeping removed."""
        return self.measured_s - self.single_gpu_ddp_s

    @property
    def model_comm_overhead_s(self) -> float:
        """The model's time over its one-GPU DDP step: slowest-GPU wait, SM contention, exposed communication, s."""
        return self.model_wait_s + self.model_contention_s + self.model_exposed_s

    @property
    def bytes_only_comm_overhead_s(self) -> float:
        """The same without per-bucket costs: exposed communication only, s."""
        return self.bytes_only_exposed_s

    @property
    def ratio(self) -> float:
        """The model's iteration time over the measured one (dimensionless; 1 is exact agreement)."""
        return self.model_s / self.measured_s


def _model_step(params: int, gpus: int, machines: int, compute_s: float, bucket_bytes: float,
                costs: BucketCosts | None = None):
    per_node = gpus if machines <= 1 else gpus // machines
    cluster, _ = resolve_cluster("v100", node="dgx-1-v100", gpus_per_node=per_node, nodes=max(machines, 1))
    _, hbm = gpu_rates("v100")
    optimizer = _SGD_BYTES_PER_PARAM * params / hbm
    forward = (compute_s - optimizer) / 3
    workload = ModelShape.from_params(params, 50)
    buckets = make_buckets(params * _GRADIENT_BYTES, bucket_bytes)
    t_full, t_last, algorithm = bucket_times_s(cluster, buckets)
    production = gradient_production(workload, _GRADIENT_BYTES, "overlap")
    launch, contention, spread = (costs.launch_s, costs.contention, costs.spread) if costs else (0.0, 0.0, 0.0)
    step = schedule_from_times(workload, 1, forward, 2 * forward, optimizer, buckets, t_full, t_last,
                               production=production, mode="overlap", algorithm=algorithm,
                               sm_contention=contention, bucket_launch_s=launch,
                               straggler=float(slowest_rank_lag(gpus, spread)))
    return step


def compare_ddp_benchmark(costs: BucketCosts | None = None) -> list[DdpRow]:
    r"""Set every DDP row of the published benchmark beside the overlap model's iteration time.

    Returns
    -------
    list of DdpRow
        Measured and modelled iteration times in s, and the throughput change with 1 MB buckets
        (fraction; negative is slower); the ``bytes_only_*`` fields are the same model without
        per-bucket costs.

    Parameters
    ----------
    costs : BucketCosts, optional
        The per-bucket costs (default: the sourced :func:`~interconnect.topics.overlap.model.load_bucket_costs`).

    Notes
    -----
    The model runs :func:`~interconnect.topics.overlap.model.schedule_from_times` with the measured
    single-GPU iteration :math:`t_1` as compute. Our split: the SGD step streams
    :math:`20 N` bytes (weight, gradient and momentum read; weight and momentum written, fp32) at
    the GPU's HBM rate, and the rest is one third forward, two thirds backward:

    .. math::

        t_{opt} = \frac{20 N}{B_{HBM}}, \qquad
        t_{fwd} = \frac{t_1 - t_{opt}}{3}, \qquad t_{bwd} = 2 \, t_{fwd}

    Gradients are fp32 (4 B per parameter) in DDP's default 25 MiB buckets; bucket times come from
    the all-reduce model of the ``dgx-1-v100`` cluster; each bucket costs the compute lane
    :math:`t_{launch}`, compute runs :math:`c` slower while a collective runs, and forward and backward
    run at the pace of the slowest of the GPUs (:func:`~interconnect.topics.overlap.model.slowest_rank_lag`).

    Examples
    --------
    >>> rows = compare_ddp_benchmark()
    >>> row = next(r for r in rows if r.model == "resnet50" and r.gpus == 16)
    >>> f"measured {row.measured_s * 1e3:.0f} ms, model {row.model_s * 1e3:.1f} ms"
    'measured 104 ms, model 101.7 ms'
    """
    costs = load_bucket_costs() if costs is None else costs
    data = load_ddp_benchmark()
    single = {row["model"]: row["p50_s"] for row in data if row["machines"] == 0}
    single_ddp = {row["model"]: row["p50_s"] for row in data if row["machines"] == 1 and row["gpus"] == 1}
    out = []
    for row in data:
        if row["machines"] == 0:
            continue
        name, params, gpus, machines = row["model"], row["params"], row["gpus"], row["machines"]
        compute = single[name]
        step = _model_step(params, gpus, machines, compute, 25 * _MIB, costs)
        small = _model_step(params, gpus, machines, compute, 1 * _MIB, costs)
        plain = _model_step(params, gpus, machines, compute, 25 * _MIB)
        plain_small = _model_step(params, gpus, machines, compute, 1 * _MIB)
        out.append(DdpRow(
            model=name, params=params, gpus=gpus, machines=machines, measured_s=row["p50_s"],
            single_gpu_s=compute, single_gpu_ddp_s=single_ddp[name], model_s=step.step_s,
            model_exposed_s=step.tail_s, model_algorithm=step.algorithm,
            measured_bucket1_diff=row["bucket1_diff_pct"] / 100 if row["bucket1_diff_pct"] is not None else None,
            model_bucket1_diff=step.step_s / small.step_s - 1,
            model_launch_s=step.launch_s, model_contention_s=step.contention_s, model_wait_s=step.wait_s,
            bytes_only_s=plain.step_s,
            bytes_only_exposed_s=plain.tail_s, bytes_only_bucket1_diff=plain.step_s / plain_small.step_s - 1,
        ))
    return out
