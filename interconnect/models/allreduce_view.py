"""What the All-reduce page shows, computed in one place (the page itself holds no arithmetic).

Everything is numpy arrays with units in the names: sizes in bytes, times in µs, bandwidths in
GB/s (1e9 B/s, as nccl-tests prints them).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

import numpy as np

from interconnect.models.cluster import Cluster
from interconnect.models.collectives import (
    ALLREDUCE_ALGORITHMS,
    AUTO_CANDIDATES,
    AllreduceResult,
    allreduce,
    allreduce_by_algorithm,
    busbw_factor,
    bytes_leaving_node_per_gpu,
    sweep_allreduce,
)

__all__ = [
    "NODE_COUNTS",
    "SIZES_BYTES",
    "AllreduceView",
    "NodeCurve",
    "PublishedCurve",
    "allreduce_view",
    "hierarchical_speedup",
    "measured_busbw_gbps",
    "node_count_curve",
    "playbook_curve",
    "traffic_per_gpu",
]

#: 8 B to 16 GiB in half-octave steps: the range nccl-tests users sweep (``-b 8 -e 16G``).
SIZES_BYTES: np.ndarray = np.unique(np.round(2.0 ** np.arange(3, 34.01, 0.5))).astype(np.int64)
#: Node counts for the "busbw against cluster size" chart.
NODE_COUNTS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


@dataclass(frozen=True, eq=False)
class AllreduceView:
    """All-reduce over :data:`SIZES_BYTES` for one cluster: per algorithm and as NCCL would choose."""

    size_bytes: np.ndarray
    time_us_by_algorithm: dict[str, np.ndarray]
    chosen: AllreduceResult
    crossover_bytes: float
    wire_gbps: float
    wire_label: str

    def busbw_by_algorithm(self) -> dict[str, np.ndarray]:
        factor = busbw_factor("all_reduce", self.chosen.ranks)
        with np.errstate(divide="ignore", invalid="ignore"):
            return {name: np.where(np.isfinite(t) & (t > 0), self.size_bytes / (t * 1e3) * factor, np.nan)
                    for name, t in self.time_us_by_algorithm.items()}

    @property
    def busbw_above_wire(self) -> np.ndarray:
        """Sizes where the chosen algorithm's busbw exceeds the slowest link it crosses."""
        return self.chosen.busbw_gbps > self.wire_gbps * 1.0001


def _crossover_bytes(result: AllreduceResult) -> float:
    """Size where latency and bandwidth terms are equal: ``S* = t(smallest) x algbw(largest)``.

    Below S* the time is mostly fixed latency (a bigger message costs almost nothing more); above
    it, time grows with size (bandwidth-bound).
    """
    if result.ranks <= 1:
        return float("nan")
    latency_us = float(result.time_us[0])
    algbw_gbps = float(result.algbw_gbps[-1])
    return latency_us * algbw_gbps * 1e3


def _wire(cluster: Cluster) -> tuple[float, str]:
    """The busbw a ring cannot beat: NVLink per GPU, or across domains the domain's whole egress.

    NCCL spreads its rings over every NIC of a node, so a multi-node ring's busbw is bounded by the
    node's total NIC bandwidth (DGX A100: 8 x 24 GB/s gives the 192 GB/s NVIDIA measured, NCCL
    issue 812), not by one NIC.
    """
    if cluster.domains > 1 and cluster.domain_egress_gbps < cluster.intra_bw_gbps:
        return cluster.domain_egress_gbps, "ring limit: the server's NICs together (achievable)"
    return cluster.intra_bw_gbps, "ring limit: NVLink per GPU (achievable)"


def allreduce_view(cluster: Cluster, algorithm: str = "auto") -> AllreduceView:
    """Every algorithm's time over 8 B to 16 GiB, the chosen one, and where latency stops mattering."""
    chosen = allreduce(cluster, SIZES_BYTES, algorithm)
    wire_gbps, wire_label = _wire(cluster)
    return AllreduceView(
        size_bytes=SIZES_BYTES,
        time_us_by_algorithm=allreduce_by_algorithm(cluster, SIZES_BYTES),
        chosen=chosen,
        crossover_bytes=_crossover_bytes(chosen),
        wire_gbps=wire_gbps,
        wire_label=wire_label,
    )


