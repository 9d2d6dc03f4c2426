"""All-reduce over every message size at a whole range of node counts: the family a live chart draws.

The All-reduce page's live chart lets the viewer drag the node count and watch busbw against
message size follow at once. The browser can only do that if it already holds the curves, so this
module computes them for every node count the slider offers, in one pass of the same model the
rest of the page uses (:func:`~interconnect.hardware.collectives.allreduce_detail`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import MAX_NODES, Cluster
from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS, allreduce_detail, busbw_factor
from interconnect.topics.allreduce.view import NODE_COUNTS, SIZES_BYTES

__all__ = ["NodeFamily", "live_node_counts", "node_family"]


@dataclass(frozen=True, eq=False)
class NodeFamily:
    """busbw (GB/s) and time (µs) over :data:`SIZES_BYTES` at each node count.

    Arrays are ``[node count, size]``; ``busbw_by_algorithm`` holds NaN where an algorithm is not
    available on that cluster (NVLS without an NVSwitch, SHARP without SHARP switches).
    """

    node_counts: np.ndarray
    gpus_per_node: int
    size_bytes: np.ndarray
    busbw_by_algorithm: dict[str, np.ndarray]
    busbw_chosen_gbps: np.ndarray
    time_chosen_us: np.ndarray
    algorithm_chosen: np.ndarray


def live_node_counts(current: int, maximum: int = MAX_NODES) -> tuple[int, ...]:
    """Return the slider's node counts: powers of two up to 1,024 and the page's own count.

    >>> live_node_counts(6)
    (1, 2, 4, 6, 8, 16, 32, 64, 128, 256, 512, 1024)
    >>> live_node_counts(4096)[-2:]
    (1024, 4096)
    """
    current = max(1, min(int(current), int(maximum)))
    return tuple(sorted({*NODE_COUNTS, current}))


def node_family(cluster: Cluster, node_counts: Sequence[int], algorithm: str = "auto",
                protocol: str = "auto") -> NodeFamily:
    r"""Compute every algorithm's busbw, and the chosen one's time, at each node count and size.

    Parameters
    ----------
    cluster : Cluster
        The cluster; its node count is replaced by each of ``node_counts``.
    node_counts : sequence of int
        The node counts the live slider offers.
    algorithm : str
        ``"auto"`` (NCCL's pick) or a forced algorithm.
    protocol : str
        ``"auto"`` or a forced protocol.

    Returns
    -------
    NodeFamily
        Arrays of shape ``(len(node_counts), len(SIZES_BYTES))``.

    Notes
    -----
    busbw = S/t x 2(n-1)/n, as nccl-tests defines it for all-reduce (``doc/PERFORMANCE.md``); the
    times are :func:`~interconnect.hardware.collectives.allreduce_detail`'s, so every point equals
    what the page's other charts and the command line give for that node count.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> family = node_family(cluster, (1, 2))
    >>> family.busbw_chosen_gbps.shape == (2, SIZES_BYTES.size)
    True
    >>> f"{family.busbw_chosen_gbps[0, -1]:.0f} GB/s"
    '474 GB/s'
    """
    counts = np.asarray(node_counts, dtype=np.int64)
    shape = (counts.size, SIZES_BYTES.size)
    by_algorithm = {name: np.full(shape, np.nan) for name in ALLREDUCE_ALGORITHMS}
    chosen_bw, chosen_us = np.full(shape, np.nan), np.full(shape, np.nan)
    chosen_algo = np.full(shape, "", dtype=object)
    sizes = SIZES_BYTES.astype(float)
    for i, nodes in enumerate(counts):
        detail = allreduce_detail(cluster.with_nodes(int(nodes)), SIZES_BYTES, algorithm, protocol=protocol)
        ranks = detail.chosen.ranks
        factor = busbw_factor("all_reduce", ranks) if ranks > 1 else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            for name, times in detail.by_algorithm.items():
                ok = np.isfinite(times) & (times > 0)
                by_algorithm[name][i] = np.where(ok, sizes / (times * 1e3) * factor, np.nan)
        finite = np.isfinite(detail.chosen.time_us)
        chosen_us[i] = np.where(finite, detail.chosen.time_us, np.nan)
        chosen_bw[i] = np.where(finite, detail.chosen.busbw_gbps, np.nan)
        chosen_algo[i] = detail.chosen.algorithm
    return NodeFamily(counts, cluster.gpus_per_node, SIZES_BYTES, by_algorithm, chosen_bw, chosen_us, chosen_algo)
