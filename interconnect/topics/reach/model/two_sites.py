"""What distance does to an all-reduce between two sites.

A ring waits for the gap at every step, a hierarchical all-reduce twice, a sync every H steps once per H.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import allreduce, ring_allreduce_time_us
from interconnect.topics.reach.model.propagation import propagation_for
from interconnect.units import expects

__all__ = [
    "NET_HOP_US",
    "TwoSiteAllreduce",
    "two_site_allreduce",
    "two_site_cluster",
]


#: NCCL's per-hop latency for a ring step across the network with the bulk (Simple) protocol:
#: tuning.cc hwLat[NET][Ring][Simple] = 14 us (NVIDIA/nccl 5067397c). The fabric's extra per-hop
#: latency (:attr:`Cluster.net_hop_latency_us`) is added to it, as the collective model does.
NET_HOP_US = 14.0


@dataclass(frozen=True, eq=False)
class TwoSiteAllreduce:
    """All-reduce time per training step for a cluster split between two sites, against distance.

    Arrays have one entry per distance in ``distance_m``. Times are µs.
    """

    distance_m: np.ndarray
    gap_delay_us: np.ndarray
    ring_us: np.ndarray
    hierarchical_us: np.ndarray
    periodic_us: np.ndarray
    ring_local_us: float
    hierarchical_local_us: float
    site_us: float
    cross_local_us: float
    ranks: int
    ranks_per_site: int
    ring_gap_steps: int
    hierarchical_gap_steps: int
    sync_every: int
    size_bytes: float
    medium_id: str
    delay_s_per_m: float
    notes: tuple[str, ...] = ()

    def at(self, index: int) -> dict[str, float]:
        """Return the three times at one of the computed distances.

        Parameters
        ----------
        index : int
            Index into :attr:`distance_m`.

        Returns
        -------
        dict of str to float
            ``ring``, ``hierarchical`` and ``periodic`` times per training step, µs.

        Examples
        --------
        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
        >>> result = two_site_allreduce(cluster, 2**30, [0.0, 1e6])
        >>> result.at(1) == result.at_distance(1e6)
        True
        """
        return {"ring": float(self.ring_us[index]), "hierarchical": float(self.hierarchical_us[index]),
                "periodic": float(self.periodic_us[index])}

    @expects(distance_m="m")
    def at_distance(self, distance_m: float) -> dict[str, float]:
        """Return the three times (µs) at any distance, from the same closed forms (no new collective run).

        Parameters
        ----------
        distance_m : float
            Distance between the sites in m (or a length Quantity).

        Returns
        -------
        dict of str to float
            ``ring``, ``hierarchical`` and ``periodic`` times per training step, µs
            (the formulas of :func:`two_site_allreduce`).

        Examples
        --------
        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> from interconnect.units import Q_
        >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
        >>> result = two_site_allreduce(cluster, 2**30, [0.0])
        >>> far = result.at_distance(Q_(1000, "km"))
        >>> f"{(far['ring'] - result.ring_us[0]) / 1e3:.0f} ms"
        '304 ms'
        """
        gap_us = distance_m * self.delay_s_per_m * 1e6
        hierarchical = self.hierarchical_local_us + self.hierarchical_gap_steps * gap_us
        return {"ring": self.ring_local_us + self.ring_gap_steps * gap_us, "hierarchical": hierarchical,
                "periodic": hierarchical / self.sync_every}


def two_site_cluster(cluster: Cluster) -> tuple[Cluster, str]:
    """Split a cluster into two equal sites, with no NVLink domain spanning them.

    Parameters
    ----------
    cluster : Cluster
        The cluster as if in one building.

    Returns
    -------
    cluster : Cluster
        The cluster to model: an even node count (at least two), and scale-up domains of at most
        one site's GPUs.
    note : str
        What had to change, or ``""``.

    Notes
    -----
    NVLink does not leave a building: each site gets half of the nodes (an odd count is rounded up)
    and its own scale-up domains.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=3)
    >>> split, note = two_site_cluster(cluster)
    >>> split.nodes, split.domains, note
    (4, 4, 'Two equal sites: using 4 nodes (2 per site) instead of 3.')
    """
    nodes = max(2, cluster.nodes + cluster.nodes % 2)
    per_site_gpus = cluster.gpus_per_node * nodes // 2
    domain = min(cluster.scaleup_domain, per_site_gpus)
    notes = []
    if nodes != cluster.nodes:
        notes.append(f"Two equal sites: using {nodes} nodes ({nodes // 2} per site) instead of {cluster.nodes}.")
    if domain < min(cluster.scaleup_domain, cluster.ranks):
        notes.append(f"NVLink does not cross between the sites: each site's NVLink domain holds its own "
                     f"{domain} GPUs.")
    if nodes == cluster.nodes and domain == cluster.scaleup_domain:
        return cluster, ""
    return replace(cluster, nodes=nodes, scaleup_domain=domain), " ".join(notes)


@expects(size_bytes="B", distance_m="m")
def two_site_allreduce(
    cluster: Cluster,
    size_bytes: float,
    distance_m: float | Sequence[float] | np.ndarray,
    *,
    medium_id: str = "fibre",
    sync_every: int = 1,
    catalog: object | None = None,
) -> TwoSiteAllreduce:
    r"""Time an all-reduce per training step for a cluster split evenly between two sites.

    Parameters
    ----------
    cluster : Cluster
        The whole cluster; :func:`two_site_cluster` splits it.
    size_bytes : float
        All-reduce payload per GPU, B (or a data-size Quantity).
    distance_m : float or sequence of float or numpy.ndarray
        Distances between the sites, m (or a length Quantity).
    medium_id : str, default "fibre"
        The medium of the gap (a key of :data:`PROPAGATION`).
    sync_every : int, default 1
        H, the number of training steps per synchronisation for the periodic scheme.
    catalog : interconnect.catalog.Catalog, optional
        Where to look up the medium's propagation.

    Returns
    -------
    TwoSiteAllreduce
        Per distance: the ring, hierarchical and periodic times per step in µs, with the local
        terms and step counts that produced them.

    Raises
    ------
    ValueError
        When ``size_bytes`` is not a positive finite number.

    Notes
    -----
    The gap adds its one-way delay :math:`\delta = d \tau` to every step that waits for data from
    the other site. With :math:`n` ranks in all, :math:`n_s` per site, message size :math:`S` and
    NIC rate :math:`B_{NIC}` per GPU:

    * **ring** across both sites (NCCL's ring, timed by
      :func:`~interconnect.hardware.collectives.allreduce` for the same cluster in one building, plus
      the gap). The ring must cross the gap to close, so in the lock-step model each of its
      :math:`2(n-1)` steps (Patarasuk and Yuan, J. Parallel Distrib. Comput. 69(2), 2009,
      pp. 117-124, https://doi.org/10.1016/j.jpdc.2008.09.002) waits for a transfer across it:

      .. math:: T_{ring}(d) = T_{ring}(0) + 2(n-1)\,\delta

    * **hierarchical**: reduce inside each site (timed as one site's own all-reduce), then each GPU
      swaps its :math:`1/n_s` shard with its twin at the other site (a two-rank ring: two steps),
      then gathers inside the site. Our composition:

      .. math:: T_{hier}(d) = T_{site} + 2(\alpha_{net} + \delta) + \frac{S / n_s}{B_{NIC}}

      with :math:`\alpha_{net}` = :data:`NET_HOP_US` plus the fabric's hop latency.

    * **sync every H steps** (DiLoCo, ``arxiv-diloco``: H inner steps, then one all-reduce): the
      hierarchical all-reduce once every H steps, :math:`T_{hier}(d) / H` per step.

    Assumptions: the link between the sites carries each GPU's full NIC rate, and the NICs keep a
    bandwidth-delay product in flight. A pipelined ring (NCCL's) pays fewer delays than the
    lock-step model but needs that window; with NCCL's default 4 MiB buffer per pair it would be
    slower still at long distances (:func:`window_limited_rate_bytes_per_s`).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.units import Q_
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> far = two_site_allreduce(cluster, 2**30, [0.0, 1_000_000.0], sync_every=100)
    >>> far.ring_gap_steps, far.hierarchical_gap_steps
    (62, 2)
    >>> f"{(far.ring_us[1] - far.ring_us[0]) / 1e3:.0f} ms"
    '304 ms'
    >>> f"{(far.hierarchical_us[1] - far.hierarchical_us[0]) / 1e3:.1f} ms"
    '9.8 ms'
    >>> same = two_site_allreduce(cluster, Q_(1, "GiB"), Q_([0, 1000], "km"), sync_every=100)
    >>> f"{same.ring_us[1] / 1e3:.0f} ms" == f"{far.ring_us[1] / 1e3:.0f} ms"
    True
    """
    if not (math.isfinite(size_bytes) and size_bytes > 0):
        raise ValueError(f"size_bytes must be a positive number, got {size_bytes!r}")
    h = max(1, int(sync_every))
    split, note = two_site_cluster(cluster)
    site = split.with_nodes(split.nodes // 2)
    n, n_site = split.ranks, site.ranks
    distances = np.atleast_1d(np.asarray(distance_m, dtype=float))
    tau = propagation_for(medium_id, catalog).delay_s_per_m
    gap_us = distances * tau * 1e6
    ring_local = float(allreduce(split, [size_bytes], "ring").time_us[0])
    site_us = float(allreduce(site, [size_bytes], "auto").time_us[0]) if n_site > 1 else 0.0
    alpha = NET_HOP_US + split.net_hop_latency_us
    cross_local = float(ring_allreduce_time_us(size_bytes / n_site, 2, alpha, split.nic_bw_per_gpu_gbps)[0])
    ring_steps, hier_steps = 2 * (n - 1), 2
    ring = ring_local + ring_steps * gap_us
    hierarchical = site_us + cross_local + hier_steps * gap_us
    return TwoSiteAllreduce(
        distance_m=distances,
        gap_delay_us=gap_us,
        ring_us=ring,
        hierarchical_us=hierarchical,
        periodic_us=hierarchical / h,
        ring_local_us=ring_local,
        hierarchical_local_us=site_us + cross_local,
        site_us=site_us,
        cross_local_us=cross_local,
        ranks=n,
        ranks_per_site=n_site,
        ring_gap_steps=ring_steps,
        hierarchical_gap_steps=hier_steps,
        sync_every=h,
        size_bytes=float(size_bytes),
        medium_id=medium_id,
        delay_s_per_m=tau,
        notes=(note,) if note else (),
    )
