"""Bytes that leave a node per all-reduce, and the "87% less inter-node traffic" claim.

The episode says hierarchical all-reduce "cuts inter-node traffic by about 87%". That is
1 - 1/g for g = 8 GPUs per node, and it holds only against a ring that ignores node boundaries;
NCCL's rings already cross the network once per node per ring, so against them the saving is
small. Both comparisons are computed here, with their closed forms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.models.collectives.model import as_size_bytes

__all__ = ["TrafficClaim", "bytes_leaving_node_per_gpu", "hierarchical_traffic_claim"]




def bytes_leaving_node_per_gpu(algorithm: str, size_bytes: object, gpus_per_node: int, nodes: int) -> np.ndarray:
    """Bytes each GPU's share of the node sends to other nodes (one direction) for an all-reduce of S.

    With n = g·k ranks, g GPUs and g NICs per node, k nodes:

    * ``flat_ring``: a node-unaware ring where every step may cross the network, so all of a GPU's
      ring traffic leaves: ``2(n-1)/n · S``.
    * ``ring``: NCCL's node-aware rings enter and leave each node once per channel; the node sends
      ``2(n-1)/n · S`` in total, spread over its g NICs: ``2(n-1)/n · S/g``.
    * ``hierarchical``: only the cross-node all-reduce of a 1/g shard: ``2(k-1)/k · S/g`` (§3.2).
    * ``tree`` / ``nvls_tree``: a node sends S up and S down in each of the two trees' halves:
      ``S/g`` on 2 nodes, ``2S/g`` beyond (interior in one tree, leaf in the other).
    * ``collnet`` (in-switch SHARP): each node sends its reduced S once: ``S/g``.

    Zero on one node.

    >>> [round(float(bytes_leaving_node_per_gpu(a, 1.0, 8, 8)[0]), 4) for a in ("flat_ring", "ring", "hierarchical")]
    [1.9688, 0.2461, 0.2188]
    """
    size = as_size_bytes(size_bytes)
    g, k = max(int(gpus_per_node), 1), max(int(nodes), 1)
    n = g * k
    if k <= 1:
        return np.zeros_like(size)
    if algorithm == "flat_ring":
        return 2 * (n - 1) / n * size
    if algorithm == "ring":
        return 2 * (n - 1) / n * size / g
    if algorithm == "hierarchical":
        return 2 * (k - 1) / k * size / g
    if algorithm in ("tree", "nvls_tree"):
        return (1.0 if k == 2 else 2.0) * size / g
    if algorithm in ("collnet", "nvls"):
        return size / g
    raise ValueError(f"unknown algorithm {algorithm!r}")


@dataclass(frozen=True)
class TrafficClaim:
    """The "hierarchical all-reduce cuts inter-node traffic by ~87%" claim, under both baselines.

    ``saving_vs_flat_ring = 1 - [2(k-1)/k · S/g] / [2(n-1)/n · S]`` tends to 1 - 1/g (87.5 % for
    g = 8) as k grows: the episode's figure, true only against a ring that ignores node boundaries.
    ``saving_vs_node_aware_ring = 1 - n(k-1) / (k(n-1))``: against NCCL's rings, which already send
    only 2(n-1)/n · S/g per GPU across the network; below 50 % for every k >= 2 (largest at k = 2,
    vanishing as k grows).
    """

    gpus_per_node: int
    nodes: int
    flat_ring_fraction: float
    node_aware_ring_fraction: float
    hierarchical_fraction: float
    saving_vs_flat_ring: float
    saving_vs_node_aware_ring: float


def hierarchical_traffic_claim(gpus_per_node: int = 8, nodes: int = 8) -> TrafficClaim:
    """Inter-node bytes per GPU as a fraction of S for the three baselines, and the savings.

    >>> claim = hierarchical_traffic_claim(8, 8)
    >>> f"{claim.saving_vs_flat_ring:.1%} vs a flat ring, {claim.saving_vs_node_aware_ring:.1%} vs NCCL rings"
    '88.9% vs a flat ring, 11.1% vs NCCL rings'
    """
    g, k = max(int(gpus_per_node), 1), max(int(nodes), 2)
    flat = float(bytes_leaving_node_per_gpu("flat_ring", 1.0, g, k)[0])
    ring = float(bytes_leaving_node_per_gpu("ring", 1.0, g, k)[0])
    hier = float(bytes_leaving_node_per_gpu("hierarchical", 1.0, g, k)[0])
    return TrafficClaim(g, k, flat, ring, hier, 1 - hier / flat, 1 - hier / ring)
