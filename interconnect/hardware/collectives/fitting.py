"""Fit measured nccl-tests rows with ``t = a + S/B`` and compare measured bandwidth with the spec."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives.model import allreduce
from interconnect.hardware.collectives.params import as_size_bytes
from interconnect.units import expects

__all__ = ["AlphaBetaFit", "MeasuredCluster", "cluster_from_fit", "efficiency_vs_spec", "fit_alpha_beta"]


@dataclass(frozen=True)
class AlphaBetaFit:
    """A line ``t = latency_us + S / bandwidth`` fitted to measured rows.

    Attributes
    ----------
    latency_us : float
        Intercept a, µs.
    bandwidth_gbps : float
        Slope's inverse B as algorithm bandwidth, GB/s.
    points : int
        Rows used.
    rms_relative_error : float
        Root-mean-square relative residual of the fit (dimensionless).
    """

    latency_us: float
    bandwidth_gbps: float
    points: int
    rms_relative_error: float

    @expects(size_bytes="B")
    def time_us(self, size_bytes: object) -> np.ndarray:
        """Evaluate the fitted line at the given sizes.

        Parameters
        ----------
        size_bytes : object
            Message sizes, B.

        Returns
        -------
        numpy.ndarray
            Time in µs, ``latency_us + S / bandwidth``.

        Examples
        --------
        >>> fit = AlphaBetaFit(latency_us=20.0, bandwidth_gbps=250.0, points=5, rms_relative_error=0.0)
        >>> f"{fit.time_us(2**30)[0]:.0f} us"
        '4315 us'
        """
        size = as_size_bytes(size_bytes)
        return self.latency_us + size / (self.bandwidth_gbps * 1e3)


@expects(size_bytes="B", time_us="us")
def fit_alpha_beta(size_bytes: object, time_us: object, *, iterations: int = 20) -> AlphaBetaFit:
    r"""Fit ``t = a + S/B`` to measured (size, time) rows by robust least squares.

    Parameters
    ----------
    size_bytes : object
        Message sizes, B.
    time_us : object
        Measured times, µs.
    iterations : int
        Re-weighting passes.

    Returns
    -------
    AlphaBetaFit
        Latency ``a`` in µs and bandwidth ``B`` as algorithm bandwidth in GB/s (multiply by
        nccl-tests' factor for a busbw), with the point count and the RMS relative error.

    Raises
    ------
    ValueError
        When no row has a finite size and positive time.

    Notes
    -----
    .. math:: \min_{a \ge 0,\, B > 0} \sum_i w_i \Big(\frac{a + S_i/B - t_i}{t_i}\Big)^2

    Times of a sweep span five orders of magnitude, so the residuals are relative (weights 1/t²),
    re-weighted with Huber weights (k = 1.345 robust sigma, MAD scale; Huber, "Robust Statistics",
    1981) so that a few odd rows (a noisy mid-size point, a protocol switch) do not drag the fit.

    Examples
    --------
    20 µs + S / (250 GB/s):

    >>> sizes = np.array([8, 1024, 2**20, 2**26, 2**30], dtype=float)
    >>> fit = fit_alpha_beta(sizes, 20.0 + sizes / 250e3)
    >>> f"{fit.latency_us:.3f} us, {fit.bandwidth_gbps:.3f} GB/s"
    '20.000 us, 250.000 GB/s'
    """
    size = as_size_bytes(size_bytes)
    time = np.atleast_1d(np.asarray(time_us, dtype=float))
    with np.errstate(divide="ignore", over="ignore"):  # a denormal time (1e-320 µs) has no finite weight 1/t
        mask = np.isfinite(size) & np.isfinite(time) & (time > 0) & (size >= 0) & np.isfinite(1.0 / time)
    size, time = size[mask], time[mask]
    if size.size == 0:
        raise ValueError("no usable (size, time) rows to fit")
    if size.size == 1 or np.ptp(size) == 0:
        bandwidth = float(size.max() / time.max() / 1e3) if size.max() > 0 else math.inf
        return AlphaBetaFit(0.0, bandwidth, int(size.size), 0.0)
    robust = np.ones_like(time)
    a, c = 0.0, 1.0
    for _ in range(iterations):
        w = robust / time
        design = np.column_stack([np.ones_like(size), size]) * w[:, None]
        try:
            (a, c), *_ = np.linalg.lstsq(design, time * w, rcond=None)
        except np.linalg.LinAlgError as exc:  # rows spanning more than a float's range: no line to report
            raise ValueError(f"these rows cannot be fitted with one line ({exc})") from None
        if a < 0 or c <= 0:
            if c <= 0:
                c = max(float(np.sum(w * w * size * time) / max(np.sum(w * w * size * size), 1e-300)), 1e-12)
                a = 0.0
            else:
                a = 0.0
                c = float(np.sum(w * w * size * time) / np.sum(w * w * size * size))
        residual = (a + c * size - time) / time
        scale = 1.4826 * np.median(np.abs(residual - np.median(residual))) or 1e-9
        limit = 1.345 * scale
        robust = np.where(np.abs(residual) <= limit, 1.0, limit / np.maximum(np.abs(residual), 1e-300))
    residual = (a + c * size - time) / time
    return AlphaBetaFit(float(a), float(1.0 / (c * 1e3)), int(size.size), float(np.sqrt(np.mean(residual**2))))


@expects(busbw_gbps="GB/s")
def efficiency_vs_spec(cluster: Cluster, busbw_gbps: object) -> np.ndarray:
    r"""Return measured all-reduce busbw as a share of the spec bottleneck (per direction).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    busbw_gbps : object
        Measured busbw, GB/s.

    Returns
    -------
    numpy.ndarray
        Dimensionless share of the spec.

    Notes
    -----
    .. math:: \eta = \frac{\text{busbw}}{\min(B_\text{scale-up spec},\; N_\text{NIC} B_\text{NIC line})}

    the NIC term only across domains: a ring's busbw cannot exceed either (nccl-tests
    ``doc/PERFORMANCE.md``: busbw "reflects the speed of the hardware bottleneck"). NVLS, SHARP and
    two-node trees can exceed 1 (busbw is then not a wire speed; nccl-tests #312).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> [round(float(x), 3) for x in efficiency_vs_spec(cluster, [367.0, 480.0])]
    [0.816, 1.067]
    """
    bus = np.atleast_1d(np.asarray(busbw_gbps, dtype=float))
    spec = cluster.scaleup_spec_gbps
    if cluster.domains > 1:
        spec = min(spec, cluster.nic_line_gbps * cluster.nics_per_domain)
    return bus / spec


@dataclass(frozen=True)
class MeasuredCluster:
    """The cluster settings under which the model reproduces a measured sweep's fitted line.

    Attributes
    ----------
    nic_gbit_s : float or None
        Per-NIC line rate to type as a custom NIC, Gbit/s (its achievable share is the fabric's
        efficiency, as for any typed rate); None when the run stayed inside one NVLink domain.
    hop_latency_us : float or None
        Extra latency per network hop, µs; None as above.
    note : str
        Why the fit cannot be matched by the NICs alone, or why there is nothing to take ('' otherwise).
    """

    nic_gbit_s: float | None
    hop_latency_us: float | None
    note: str


def _three(value: float) -> float:
    return float(f"{value:.3g}")


@expects(small_bytes="B", large_bytes="B")
def cluster_from_fit(cluster: Cluster, fit: AlphaBetaFit, small_bytes: float, large_bytes: float,
                     algorithm: str = "auto", protocol: str = "auto") -> MeasuredCluster:
    r"""Find the NIC rate and per-hop latency that make the model match ``fit`` at both ends of a sweep.

    Parameters
    ----------
    cluster : Cluster
        The cluster the sweep was measured on.
    fit : AlphaBetaFit
        The measured sweep's fitted line.
    small_bytes : float
        Smallest measured size, B.
    large_bytes : float
        Largest measured size, B.
    algorithm : str
        Forced algorithm of the run, or ``"auto"``.
    protocol : str
        Forced protocol of the run, or ``"auto"``.

    Returns
    -------
    MeasuredCluster
        NIC line rate in Gbit/s and extra latency per network hop in µs (None on one NVLink domain),
        with a note when the NICs alone cannot explain the measured bandwidth.

    Notes
    -----
    The NIC rate is scaled until the model's algbw at ``large_bytes`` equals the fit's,

    .. math:: B_\text{NIC} \leftarrow B_\text{NIC}\,\frac{\text{algbw}_\text{fit}}{\text{algbw}_\text{model}}

    then the hop latency is moved along the model's (linear) slope until the times at ``small_bytes``
    agree. Each step repeats a few times because NCCL's pick can change on the way. Rates are clamped
    to 1 Gbit/s .. 12.8 Tbit/s and latencies to 0 .. 100 ms, as for typed values (ours).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> fit = AlphaBetaFit(latency_us=60.0, bandwidth_gbps=100.0, points=10, rms_relative_error=0.0)
    >>> measured = cluster_from_fit(cluster, fit, 8, 2**30)
    >>> measured.nic_gbit_s < 400 and measured.hop_latency_us > 0
    True
    """
    from dataclasses import replace

    from interconnect.hardware.cluster import MAX_HOP_LATENCY_US, MAX_NIC_GBIT_S, MIN_NIC_GBIT_S

    if cluster.domains <= 1:
        return MeasuredCluster(None, None, "The run stayed inside one NVLink domain, so the network played no part: "
                                           "there is no NIC rate or network latency to take from it.")
    if not (math.isfinite(fit.bandwidth_gbps) and fit.bandwidth_gbps > 0 and math.isfinite(fit.latency_us)
            and fit.latency_us >= 0):
        return MeasuredCluster(None, None, "The fitted line is not physical (bandwidth "
                                           f"{fit.bandwidth_gbps:.3g} GB/s, latency {fit.latency_us:.3g} µs), so "
                                           "there is no measurement to offer.")
    efficiency = cluster.fabric_model.efficiency
    target_algbw = float(large_bytes) / (float(fit.time_us(large_bytes)[0]) * 1e3)
    tuned = cluster
    for _ in range(4):
        model = float(allreduce(tuned, [large_bytes], algorithm, protocol=protocol).algbw_gbps[0])
        if not math.isfinite(model) or model <= 0:
            break
        line = tuned.nic_achieved_gbps * target_algbw / model / efficiency
        line = min(max(line, MIN_NIC_GBIT_S / 8), MAX_NIC_GBIT_S / 8)
        tuned = replace(tuned, nic_line_gbps=line, nic_achieved_gbps=line * efficiency)
    target_small = float(fit.time_us(small_bytes)[0])
    hop = tuned.net_hop_latency_us
    for _ in range(3):
        base = replace(tuned, hop_latency_override_us=hop)
        t0 = float(allreduce(base, [small_bytes], algorithm, protocol=protocol).time_us[0])
        t1 = float(allreduce(replace(base, hop_latency_override_us=hop + 10.0), [small_bytes], algorithm,
                             protocol=protocol).time_us[0])
        slope = (t1 - t0) / 10.0
        if not math.isfinite(slope) or slope <= 0:
            break
        hop = min(max(hop + (target_small - t0) / slope, 0.0), MAX_HOP_LATENCY_US)
    note = ""
    capped = float(allreduce(tuned, [large_bytes], algorithm, protocol=protocol).algbw_gbps[0])
    if abs(capped - target_algbw) > 0.05 * target_algbw:
        note = (f"The model cannot reach the measured {target_algbw:.3g} GB/s algbw by changing the NICs alone "
                f"(it gives {capped:.3g} GB/s): something else limits this cluster.")
    return MeasuredCluster(_three(tuned.nic_line_gbps * 8), _three(hop), note)
