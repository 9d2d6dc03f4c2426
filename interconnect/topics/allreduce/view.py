"""What the All-reduce page shows, computed in one place (the page itself holds no arithmetic).

This module is the view over message sizes (8 B to 16 GiB: each algorithm, the pick, the fastest,
the ring limit); the view over node counts is in :mod:`.view_nodes` and the comparisons with
published and measured runs in :mod:`.view_measured`. Their names are handed on from here, so the
page imports its view from one place.

Everything is numpy arrays with units in the names: sizes in bytes, times in µs, bandwidths in
GB/s (1e9 B/s, as nccl-tests prints them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import (
    COLLECTIVE_ALGORITHMS,
    AllreduceResult,
    allreduce_by_algorithm,
    allreduce_detail,
    busbw_factor,
    collective,
    collective_by_algorithm,
    normalize_collective,
    ring_exit_relief,
)
from interconnect.hardware.playbook import PLAYBOOK_CLUSTER, PLAYBOOK_SIZE, PublishedCurve, playbook_curve
from interconnect.hardware.vendor import VendorWords, vendor_words
from interconnect.topics.allreduce.view_measured import (
    P5_TUNER_PICKS_256MB,
    SMOL_PLAYBOOK_P5,
    SMOL_PLAYBOOK_URL,
    P5TunerCheck,
    launch_from_log,
    measured_busbw_gbps,
    p5_tuner_check,
)
from interconnect.topics.allreduce.view_nodes import NODE_COUNTS, NodeCurve, node_count_curve, traffic_per_gpu

__all__ = [
    "NODE_COUNTS",
    "PLAYBOOK_CLUSTER",
    "P5_TUNER_PICKS_256MB",
    "PLAYBOOK_SIZE",
    "SIZES_BYTES",
    "SMOL_PLAYBOOK_P5",
    "SMOL_PLAYBOOK_URL",
    "AllreduceView",
    "VendorWords",
    "NodeCurve",
    "P5TunerCheck",
    "PickChange",
    "PublishedCurve",
    "SpeedupRange",
    "above_wire_reason",
    "allreduce_view",
    "collective_view",
    "launch_from_log",
    "hierarchical_speedup",
    "measured_busbw_gbps",
    "node_count_curve",
    "p5_tuner_check",
    "playbook_curve",
    "traffic_per_gpu",
    "vendor_words",
]

#: 8 B to 16 GiB in half-octave steps: the range nccl-tests users sweep (``-b 8 -e 16G``).
SIZES_BYTES: np.ndarray = np.unique(np.round(2.0 ** np.arange(3, 34.01, 0.5))).astype(np.int64)


@dataclass(frozen=True)
class PickChange:
    """Where the chosen algorithm or protocol changes: from ``size_bytes`` on, ``algorithm``/``protocol``."""

    size_bytes: float
    algorithm: str
    protocol: str


@dataclass(frozen=True, eq=False)
class AllreduceView:
    """All-reduce over :data:`SIZES_BYTES` for one cluster: per algorithm, as chosen, and the fastest.

    ``chosen`` is NCCL's pick (or the forced algorithm and protocol); it is the one number the page's
    headline, its charts and the CLI share. ``fastest`` is the fastest algorithm and protocol the
    model knows at each size, which NCCL's tuner does not always find.
    """

    size_bytes: np.ndarray
    time_us_by_algorithm: dict[str, np.ndarray]
    chosen: AllreduceResult
    fastest: AllreduceResult
    crossover_bytes: float
    wire_gbps: float
    wire_label: str
    pick_changes: tuple[PickChange, ...]
    above_wire_reason: str
    #: The collective timed (``all_reduce`` for :func:`allreduce_view`; see :func:`collective_view`).
    collective: str = "all_reduce"

    def busbw_by_algorithm(self) -> dict[str, np.ndarray]:
        r"""Return every algorithm's busbw over :data:`SIZES_BYTES`.

        Returns
        -------
        dict of str to numpy.ndarray
            busbw in GB/s per size (NaN where the algorithm is unavailable).

        Notes
        -----
        nccl-tests' formula of the collective whatever the algorithm (``doc/PERFORMANCE.md``), for
        all-reduce

        .. math:: \text{busbw} = \frac{S}{t}\,\frac{2(n-1)}{n}

        Examples
        --------
        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
        >>> f"{allreduce_view(cluster).busbw_by_algorithm()['ring'][-1]:.0f} GB/s"
        '359 GB/s'
        """
        factor = busbw_factor(self.collective, max(self.chosen.ranks, 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            return {name: np.where(np.isfinite(t) & (t > 0), self.size_bytes / (t * 1e3) * factor, np.nan)
                    for name, t in self.time_us_by_algorithm.items()}

    @property
    def busbw_above_wire(self) -> np.ndarray:
        """Sizes where the chosen algorithm's busbw exceeds the slowest link a ring crosses."""
        return self.chosen.busbw_gbps > self.wire_gbps * 1.0001

    @property
    def fastest_differs(self) -> bool:
        """True when the fastest choice beats NCCL's pick by more than 3 % at some size."""
        with np.errstate(invalid="ignore"):
            return bool(np.any(self.fastest.time_us < self.chosen.time_us * 0.97))



