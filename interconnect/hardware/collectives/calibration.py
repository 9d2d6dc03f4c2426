"""Calibrate the collective model on a measured sweep without changing the hardware it describes.

(``interconnect.hardware.collectives.calibration``; import the public names from ``interconnect.hardware.collectives``.)

An engineer who reads an nccl-tests sweep describes it with two numbers at its two ends: the
*latency floor* (the time of the smallest messages, where the fixed cost of each step dominates)
and the *plateau busbw* (the bus bandwidth of the largest ones, where the slowest wire does). The
hardware stays what the catalog says it is (the same NICs, the same NVLink); a calibration says
how the measured system differs from the model in those terms:

* **wire efficiency**: the share of the bottleneck wire's line rate the system reached, the
  network's NICs when the run crossed scale-up domains and the GPU's scale-up links (NVLink,
  Infinity Fabric) when it stayed inside one ("your fabric reaches 87 % of its 400 Gbit/s"). It
  replaces the model's own share (the fabric's efficiency, or the catalog's achievable rate);
* **extra latency**: µs added to every collective call (negative when the measured floor is lower
  than the model's).

:func:`calibrate` fits both on one sweep and keeps only what lowers the model's error on that sweep:
it also tries each number alone and none at all, and returns the one of the four with the smallest
geometric-mean error, so a calibration never makes the model worse on the sweep it came from and,
on a sweep the model already matches, changes (almost) nothing. :func:`apply_calibration` turns the
two numbers (and the benchmark's launch mode) into the :class:`~interconnect.hardware.cluster.Cluster`
every model function reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from interconnect.hardware.cluster import FABRICS, Cluster
from interconnect.hardware.collectives.measurements import (
    Comparison,
    check_launch,
    compare_sweep,
    launched,
)
from interconnect.hardware.collectives.others import compare_collective_sweep, normalize_collective
from interconnect.hardware.collectives.params import as_size_bytes
from interconnect.units import expects

__all__ = [
    "FLOOR_BYTES",
    "MAX_WIRE_EFFICIENCY",
    "MIN_WIRE_EFFICIENCY",
    "PLATEAU_BYTES",
    "PLATEAU_TOLERANCE",
    "Calibration",
    "apply_calibration",
    "calibrate",
    "compare_collective",
    "wire_efficiency",
]

#: Rows up to this size make the latency floor (8 KiB: below it an all-reduce's time barely changes
#: with size on every published sweep the project holds; ours).
FLOOR_BYTES = 8 * 1024
#: Rows from this size on make the plateau (256 MiB, the accuracy bar's "large" band).
PLATEAU_BYTES = 256 * 1024 * 1024
#: Bounds of a wire efficiency (share of the line rate): a wire cannot beat its line rate, and below
#: 5 % something other than the wire is measured.
MIN_WIRE_EFFICIENCY = 0.05
#: A plateau within this share of the model's is left alone (the printed busbw and the run-to-run
#: spread of nccl-tests are about that size; ours).
PLATEAU_TOLERANCE = 0.02
MAX_WIRE_EFFICIENCY = 1.0


@dataclass(frozen=True)
class Calibration:
    """What a measured sweep says about a system, in the model's terms (see the module docstring).

    Attributes
    ----------
    wire : str
        ``"network"`` (the NICs) or ``"scale-up"`` (NVLink, Infinity Fabric, ...): the wire whose
        efficiency the sweep measures.
    wire_label : str
        That wire in words, with its line rate ("400 Gbit/s InfiniBand NIC").
    line_rate_gbps : float
        Its line rate per direction, GB/s (per NIC, or per GPU for scale-up).
    model_efficiency : float
        The model's own share of the line rate before calibrating (dimensionless).
    wire_efficiency : float or None
        The share after calibrating; None when the calibration leaves the wire alone.
    extra_latency_us : float
        Added to every collective call, µs (0 when the calibration leaves the latency alone).
    latency_floor_us, model_latency_floor_us : float or None
        Median measured and model time of the rows up to :data:`FLOOR_BYTES`, µs (None without such rows).
    plateau_busbw_gbps, model_plateau_busbw_gbps : float or None
        Median measured and model busbw of the rows from :data:`PLATEAU_BYTES` on (or the largest
        quarter of a sweep that stops between 32 and 256 MiB), GB/s; None without such rows.
    error_before, error_after : float
        Geometric-mean error factor of the model on the sweep before and after (1 = exact).
    notes : tuple of str
        Why a number was left alone, in words.
    """

    wire: str
    wire_label: str
    line_rate_gbps: float
    model_efficiency: float
    wire_efficiency: float | None
    extra_latency_us: float
    latency_floor_us: float | None
    model_latency_floor_us: float | None
    plateau_busbw_gbps: float | None
    model_plateau_busbw_gbps: float | None
    error_before: float
    error_after: float
    notes: tuple[str, ...] = field(default=())

    @property
    def changes_anything(self) -> bool:
        """True when the calibration changes the wire's efficiency or adds latency."""
        return self.wire_efficiency is not None or self.extra_latency_us != 0.0

    def link_values(self) -> dict[str, float]:
        """Return the page link's values for this calibration: ``net_eff``, ``up_eff`` (%) and ``xlat`` (µs).

        Returns
        -------
        dict of str to float
            Shares of the line rate in percent (0: the model's own) and the extra latency in µs.

        Examples
        --------
        >>> c = Calibration("network", "NIC", 50.0, 0.8, 0.87, 3.0, 20.0, 17.0, 350.0, 322.0, 1.2, 1.1)
        >>> c.link_values()
        {'net_eff': 87.0, 'up_eff': 0.0, 'xlat': 3.0}
        """
        percent = 0.0 if self.wire_efficiency is None else round(self.wire_efficiency * 100, 1)
        return {"net_eff": percent if self.wire == "network" else 0.0,
                "up_eff": percent if self.wire == "scale-up" else 0.0,
                "xlat": round(self.extra_latency_us, 1)}

    def sentences(self) -> list[str]:
        """Say what the calibration means, one sentence per number (Markdown-free text).

        Returns
        -------
        list of str
            The floor, the plateau, and what was changed or left alone.

        Examples
        --------
        >>> c = Calibration("network", "400 Gbit/s InfiniBand NIC", 50.0, 0.8, 0.87, 3.0, 20.0, 17.0, 350.0,
        ...                 322.0, 1.2, 1.1)
        >>> c.sentences()[2]
        'Your network reaches 87 % of the 400 Gbit/s InfiniBand NIC line rate; the model assumed 80 %.'
        """
        out = []
        if self.latency_floor_us is not None and self.model_latency_floor_us is not None:
            out.append(f"Latency floor (messages up to {FLOOR_BYTES // 1024} KiB): {self.latency_floor_us:.3g} µs "
                       f"measured, {self.model_latency_floor_us:.3g} µs in the model.")
        if self.plateau_busbw_gbps is not None and self.model_plateau_busbw_gbps is not None:
            out.append(f"Plateau busbw (largest messages): {self.plateau_busbw_gbps:.4g} GB/s measured, "
                       f"{self.model_plateau_busbw_gbps:.4g} GB/s in the model.")
        if self.wire_efficiency is not None:
            out.append(f"Your {self.wire} reaches {self.wire_efficiency:.0%} of the {self.wire_label} line rate; "
                       f"the model assumed {self.model_efficiency:.0%}.".replace("%", " %"))
        if self.extra_latency_us:
            out.append(f"Each call takes {abs(self.extra_latency_us):.3g} µs "
                       f"{'longer' if self.extra_latency_us > 0 else 'less'} than the model says.")
        out.extend(self.notes)
        if not self.changes_anything:
            out.append("The model already matches this run: calibrating changes nothing.")
        else:
            out.append(f"Typical error on this run: ×{self.error_before:.3g} before, ×{self.error_after:.3g} after.")
        return out

    def as_dict(self) -> dict[str, object]:
        """Describe the calibration as JSON-ready data (units in the keys; no NIC rate of its own).

        Returns
        -------
        dict of str to object
            ``wire``, ``wire_efficiency`` (None: unchanged), ``model_wire_efficiency``, ``line_rate_gbps``,
            ``extra_latency_us``, the floor and plateau, the errors, notes and the link values.

        Examples
        --------
        >>> c = Calibration("scale-up", "NVLink", 450.0, 0.82, None, 0.0, None, None, 460.0, 462.0, 1.01, 1.01)
        >>> c.as_dict()["wire_efficiency"], c.as_dict()["extra_latency_us"]
        (None, 0.0)
        """
        def r(value: float | None, digits: int = 4) -> float | None:
            return None if value is None or not math.isfinite(value) else round(float(value), digits)

        return {
            "wire": self.wire,
            "wire_label": self.wire_label,
            "line_rate_gbps": r(self.line_rate_gbps),
            "model_wire_efficiency": r(self.model_efficiency),
            "wire_efficiency": r(self.wire_efficiency),
            "extra_latency_us": r(self.extra_latency_us, 3),
            "latency_floor_us": r(self.latency_floor_us, 3),
            "model_latency_floor_us": r(self.model_latency_floor_us, 3),
            "plateau_busbw_gbps": r(self.plateau_busbw_gbps, 3),
            "model_plateau_busbw_gbps": r(self.model_plateau_busbw_gbps, 3),
            "geomean_error_factor_before": r(self.error_before),
            "geomean_error_factor_after": r(self.error_after),
            "notes": list(self.notes),
            "link": self.link_values(),
        }


