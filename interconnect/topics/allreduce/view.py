"""What the All-reduce page shows, computed in one place (the page itself holds no arithmetic).

Everything is numpy arrays with units in the names: sizes in bytes, times in µs, bandwidths in
GB/s (1e9 B/s, as nccl-tests prints them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import (
    ALLREDUCE_ALGORITHMS,
    COLLECTIVE_ALGORITHMS,
    AllreduceResult,
    allreduce_by_algorithm,
    allreduce_detail,
    busbw_factor,
    bytes_leaving_node_per_gpu,
    collective,
    collective_by_algorithm,
    normalize_collective,
)
from interconnect.hardware.playbook import PLAYBOOK_CLUSTER, PLAYBOOK_SIZE, PublishedCurve, playbook_curve
from interconnect.hardware.vendor import VendorWords, vendor_words
from interconnect.units import expects

__all__ = [
    "NODE_COUNTS",
    "PLAYBOOK_CLUSTER",
    "P5_TUNER_PICKS_256MB",
    "PLAYBOOK_SIZE",
    "SIZES_BYTES",
    "SMOL_PLAYBOOK_P5",
    "AllreduceView",
    "VendorWords",
    "NodeCurve",
    "P5TunerCheck",
    "PickChange",
    "PublishedCurve",
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
#: Node counts for the "busbw against cluster size" chart.
NODE_COUNTS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


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



def launch_from_log(gpus_per_process: int | None, ranks: int | None) -> tuple[str, str]:
    """Read how a benchmark was launched from its header, and say how it was read.

    Parameters
    ----------
    gpus_per_process : int or None
        nThread x nGpus from the header (:attr:`~interconnect.io.nccl_tests.NcclRun.gpus_per_process`).
    ranks : int or None
        The run's rank count.

    Returns
    -------
    (str, str)
        A launch mode (a key of
        :data:`~interconnect.hardware.collectives.measurements.LAUNCH_OVERHEAD_US`) and where it came from.

    Examples
    --------
    >>> launch_from_log(8, 8)[0], launch_from_log(1, 16)[0], launch_from_log(None, 8)[0]
    ('single-process', 'process-per-gpu', 'process-per-gpu')
    """
    if gpus_per_process is None:
        return "process-per-gpu", "the log does not say (no nThread/nGpus line); assumed one process per GPU"
    if gpus_per_process > 1 and (ranks is None or ranks > 1):
        return "single-process", (f"the header's nThread x nGpus = {gpus_per_process}: one process drives "
                                  f"{gpus_per_process} GPUs")
    return "process-per-gpu", "the header's nThread x nGpus = 1: one process per GPU"


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
    """
    if cluster.domains > 1 and cluster.domain_egress_gbps < cluster.intra_bw_gbps:
        return cluster.domain_egress_gbps, "ring limit: the server's NICs together (achievable)"
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


@dataclass(frozen=True, eq=False)
class NodeCurve:
    """busbw (GB/s) against node count at one message size: per algorithm, as chosen, and the fastest.

    ``busbw_chosen`` is computed exactly as the page's headline and the CLI compute it (NCCL's pick,
    or the forced algorithm and protocol), at every node count.
    """

    node_counts: np.ndarray
    size_bytes: int
    busbw_by_algorithm: dict[str, np.ndarray]
    busbw_chosen: np.ndarray
    busbw_fastest: np.ndarray
    algorithm_chosen: np.ndarray
    protocol_chosen: np.ndarray


