"""A GPU cluster as the collective models see it: which GPU, how many, how they are wired.

:class:`Cluster` is the one description shared by the collectives page, the CLI and later pages.
It is frozen and holds plain numbers whose unit is in the name (``intra_bw_gbps`` is GB/s per
direction, 1 GB = 1e9 B), so the models can run on numpy without pint. Build it with
:func:`~interconnect.hardware.cluster.resolve.resolve_cluster`, which reads the catalog, fills in
defaults from the GPU's reference server, and never raises on a bad value: it clamps or replaces
the value and returns a human-readable warning instead ("nodes: 0 is not allowed; using 1"), so a
page can show the warning next to the result. Unknown catalog ids are the one exception: they raise
:class:`~interconnect.catalog.UnknownIdError` when asked for explicitly, because guessing another
GPU would silently answer a different question.

Vocabulary
----------
* ``gpus_per_node`` (g): GPUs in one server (a DGX, an HGX board; for GB200 the preset counts the
  whole NVL72 rack as one node, matching the catalog's ``gb200-nvl72`` entry).
* ``scaleup_domain``: GPUs that share one NVLink / Infinity Fabric domain. 8 on an HGX board,
  72 on a GB200 NVL72 rack even though a compute tray has 4 GPUs. Collectives treat one domain as
  one "node" of the network: rings cross the network once per domain, trees have one vertex per
  domain.
* ``fabric``: ``infiniband``, ``roce``, ``ethernet`` (TCP-based, such as Google's GPUDirect-TCPX/O,
  or plain sockets) or ``efa``. It sets the achievable share of a NIC's line rate and the per-hop
  latency terms of :data:`.transports.FABRICS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from interconnect.hardware.cluster.present import cluster_as_dict, describe_cluster
from interconnect.hardware.cluster.transports import NVLS_MIN_GPUS, FabricModel, fabric_model, tuning_generation


@dataclass(frozen=True)
class Cluster:
    """A homogeneous GPU cluster, in plain numbers with units in their names.

    Build one with :func:`resolve_cluster`; the fields are what the collective models read.

    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, warnings = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> cluster.ranks, cluster.fabric, round(cluster.nic_bw_per_gpu_gbps, 1), warnings
    (16, 'infiniband', 48.0, [])
    """

    gpu: str
    gpu_name: str
    architecture: str
    vendor: str
    gpus_per_node: int
    nodes: int
    scaleup_domain: int
    scaleup_link: str
    scaleup_switched: bool
    scaleup_in_network_reduction: bool
    scaleup_spec_gbps: float
    intra_bw_full_gbps: float
    mesh_peers: int
    nic: str
    nic_label: str
    nic_line_gbps: float
    nic_achieved_gbps: float
    nics_per_node: int
    fabric: str
    in_network_reduction: bool = False
    notes: tuple[str, ...] = field(default=())
    #: A per-hop network latency given by the user (µs), replacing the fabric's own
    #: ``hop_latency_us``; None means the fabric's value.
    hop_latency_override_us: float | None = None
    #: A custom GPU (``gpu="custom"``): ``gpu`` is then its base (compute, memory, tuning) and the
    #: scale-up figures and ``gpu_name`` are the user's (:mod:`interconnect.hardware.custom`).
    gpu_custom: bool = False
    #: Latency added to every collective (µs): a calibration's extra latency and the benchmark's launch
    #: mode (:mod:`interconnect.hardware.collectives.calibration`); 0 for the model as it stands.
    extra_latency_us: float = 0.0
    #: Host time of the process that issues each call to this node's GPUs (µs), when one process drives
    #: them all (nccl-tests ``-g N``): back-to-back calls overlap it with the GPUs' own time, so a call
    #: takes the larger of the two (:func:`~interconnect.hardware.collectives.measurements.host_issue_us`);
    #: 0 for the model as it stands.
    host_issue_us: float = 0.0
    #: The scale-out fabric (:class:`interconnect.hardware.fabric.FabricTopology`), or None: no fabric
    #: modelled, every NIC gets its full achievable rate (the models behave exactly as without it).
    topology: Any = None
    #: The collective this view of the cluster is for (``seen_by``): all-to-all crosses rails.
    topology_collective: str = "all_reduce"
    #: The GPU's catalog entry as resolved (for ``gpu_custom``, the hypothetical GPU built on the base), so that
    #: a model reads the GPU from the cluster instead of looking its id up again (:meth:`gpu_spec`). It adds
    #: nothing to what the cluster is (its id and figures above say that): equality, hashing and ``repr`` leave
    #: it out.
    gpu_entry: Any = field(default=None, repr=False, compare=False)

    def gpu_spec(self) -> Any:
        """The GPU's catalog entry (:class:`~interconnect.catalog.Gpu`): the one resolved with the cluster, or for a
        cluster built field by field, the catalog's entry for :attr:`gpu`. A custom GPU's entry has the id
        ``custom``: what is filed by catalog id (kernel figures, tuning) is looked up by :attr:`gpu`, its base.

        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> resolve_cluster("h100-sxm", nodes=2)[0].gpu_spec().memory.quantity
        <Quantity(80, 'gigabyte')>
        """
        if self.gpu_entry is not None:
            return self.gpu_entry
        from interconnect.catalog import get_catalog

        return get_catalog().gpu(self.gpu)

    # --- derived sizes ------------------------------------------------------------------------

    @property
    def ranks(self) -> int:
        """Total GPUs (ranks) n = gpus_per_node x nodes."""
        return self.gpus_per_node * self.nodes

    @property
    def domain_size(self) -> int:
        """GPUs of the job in one scale-up domain: min(scaleup_domain, ranks)."""
        return max(1, min(self.scaleup_domain, self.ranks))

    @property
    def domains(self) -> int:
        """Scale-up domains the job spans (the network's "nodes")."""
        return math.ceil(self.ranks / self.domain_size)

    @property
    def library(self) -> str:
        """Collective library the vendor ships: ``nccl`` (NVIDIA), ``rccl`` (AMD) or ``other``."""
        vendor = self.vendor.lower()
        if "nvidia" in vendor:
            return "nccl"
        if "amd" in vendor:
            return "rccl"
        return "other"

    @property
    def generation(self) -> str:
        """Tuning bucket: Volta, Ampere, Hopper, Blackwell (NCCL), CDNA (RCCL) or Other."""
        return tuning_generation(self.architecture)

    # --- bandwidths ---------------------------------------------------------------------------

    @property
    def intra_bw_gbps(self) -> float:
        r"""Achievable scale-up bandwidth per GPU per direction (GB/s) among the domain's GPUs.

        Notes
        -----
        On a switched fabric (NVSwitch) every GPU reaches its full rate :math:`B_{full}` whatever the
        group size. On a mesh without a switch (MI300X Infinity Fabric: one link to each of
        :math:`p = 7` peers) a group of :math:`m` GPUs can use only :math:`m - 1` of the links:

        .. math:: B_{intra} = B_{full} \, \frac{\max(1, \min(m - 1, p))}{p}

        ml-engineering measured 47.7 GB/s busbw with 2 MI300X against 312.9 GB/s with 8
        (312.9 / 7 = 44.7; source ``mle-network``).
        """
        if self.scaleup_switched or self.mesh_peers <= 1:
            return self.intra_bw_full_gbps
        usable = min(self.domain_size - 1, self.mesh_peers)
        return self.intra_bw_full_gbps * max(usable, 1) / self.mesh_peers

    @property
    def nic_bw_per_gpu_gbps(self) -> float:
        """Achievable scale-out bandwidth per GPU per direction, GB/s: NICs x achieved rate / GPUs.

        With a fabric topology, times :attr:`fabric_share` (what the spine leaves the collective).
        """
        if self.topology is None:
            return self.nic_achieved_gbps * self.nics_per_node / self.gpus_per_node
        return self.nic_achieved_gbps * self.nics_per_node / self.gpus_per_node * self.fabric_share

    @property
    def fabric_share(self) -> float:
        """Share of the NIC rate the fabric leaves this collective (1.0 without a topology).

        See :func:`interconnect.hardware.fabric.network_share`: a ring stays in its rail until the job
        spans more than one leaf group; all-to-all is never rail-local.
        """
        if self.topology is None:
            return 1.0
        from interconnect.hardware.fabric import network_share

        return network_share(self.topology, self.domains, self.topology_collective)[0]

    def seen_by(self, collective: str) -> Cluster:
        """Return the same cluster as the collective ``collective`` sees it through the fabric."""
        if self.topology is None or collective == self.topology_collective:
            return self
        return replace(self, topology_collective=collective)

    @property
    def node_egress_gbps(self) -> float:
        """Achievable bandwidth out of one node per direction (GB/s): every NIC added up."""
        return self.nic_achieved_gbps * self.nics_per_node

    @property
    def domain_egress_gbps(self) -> float:
        """Achievable bandwidth out of one scale-up domain per direction (GB/s)."""
        return self.nic_bw_per_gpu_gbps * self.domain_size

    @property
    def nics_per_domain(self) -> float:
        """NICs attached to one scale-up domain."""
        return self.nics_per_node * self.domain_size / self.gpus_per_node

    @property
    def nic_devices_per_domain(self) -> int:
        """Network devices NCCL sees in one domain: several NIC ports per GPU count as one.

        When a node has more NICs than GPUs, the ports close to one GPU are merged into one
        device: aws-ofi-nccl groups the 32 EFA adapters of a p5 into one device per GPU by PCIe
        locality (``src/nccl_ofi_topo.cpp``, "NIC grouping"; its own cost model counts
        ``num_rails = 4`` per GPU, ``src/tuner/nccl_ofi_model.cpp``), and NCCL fuses the ports of
        a dual-port NIC into one virtual NIC (``NCCL_NET_MERGE_LEVEL``). With fewer NICs than GPUs
        each NIC is a device of its own.

        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> cluster, _ = resolve_cluster("h100-sxm", nic="efa-v2", nics_per_node=32, fabric="efa")
        >>> cluster.nic_devices_per_domain, round(cluster.nic_device_gbps, 1)
        (8, 46.0)
        """
        return max(1, min(self.domain_size, int(round(self.nics_per_domain))))

    @property
    def nic_device_gbps(self) -> float:
        """Achievable bandwidth of one network device as NCCL sees it (GB/s per direction)."""
        if self.topology is None:
            return self.nic_achieved_gbps * self.nics_per_domain / self.nic_devices_per_domain
        return self.nic_achieved_gbps * self.nics_per_domain / self.nic_devices_per_domain * self.fabric_share

    @property
    def nic_device_line_gbps(self) -> float:
        """Line rate of one network device as NCCL's topology sees it (GB/s per direction)."""
        return self.nic_line_gbps * self.nics_per_domain / self.nic_devices_per_domain

    @property
    def nvls_enabled(self) -> bool:
        """True when NCCL would use NVLink SHARP (in-switch reduction) inside a domain.

        Needs a scale-up switch with reduction engines (NVSwitch 3 / NVLink 5 switch: the
        catalog's ``in_network_reduction`` on the scale-up link), a Hopper or Blackwell GPU and at
        least 5 (Hopper) or 6 (Blackwell) GPUs of the job in one domain.
        """
        minimum = NVLS_MIN_GPUS.get(self.generation)
        return bool(self.scaleup_in_network_reduction and minimum is not None and self.domain_size >= minimum)

    # --- fabric constants ---------------------------------------------------------------------

    @property
    def fabric_model(self) -> FabricModel:
        """The fabric's model constants for this GPU family (:func:`fabric_model`)."""
        return fabric_model(self.fabric, self.generation, self.nic)

    @property
    def net_hop_latency_us(self) -> float:
        """Extra latency per network hop (µs), on top of NCCL's constants: the user's, else the fabric's."""
        if self.hop_latency_override_us is not None:
            return self.hop_latency_override_us
        return self.fabric_model.hop_latency_us

    def describe(self) -> str:
        """Describe the cluster in one line (:func:`.present.describe_cluster`)."""
        return describe_cluster(self)

    def as_dict(self) -> dict[str, object]:
        """Describe the cluster as plain JSON-ready data (:func:`.present.cluster_as_dict`)."""
        return cluster_as_dict(self)

    def with_nodes(self, nodes: int) -> Cluster:
        """Return the same cluster with another node count (no validation, for sweeps).

        Parameters
        ----------
        nodes : int
            The node count, at least 1.

        Returns
        -------
        Cluster
            A copy with ``nodes`` replaced.

        Examples
        --------
        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> resolve_cluster("h100-sxm", nodes=2)[0].with_nodes(16).ranks
        128
        """
        return replace(self, nodes=max(1, int(nodes)))