def wire_efficiency(cluster: Cluster, wire: str) -> tuple[float, float]:
    """Return a wire's line rate (GB/s per direction) and the model's share of it on ``cluster``.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    wire : str
        ``"network"`` (one NIC) or ``"scale-up"`` (one GPU's scale-up links).

    Returns
    -------
    (float, float)
        Line rate in GB/s and the dimensionless achievable share.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> line, share = wire_efficiency(cluster, "network")
    >>> f"{line * 8:g} Gbit/s", round(share, 3)
    ('400 Gbit/s', 0.96)
    """
    if wire == "network":
        return cluster.nic_line_gbps, cluster.nic_achieved_gbps / cluster.nic_line_gbps
    return cluster.scaleup_spec_gbps, cluster.intra_bw_full_gbps / cluster.scaleup_spec_gbps


def apply_calibration(cluster: Cluster, *, network_efficiency: float | None = None,
                      scaleup_efficiency: float | None = None, extra_latency_us: float = 0.0,
                      launch: str = "process-per-gpu") -> Cluster:
    """Return the cluster with a calibration and a launch mode applied (the hardware's rates unchanged).

    Parameters
    ----------
    cluster : Cluster
        The cluster as the catalog describes it.
    network_efficiency : float or None
        Share of each NIC's line rate reached (dimensionless, 0.05-1); None keeps the fabric's.
    scaleup_efficiency : float or None
        Share of the GPU's scale-up spec reached (0.05-1); None keeps the catalog's achievable rate.
    extra_latency_us : float
        µs added to every collective call.
    launch : str
        How the benchmark drives the GPUs, a key of
        :data:`~interconnect.hardware.collectives.measurements.LAUNCH_OVERHEAD_US` (``single-process``:
        one process drives every GPU of the node, and each call takes at least its issue time, about
        4.2 µs per GPU, 33.7 µs at 8 GPUs; :func:`~interconnect.hardware.collectives.measurements.launched`).

    Returns
    -------
    Cluster
        A copy whose achievable rates and per-call latency carry the calibration.

    Raises
    ------
    ValueError
        For an unknown launch mode or an efficiency outside 0.05-1.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("mi300x", gpus_per_node=8, nodes=1)
    >>> from interconnect.hardware.collectives import allreduce
    >>> one = float(allreduce(cluster, [8]).time_us[0])
    >>> driven = float(allreduce(apply_calibration(cluster, launch="single-process"), [8]).time_us[0])
    >>> round(one, 1), round(driven, 1)
    (23.2, 33.7)
    """
    check_launch(launch)
    changes: dict[str, float] = {}
    for name, value in (("network", network_efficiency), ("scale-up", scaleup_efficiency)):
        if value is not None and not MIN_WIRE_EFFICIENCY <= value <= MAX_WIRE_EFFICIENCY:
            raise ValueError(f"{name} efficiency must be between {MIN_WIRE_EFFICIENCY:.0%} and "
                             f"{MAX_WIRE_EFFICIENCY:.0%}, got {value:.3g}")
    if network_efficiency is not None:
        changes["nic_achieved_gbps"] = cluster.nic_line_gbps * network_efficiency
    if scaleup_efficiency is not None:
        changes["intra_bw_full_gbps"] = cluster.scaleup_spec_gbps * scaleup_efficiency
    if extra_latency_us:
        changes["extra_latency_us"] = cluster.extra_latency_us + float(extra_latency_us)
    return launched(replace(cluster, **changes) if changes else cluster, launch)