def _crossover_bytes(result: AllreduceResult) -> float:
    """Size where latency and bandwidth terms are equal: ``S* = t(smallest) x algbw(largest)``.

    Below S* the time is mostly fixed latency (a bigger message costs almost nothing more); above
    it, time grows with size (bandwidth-bound).
    """
    if result.ranks <= 1 or not np.isfinite(result.time_us[0]) or not np.isfinite(result.algbw_gbps[-1]):
        return float("nan")
    latency_us = float(result.time_us[0])
    algbw_gbps = float(result.algbw_gbps[-1])
    return latency_us * algbw_gbps * 1e3


def _wire(cluster: Cluster) -> tuple[float, str]:
    """Return the busbw a ring cannot beat, GB/s, and its label.

    NVLink per GPU, or across domains the domain's whole egress: NCCL spreads its rings over every NIC
    of a node, so a multi-node ring's busbw is bounded by the node's total NIC bandwidth (DGX A100:
    8 x 24 GB/s gives the 192 GB/s NVIDIA measured, NCCL issue 812), not by one NIC.
    Across domains, with a network device per GPU, each GPU sends only (g-1)/g of the ring's traffic over
    the scale-up fabric (the last GPU of each channel's chain sends to the network,
    :func:`~interconnect.hardware.collectives.ring_exit_relief`), so the scale-up limit is g/(g-1) of it.
    """
    relief = ring_exit_relief(cluster)
    scaleup = cluster.intra_bw_gbps * relief
    if cluster.domains > 1 and cluster.domain_egress_gbps < scaleup:
        return cluster.domain_egress_gbps, "ring limit: the server's NICs together (achievable)"
    if relief > 1:
        g = cluster.domain_size
        return scaleup, f"ring limit: {vendor_words(cluster).scaleup} per GPU x {g}/{g - 1} (achievable)"
    return cluster.intra_bw_gbps, f"ring limit: {vendor_words(cluster).scaleup} per GPU (achievable)"


def _pick_changes(result: AllreduceResult) -> tuple[PickChange, ...]:
    """Every size at which the (algorithm, protocol) pick differs from the one below it."""
    picks = [f"{a}/{p}" for a, p in zip(result.algorithm, result.protocol, strict=True)]
    changes = []
    for i in range(1, len(picks)):
        if picks[i] != picks[i - 1] and result.algorithm[i] != "none":
            changes.append(PickChange(float(result.size_bytes[i]), str(result.algorithm[i]), str(result.protocol[i])))
    return tuple(changes)


def above_wire_reason(cluster: Cluster, algorithms: set[str]) -> str:
    """Explain why busbw can exceed the ring limit for these algorithms on this cluster.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    algorithms : set of str
        The algorithms chosen where busbw exceeds the ring limit.

    Returns
    -------
    str
        The reasons, joined by semicolons; empty when none applies.

    Notes
    -----
    busbw is nccl-tests' ring formula S/t x 2(n-1)/n whatever the algorithm; an algorithm that moves less
    than a ring's 2(n-1)/n x S per GPU across the bottleneck reports more than the wire rate (NCCL's
    maintainer in nccl-tests #212 and #239 for NVLS; sjeaugey, nccl-tests #196, two-node trees).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> above_wire_reason(cluster, {"nvls"}).startswith("NVLink SHARP")
    True
    """
    reasons = []
    if "nvls" in algorithms or "nvls_tree" in algorithms:
        reasons.append("NVLink SHARP adds the data up inside the NVSwitch, so each GPU sends its data once "
                       "instead of 2(n-1)/n times (NCCL's maintainer in nccl-tests #212 and #239)")
    if "collnet" in algorithms:
        reasons.append("SHARP adds the data up in the InfiniBand switches, so each node sends it once")
    if ("tree" in algorithms or "nvls_tree" in algorithms) and cluster.domains == 2:
        reasons.append("on two nodes a tree sends each byte across the network once per node, half what a "
                       "ring sends (NCCL's sjeaugey, nccl-tests #196: two-node tree results exceed the NIC rate)")
    return "; ".join(reasons)


def allreduce_view(cluster: Cluster, algorithm: str = "auto", protocol: str = "auto") -> AllreduceView:
    r"""Compute every algorithm's time over 8 B to 16 GiB, the chosen one, the fastest, and the pick changes.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    algorithm : str
        ``"auto"`` or a forced algorithm.
    protocol : str
        ``"auto"`` or a forced protocol.

    Returns
    -------
    AllreduceView
        Times in µs and bandwidths in GB/s over :data:`SIZES_BYTES`.

    Notes
    -----
    One pass of :func:`~interconnect.hardware.collectives.allreduce_detail`; the crossover size is
    :math:`S^* = t(S_\text{min})\,\text{algbw}(S_\text{max})`, where latency and bandwidth terms are
    equal (the alpha-beta model, Hockney 1994).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> view = allreduce_view(cluster)
    >>> f"{view.chosen.busbw_gbps[-1]:.0f} GB/s", str(view.chosen.algorithm[-1])
    ('474 GB/s', 'nvls')
    """
    detail = allreduce_detail(cluster, SIZES_BYTES, algorithm, protocol=protocol)
    chosen = detail.chosen
    wire_gbps, wire_label = _wire(cluster)
    above = chosen.busbw_gbps > wire_gbps * 1.0001
    return AllreduceView(
        size_bytes=SIZES_BYTES,
        time_us_by_algorithm=detail.by_algorithm,
        chosen=chosen,
        fastest=detail.fastest,
        crossover_bytes=_crossover_bytes(chosen),
        wire_gbps=wire_gbps,
        wire_label=wire_label,
        pick_changes=_pick_changes(chosen),
        above_wire_reason=above_wire_reason(cluster, set(chosen.algorithm[above].tolist())) if above.any() else "",
    )


