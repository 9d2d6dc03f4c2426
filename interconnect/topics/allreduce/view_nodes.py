"""The All-reduce page across cluster sizes: busbw against node count, and the bytes that leave a node.

Numbers carry their unit in the name: sizes in bytes, bandwidths in GB/s (1e9 B/s, as nccl-tests prints them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import (
    ALLREDUCE_ALGORITHMS,
    allreduce_detail,
    busbw_factor,
    bytes_leaving_node_per_gpu,
)
from interconnect.units import expects

#: Node counts for the "busbw against cluster size" chart.
NODE_COUNTS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


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