@expects(size_bytes="B", time_us="us")
def compare_collective(cluster: Cluster, collective: str, size_bytes: object, time_us: object,
                       algorithm: str = "auto", protocol: str = "auto",
                       launch: str = "process-per-gpu") -> Comparison:
    """Compare any collective's model with a measured sweep, the benchmark's launch mode included.

    Parameters
    ----------
    cluster : Cluster
        The cluster the sweep was measured on.
    collective : str
        The collective (any spelling :func:`normalize_collective` accepts).
    size_bytes : object
        Measured sizes, B.
    time_us : object
        Measured times, µs.
    algorithm : str
        ``"auto"`` or a forced algorithm.
    protocol : str
        ``"auto"`` or a forced protocol (all-reduce, all-gather and reduce-scatter).
    launch : str
        The benchmark's launch mode (see :func:`apply_calibration`).

    Returns
    -------
    Comparison
        As :func:`~interconnect.hardware.collectives.measurements.compare_sweep`.

    Raises
    ------
    ValueError
        As :func:`compare_sweep`; or a protocol forced on all-to-all or send/recv.

    Notes
    -----
    :func:`compare_sweep` for all-reduce, :func:`compare_collective_sweep` otherwise, on the cluster
    with the launch mode applied (:func:`~interconnect.hardware.collectives.measurements.launched`: the same
    for every collective).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> round(compare_collective(cluster, "all_reduce", [8, 2**30], [15.0, 4030.0]).geomean_time_ratio, 2)
    1.13
    """
    key = normalize_collective(collective)
    driven = apply_calibration(cluster, launch=launch)
    if key == "all_reduce":
        return compare_sweep(driven, size_bytes, time_us, algorithm, protocol)
    return compare_collective_sweep(driven, key, size_bytes, time_us, algorithm, protocol)


