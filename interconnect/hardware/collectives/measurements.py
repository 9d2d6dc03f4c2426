"""Published collective measurements (all-reduce first) and the comparison of the model against a measured sweep.

The data lives in ``interconnect/data/measurements/`` (``manifest.toml`` says, for every file, which
system produced it, where it comes from and which cluster flags describe it), read and checked by
:mod:`interconnect.datafiles.measurements` (whose ``MEASUREMENTS_DIR`` is re-exported here). :func:`compare_sweep`
is the one comparison used by the ``compare`` CLI command, ``benchmarks/accuracy.py`` and the tests,
so that all three report the same numbers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from interconnect.datafiles.measurements import (
    MEASUREMENTS_DIR,
    MeasuredSweep,
    MeasurementDataError,
    read_measured_sweeps,
)
from interconnect.hardware.cluster import Cluster, resolve_cluster
from interconnect.hardware.collectives.fitting import AlphaBetaFit, fit_alpha_beta
from interconnect.hardware.collectives.model import allreduce
from interconnect.hardware.collectives.params import as_size_bytes, busbw_factor
from interconnect.units import expects

__all__ = [
    "ACCURACY_TARGETS",
    "check_launch",
    "LARGE_BYTES",
    "LAUNCH_OVERHEAD_US",
    "MEASUREMENTS_DIR",
    "HOST_ISSUE_US_PER_GPU",
    "MIDDLE_BYTES",
    "SMALL_BYTES",
    "Comparison",
    "Measurement",
    "MeasurementDataError",
    "compare_sweep",
    "host_issue_us",
    "launch_overhead_us",
    "launched",
    "load_measurements",
]

#: The size bands of the accuracy bar (issue 8): small <= 64 KiB, middle 1-128 MiB, large >= 256 MiB.
SMALL_BYTES = 64 * 1024
MIDDLE_BYTES = (1024 * 1024, 128 * 1024 * 1024)
LARGE_BYTES = 256 * 1024 * 1024
#: What the benchmark's way of driving the GPUs adds to every call it times (µs), by launch mode. Not part
#: of the collective (a training step pays its own framework's cost instead), so it is applied to the model
#: only when a published run is compared, or on request (``--procs``), never in the plain model.
#: * ``process-per-gpu``: nccl-tests with one process per GPU (MPI, Slurm), what NCCL's own figures use: 0.
#: * ``single-process``: nccl-tests ``-g N``, one thread issuing the call to every GPU of the node. Nothing
#:   is *added*: nccl-tests times a run of back-to-back calls (``src/common.cu``: the timed loop issues
#:   every iteration, then waits once and divides by the iterations), so the thread's issue time for the
#:   next call overlaps the GPUs' work on this one, and a call takes the longer of the two
#:   (:func:`host_issue_us`, :data:`HOST_ISSUE_US_PER_GPU` per GPU driven).
#: * ``pytorch``: ml-engineering's all_reduce_bench, timed around ``torch.distributed.all_reduce``:
#:   +25 µs, the small-message excess of its 8 x H200 and 8 x B200 sweeps over nccl-tests-timed
#:   one-node runs of the same GPUs (38-50 µs against 13-19 µs).
LAUNCH_OVERHEAD_US = {"process-per-gpu": 0.0, "single-process": 0.0, "pytorch": 25.0}
#: Host time one process spends issuing one collective call to each GPU it drives (µs per GPU). Rule: the
#: floor of a ``-g N`` sweep divided by N, on a run whose GPUs' own time is well below that floor, at the
#: largest N published. Source: https://github.com/NVIDIA/nccl-tests/issues/123 (DGX A100,
#: ``NCCL_ALGO=Ring NCCL_MAX_NCHANNELS=1 all_reduce_perf -b 8 -e 128 -g N``): 33.7 µs at ``-g 8``, where the
#: model's one-process-per-GPU ring takes 19 µs. The same sweep's 16.9, 20.8, 25.2 and 29.5 µs at ``-g 4``
#: to ``-g 7`` are 4.2 µs per GPU each (the rule predicts 16.8-29.5); ``-g 2`` and ``-g 3`` (10.0, 13.8 µs)
#: sit above 2 and 3 x 4.2, where the GPUs' time is the longer. Not taken from any table the model is
#: compared with; an 8 x H100 ``-g 8`` floor (33.2 µs, ZiyanIshani/vpbenchmarking) gives 4.15.
HOST_ISSUE_US_PER_GPU = 33.7 / 8
#: GPUs one process drives in nccl-tests' ``-g`` when the log does not say (a node of eight).
SINGLE_PROCESS_REFERENCE_GPUS = 8


def check_launch(launch: str) -> None:
    """Raise ``ValueError`` naming the choices unless ``launch`` is a key of :data:`LAUNCH_OVERHEAD_US`."""
    if launch not in LAUNCH_OVERHEAD_US:
        raise ValueError(f"unknown launch {launch!r}; choose one of {', '.join(LAUNCH_OVERHEAD_US)}")


def launch_overhead_us(launch: str, gpus_per_process: int = SINGLE_PROCESS_REFERENCE_GPUS) -> float:
    r"""Return what a benchmark's way of driving the GPUs adds to every call it times (µs).

    Parameters
    ----------
    launch : str
        A key of :data:`LAUNCH_OVERHEAD_US`.
    gpus_per_process : int
        GPUs one process drives (nccl-tests' ``-g``); kept for the callers, no added cost depends on it.

    Returns
    -------
    float
        µs per call added to the model's time: 0 for ``process-per-gpu`` and ``single-process`` (whose
        cost is a floor, :func:`host_issue_us`), 25 for ``pytorch``.

    Raises
    ------
    ValueError
        For an unknown launch mode.

    Examples
    --------
    >>> launch_overhead_us("pytorch", 2), launch_overhead_us("process-per-gpu", 8), launch_overhead_us("single-process")
    (25.0, 0.0, 0.0)
    """
    check_launch(launch)
    return LAUNCH_OVERHEAD_US[launch]


def host_issue_us(launch: str, gpus_per_process: int = SINGLE_PROCESS_REFERENCE_GPUS) -> float:
    r"""Return the host's issue time per call of a process driving several GPUs, the floor of every call (µs).

    Parameters
    ----------
    launch : str
        A key of :data:`LAUNCH_OVERHEAD_US`.
    gpus_per_process : int
        GPUs one process drives (nccl-tests' ``-g``).

    Returns
    -------
    float
        0 unless ``launch`` is ``single-process``; then

        .. math:: t_\text{host} = g\,t_\text{gpu}, \qquad t_\text{gpu} = \frac{33.7\ \mu s}{8}

        and a timed call takes :math:`\max(t_\text{host}, t_\text{model})`: the thread issues call i + 1
        while the GPUs run call i (:data:`HOST_ISSUE_US_PER_GPU`).

    Raises
    ------
    ValueError
        For an unknown launch mode.

    Examples
    --------
    >>> round(host_issue_us("single-process", 8), 1), round(host_issue_us("single-process", 2), 2)
    (33.7, 8.43)
    >>> host_issue_us("process-per-gpu", 8), host_issue_us("pytorch", 8)
    (0.0, 0.0)
    """
    check_launch(launch)
    if launch != "single-process":
        return 0.0
    return HOST_ISSUE_US_PER_GPU * max(int(gpus_per_process), 1)


def launched(cluster: Cluster, launch: str) -> Cluster:
    """Return the cluster as a benchmark with this launch mode times it (added cost and host floor).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    launch : str
        A key of :data:`LAUNCH_OVERHEAD_US`; ``single-process`` drives each node's GPUs from one process.

    Returns
    -------
    Cluster
        A copy with the launch's added µs in ``extra_latency_us`` and its host floor in ``host_issue_us``
        (unchanged for one rank, whose call the model does not time).

    Raises
    ------
    ValueError
        For an unknown launch mode.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> driven = launched(cluster, "single-process")
    >>> round(driven.host_issue_us, 1), driven.extra_latency_us
    (33.7, 0.0)
    """
    added = launch_overhead_us(launch, cluster.gpus_per_node)
    floor = host_issue_us(launch, cluster.gpus_per_node)
    if cluster.ranks <= 1 or not (added or floor):
        return cluster
    return replace(cluster, extra_latency_us=cluster.extra_latency_us + added,
                   host_issue_us=max(cluster.host_issue_us, floor))


#: The bar itself: small-message time within x2, middle within x1.5, large busbw within ±20 %, and a
#: geometric-mean error factor of at most 1.35 over every row of a sweep.
ACCURACY_TARGETS = {"small_time_factor": 2.0, "middle_time_factor": 1.5, "large_busbw_fraction": 0.20,
                    "geomean_error_factor": 1.35}


@dataclass(frozen=True, eq=False)
class Measurement:
    """One published sweep: sizes (bytes), out-of-place times (µs) and how to model its system."""

    id: str
    system: str
    source: str
    role: str
    cluster_inputs: dict[str, object]
    size_bytes: np.ndarray
    time_us: np.ndarray
    assumption: str = ""
    algorithm: str = "auto"
    path: Path | None = None
    #: NCCL_PROTO forced in the run (``ll``, ``ll128``, ``simple``), ``auto`` when NCCL chose.
    protocol: str = "auto"
    #: NCCL (or RCCL) version printed by the run, "" when the log does not say.
    nccl_version: str = ""
    #: Other settings of the run that change its timing (environment variables, launch mode).
    environment: str = ""
    #: Primary source of the rows (a URL with commit and lines where the host allows it).
    url: str = ""
    #: How the benchmark drove the GPUs (a key of :data:`LAUNCH_OVERHEAD_US`).
    launch: str = "process-per-gpu"
    #: True while the model is not yet held to the accuracy bar on this run (a run added as a
    #: target for a model change); ``benchmarks/accuracy.py`` still prints it.
    pending: bool = False
    collective: str = "all_reduce"
    #: How NCCL moved the data: ``sm`` (its kernels, the default and what the model describes) or ``copy-engine``
    #: (NCCL_CTA_POLICY_ZERO with registered buffers); a copy-engine table is never a neighbour in an error band.
    data_path: str = "sm"

    def cluster(self) -> Cluster:
        """Resolve the cluster the sweep was measured on, from the manifest's inputs.

        Returns
        -------
        Cluster
            The modelled system (catalog GPU, NICs, fabric) of this dataset.

        Examples
        --------
        >>> m = next(m for m in load_measurements("calibration") if m.id == "h100-ib-sharp-96rank")
        >>> m.cluster().ranks
        96
        """
        inputs = dict(self.cluster_inputs)
        gpu = str(inputs.pop("gpu"))
        cluster, _ = resolve_cluster(gpu, **inputs)  # type: ignore[arg-type]
        return cluster


def load_measurements(role: str | None = None, directory: Path | None = None, *,
                      collective: str | None = "all_reduce") -> list[Measurement]:
    r"""Load every dataset of ``manifest.toml`` with the given role and collective.

    Parameters
    ----------
    role : str or None
        ``"calibration"`` or ``"reference"``; None for any.
    directory : pathlib.Path or None
        A folder with its own ``manifest.toml``; None for the packaged datasets.
    collective : str or None
        The nccl-tests collective measured (``all_reduce`` by default); None returns every dataset.

    Returns
    -------
    list of Measurement
        Sizes in B and times in µs per dataset.

    Notes
    -----
    Busbw-only sweeps are turned into times with nccl-tests' factor F of their collective
    (``doc/PERFORMANCE.md``):

    .. math:: t = \frac{S \cdot F}{\text{busbw}}

    rows whose printed busbw is below 0.05 GB/s carry no information and are dropped.

    Examples
    --------
    >>> [m.id for m in load_measurements("calibration")][:2]
    ['h100-ib-sharp-96rank', 'gb200-nvl72-1rack']
    >>> sorted({m.collective for m in load_measurements(collective=None)})
    ['all_gather', 'all_reduce', 'alltoall', 'reduce_scatter']
    """
    if directory is None:
        found = _packaged_measurements()
    else:
        found = tuple(_measurement(sweep) for sweep in read_measured_sweeps(directory))
    return [m for m in found if (role is None or m.role == role) and (collective is None or m.collective == collective)]


@functools.lru_cache(maxsize=1)
def _packaged_measurements() -> tuple[Measurement, ...]:
    """Read the packaged datasets once per process (the All-reduce page asks on every rerun)."""
    measurements = tuple(_measurement(sweep) for sweep in read_measured_sweeps(MEASUREMENTS_DIR))
    for measurement in measurements:  # shared between callers: make the arrays read-only
        measurement.size_bytes.setflags(write=False)
        measurement.time_us.setflags(write=False)
    return measurements


def _measurement(sweep: MeasuredSweep) -> Measurement:
    """Return a sweep as times; busbw becomes time with its collective's bus factor (rows below 0.05 GB/s dropped)."""
    size, time = sweep.size_bytes, sweep.time_us
    if sweep.busbw_gbps is not None:
        ranks = int(sweep.cluster_inputs.get("gpus_per_node", 8)) * int(sweep.cluster_inputs.get("nodes", 1))
        keep = sweep.busbw_gbps >= 0.05
        size, busbw = size[keep], sweep.busbw_gbps[keep]
        time = size * busbw_factor(sweep.collective, ranks) / (busbw * 1e3)
    return Measurement(
        id=sweep.id, system=sweep.system, source=sweep.source, role=sweep.role,
        cluster_inputs=dict(sweep.cluster_inputs), size_bytes=size, time_us=time, assumption=sweep.assumption,
        algorithm=sweep.algorithm, path=sweep.path, protocol=sweep.protocol, nccl_version=sweep.nccl_version,
        environment=sweep.environment, url=sweep.url, pending=sweep.pending, collective=sweep.collective,
        launch=sweep.launch, data_path=sweep.data_path,
    )


@dataclass(frozen=True, eq=False)
class Comparison:
    """Model against one measured sweep (arrays: one entry per measured size).

    Attributes
    ----------
    size_bytes : numpy.ndarray
        Measured sizes, B.
    measured_time_us, model_time_us : numpy.ndarray
        Times, µs (the model's includes the benchmark's launch overhead).
    measured_busbw_gbps, model_busbw_gbps : numpy.ndarray
        nccl-tests busbw of both, GB/s.
    algorithm, protocol : numpy.ndarray
        The model's choice per size.
    ranks : int
        Number of ranks.
    fit : AlphaBetaFit or None
        Fit of the measured rows (None with fewer than two rows).
    notes : list of str
        Remarks for the reader.
    """

    size_bytes: np.ndarray
    measured_time_us: np.ndarray
    model_time_us: np.ndarray
    measured_busbw_gbps: np.ndarray
    model_busbw_gbps: np.ndarray
    algorithm: np.ndarray
    protocol: np.ndarray
    ranks: int
    fit: AlphaBetaFit | None
    notes: list[str] = field(default_factory=list)

    @property
    def time_ratio(self) -> np.ndarray:
        """Model time / measured time per size."""
        return self.model_time_us / self.measured_time_us

    @property
    def geomean_time_ratio(self) -> float:
        """Geometric mean of model/measured time (1 = unbiased; < 1: the model is too fast)."""
        return float(np.exp(np.mean(np.log(self.time_ratio))))

    @property
    def geomean_error_factor(self) -> float:
        """Geometric mean of max(ratio, 1/ratio): 1.3 means typically 30 % off either way."""
        return float(np.exp(np.mean(np.abs(np.log(self.time_ratio)))))

    def _ratio_where(self, mask: np.ndarray) -> float | None:
        if not mask.any():
            return None
        return float(np.exp(np.mean(np.log(self.time_ratio[mask]))))

    @property
    def small_time_ratio(self) -> float | None:
        """Geometric-mean model/measured time over sizes <= 64 KiB (None without such rows)."""
        return self._ratio_where(self.size_bytes <= SMALL_BYTES)

    @property
    def large_time_ratio(self) -> float | None:
        """Geometric-mean model/measured time over sizes >= 256 MiB (None without such rows)."""
        return self._ratio_where(self.size_bytes >= LARGE_BYTES)

    @property
    def small_time_ratios(self) -> np.ndarray:
        """Model/measured time for every size <= 64 KiB."""
        return self.time_ratio[self.size_bytes <= SMALL_BYTES]

    @property
    def middle_time_ratios(self) -> np.ndarray:
        """Model/measured time for every size from 1 MiB to 128 MiB."""
        low, high = MIDDLE_BYTES
        return self.time_ratio[(self.size_bytes >= low) & (self.size_bytes <= high)]

    @property
    def large_busbw_ratios(self) -> np.ndarray:
        """Model/measured busbw for every size >= 256 MiB (the ±25 % bar is checked on these)."""
        mask = self.size_bytes >= LARGE_BYTES
        return self.model_busbw_gbps[mask] / self.measured_busbw_gbps[mask]

    def summary(self) -> dict[str, object]:
        """Summarise the comparison as plain numbers (ratios are model / measured).

        Returns
        -------
        dict
            Row count, geometric-mean time ratio and error factor, small and large time ratios, and the
            lowest and highest large-message busbw ratios (None where the band has no row).

        Examples
        --------
        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
        >>> compare_sweep(cluster, [8, 2**30], [15.0, 4030.0]).summary()["large_time_ratio"]
        1.0098
        """
        large = self.large_busbw_ratios
        return {
            "rows": int(self.size_bytes.size),
            "geomean_time_ratio": _round(self.geomean_time_ratio),
            "geomean_error_factor": _round(self.geomean_error_factor),
            "small_time_ratio": _round(self.small_time_ratio),
            "large_time_ratio": _round(self.large_time_ratio),
            "large_busbw_ratio_min": _round(float(large.min())) if large.size else None,
            "large_busbw_ratio_max": _round(float(large.max())) if large.size else None,
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


@expects(size_bytes="B", time_us="us")
def compare_sweep(
    cluster: Cluster, size_bytes: object, time_us: object, algorithm: str = "auto", protocol: str = "auto",
    launch: str = "process-per-gpu",
) -> Comparison:
    r"""Run the all-reduce model at the measured sizes and line the two up.

    Parameters
    ----------
    cluster : Cluster
        The cluster the sweep was measured on.
    size_bytes : object
        Measured sizes, B.
    time_us : object
        Measured times, µs.
    algorithm : str
        ``NCCL_ALGO`` the run forced, or ``"auto"``.
    protocol : str
        ``NCCL_PROTO`` the run forced, or ``"auto"``.
    launch : str
        How the benchmark drove the GPUs, a key of :data:`LAUNCH_OVERHEAD_US`.

    Returns
    -------
    Comparison
        Model and measured time (µs) and busbw (GB/s) per kept row, and the measured rows' fit.

    Raises
    ------
    ValueError
        When sizes and times differ in length, no row is usable, or ``launch`` is unknown.

    Notes
    -----
    Rows with a non-positive or missing time are dropped. busbw on both sides uses nccl-tests'
    all-reduce factor with the cluster's rank count (``doc/PERFORMANCE.md``):

    .. math:: \text{busbw} = \frac{S}{t}\,\frac{2(n-1)}{n}

    The benchmark's launch mode is applied to the model (:func:`launched`); the fit is
    :func:`~interconnect.hardware.collectives.fitting.fit_alpha_beta` of the measured rows.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> c = compare_sweep(cluster, [8, 2**30], [15.0, 4030.0])
    >>> c.ranks, [round(float(x), 2) for x in c.time_ratio]
    (8, [1.27, 1.01])
    """
    size = as_size_bytes(size_bytes)
    time = np.atleast_1d(np.asarray(time_us, dtype=float))
    if size.shape != time.shape:
        raise ValueError("size_bytes and time_us must have the same length")
    keep = np.isfinite(time) & (time > 0) & np.isfinite(size) & (size > 0)
    size, time = size[keep], time[keep]
    if size.size == 0:
        raise ValueError("no rows with a positive size and time to compare")
    model = allreduce(launched(cluster, launch), size, algorithm, protocol=protocol)
    model_time = model.time_us
    factor = busbw_factor("all_reduce", cluster.ranks)
    measured_busbw = size / (time * 1e3) * factor
    fit = fit_alpha_beta(size, time) if size.size >= 2 else None
    return Comparison(
        size_bytes=size,
        measured_time_us=time,
        model_time_us=model_time,
        measured_busbw_gbps=measured_busbw,
        model_busbw_gbps=size / (model_time * 1e3) * factor,
        algorithm=model.algorithm,
        protocol=model.protocol,
        ranks=cluster.ranks,
        fit=fit,
    )
