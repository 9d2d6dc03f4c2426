"""Fit measured nccl-tests rows with ``t = a + S/B`` and compare measured bandwidth with the spec."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.models.cluster import Cluster
from interconnect.models.collectives.model import as_size_bytes

__all__ = ["AlphaBetaFit", "efficiency_vs_spec", "fit_alpha_beta"]




@dataclass(frozen=True)
class AlphaBetaFit:
    """``t = latency_us + S / bandwidth`` fitted to measured rows (bandwidth as algbw, GB/s)."""

    latency_us: float
    bandwidth_gbps: float
    points: int
    rms_relative_error: float

    def time_us(self, size_bytes: object) -> np.ndarray:
        size = as_size_bytes(size_bytes)
        return self.latency_us + size / (self.bandwidth_gbps * 1e3)


def fit_alpha_beta(size_bytes: object, time_us: object, *, iterations: int = 20) -> AlphaBetaFit:
    """Robust least squares of ``t = a + S/B`` on measured (size, time) rows.

    Times of a sweep span five orders of magnitude, so the fit minimises *relative* residuals
    ``(a + S/B - t)/t`` (weights 1/t²), re-weighted with Huber weights (k = 1.345 robust sigma, MAD
    scale) so that a few odd rows (a noisy mid-size point, a protocol switch) do not drag it.
    ``a >= 0`` and ``B > 0`` are enforced. Returns the latency ``a`` (µs) and the bandwidth ``B`` as
    algorithm bandwidth (GB/s; multiply by nccl-tests' factor for a busbw).

    >>> sizes = np.array([8, 1024, 2**20, 2**26, 2**30], dtype=float)
    >>> fit = fit_alpha_beta(sizes, 20.0 + sizes / 250e3)    # 20 µs + S / (250 GB/s)
    >>> round(fit.latency_us, 3), round(fit.bandwidth_gbps, 3)
    (20.0, 250.0)
    """
    size = as_size_bytes(size_bytes)
    time = np.atleast_1d(np.asarray(time_us, dtype=float))
    mask = np.isfinite(size) & np.isfinite(time) & (time > 0) & (size >= 0)
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
        (a, c), *_ = np.linalg.lstsq(design, time * w, rcond=None)
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


def efficiency_vs_spec(cluster: Cluster, busbw_gbps: object) -> np.ndarray:
    """Measured all-reduce busbw as a share of the spec bottleneck (per direction).

    The bottleneck is the scale-up spec per GPU on one domain, and the smaller of that and the
    domain's NIC line rate (all NICs) across domains: a ring's busbw cannot exceed either
    (nccl-tests ``PERFORMANCE.md``: busbw "reflects the speed of the hardware bottleneck").
    NVLS, SHARP and 2-node trees can exceed 1 (busbw is then not a wire speed; nccl-tests #312).

    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> [round(float(x), 3) for x in efficiency_vs_spec(cluster, [367.0, 480.0])]
    [0.816, 1.067]
    """
    bus = np.atleast_1d(np.asarray(busbw_gbps, dtype=float))
    spec = cluster.scaleup_spec_gbps
    if cluster.domains > 1:
        spec = min(spec, cluster.nic_line_gbps * cluster.nics_per_domain)
    return bus / spec
