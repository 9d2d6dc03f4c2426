"""Sweeps over tokens per GPU and over node counts, vectorized, with the same closed form as the step.

What the Overlap page's sweep charts and live chart draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.catalog import Catalog
from interconnect.hardware.cluster import Cluster
from interconnect.topics.overlap.model.buckets import (
    Buckets,
    Production,
    gradient_production,
    make_buckets,
    slowest_rank_lag,
)
from interconnect.topics.overlap.model.step import _candidates, _contended, bucket_times_s
from interconnect.topics.overlap.model.workload import GRADIENT_BYTES, ModelShape, compute_times_s, gpu_rates
from interconnect.units import expects

__all__ = [
    "Sweep",
    "node_sweep",
    "token_sweep",
]


@dataclass(frozen=True, eq=False)
class Sweep:
    """Exposed communication and utilisation along one axis (``x``), one row per series.

    ``exposed_s`` and ``utilization`` have shape (series, x); ``series`` names each row.
    """

    x: np.ndarray
    series: tuple[str, ...]
    exposed_s: np.ndarray
    utilization: np.ndarray
    step_s: np.ndarray
    comm_s: np.ndarray


def _sweep_rows(fwd: np.ndarray, bwd: np.ndarray, opt: np.ndarray, buckets: Buckets, production: Production,
                t_full: np.ndarray, t_last: np.ndarray, contention: float, mode: str,
                launch_s: float = 0.0, lag: object = 0.0) -> dict[str, np.ndarray]:
    comm = (buckets.count - 1) * t_full + t_last
    launch = launch_s if mode != "ideal" else 0.0
    compute = fwd + bwd + opt
    if mode != "ideal":
        fwd, bwd = fwd * (1 + np.asarray(lag)), bwd * (1 + np.asarray(lag))
    if mode == "none":
        stretched = bwd + buckets.count * launch
        end = fwd + stretched + comm
    else:
        index = _candidates(production, buckets)
        fractions = production.fraction(buckets.end_bytes[index])
        stretched, end = _contended(fwd, bwd, contention, fractions, index, buckets.count, t_full, t_last, comm,
                                    launch)
    tail = np.maximum(end - (fwd + stretched), 0.0)
    step = fwd + stretched + tail + opt
    # Exposed communication as StepResult defines it: the step time minus the compute time.
    return {"exposed": np.maximum(step - compute, 0.0), "utilization": compute / step, "step": step, "comm": comm}


@expects(bucket_bytes="B", bucket_launch_s="s")
def token_sweep(cluster: Cluster, workload: ModelShape, tokens: Sequence[float], *, bucket_bytes: float,
                gradient_dtype: str = "bf16", sm_contention: float = 0.0, efficiency: float = 1.0,
                modes: Sequence[str] = ("none", "overlap", "ideal"), algorithm: str = "auto",
                catalog: Catalog | None = None, bucket_launch_s: float = 0.0, speed_spread: float = 0.0) -> Sweep:
    """Sweep exposed communication and utilisation against tokens per GPU, for each mode.

    Parameters
    ----------
    cluster : Cluster
        The cluster (bucket times are fixed along the sweep).
    workload : ModelShape
        The model.
    tokens : sequence of float
        Tokens per GPU.
    bucket_bytes : float
        Bucket capacity, B.
    gradient_dtype, sm_contention, efficiency, algorithm, catalog, bucket_launch_s, speed_spread
        As for :func:`step_schedule`.
    modes : sequence of str
        One series per mode.

    Returns
    -------
    Sweep
        Exposed time, step time and communication in s, utilisation as a fraction; shape
        (modes, tokens).

    Notes
    -----
    The same closed form as :func:`step_schedule`, vectorised over the token axis.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> sweep = token_sweep(cluster, ModelShape.from_params(8e9, 32), [512, 4096, 32768], bucket_bytes=25 * 2**20)
    >>> bool(np.all(np.diff(sweep.exposed_s[1]) <= 0))
    True
    """
    grad = GRADIENT_BYTES[gradient_dtype]
    flops, hbm = gpu_rates(cluster.gpu if catalog is not None else cluster.gpu_spec(), catalog)
    fwd, bwd, opt = compute_times_s(workload, tokens, flops, hbm, grad, efficiency)
    buckets = make_buckets(workload.params * grad, bucket_bytes)
    t_full, t_last, _ = bucket_times_s(cluster, buckets, algorithm)
    rows = [_sweep_rows(fwd, bwd, opt, buckets, gradient_production(workload, grad, mode), np.full_like(fwd, t_full),
                        np.full_like(fwd, t_last), sm_contention if mode == "overlap" else 0.0, mode, bucket_launch_s,
                        slowest_rank_lag(cluster.ranks, speed_spread)) for mode in modes]
    return Sweep(np.asarray(tokens, dtype=float), tuple(modes), np.array([r["exposed"] for r in rows]),
                 np.array([r["utilization"] for r in rows]), np.array([r["step"] for r in rows]),
                 np.array([r["comm"] for r in rows]))


@expects(bucket_bytes="B", bucket_launch_s="s")
def node_sweep(cluster: Cluster, workload: ModelShape, tokens_per_gpu: float, node_counts: Sequence[int], *,
               bucket_bytes: float, gradient_dtype: str = "bf16", sm_contention: float = 0.0, efficiency: float = 1.0,
               algorithms: Sequence[str] = ("auto", "ring"), catalog: Catalog | None = None,
               bucket_launch_s: float = 0.0, speed_spread: float = 0.0) -> Sweep:
    """Sweep bucketed overlap against the number of nodes, one series per all-reduce algorithm.

    Parameters
    ----------
    cluster : Cluster
        The cluster; each node count re-times the buckets on a bigger copy of it.
    workload : ModelShape
        The model.
    tokens_per_gpu : float
        Tokens per GPU.
    node_counts : sequence of int
        The x axis.
    bucket_bytes : float
        Bucket capacity, B.
    gradient_dtype, sm_contention, efficiency, catalog, bucket_launch_s, speed_spread
        As for :func:`step_schedule`.
    algorithms : sequence of str
        One series per algorithm: ``ring`` shows the :math:`2(n - 1)` latency steps of a ring
        growing with the GPU count (the Ultra-Scale Playbook's warning about 512+ GPUs,
        ``ultrascale-playbook``), ``auto`` what an NCCL-like chooser does instead.

    Returns
    -------
    Sweep
        Exposed time, step time and communication in s, utilisation as a fraction; shape
        (algorithms, node counts).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> sweep = node_sweep(cluster, ModelShape.from_params(8e9, 32), 4096, [2, 64], bucket_bytes=25 * 2**20)
    >>> sweep.series, sweep.exposed_s.shape
    (('auto', 'ring'), (2, 2))
    """
    grad = GRADIENT_BYTES[gradient_dtype]
    flops, hbm = gpu_rates(cluster.gpu if catalog is not None else cluster.gpu_spec(), catalog)
    counts = np.asarray(list(node_counts), dtype=float)
    fwd, bwd, opt = compute_times_s(workload, np.full(counts.size, float(tokens_per_gpu)), flops, hbm, grad,
                                    efficiency)
    buckets = make_buckets(workload.params * grad, bucket_bytes)
    production = gradient_production(workload, grad, "overlap")
    rows = []
    for algorithm in algorithms:
        times = np.array([bucket_times_s(cluster.with_nodes(int(k)), buckets, algorithm)[:2] for k in counts])
        lag = slowest_rank_lag(counts * cluster.gpus_per_node, speed_spread)
        rows.append(_sweep_rows(fwd, bwd, opt, buckets, production, times[:, 0], times[:, 1], sm_contention,
                                "overlap", bucket_launch_s, lag))
    return Sweep(counts, tuple(algorithms), np.array([r["exposed"] for r in rows]),
                 np.array([r["utilization"] for r in rows]), np.array([r["step"] for r in rows]),
                 np.array([r["comm"] for r in rows]))