@dataclass(frozen=True, eq=False)
class NodeCurve:
    """busbw (GB/s) against node count at one message size, per algorithm and as chosen."""

    node_counts: np.ndarray
    size_bytes: int
    busbw_by_algorithm: dict[str, np.ndarray]
    busbw_chosen: np.ndarray


def node_count_curve(cluster: Cluster, size_bytes: int, node_counts: tuple[int, ...] = NODE_COUNTS) -> NodeCurve:
    """busbw at ``size_bytes`` for 1 to 1024 nodes of this cluster's nodes (one vectorised sweep)."""
    times = sweep_allreduce(cluster, [size_bytes], node_counts)[:, :, 0]  # (nodes, algorithms)
    counts = np.asarray(node_counts)
    ranks = counts * cluster.gpus_per_node
    factor = np.where(ranks > 1, 2 * (ranks - 1) / ranks, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        busbw = np.where(np.isfinite(times) & (times > 0), size_bytes / (times * 1e3) * factor[:, None], np.nan)
    by_algorithm = {name: busbw[:, i] for i, name in enumerate(ALLREDUCE_ALGORITHMS)}
    auto_index = [ALLREDUCE_ALGORITHMS.index(name) for name in AUTO_CANDIDATES]
    auto_times = np.where(np.isfinite(times[:, auto_index]), times[:, auto_index], np.inf).min(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        chosen = np.where(np.isfinite(auto_times) & (auto_times > 0), size_bytes / (auto_times * 1e3) * factor, np.nan)
    return NodeCurve(counts, int(size_bytes), by_algorithm, chosen)


def traffic_per_gpu(cluster: Cluster, size_bytes: int) -> dict[str, float]:
    """Bytes per GPU that leave the node (one direction) for an all-reduce of ``size_bytes``."""
    return {
        name: float(bytes_leaving_node_per_gpu(name, [size_bytes], cluster.gpus_per_node, cluster.nodes)[0])
        for name in ("flat_ring", "ring", "tree", "hierarchical", "collnet")
    }


@dataclass(frozen=True, eq=False)
class PublishedCurve:
    """A published curve to overlay, with its citation."""

    label: str
    source_title: str
    source_url: str
    x: np.ndarray
    busbw_gbps: np.ndarray
    note: str


def playbook_curve() -> PublishedCurve:
    """The Ultra-Scale Playbook's measured all-reduce bandwidth at 256 MB against node count (8 x H100 nodes).

    Source: formulas.md §0, citing the Playbook's ``fragments/pp_comm_bandwidth.html`` chart.
    """
    path = resources.files("interconnect").joinpath("data/published/playbook-allreduce-256mb.csv")
    with path.open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(line for line in handle if not line.startswith("#"))]
    return PublishedCurve(
        label="Ultra-Scale Playbook, measured (256 MB, 8 x H100 per node)",
        source_title="Hugging Face, The Ultra-Scale Playbook: all-reduce bandwidth vs node count",
        source_url="https://huggingface.co/spaces/nanotron/ultrascale-playbook",
        x=np.array([int(row["nodes"]) for row in rows]),
        busbw_gbps=np.array([float(row["bandwidth_gbps"]) for row in rows]),
        note="The Playbook's chart reports bandwidth per GPU at a fixed 256 MB message; read here as busbw.",
    )


def measured_busbw_gbps(size_bytes: np.ndarray, time_us: np.ndarray, ranks: int) -> np.ndarray:
    """nccl-tests' all-reduce busbw from sizes and times: ``S / t x 2(n-1)/n`` (GB/s, t in µs)."""
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
    """Baseline time over hierarchical time at ``ranks`` GPUs, for a flat ring and for NCCL's ring.

    The episode quotes "about 2x at 512 GPUs"; the sources have no such figure, and the ratio moves a
    lot with message size and with the baseline, which is the point of showing both ranges.
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