def _median(values: np.ndarray) -> float | None:
    return float(np.median(values)) if values.size else None


def _plateau_mask(size: np.ndarray) -> np.ndarray:
    mask = size >= PLATEAU_BYTES
    if not mask.any() and size.size >= 4 and size.max() >= 32 * 1024 * 1024:
        mask = size >= np.quantile(size, 0.75)
    return mask


@expects(size_bytes="B", time_us="us")
def calibrate(cluster: Cluster, size_bytes: object, time_us: object, collective: str = "all_reduce",
              algorithm: str = "auto", protocol: str = "auto", launch: str = "process-per-gpu") -> Calibration:
    r"""Fit a wire efficiency and an extra latency to one measured sweep.

    Parameters
    ----------
    cluster : Cluster
        The cluster the sweep was measured on, as the catalog describes it.
    size_bytes : object
        Measured sizes, B.
    time_us : object
        Measured times, µs.
    collective : str
        The collective measured.
    algorithm : str
        ``"auto"`` or the algorithm the run forced.
    protocol : str
        ``"auto"`` or the protocol the run forced (all-reduce only).
    launch : str
        The benchmark's launch mode (see :func:`apply_calibration`).

    Returns
    -------
    Calibration
        The wire efficiency (None when left alone), the extra latency in µs, the floor and plateau
        behind them, and the model's error before and after.

    Raises
    ------
    ValueError
        As :func:`compare_collective`.

    Notes
    -----
    The wire is the network when the run crossed scale-up domains, else the scale-up links. With
    :math:`\bar b` the median busbw of the plateau rows, the efficiency is scaled until the model's
    plateau matches the measured one (a few passes, since NCCL's pick can change on the way):

    .. math:: \eta \leftarrow \mathrm{clip}\Big(\eta\,\frac{\bar b_\text{measured}}{\bar b_\text{model}},
              0.05,\ 1\Big)

    and the extra latency is the median gap of the floor rows, :math:`\Delta = \mathrm{median}(t_\text{measured}
    - t_\text{model})` (never below -90 % of the model's floor). Of the four candidates (neither, each alone,
    both) the one with the smallest geometric-mean error factor over every row is returned, the fewer
    changes winning a tie: the error on the sweep never grows. An efficiency that does not move the
    model's plateau (another limit sets it: NVLS, a per-channel cap) is left alone, with a note.

    Examples
    --------
    A 4 x 8 H100 InfiniBand sweep whose NICs reach 82 % of their line rate and whose calls take 10 µs longer:

    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.hardware.collectives import allreduce
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> sizes = np.array([8.0 * 4**i for i in range(16)])
    >>> slower = apply_calibration(cluster, network_efficiency=0.82, extra_latency_us=10.0)
    >>> c = calibrate(cluster, sizes, allreduce(slower, sizes).time_us)
    >>> round(c.wire_efficiency, 2), round(c.extra_latency_us, 1), c.error_after < c.error_before
    (0.82, 10.0, True)
    """
    key = normalize_collective(collective)
    size = as_size_bytes(size_bytes)
    time = np.atleast_1d(np.asarray(time_us, dtype=float))
    wire = "network" if cluster.domains > 1 else "scale-up"
    line, model_share = wire_efficiency(cluster, wire)
    if wire == "network":
        label = f"{cluster.nic_line_gbps * 8:g} Gbit/s {FABRICS[cluster.fabric].label} NIC"
    else:
        label = f"{cluster.scaleup_spec_gbps:g} GB/s {cluster.scaleup_link}"

    def compare(share: float, extra: float) -> Comparison:
        kwargs = {"network_efficiency" if wire == "network" else "scaleup_efficiency": share}
        return compare_collective(apply_calibration(cluster, extra_latency_us=extra, **kwargs), key, size, time,
                                  algorithm, protocol, launch)

    base = compare_collective(cluster, key, size, time, algorithm, protocol, launch)
    kept_size = base.size_bytes
    floor = kept_size <= FLOOR_BYTES
    plateau = _plateau_mask(kept_size)
    notes: list[str] = []
    measured_plateau = _median(base.measured_busbw_gbps[plateau])
    share = model_share
    first_gap = 0.0
    if measured_plateau is not None and measured_plateau > 0:
        first_gap = abs(measured_plateau / float(np.median(base.model_busbw_gbps[plateau])) - 1)
    if first_gap > PLATEAU_TOLERANCE:
        gap = first_gap
        for _ in range(5):
            model_plateau = float(np.median(compare(share, 0.0).model_busbw_gbps[plateau]))
            if not math.isfinite(model_plateau) or model_plateau <= 0:
                break
            gap = abs(measured_plateau / model_plateau - 1)
            if gap < 0.002:
                break
            share = min(max(share * measured_plateau / model_plateau, MIN_WIRE_EFFICIENCY), MAX_WIRE_EFFICIENCY)
        if gap > 0.5 * first_gap:
            notes.append(f"The {wire}'s rate does not set the model's plateau on this run (another limit does: "
                         "in-switch reduction, a per-channel cap or the other tier), so its efficiency is left alone.")
            share = model_share
        share = round(share, 3)  # what the link carries ("87.3 %")

    def floor_gap(comparison: Comparison) -> float:
        if not floor.any():
            return 0.0
        gap = float(np.median(comparison.measured_time_us[floor] - comparison.model_time_us[floor]))
        return round(max(gap, -0.9 * float(np.min(comparison.model_time_us[floor]))), 1)

    candidates = [(model_share, 0.0), (share, 0.0), (model_share, floor_gap(base)),
                  (share, floor_gap(compare(share, 0.0)))]
    scored = [(base.geomean_error_factor if i == 0 else compare(s, x).geomean_error_factor, i, s, x)
              for i, (s, x) in enumerate(candidates)]
    error, _, best_share, best_extra = min(scored, key=lambda item: (round(item[0], 6), item[1]))
    return Calibration(
        wire=wire,
        wire_label=label,
        line_rate_gbps=line,
        model_efficiency=model_share,
        wire_efficiency=None if best_share == model_share else best_share,
        extra_latency_us=best_extra,
        latency_floor_us=_median(base.measured_time_us[floor]),
        model_latency_floor_us=_median(base.model_time_us[floor]),
        plateau_busbw_gbps=measured_plateau,
        model_plateau_busbw_gbps=_median(base.model_busbw_gbps[plateau]),
        error_before=base.geomean_error_factor,
        error_after=error,
        notes=tuple(notes),
    )