@expects(size_bytes="B")
def node_count_curve(cluster: Cluster, size_bytes: int, node_counts: tuple[int, ...] = NODE_COUNTS,
                     algorithm: str = "auto", protocol: str = "auto") -> NodeCurve:
    """Compute busbw at one message size for 1 to 1024 nodes of this cluster's nodes.

    Parameters
    ----------
    cluster : Cluster
        The cluster; its node count is replaced by each of ``node_counts``.
    size_bytes : int
        Message size per rank, B.
    node_counts : tuple of int
        Node counts (default :data:`NODE_COUNTS`).
    algorithm : str
        ``"auto"`` or a forced algorithm.
    protocol : str
        ``"auto"`` or a forced protocol.

    Returns
    -------
    NodeCurve
        busbw in GB/s per node count: per algorithm, as chosen, and the fastest.

    Notes
    -----
    busbw = S/t x 2(n-1)/n at each node count (nccl-tests ``doc/PERFORMANCE.md``), with t from
    :func:`~interconnect.hardware.collectives.allreduce_detail`.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.units import Q_
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> curve = node_count_curve(cluster, Q_(256, "MiB"), (1, 2))
    >>> [f"{b:.0f} GB/s" for b in curve.busbw_chosen]
    ['428 GB/s', '392 GB/s']
    """
    counts = np.asarray(node_counts)
    by_algorithm = {name: np.full(counts.size, np.nan) for name in ALLREDUCE_ALGORITHMS}
    chosen, fastest = np.full(counts.size, np.nan), np.full(counts.size, np.nan)
    algos, protos = [], []
    for i, nodes in enumerate(node_counts):
        detail = allreduce_detail(cluster.with_nodes(nodes), [size_bytes], algorithm, protocol=protocol)
        factor = busbw_factor("all_reduce", detail.chosen.ranks) if detail.chosen.ranks > 1 else 0.0
        for name, times in detail.by_algorithm.items():
            if np.isfinite(times[0]) and times[0] > 0:
                by_algorithm[name][i] = size_bytes / (times[0] * 1e3) * factor
        if np.isfinite(detail.chosen.time_us[0]):
            chosen[i] = detail.chosen.busbw_gbps[0]
        if np.isfinite(detail.fastest.time_us[0]):
            fastest[i] = detail.fastest.busbw_gbps[0]
        algos.append(str(detail.chosen.algorithm[0]))
        protos.append(str(detail.chosen.protocol[0]))
    return NodeCurve(counts, int(size_bytes), by_algorithm, chosen, fastest, np.array(algos), np.array(protos))


@expects(size_bytes="B")
def traffic_per_gpu(cluster: Cluster, size_bytes: int) -> dict[str, float]:
    r"""Return the bytes per GPU that leave the node (one direction) for an all-reduce, per algorithm.

    Parameters
    ----------
    cluster : Cluster
        The cluster (GPUs per node and nodes).
    size_bytes : int
        Message size per rank, B.

    Returns
    -------
    dict of str to float
        Bytes per GPU, B.

    Notes
    -----
    The closed forms of :func:`~interconnect.hardware.collectives.bytes_leaving_node_per_gpu`, e.g. a
    node-aware ring :math:`\frac{2(n-1)}{n}\frac{S}{g}`.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    >>> f"{traffic_per_gpu(cluster, 2**30)['ring'] / 2**20:.0f} MiB"
    '252 MiB'
    """
    return {
        name: float(bytes_leaving_node_per_gpu(name, [size_bytes], cluster.gpus_per_node, cluster.nodes)[0])
        for name in ("flat_ring", "ring", "tree", "hierarchical", "collnet")
    }


#: The same team's nccl-tests all-reduce on AWS p5 (Smol Training Playbook, Hugging Face, 2025,
#: "Troubleshooting interconnect" section): 480 GB/s on one node, 479 on two, 320-350 GB/s from 3 to 16
#: nodes; large messages, size not stated. (nodes, low, high) in GB/s busbw.
SMOL_PLAYBOOK_P5: tuple[tuple[int, float, float], ...] = ((1, 480.0, 480.0), (2, 479.0, 479.0),
                                                         (3, 320.0, 350.0), (16, 320.0, 350.0))
SMOL_PLAYBOOK_URL = "https://huggingface.co/spaces/HuggingFaceTB/smol-training-playbook"


