"""Bytes that leave a node per all-reduce, and the "87% less inter-node traffic" claim.

The episode says hierarchical all-reduce "cuts inter-node traffic by about 87%". That is
1 - 1/g for g = 8 GPUs per node, and it holds only against a ring that ignores node boundaries;
NCCL's rings already cross the network once per node per ring, so against them the saving is
small. Both comparisons are computed here, with their closed forms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.hardware.collectives.params import as_size_bytes
from interconnect.units import expects

__all__ = ["TrafficClaim", "bytes_leaving_node_per_gpu", "hierarchical_traffic_claim"]




@expects(size_bytes="B")
def bytes_leaving_node_per_gpu(algorithm: str, size_bytes: object, gpus_per_node: int, nodes: int) -> np.ndarray:
    r"""Return the bytes each GPU's share of the node sends to other nodes (one direction) for an all-reduce.

    Parameters
    ----------
    algorithm : str
        ``flat_ring``, ``ring``, ``hierarchical``, ``tree``, ``nvls_tree``, ``collnet`` or ``nvls``.
    size_bytes : object
        Message size S per rank, B.
    gpus_per_node : int
        GPUs (and NICs) per node g.
    nodes : int
        Nodes k; zero traffic on one node.

    Returns
    -------
    numpy.ndarray
        Bytes per GPU, B.

    Raises
    ------
    ValueError
        For an unknown algorithm.

    Notes
    -----
    With n = g·k ranks:

    .. math::

        \text{flat ring: } \frac{2(n-1)}{n} S, \quad
        \text{ring: } \frac{2(n-1)}{n} \frac{S}{g}, \quad
        \text{hierarchical: } \frac{2(k-1)}{k} \frac{S}{g}, \quad
        \text{tree: } \frac{S}{g} \;(k=2),\ \frac{2S}{g} \;(k>2), \quad
        \text{SHARP: } \frac{S}{g}

    A node-unaware ring may cross the network at every step; NCCL's rings enter and leave each node once
    per channel, spread over the g NICs; the hierarchical scheme sends only the cross-node all-reduce of
    a 1/g shard; a tree node sends S up and S down in each half of the double binary tree (interior in
    one tree, leaf in the other); in-switch SHARP sends the reduced S once (nccl-tests
    ``doc/PERFORMANCE.md``; NCCL double binary trees, NVIDIA developer blog 2019).

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> [round(float(bytes_leaving_node_per_gpu(a, 1.0, 8, 8)[0]), 4) for a in ("flat_ring", "ring", "hierarchical")]
    [1.9688, 0.2461, 0.2188]
    >>> f"{bytes_leaving_node_per_gpu('ring', Q_(1, 'GiB'), 8, 8)[0] / 2**20:.0f} MiB"
    '252 MiB'
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
    r"""Return inter-node bytes per GPU as fractions of S for the three baselines, and the savings.

    Parameters
    ----------
    gpus_per_node : int
        GPUs per node g.
    nodes : int
        Nodes k (at least 2).

    Returns
    -------
    TrafficClaim
        Fractions of S (dimensionless) and the hierarchical scheme's savings against both rings.

    Notes
    -----
    .. math::

        1 - \frac{2(k-1)/k \cdot S/g}{2(n-1)/n \cdot S} \to 1 - \frac{1}{g}, \qquad
        1 - \frac{n(k-1)}{k(n-1)}

    The first (against a node-unaware ring) is the episode's "87 %" for g = 8; the second (against
    NCCL's node-aware rings) stays below 50 % for every k >= 2. Formulas from
    :func:`bytes_leaving_node_per_gpu`.

    Examples
    --------
    >>> claim = hierarchical_traffic_claim(8, 8)
    >>> f"{claim.saving_vs_flat_ring:.1%} vs a flat ring, {claim.saving_vs_node_aware_ring:.1%} vs NCCL rings"
    '88.9% vs a flat ring, 11.1% vs NCCL rings'
    """
    g, k = max(int(gpus_per_node), 1), max(int(nodes), 2)
    flat = float(bytes_leaving_node_per_gpu("flat_ring", 1.0, g, k)[0])
    ring = float(bytes_leaving_node_per_gpu("ring", 1.0, g, k)[0])
    hier = float(bytes_leaving_node_per_gpu("hierarchical", 1.0, g, k)[0])
    return TrafficClaim(g, k, flat, ring, hier, 1 - hier / flat, 1 - hier / ring)
