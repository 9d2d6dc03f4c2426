"""One training step with bucketed overlap: when each bucket's all-reduce runs and what of it is exposed.

The event list the timeline draws, the step's result, and the per-bucket costs (launch, SM contention) beside the bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from interconnect.catalog import Catalog
from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import allreduce
from interconnect.topics.overlap.model.buckets import (
    Buckets,
    Production,
    _bytes_text,
    gradient_production,
    make_buckets,
    slowest_rank_lag,
)
from interconnect.topics.overlap.model.workload import (
    _BACKWARD,
    _BUCKET,
    _CONTENTION_PASSES,
    _FORWARD,
    _OPTIMIZER,
    DEFAULT_BUCKET_BYTES,
    GRADIENT_BYTES,
    MODES,
    ModelShape,
    compute_times_s,
    gpu_rates,
)
from interconnect.units import expects

__all__ = [
    "EventList",
    "StepResult",
    "bucket_times_s",
    "schedule_from_times",
    "step_schedule",
]


@dataclass(frozen=True, eq=False)
class EventList:
    """The step as intervals on two lanes. Arrays share one index; times in seconds from step start.

    ``lane``: 0 compute, 1 communication. ``kind``: 0 forward, 1 backward, 2 optimizer step,
    3 all-reduce of a bucket (``bucket`` is its index, ``size_bytes`` its size; -1 and 0 otherwise).
    """

    start_s: np.ndarray
    end_s: np.ndarray
    lane: np.ndarray
    kind: np.ndarray
    bucket: np.ndarray
    size_bytes: np.ndarray

    LANES = ("compute", "communication")
    KINDS = ("forward", "backward", "optimizer step", "all-reduce")

    def __len__(self) -> int:
        return int(self.start_s.size)

    def label(self, index: int) -> str:
        """Describe one event in words.

        Parameters
        ----------
        index : int
            The event's index.

        Returns
        -------
        str
            ``forward``, ``backward``, ``optimizer step`` or ``all-reduce of bucket 3 (26.2 MB)``.

        Examples
        --------
        >>> buckets = make_buckets(100e6, 25e6)
        >>> step = schedule_from_times(ModelShape.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
        ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
        >>> step.events.label(1), step.events.label(3)
        ('backward', 'all-reduce of bucket 1 (25 MB)')
        """
        kind = int(self.kind[index])
        if kind == _BUCKET:
            return f"all-reduce of bucket {int(self.bucket[index]) + 1} ({_bytes_text(float(self.size_bytes[index]))})"
        return self.KINDS[kind]

    def rows(self) -> list[dict[str, object]]:
        """List the events as dicts: ``start_s``, ``end_s`` (s), ``lane``, ``label`` (and ``size_bytes`` for buckets).

        Returns
        -------
        list of dict
            One dict per event, JSON-ready.

        Examples
        --------
        >>> buckets = make_buckets(100e6, 25e6)
        >>> step = schedule_from_times(ModelShape.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
        ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
        >>> step.events.rows()[0]
        {'start_s': 0.0, 'end_s': 0.03, 'lane': 'compute', 'label': 'forward'}
        """
        rows = []
        for i in range(len(self)):
            row: dict[str, object] = {"start_s": float(self.start_s[i]), "end_s": float(self.end_s[i]),
                                      "lane": self.LANES[int(self.lane[i])], "label": self.label(i)}
            if int(self.kind[i]) == _BUCKET:
                row["size_bytes"] = float(self.size_bytes[i])
            rows.append(row)
        return rows

    def buckets(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the start and end times of the bucket all-reduces only.

        Returns
        -------
        start_s, end_s : numpy.ndarray
            Times in s from the start of the step, one per bucket.

        Examples
        --------
        >>> buckets = make_buckets(100e6, 25e6)
        >>> step = schedule_from_times(ModelShape.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
        ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
        >>> [f"{t * 1e3:.0f} ms" for t in step.events.buckets()[1]]
        ['47 ms', '62 ms', '77 ms', '92 ms']
        """
        mask = self.kind == _BUCKET
        return self.start_s[mask], self.end_s[mask]


@dataclass(frozen=True, eq=False)
class StepResult:
    """One training step of one GPU in one mode. Times in seconds.

    **Exposed communication**, one definition in every mode, chart, metric and JSON: the step time
    minus this GPU's compute time, ``exposed_comm_s = step_s - compute_s``: everything data-parallel
    communication adds to the step. It is made of four parts,
    ``exposed_comm_s = wait_s + launch_s + contention_s + tail_s``: ``wait_s``, waiting for the
    slowest rank (forward and backward run at its pace, since no bucket can finish before it has
    its gradients); ``launch_s``, what the buckets' launches cost the compute lane (count x
    per-bucket time); ``contention_s``, compute slowed while all-reduces run beside it; and
    ``tail_s``, the all-reduce time that runs after the (stretched) backward pass has ended, which
    the optimizer waits for. The ideal bound has no wait, launches or contention, so there only the
    tail is exposed. ``comm_s`` is every bucket's all-reduce time added up;
    ``overlap_fraction`` is the share of ``comm_s`` hidden, ``1 - exposed_comm_s / comm_s`` (at least 0);
    ``compute_utilization`` is ``compute_s / step_s`` (MFU-style when efficiency is 1);
    ``saved_s`` is the time saved against the same step without overlap;
    ``hide_threshold_tokens`` is the tokens per GPU from which the backward pass lasts as long as
    every bucket's all-reduce but the last (infinite with one bucket: nothing can overlap).
    """

    mode: str
    workload: ModelShape
    tokens_per_gpu: float
    forward_s: float
    backward_s: float
    optimizer_s: float
    contention_s: float
    comm_s: float
    tail_s: float
    step_s: float
    no_overlap_step_s: float
    buckets: Buckets
    bucket_time_s: float
    last_bucket_time_s: float
    algorithm: str
    hide_threshold_tokens: float
    events: EventList
    notes: tuple[str, ...] = field(default=())
    launch_s: float = 0.0
    wait_s: float = 0.0

    @property
    def compute_s(self) -> float:
        """Forward, backward and optimizer time added up, s (no contention)."""
        return self.forward_s + self.backward_s + self.optimizer_s

    @property
    def exposed_comm_s(self) -> float:
        """Exposed communication, s: the step time minus the compute time (see the class docstring)."""
        return max(self.step_s - self.compute_s, 0.0)

    @property
    def backward_end_s(self) -> float:
        """When the (stretched) backward pass ends, s from the step's start."""
        return self.forward_s + self.backward_s + self.wait_s + self.launch_s + self.contention_s

    @property
    def compute_utilization(self) -> float:
        """Share of the step spent computing, compute_s / step_s (MFU-style when efficiency is 1)."""
        return self.compute_s / self.step_s if self.step_s > 0 else 1.0

    @property
    def overlap_fraction(self) -> float:
        """Share f of communication hidden, 1 - exposed / total, at least 0 (1 when there is nothing to communicate).

        The claim's arithmetic, step = compute + (1 - f) comm, holds with this f wherever it is above 0.
        """
        return max(1.0 - self.exposed_comm_s / self.comm_s, 0.0) if self.comm_s > 0 else 1.0

    @property
    def saved_s(self) -> float:
        """Time saved against the same step without overlap, s."""
        return self.no_overlap_step_s - self.step_s

    @property
    def comm_share(self) -> float:
        """Communication's share of the serialized step, T_comm / (T_comp + T_comm)."""
        total = self.compute_s + self.comm_s
        return self.comm_s / total if total > 0 else 0.0


def _candidates(production: Production, buckets: Buckets) -> np.ndarray:
    """Bucket indices where max_j [ready_j - j t] can peak: the ends and both sides of every knot.

    ready_j is piecewise linear in j (the knots of :class:`Production`) and j t is linear, so over
    the full buckets the maximum sits at an end of a linear piece.
    """
    n = buckets.count
    picks = {0, max(n - 2, 0), n - 1}
    for knot in production.bytes_knots:
        j = knot / buckets.size_bytes - 1
        picks.update((int(math.floor(j)), int(math.ceil(j))))
    return np.array(sorted(p for p in picks if 0 <= p <= n - 1), dtype=np.int64)


def _comm_end_s(forward_s: np.ndarray, backward_s: np.ndarray, fractions: np.ndarray, index: np.ndarray, count: int,
                t_full_s: np.ndarray, t_last_s: np.ndarray) -> np.ndarray:
    """When the last bucket's all-reduce ends, for buckets queued on one stream (closed form).

    With ready times r_j and durations t_j, end = max_j (r_j - S_j) + S_n where S_j is the sum of
    the durations before j. Full buckets all take t and the last takes t_last, so S_j = j t for
    j <= n - 1 and S_n = (n - 1) t + t_last. ``fractions`` are the backward shares at which the
    candidate buckets ``index`` are ready. Broadcasts over sweep axes (leading dimensions).
    """
    ready = forward_s[..., None] + fractions * backward_s[..., None]
    peak = np.max(ready - index * t_full_s[..., None], axis=-1)
    return peak + (count - 1) * t_full_s + t_last_s


def _contended(forward_s: np.ndarray, backward_s: np.ndarray, sm_contention: float, fractions: np.ndarray,
               index: np.ndarray, count: int, t_full_s: np.ndarray, t_last_s: np.ndarray,
               comm_s: np.ndarray, launch_s: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(stretched backward, end of communication): compute loses ``c`` seconds per second of overlap.

    Every bucket's launch first adds ``launch_s`` to the backward pass (``count`` x ``launch_s``).

    The overlapped communication is everything but what runs after the backward pass:
    O = T_comm - (end - T_bwd_end), since after the last gradient is ready the stream never idles.
    The backward pass is stretched to T_bwd + c O and the schedule recomputed until it settles
    (T_comp (1 + c f T_comm / T_comp) + (1 - f) T_comm, applied bucket by bucket).
    """
    base = backward_s + count * launch_s
    stretched = base
    end = _comm_end_s(forward_s, stretched, fractions, index, count, t_full_s, t_last_s)
    if sm_contention <= 0:
        return stretched, end
    for _ in range(_CONTENTION_PASSES):
        overlapped = np.clip(comm_s - (end - forward_s - stretched), 0.0, np.minimum(comm_s, stretched))
        stretched = base + sm_contention * overlapped
        end = _comm_end_s(forward_s, stretched, fractions, index, count, t_full_s, t_last_s)
    return stretched, end


def bucket_times_s(cluster: Cluster, buckets: Buckets, algorithm: str = "auto") -> tuple[float, float, str]:
    """Time the all-reduce of a full bucket and of the last one on a cluster.

    Parameters
    ----------
    cluster : Cluster
        Every GPU is one data-parallel rank.
    buckets : Buckets
        The bucket sizes in B.
    algorithm : str, default "auto"
        An all-reduce algorithm, or ``auto`` for the NCCL-like choice.

    Returns
    -------
    full_s, last_s : float
        All-reduce times in s.
    algorithm : str
        The algorithm that ran: a forced one the cluster cannot run (NVLS across nodes, SHARP
        without the switches) falls back to the NCCL-like choice.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> full, last, algorithm = bucket_times_s(cluster, make_buckets(16e9, 25 * 2**20))
    >>> f"{full * 1e3:.2f} ms", algorithm
    ('0.36 ms', 'nvls_tree')
    """
    sizes = [buckets.size_bytes, buckets.last_bytes]
    result = allreduce(cluster, sizes, algorithm)
    if algorithm != "auto" and not np.all(np.isfinite(result.time_us)):
        result = allreduce(cluster, sizes, "auto")
    return float(result.time_us[0]) * 1e-6, float(result.time_us[1]) * 1e-6, str(result.algorithm[0])


@expects(bucket_bytes="B", bucket_launch_s="s")
def step_schedule(
    cluster: Cluster,
    workload: ModelShape,
    tokens_per_gpu: float,
    *,
    bucket_bytes: float = DEFAULT_BUCKET_BYTES,
    gradient_dtype: str = "bf16",
    sm_contention: float = 0.0,
    mode: str = "overlap",
    efficiency: float = 1.0,
    algorithm: str = "auto",
    catalog: Catalog | None = None,
    bucket_time_fn: Callable[[np.ndarray], np.ndarray] | None = None,
    bucket_launch_s: float = 0.0,
    speed_spread: float = 0.0,
) -> StepResult:
    r"""Schedule one data-parallel training step of one GPU as an event list, and summarise it.

    Parameters
    ----------
    cluster : Cluster
        Every GPU of the cluster is one data-parallel rank (pure DP); its GPU sets the compute rates.
    workload : ModelShape
        The model (:meth:`ModelShape.from_preset` or :meth:`ModelShape.from_params`).
    tokens_per_gpu : float
        Tokens one GPU processes in the backward pass that ends with the all-reduce (>= 1).
    bucket_bytes : float
        Bucket capacity in B (PyTorch default 25 MiB), or a data-size Quantity.
    gradient_dtype : {"bf16", "fp16", "fp32"}
        Bytes per gradient element sent.
    sm_contention : float
        c in [0, 0.9]: the share of compute speed lost while communication kernels run (``overlap`` only).
    mode : {"overlap", "none", "ideal"}
        See the module docstring.
    efficiency : float
        Share of the GPU's dense BF16 peak the matmuls reach (1 = the rooflines' assumption).
    algorithm : str, default "auto"
        The all-reduce algorithm for the buckets.
    catalog : interconnect.catalog.Catalog, optional
        Where the GPU's rates come from.
    bucket_time_fn : callable, optional
        Bucket size (B, array) -> all-reduce time (s, array); default: the cluster model.
    bucket_launch_s : float, default 0.0
        Compute-lane time per bucket, s (``overlap`` and ``none``; :func:`load_bucket_costs` gives
        a sourced value).
    speed_spread : float, default 0.0
        Range of speeds between the cluster's GPUs, a fraction in [0, 0.5]: the step runs at the
        pace of the slowest rank (:func:`slowest_rank_lag`).

    Returns
    -------
    StepResult
        Times in s, with ``step_s = compute_s + exposed_comm_s`` and
        ``exposed_comm_s = wait_s + launch_s + contention_s + tail_s`` (:class:`StepResult`).

    Raises
    ------
    ValueError
        For an unknown mode or dtype, or a value out of range.

    Notes
    -----
    DDP starts each bucket's all-reduce once its gradients exist and queues buckets on one stream
    (Li et al., "PyTorch Distributed", VLDB 2020, https://arxiv.org/abs/2006.15704, section 3.2:
    gradient bucketing and overlap).
    The closed form of that queue is ours:

    .. math::

        T_{step} = T_{fwd} + \max\bigl(T_{bwd},\ \max_j (r_j - S_j) + S_n - T_{fwd}\bigr) + T_{opt},
        \qquad r_j = T_{fwd} + \phi(e_j) \, T_{bwd}

    where bucket :math:`j` holds gradient bytes up to :math:`e_j`, :math:`\phi` is the backward
    share at which that byte is ready (:func:`gradient_production`), and :math:`S_j` sums the
    all-reduce times before bucket :math:`j`. Without overlap,
    :math:`T_{step} = T_{fwd} + T_{bwd} + \sum_j t_j + T_{opt}`.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.units import Q_
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> step = step_schedule(cluster, ModelShape.from_params(8e9, 32), 4096)
    >>> f"{step.step_s * 1e3:.0f} ms", step.buckets.count, f"{step.exposed_comm_s * 1e3:.1f} ms exposed"
    ('352 ms', 611, '86.7 ms exposed')
    >>> same = step_schedule(cluster, ModelShape.from_params(8e9, 32), 4096, bucket_bytes=Q_(25, "MiB"))
    >>> same.step_s == step.step_s
    True
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if gradient_dtype not in GRADIENT_BYTES:
        raise ValueError(f"unknown gradient dtype {gradient_dtype!r}; choose one of {', '.join(GRADIENT_BYTES)}")
    tokens = float(tokens_per_gpu)
    if not (math.isfinite(tokens) and tokens >= 1):
        raise ValueError(f"tokens per GPU must be at least 1, got {tokens_per_gpu!r}")
    if not (0 <= sm_contention < 1):
        raise ValueError(f"SM contention must be in [0, 1), got {sm_contention!r}")
    if not (0 < efficiency <= 1):
        raise ValueError(f"efficiency must be in (0, 1], got {efficiency!r}")
    if not (math.isfinite(bucket_launch_s) and 0 <= bucket_launch_s <= 0.01):
        raise ValueError(f"the launch time per bucket must be in [0, 10 ms], got {bucket_launch_s!r} s")
    if not (math.isfinite(speed_spread) and 0 <= speed_spread <= 0.5):
        raise ValueError(f"the GPU speed spread must be in [0, 0.5], got {speed_spread!r}")
    grad = GRADIENT_BYTES[gradient_dtype]
    flops, hbm = gpu_rates(cluster.gpu if catalog is not None else cluster.gpu_spec(), catalog)
    fwd, bwd, opt = (float(a[0]) for a in compute_times_s(workload, tokens, flops, hbm, grad, efficiency))
    buckets = make_buckets(workload.params * grad, bucket_bytes)
    notes: list[str] = []
    if bucket_time_fn is None:
        t_full, t_last, algo = bucket_times_s(cluster, buckets, algorithm)
        if algorithm not in ("auto", algo):
            notes.append(f"The {algorithm} all-reduce cannot run on this cluster; the buckets use the NCCL-like "
                         f"choice ({algo}) instead.")
    else:
        times = np.asarray(bucket_time_fn(np.array([buckets.size_bytes, buckets.last_bytes])), dtype=float)
        t_full, t_last, algo = float(times[0]), float(times[1]), "given"
    step = schedule_from_times(workload, tokens, fwd, bwd, opt, buckets, t_full, t_last,
                               production=gradient_production(workload, grad, mode), mode=mode,
                               sm_contention=sm_contention, algorithm=algo, bucket_launch_s=bucket_launch_s,
                               straggler=float(slowest_rank_lag(cluster.ranks, speed_spread)))
    return replace(step, notes=(*step.notes, *notes)) if notes else step


@expects(forward_s="s", backward_s="s", optimizer_s="s", bucket_time_s="s", last_bucket_time_s="s",
         bucket_launch_s="s")
def schedule_from_times(workload: ModelShape, tokens_per_gpu: float, forward_s: float, backward_s: float,
                        optimizer_s: float, buckets: Buckets, bucket_time_s: float, last_bucket_time_s: float, *,
                        production: Production, mode: str = "overlap", sm_contention: float = 0.0,
                        algorithm: str = "given", bucket_launch_s: float = 0.0,
                        straggler: float = 0.0) -> StepResult:
    r"""Schedule the step from given phase times and bucket all-reduce times (what :func:`step_schedule` computes).

    Parameters
    ----------
    workload : ModelShape
        The model.
    tokens_per_gpu : float
        Tokens per GPU (for the hide threshold).
    forward_s, backward_s, optimizer_s : float
        Phase times, s.
    buckets : Buckets
        The buckets (B).
    bucket_time_s, last_bucket_time_s : float
        All-reduce time of a full bucket and of the last one, s.
    production : Production
        When gradient bytes are ready.
    mode : {"overlap", "none", "ideal"}
        The schedule.
    sm_contention : float, default 0.0
        c, compute speed lost while communication runs (``overlap`` only).
    algorithm : str, default "given"
        The name to record.
    bucket_launch_s : float, default 0.0
        Compute-lane time per bucket, s: the reducer's bookkeeping and the collective's launch
        (``overlap`` and ``none``; the ``ideal`` bound has none).
    straggler : float, default 0.0
        How much slower than this GPU the slowest rank computes, a fraction
        (:func:`slowest_rank_lag`; ``overlap`` and ``none``).

    Returns
    -------
    StepResult
        As :func:`step_schedule` (same formulas), for measured compute times
        (``benchmarks/overlap_accuracy.py`` uses a published 1-GPU iteration).

    Notes
    -----
    Each of the :math:`n` buckets costs the compute lane :math:`t_{launch}`; with SM contention,
    compute also loses :math:`c` seconds per second of overlapped communication :math:`O`. Our
    fixed point stretches the backward pass to :math:`T_{bwd} + n \, t_{launch} + c \, O` and
    re-schedules until it settles. Small buckets pay both terms more often: more launches, and
    more communication time (each all-reduce pays its latency) for the SMs to share. No bucket's
    all-reduce can finish before the slowest rank has its gradients, so forward and backward run
    at that rank's pace, :math:`(1 + s)` times this GPU's; the difference is ``wait_s``.

    Examples
    --------
    >>> buckets = make_buckets(100e6, 25e6)
    >>> step = schedule_from_times(ModelShape.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
    ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
    >>> f"{step.step_s * 1e3:.1f} ms", f"{step.exposed_comm_s * 1e3:.1f} ms"
    ('92.0 ms', '2.0 ms')
    """
    if not (math.isfinite(straggler) and 0 <= straggler < 1):
        raise ValueError(f"the slowest rank's lag must be a fraction in [0, 1), got {straggler!r}")
    fwd0, bwd0, opt, t_full, t_last = forward_s, backward_s, optimizer_s, bucket_time_s, last_bucket_time_s
    tokens = float(tokens_per_gpu)
    comm = (buckets.count - 1) * t_full + t_last
    contention = sm_contention if mode == "overlap" else 0.0
    launch = buckets.count * bucket_launch_s if mode != "ideal" else 0.0
    lag = straggler if mode != "ideal" else 0.0
    # Every bucket waits for the slowest rank's gradients, so the step runs at that rank's pace.
    fwd, bwd = fwd0 * (1 + lag), bwd0 * (1 + lag)
    wait = (fwd0 + bwd0) * lag
    no_overlap_step = fwd0 + bwd0 + (fwd0 + bwd0) * straggler + buckets.count * bucket_launch_s + comm + opt

    if mode == "none":
        stretched = bwd + launch
        comm_end = fwd + stretched + comm
        starts = fwd + stretched + np.arange(buckets.count) * t_full
    else:
        index = _candidates(production, buckets)
        fractions = production.fraction(buckets.end_bytes[index])
        stretched_a, _ = _contended(np.array([fwd]), np.array([bwd]), contention, fractions, index, buckets.count,
                                    np.array([t_full]), np.array([t_last]), np.array([comm]),
                                    launch / buckets.count)
        stretched = float(stretched_a[0])
        ready = fwd + production.fraction(buckets.end_bytes) * stretched
        before = np.arange(buckets.count) * t_full  # S_j: every bucket before j is full
        starts = np.maximum.accumulate(ready - before) + before
        comm_end = float(starts[-1] + t_last)
    durations = np.full(buckets.count, t_full)
    durations[-1] = t_last
    exposed = max(comm_end - (fwd + stretched), 0.0)
    step = fwd + stretched + exposed + opt
    events = _events(fwd, stretched, opt, comm_end, starts, durations, buckets)
    per_token_bwd = bwd0 / tokens
    # Enough backward pass to cover every bucket but the last, which by construction ends the step.
    threshold = (comm - t_last) / per_token_bwd if per_token_bwd > 0 and buckets.count > 1 else math.inf
    return StepResult(
        mode=mode, workload=workload, tokens_per_gpu=tokens, forward_s=fwd0, backward_s=bwd0, optimizer_s=opt,
        contention_s=stretched - bwd - launch, comm_s=comm, tail_s=exposed, step_s=step,
        no_overlap_step_s=no_overlap_step, buckets=buckets, bucket_time_s=t_full, last_bucket_time_s=t_last,
        algorithm=algorithm, hide_threshold_tokens=threshold, events=events, notes=buckets.notes, launch_s=launch,
        wait_s=wait,
    )


def _events(fwd: float, bwd: float, opt: float, comm_end: float, starts: np.ndarray, durations: np.ndarray,
            buckets: Buckets) -> EventList:
    n = buckets.count
    compute_start = np.array([0.0, fwd, max(comm_end, fwd + bwd)])
    compute_end = np.array([fwd, fwd + bwd, max(comm_end, fwd + bwd) + opt])
    return EventList(
        start_s=np.concatenate([compute_start, starts]),
        end_s=np.concatenate([compute_end, starts + durations]),
        lane=np.concatenate([np.zeros(3, np.int8), np.ones(n, np.int8)]),
        kind=np.concatenate([np.array([_FORWARD, _BACKWARD, _OPTIMIZER], np.int8), np.full(n, _BUCKET, np.int8)]),
        bucket=np.concatenate([np.full(3, -1, np.int64), np.arange(n, dtype=np.int64)]),
        size_bytes=np.concatenate([np.zeros(3), buckets.sizes_bytes]),
    )