@dataclass(frozen=True)
class SpeedupRange:
    """How much faster hierarchical all-reduce is than a baseline, lowest and highest over message sizes."""

    baseline: str
    ranks: int
    nodes: int
    lowest: float
    lowest_at_bytes: int
    highest: float
    highest_at_bytes: int


def hierarchical_speedup(cluster: Cluster, ranks: int = 512) -> list[SpeedupRange]:
    r"""Compare hierarchical all-reduce with a flat ring and with NCCL's ring at ``ranks`` GPUs.

    Parameters
    ----------
    cluster : Cluster
        The cluster (its nodes are repeated to reach ``ranks`` GPUs).
    ranks : int
        Number of GPUs.

    Returns
    -------
    list of SpeedupRange
        For the flat ring and for NCCL's ring: the lowest and highest time ratio (baseline /
        hierarchical, dimensionless) over :data:`SIZES_BYTES`, and the sizes (B) where they occur.

    Notes
    -----
    .. math:: \text{speed-up}(S) = \frac{t_\text{baseline}(S)}{t_\text{hierarchical}(S)}

    with both times from :func:`~interconnect.hardware.collectives.allreduce_by_algorithm`. The episode
    quotes "about 2x at 512 GPUs"; the sources have no such figure, and the ratio moves a lot with
    message size and with the baseline, which is the point of showing both ranges.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> flat, ring = hierarchical_speedup(cluster)
    >>> flat.baseline, ring.baseline, flat.nodes
    ('flat_ring', 'ring', 64)
    """
    nodes = max(1, ranks // cluster.gpus_per_node)
    times = allreduce_by_algorithm(cluster.with_nodes(nodes), SIZES_BYTES)
    out = []
    for baseline in ("flat_ring", "ring"):
        ratio = times[baseline] / times["hierarchical"]
        low, high = int(np.nanargmin(ratio)), int(np.nanargmax(ratio))
        out.append(SpeedupRange(baseline, nodes * cluster.gpus_per_node, nodes, float(ratio[low]),
                                int(SIZES_BYTES[low]), float(ratio[high]), int(SIZES_BYTES[high])))
    return out


def collective_view(cluster: Cluster, name: str) -> AllreduceView:
    """Compute any collective over 8 B to 16 GiB: each algorithm, the library's pick and the fastest.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    name : str
        The collective, any spelling :func:`~interconnect.hardware.collectives.normalize_collective` accepts.

    Returns
    -------
    AllreduceView
        The same view as :func:`allreduce_view` (times in µs, bandwidths in GB/s over
        :data:`SIZES_BYTES`), with ``collective`` set and busbw by nccl-tests' factor of that collective.

    Notes
    -----
    :func:`~interconnect.hardware.collectives.collective` for the pick (and with ``chooser="fastest"``)
    and :func:`~interconnect.hardware.collectives.collective_by_algorithm` per algorithm; busbw is
    nccl-tests' (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for send/recv.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> view = collective_view(cluster, "all_gather_perf")
    >>> view.collective, f"{view.chosen.busbw_gbps[-1]:.0f} GB/s", sorted(view.time_us_by_algorithm)
    ('all_gather', '359 GB/s', ['collnet', 'nvls', 'pat', 'ring'])
    """
    key = normalize_collective(name)
    if key == "all_reduce":
        return allreduce_view(cluster)
    chosen = collective(cluster, key, SIZES_BYTES)
    by_algorithm = collective_by_algorithm(cluster, key, SIZES_BYTES)
    wire_gbps, wire_label = _wire(cluster)
    above = chosen.busbw_gbps > wire_gbps * 1.0001
    return AllreduceView(
        size_bytes=SIZES_BYTES,
        time_us_by_algorithm={a: by_algorithm[a] for a in COLLECTIVE_ALGORITHMS[key] if a in by_algorithm},
        chosen=chosen,
        fastest=collective(cluster, key, SIZES_BYTES, chooser="fastest"),
        crossover_bytes=_crossover_bytes(chosen),
        wire_gbps=wire_gbps,
        wire_label=wire_label,
        pick_changes=_pick_changes(chosen),
        above_wire_reason=above_wire_reason(cluster, set(chosen.algorithm[above].tolist())) if above.any() else "",
        collective=key,
    )