#: The all-reduce algorithm and protocol that aws-ofi-nccl's tuner sets on AWS p5/p5e for a 256 MB message,
#: at the Playbook's node counts (8 ranks per node). Read from the (size, ranks) polygons of
#: ``region_init_internal_p5_p5e`` in aws-ofi-nccl ``src/tuner/nccl_ofi_regions.cpp`` (region tuner, shipped
#: since aws-ofi-nccl 1.13): Tree/LL128 up to 36 MiB at 32 ranks, 112 MiB at 64, 288 MiB at 128 and 256 and
#: 320 MiB at 512 ranks, Ring/LL128 above that edge (to 1.4-2 GiB). The tuner leaves two nodes or fewer to
#: NCCL's own choice ("the regions are not well defined", ``region_get_coll_info_internal_v3``).
P5_TUNER_PICKS_256MB: dict[int, tuple[str, str]] = {
    4: ("ring", "LL128"), 8: ("ring", "LL128"), 16: ("tree", "LL128"), 32: ("tree", "LL128"), 64: ("tree", "LL128"),
}


@dataclass(frozen=True)
class P5TunerCheck:
    """The model's busbw on the Playbook's cluster with its own pick and with AWS's tuner's pick (one node count)."""

    nodes: int
    model_algorithm: str
    model_protocol: str
    model_busbw_gbps: float
    tuner_algorithm: str
    tuner_protocol: str
    tuner_busbw_gbps: float


@expects(size_bytes="B")
def p5_tuner_check(size_bytes: float = 256e6) -> list[P5TunerCheck]:
    """Compare the model's pick with aws-ofi-nccl's p5 tuner pick at the Playbook's node counts.

    Parameters
    ----------
    size_bytes : float
        Message size in B; the tuner picks of :data:`P5_TUNER_PICKS_256MB` hold for 256 MB.

    Returns
    -------
    list of P5TunerCheck
        One entry per node count of :data:`P5_TUNER_PICKS_256MB`, busbw in GB/s.

    Notes
    -----
    Both columns are the same model (:func:`~interconnect.hardware.collectives.allreduce`) on
    :data:`PLAYBOOK_CLUSTER`; only the algorithm and protocol differ. It shows how much the AWS tuner's
    choice alone could move the model toward the Playbook's curve.

    Examples
    --------
    >>> rows = p5_tuner_check()
    >>> [(row.nodes, row.tuner_algorithm) for row in rows][:2]
    [(4, 'ring'), (8, 'ring')]
    """
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.hardware.collectives import allreduce

    inputs = dict(PLAYBOOK_CLUSTER)
    gpu = str(inputs.pop("gpu"))
    rows = []
    for nodes, (algorithm, protocol) in P5_TUNER_PICKS_256MB.items():
        cluster, _ = resolve_cluster(gpu, **{**inputs, "nodes": nodes})
        own = allreduce(cluster, [size_bytes])
        tuned = allreduce(cluster, [size_bytes], algorithm, protocol=protocol)
        rows.append(P5TunerCheck(nodes, str(own.algorithm[0]), str(own.protocol[0]), float(own.busbw_gbps[0]),
                                 algorithm, protocol, float(tuned.busbw_gbps[0])))
    return rows



@expects(size_bytes="B", time_us="us")
def measured_busbw_gbps(size_bytes: np.ndarray, time_us: np.ndarray, ranks: int) -> np.ndarray:
    r"""Compute nccl-tests' all-reduce busbw from sizes and times.

    Parameters
    ----------
    size_bytes : numpy.ndarray
        Sizes, B.
    time_us : numpy.ndarray
        Times, µs.
    ranks : int
        Number of ranks n.

    Returns
    -------
    numpy.ndarray
        busbw in GB/s.

    Notes
    -----
    .. math:: \text{busbw} = \frac{S}{t}\,\frac{2(n-1)}{n}

    (nccl-tests ``doc/PERFORMANCE.md``).

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> f"{measured_busbw_gbps(Q_(1, 'GiB'), Q_(4.07, 'ms'), 8):.0f} GB/s"
    '462 GB/s'
    """
    return np.asarray(size_bytes, dtype=float) / (np.asarray(time_us, dtype=float) * 1e3) * busbw_factor(
        "all_reduce", ranks)


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
