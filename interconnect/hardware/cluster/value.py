"""A GPU cluster as the collective models see it: which GPU, how many, how they are wired.

:class:`Cluster` is the one description shared by the collectives page, the CLI and later pages.
It is frozen and holds plain numbers whose unit is in the name (``intra_bw_gbps`` is GB/s per
direction, 1 GB = 1e9 B), so the models can run on numpy without pint. Build it with
:func:`resolve_cluster` (or :meth:`Cluster.from_inputs`), which reads the catalog, fills in
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
  latency terms of :data:`FABRICS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from interconnect.catalog import Catalog, Gpu, Link, UnknownIdError, get_catalog
from interconnect.hardware.custom import CUSTOM_GPU_ID, clean_name, custom_gpu, read_scaleup
from interconnect.units import QuantityInputError, parse_quantity

__all__ = [
    "EFA_PLUGIN_LATENCY_US",
    "FABRICS",
    "FABRIC_BY_GENERATION",
    "MAX_HOP_LATENCY_US",
    "MAX_NODES",
    "MAX_RANKS",
    "Cluster",
    "FabricModel",
    "fabric_from_family",
    "fabric_model",
    "resolve_cluster",
]

MAX_GPUS_PER_NODE = 1024
MAX_NODES = 100_000
MAX_RANKS = 1_000_000
MAX_NICS_PER_NODE = 4096
MIN_NIC_GBIT_S = 1.0
MAX_NIC_GBIT_S = 12_800.0
MAX_HOP_LATENCY_US = 100_000.0  # a typed per-hop latency above 0.1 s is clamped
RACK_SCALE_DOMAIN = 16  # NVLink domains larger than this span servers (NVL72, NVL576)


@dataclass(frozen=True)
class FabricModel:
    """Model constants of one scale-out fabric (not hardware figures: those come from the catalog).

    Attributes
    ----------
    name : str
        ``infiniband``, ``roce``, ``ethernet`` or ``efa``.
    label : str
        How the fabric is shown to people.
    efficiency : float
        Share of a NIC's line rate that NCCL reaches when the NIC is given as a bare bandwidth
        (a catalog NIC with an ``achieved`` figure uses that figure instead).
    hop_latency_us : float
        Extra latency per network hop added to NCCL's own per-hop constants (tuning.cc
        ``hwLatencies[NET]``, which are tuned on InfiniBand). This is what a hop really costs.
    simple_fill_us : float
        Start-up cost of the bulk (Simple protocol) ring and tree pipelines per network hop: the
        time to fill NCCL's per-channel staging buffers before data streams at full rate.
    ll128_over_network : bool
        Whether NCCL's LL128 protocol is used across this fabric by default (it needs GPUDirect
        RDMA ordering guarantees; NCCL disables it over sockets and TCPX). A forced
        ``NCCL_PROTO=LL128`` uses it anyway.
    plugin_latency_us : float
        The latency the fabric's NCCL network plugin reports for each device. NCCL's tuner adds it
        to every network hop (twice for Simple, as a flush) when it *chooses* an algorithm
        (tuning.cc: ``interLat += graphs[a]->latencyInter``); it does not slow the hop itself.
    nvls_chunk_bytes : int
        NVLS and NVLSTree chunk size (``NCCL_NVLS_CHUNKSIZE``, and ``NCCL_NVLSTREE_MAX_CHUNKSIZE``
        when the fabric's plugin sets it); 0 means NCCL's own defaults (``src/transport/nvls.cc``).
    rdma : bool
        The NIC writes straight into GPU memory (InfiniBand, RoCE, EFA). Over TCP-class transports
        (sockets, GPUDirect-TCPX/O) every chunk also passes through the host network stack, so the
        all-reduce's Simple ring pays ``simple_fill_us`` for each of its two network hops and NVLSTree
        for each tree level before they stream; over RDMA their start-up is the chunk pipeline alone
        (measured 2 x 8 H100 on InfiniBand and on EFA stream at 8-32 MiB without one, nccl-tests#309
        and awsome-distributed-training).
    """

    name: str
    label: str
    efficiency: float
    hop_latency_us: float
    simple_fill_us: float
    ll128_over_network: bool
    plugin_latency_us: float = 0.0
    nvls_chunk_bytes: int = 0
    rdma: bool = True


#: Per-fabric constants. Sources and calibration:
#: * ``efficiency``: InfiniBand 0.96 (NDR "48-49 GB/s per NIC" of 50, nccl-tests #267; HDR 24 of 25,
#:   nccl-tests #160); RoCE 0.92 and EFA 0.92 (ib_write_bw 193.7 of 200 Gbit/s on EFA, MLE, minus
#:   NCCL overhead); Ethernet/TCP 0.90 (GCP A3 Mega, 8 x 200 Gbit/s, 2 nodes: algbw 180.7 GB/s of
#:   200, lessizzmore/create-a3mega-ztan-fork "ztan-NCCL-test-result").
#: * ``hop_latency_us``: InfiniBand 0: NCCL's own per-hop constants are tuned on InfiniBand and
#:   already match measured small all-reduces with NCCL 2.2x (2 x 8 H100, 25 µs, nccl-tests #309;
#:   4 x 8 H100, 35-38 µs, nccl-tests #309 and ZiyanIshani/vpbenchmarking). RoCE +10 µs
#:   (lossless-Ethernet switching and ECN; 2 x 8 A100 on OCI, 36-52 µs below 64 KiB). EFA +20 µs:
#:   aws-ofi-nccl's own cost model for p5 takes 20 µs per network hop ("2 nodes, 8B RDMA w/imm
#:   lat", ``src/tuner/nccl_ofi_model.cpp``); EFA on A100 (p4d, the first EFA generation) see
#:   :data:`FABRIC_BY_GENERATION`. Ethernet +35 µs: TCP/GPUDirect-TCPX/O through host network
#:   stacks (A3 Mega 2-node 8 B all-reduce takes 123 µs).
#: * ``simple_fill_us``: grid-fitted (50-350 µs in steps) to the large-message rows of CoreWeave
#:   96-rank H100 and GB200 2/20-rack on InfiniBand and 4 x 8 B200 on EFA, and the A3 Mega sweep
#:   (Ethernet/TCPXO); RoCE and EFA share InfiniBand's value. See ``benchmarks/accuracy.py``.
#: * ``plugin_latency_us``: NCCL's InfiniBand and socket transports report 0 (``net_ib/init.cc``,
#:   ``net_socket.cc``: "Not set"); aws-ofi-nccl reports 75 µs on p4d and p5 and 35 µs on p5en,
#:   p6-b200 and later (``src/platform-aws.cpp``, platform table); see :data:`EFA_PLUGIN_LATENCY_US`.
#: * ``nvls_chunk_bytes``: aws-ofi-nccl sets ``NCCL_NVLS_CHUNKSIZE`` and
#:   ``NCCL_NVLSTREE_MAX_CHUNKSIZE`` to 512 KiB on p5 and later (``src/platform-aws.cpp``).
FABRICS: dict[str, FabricModel] = {
    "infiniband": FabricModel("infiniband", "InfiniBand", 0.96, 0.0, 100.0, True),
    "roce": FabricModel("roce", "RoCE (RDMA over Ethernet)", 0.92, 10.0, 100.0, True),
    "ethernet": FabricModel("ethernet", "Ethernet (TCP, GPUDirect-TCPX/O, sockets)", 0.90, 35.0, 300.0, False,
                            rdma=False),
    "efa": FabricModel("efa", "AWS EFA (SRD)", 0.92, 20.0, 100.0, True, 75.0, 512 * 1024),
}

#: Constants that differ for one GPU family on a fabric (one set per fabric and GPU family).
#: EFA with A100 is AWS p4d/p4de: the first EFA generation, which aws-ofi-nccl drives with its
#: send/receive protocol instead of RDMA writes and for which it reports 75 µs per hop
#: (``src/platform-aws.cpp``); the model takes that figure as the real hop latency (a 2 x p4de
#: 8 B all-reduce takes 161 µs, awsome-distributed-training micro-benchmarks/nccl-tests).
FABRIC_BY_GENERATION: dict[tuple[str, str], dict[str, object]] = {
    ("efa", "Ampere"): {"hop_latency_us": 75.0, "nvls_chunk_bytes": 0},
}

#: aws-ofi-nccl's reported per-device latency by EFA generation (``src/platform-aws.cpp``): p4d and
#: p5 (EFA v1/v2) 75 µs, p5en/p6-b200 and later (EFA v3/v4) 35 µs. NCCL's tuner adds it per hop.
EFA_PLUGIN_LATENCY_US = {"efa-v2": 75.0, "efa-v3": 35.0, "efa-v4": 35.0}


def fabric_model(fabric: str, generation: str = "Other", nic: str = "") -> FabricModel:
    """Look up the model constants of a fabric for a GPU generation (and, on EFA, the adapter generation).

    Parameters
    ----------
    fabric : {"infiniband", "roce", "ethernet", "efa"}
        The scale-out fabric.
    generation : str, default "Other"
        The GPU's tuning bucket (:attr:`Cluster.generation`).
    nic : str, default ""
        The NIC id; on EFA it selects the plugin latency (:data:`EFA_PLUGIN_LATENCY_US`).

    Returns
    -------
    FabricModel
        Efficiency (dimensionless), latencies in µs and chunk size in B, with the overrides of
        :data:`FABRIC_BY_GENERATION` applied.

    Examples
    --------
    >>> f"{fabric_model('efa', 'Hopper', 'efa-v3').plugin_latency_us} µs"
    '35.0 µs'
    >>> f"{fabric_model('efa', 'Ampere').hop_latency_us} µs"
    '75.0 µs'
    """
    model = FABRICS[fabric]
    overrides = dict(FABRIC_BY_GENERATION.get((fabric, generation), {}))
    if fabric == "efa" and nic in EFA_PLUGIN_LATENCY_US:
        overrides["plugin_latency_us"] = EFA_PLUGIN_LATENCY_US[nic]
    return replace(model, **overrides) if overrides else model


# When a GPU's catalog entry has no "achieved" scale-up figure, NCCL-level all-reduce reaches about
# 80 % of the per-direction spec (one-node ring busbw against spec: A100 78 %, H200 82 %, ml-engineering
# network/README.md; NCCL topo.h plans 20.6 of
# 25 GB/s per NVLink 4 link = 82 %).
SCALEUP_ACHIEVED_FALLBACK = 0.80

# Smallest NVLink domain on which NCCL engages NVLink SHARP (NVLS): "above 4 GPUs on 8xH200 and
# above 5 GPUs on 8xB200" (ml-engineering network/README.md; NVIDIA GB200 partition guide: "<= 4 GPUs
# will not benefit from multicast").
NVLS_MIN_GPUS = {"Hopper": 5, "Blackwell": 6}


def fabric_from_family(family: str) -> str:
    """Map a catalog NIC ``family`` to a fabric kind.

    Parameters
    ----------
    family : str
        The NIC's ``family`` text in the catalog.

    Returns
    -------
    str
        ``roce``, ``efa``, ``infiniband`` or (anything else) ``ethernet``.

    Examples
    --------
    >>> fabric_from_family("Ethernet (RoCE v2)"), fabric_from_family("InfiniBand")
    ('roce', 'infiniband')
    >>> fabric_from_family("AWS EFA (SRD)"), fabric_from_family("Ethernet (GPUDirect-TCPX)")
    ('efa', 'ethernet')
    """
    text = family.lower()
    if "roce" in text:
        return "roce"
    if "efa" in text:
        return "efa"
    if "infiniband" in text:
        return "infiniband"
    return "ethernet"


def _generation(architecture: str) -> str:
    """Tuning bucket: NCCL's Volta, Ampere, Hopper, Blackwell; AMD CDNA (RCCL); or Other."""
    arch = architecture.lower()
    if arch.startswith("blackwell") or arch.startswith("rubin"):
        return "Blackwell"
    if arch.startswith("hopper"):
        return "Hopper"
    if arch.startswith("ampere"):
        return "Ampere"
    if arch.startswith(("volta", "pascal")):
        return "Volta"
    if arch.startswith("cdna"):
        return "CDNA"
    return "Other"


@dataclass(frozen=True)
class Cluster:
    """A homogeneous GPU cluster, in plain numbers with units in their names.

    Build one with :func:`resolve_cluster`; the fields are what the collective models read.

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
    #: The scale-out fabric (:class:`interconnect.hardware.fabric.FabricTopology`), or None: no fabric
    #: modelled, every NIC gets its full achievable rate (the models behave exactly as without it).
    topology: Any = None
    #: The collective this view of the cluster is for (``seen_by``): all-to-all crosses rails.
    topology_collective: str = "all_reduce"

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
        return _generation(self.architecture)

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
        """Describe the cluster in one line.

        Returns
        -------
        str
            For example ``2 x 8 NVIDIA H100 SXM5 80GB, NVLink 4 (8-GPU domains), 8 x 400 Gbit/s InfiniBand``.

        Examples
        --------
        >>> resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)[0].describe().endswith("8 x 400 Gbit/s InfiniBand")
        True
        """
        nic_gbit = self.nic_line_gbps * 8
        text = (
            f"{self.nodes} x {self.gpus_per_node} {self.gpu_name}, {self.scaleup_link} "
            f"({self.domain_size}-GPU domains), {self.nics_per_node} x {nic_gbit:g} Gbit/s "
            f"{FABRICS[self.fabric].label}"
        )
        if self.hop_latency_override_us is not None:
            text += f", {self.hop_latency_override_us:g} µs extra per network hop"
        if self.extra_latency_us:
            text += f", {self.extra_latency_us:+g} µs on every collective"
        if self.topology is not None:
            t = self.topology
            text += (f"; fabric: {t.topology}, leaf groups of {t.servers_per_group} servers, "
                     f"{t.oversubscription:g}:1 at the leaves")
            if t.shared:
                text += f", {t.shared:.0%} of the spine taken by other traffic"
        if self.gpu_custom:
            text += (f"; custom GPU: {self.scaleup_spec_gbps:g} GB/s scale-up per direction "
                     f"({2 * self.scaleup_spec_gbps:g} GB/s both directions), otherwise like the {self.gpu} entry")
        return text

    def as_dict(self) -> dict[str, object]:
        """Describe the cluster as plain JSON-ready data (numbers carry their unit in the key).

        Returns
        -------
        dict of str to object
            Counts, bandwidths in GB/s (``*_gbps``) or Gbit/s (``nic_line_gbit_s``) and latency in µs.

        Examples
        --------
        >>> resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)[0].as_dict()["nic_line_gbit_s"]
        400.0
        """
        return {
            "gpu": self.gpu,
            "gpu_name": self.gpu_name,
            **({"gpu_custom": True} if self.gpu_custom else {}),  # only then: catalog clusters read as before
            "architecture": self.architecture,
            "gpus_per_node": self.gpus_per_node,
            "nodes": self.nodes,
            "ranks": self.ranks,
            "scaleup_domain": self.domain_size,
            "domains": self.domains,
            "scaleup_link": self.scaleup_link,
            "nvls": self.nvls_enabled,
            "intra_bw_gbps": round(self.intra_bw_gbps, 3),
            "nic": self.nic,
            "nic_line_gbit_s": round(self.nic_line_gbps * 8, 3),
            "nic_achieved_gbps": round(self.nic_achieved_gbps, 3),
            "nics_per_node": self.nics_per_node,
            "nic_bw_per_gpu_gbps": round(self.nic_bw_per_gpu_gbps, 3),
            "node_egress_gbps": round(self.node_egress_gbps, 3),
            "nic_devices_per_domain": self.nic_devices_per_domain,
            "fabric": self.fabric,
            "hop_latency_extra_us": round(self.net_hop_latency_us, 3),
            "hop_latency_source": "user" if self.hop_latency_override_us is not None else "fabric",
            "in_network_reduction": self.in_network_reduction,
            "library": self.library,
        }

    @classmethod
    def from_inputs(cls, gpu: str = "h100-sxm", **kwargs: object) -> tuple[Cluster, list[str]]:
        """Build a cluster from user inputs: the same as :func:`resolve_cluster`.

        Parameters
        ----------
        gpu : str, default "h100-sxm"
            A GPU id of the catalog.
        **kwargs
            The keyword arguments of :func:`resolve_cluster`.

        Returns
        -------
        (Cluster, list of str)
            The cluster and the warnings, one sentence each.

        Examples
        --------
        >>> Cluster.from_inputs("h100-sxm", nodes=2)[0] == resolve_cluster("h100-sxm", nodes=2)[0]
        True
        """
        return resolve_cluster(gpu, **kwargs)  # type: ignore[arg-type]

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
        >>> resolve_cluster("h100-sxm", nodes=2)[0].with_nodes(16).ranks
        128
        """
        return replace(self, nodes=max(1, int(nodes)))


# --- resolution --------------------------------------------------------------------------------


def _clamp_int(name: str, value: object, default: int, low: int, high: int, warnings: list[str]) -> int:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        warnings.append(f"{name}: {value!r} is not a number; using {default}")
        return default
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        warnings.append(f"{name}: {value!r} is not a number; using {default}")
        return default
    if not math.isfinite(number):
        warnings.append(f"{name}: {value!r} is not a finite number; using {default}")
        return default
    whole = int(round(number))
    if whole != number:
        warnings.append(f"{name}: {value!r} is not a whole number; using {whole}")
    if whole < low:
        warnings.append(f"{name}: {whole} is not allowed (minimum {low}); using {low}")
        return low
    if whole > high:
        warnings.append(f"{name}: {whole:,} is more than the {high:,} this model handles; using {high:,}")
        return high
    return whole


def _preset_for(catalog: Catalog, gpu_id: str) -> object | None:
    """Pick the catalog node preset for a GPU: the one with the biggest NVLink domain wins (NVL72)."""
    presets = [node for node in catalog.nodes.values() if node.gpu == gpu_id]
    if not presets:
        return None
    typical = catalog.gpu(gpu_id).typical_nic
    return max(presets, key=lambda node: (node.scaleup_domain, node.nic == typical, node.gpus))


def _nic_rates(link: Link, fabric: str) -> tuple[float, float]:
    line = float(link.bandwidth.per_direction().to("GB/s").magnitude)
    if link.achieved is not None:
        achieved = float(link.achieved.per_direction().to("GB/s").magnitude)
    else:
        achieved = line * FABRICS[fabric].efficiency
    return line, achieved


def _scaleup(catalog: Catalog, gpu: Gpu) -> tuple[float, float, bool, bool, str]:
    spec = float(gpu.scaleup_bandwidth.per_direction().to("GB/s").magnitude)
    if gpu.scaleup_achieved is not None:
        achieved = float(gpu.scaleup_achieved.per_direction().to("GB/s").magnitude)
    else:
        achieved = spec * SCALEUP_ACHIEVED_FALLBACK
    link = catalog.links.get(gpu.scaleup_link)
    switched = bool(link.switched) if link is not None else False
    reduction = bool(link.in_network_reduction) if link is not None else False
    name = link.name if link is not None else gpu.scaleup_link
    return spec, achieved, switched, reduction, name


def resolve_cluster(
    gpu: str = "h100-sxm",
    *,
    gpus_per_node: object = None,
    nodes: object = 1,
    nic: object = None,
    nics_per_node: object = None,
    fabric: object = None,
    scaleup_domain: object = None,
    node: str | None = None,
    in_network_reduction: object = None,
    hop_latency: object = None,
    gpu_base: object = None,
    scaleup_bandwidth: object = None,
    gpu_name: object = None,
    catalog: Catalog | None = None,
    topology: object = None,
) -> tuple[Cluster, list[str]]:
    """Build a :class:`Cluster` from user inputs, clamping absurd values and saying so.

    Parameters
    ----------
    gpu : str
        GPU catalog id (``h100-sxm``, ``mi300x``, ...). Unknown ids raise UnknownIdError.
    gpus_per_node, nodes : int-like
        Default: the GPU's node preset (DGX H100: 8 per node), and 1 node. Clamped to
        1..1024 GPUs per node, 1..100,000 nodes and 1,000,000 ranks in total.
    nic : str
        A scale-out NIC catalog id (``ib-ndr``) or a per-direction bandwidth per NIC
        (``"200 Gbit/s"``). Default: the GPU's typical NIC. A value that is neither is replaced by
        the default with a warning; rates are clamped to 1 Gbit/s..12.8 Tbit/s.
    nics_per_node : int-like
        Default: the preset's count, else one per GPU (the catalog's ``typical_nics_per_gpu``).
    fabric : str
        ``infiniband``, ``roce``, ``ethernet`` or ``efa``. Default: from the NIC's family, or for a
        bare bandwidth the family of the GPU's typical NIC.
    scaleup_domain : int-like
        GPUs per NVLink domain. Default: the preset's (8 on HGX, 72 for GB200 NVL72), at least
        ``gpus_per_node``.
    node : str
        A node preset id (``dgx-h100``) supplying defaults for the other fields.
    in_network_reduction : bool
        SHARP/CollNet in the switches (InfiniBand only). Default off: NCCL needs the SHARP plugin.
    hop_latency : str or float
        Extra latency per network hop on top of NCCL's own constants, replacing the fabric's
        (``"25 us"``, or a number of µs). Default (None or ``""``): the fabric's value. Used to make
        a cluster match a measured log; clamped to 0..100 ms.
    gpu_base, scaleup_bandwidth, gpu_name : str
        Only for ``gpu="custom"``, a hypothetical GPU: the catalog GPU it is built on (default
        ``h100-sxm``; compute, memory, tuning and server come from it), its scale-up bandwidth per
        direction (``"3.6 TB/s"``; default the base's; clamped to 1 GB/s..100 TB/s) and its name.
        See :mod:`interconnect.hardware.custom`.
    topology : TopologySpec, optional
        The scale-out fabric (:class:`interconnect.hardware.fabric.TopologySpec`). Default None: no
        fabric is modelled and every result is exactly what it is without this argument.

    Returns
    -------
    (Cluster, list of str)
        The cluster and the warnings, one sentence each.

    Examples
    --------
    >>> cluster, warnings = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=0, nic="5 parsecs")
    >>> cluster.nodes, cluster.nic
    (1, 'ib-ndr')
    >>> warnings[0]
    'nodes: 0 is not allowed (minimum 1); using 1'
    >>> cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=2, nic="100 Gbit/s", nics_per_node=16,
    ...                              fabric="roce")
    >>> round(cluster.node_egress_gbps, 1), cluster.nic_label
    (184.0, '100 Gbit/s')
    >>> cluster, _ = resolve_cluster("custom", gpu_base="h100-sxm", scaleup_bandwidth="3.6 TB/s", gpu_name="X")
    >>> cluster.gpu, cluster.gpu_name, cluster.scaleup_spec_gbps, cluster.gpu_custom
    ('h100-sxm', 'X', 3600.0, True)
    """
    catalog = catalog or get_catalog()
    warnings: list[str] = []
    gpu, gpu_entry, preset, custom = _choose_gpu(catalog, gpu, node, gpu_base, scaleup_bandwidth, gpu_name,
                                                 warnings)
    g, k = _node_counts(preset, gpus_per_node, nodes, warnings)

    # Scale-up domain.
    preset_domain = int(getattr(preset, "scaleup_domain", g)) if preset is not None else g
    # Rack-scale domains (GB200 NVL72) span several servers and keep their size whatever a server
    # holds; a board-level domain (HGX, MI300X platform) is the server itself.
    default_domain = preset_domain if preset_domain > RACK_SCALE_DOMAIN else g
    domain = _clamp_int("scaleup_domain", scaleup_domain, default_domain, 1, MAX_RANKS, warnings)
    spec, achieved, switched, reduction, link_name = _scaleup(catalog, gpu_entry)
    mesh_peers = 0 if switched else max(preset_domain - 1, 1)

    # Scale-out: the NIC (a catalog id or a bandwidth), the fabric it runs on, and how many per node.
    default_nic_id = str(getattr(preset, "nic", gpu_entry.typical_nic)) if preset is not None else gpu_entry.typical_nic
    chosen_nic = _choose_nic(catalog, nic, default_nic_id, warnings)
    # A bare bandwidth runs on the fabric of the default NIC's family unless ``fabric`` says otherwise.
    implied = fabric_from_family((chosen_nic.link or catalog.link(default_nic_id)).family)
    chosen_fabric = _choose_fabric(fabric, implied, warnings)
    if chosen_nic.link is not None:
        line, achieved_nic = _nic_rates(chosen_nic.link, chosen_fabric)
    else:
        assert chosen_nic.rate_gbps is not None
        line = chosen_nic.rate_gbps
        achieved_nic = chosen_nic.rate_gbps * FABRICS[chosen_fabric].efficiency
    if preset is not None and g == int(getattr(preset, "gpus", -1)):
        default_nics = int(getattr(preset, "nics", g))
    else:
        default_nics = max(1, int(round(gpu_entry.typical_nics_per_gpu * g)))
    nics = _clamp_int("nics_per_node", nics_per_node, default_nics, 1, MAX_NICS_PER_NODE, warnings)

    hop_override = _hop_latency_us(hop_latency, warnings)

    sharp = bool(in_network_reduction) if in_network_reduction is not None else False
    if sharp and chosen_fabric != "infiniband":
        warnings.append("in_network_reduction: SHARP/CollNet needs an InfiniBand fabric; ignoring it")
        sharp = False

    cluster = Cluster(
        gpu=gpu,
        gpu_name=gpu_entry.name,
        architecture=gpu_entry.architecture,
        vendor=gpu_entry.vendor,
        gpus_per_node=g,
        nodes=k,
        scaleup_domain=domain,
        scaleup_link=link_name,
        scaleup_switched=switched,
        scaleup_in_network_reduction=reduction,
        scaleup_spec_gbps=spec,
        intra_bw_full_gbps=achieved,
        mesh_peers=mesh_peers,
        nic=chosen_nic.id,
        nic_label=chosen_nic.label,
        nic_line_gbps=line,
        nic_achieved_gbps=achieved_nic,
        nics_per_node=nics,
        fabric=chosen_fabric,
        in_network_reduction=sharp,
        hop_latency_override_us=hop_override,
        gpu_custom=custom,
    )
    if topology is not None:
        cluster = replace(cluster, topology=topology.for_servers(nics, line * 8))
    return cluster, warnings


# --- the steps of resolve_cluster, in its order (each appends its own warnings) --------------------


def _choose_gpu(catalog: Catalog, gpu: str, node: str | None, gpu_base: object, scaleup_bandwidth: object,
                gpu_name: object, warnings: list[str]) -> tuple[str, Gpu, Any, bool]:
    """Return the GPU id, its entry (a hypothetical one for ``custom``), the node preset and whether it is custom.

    A node preset's GPU wins over ``gpu``; without a preset, the GPU's own (the biggest domain) is used.
    """
    preset = None
    if node:
        preset = catalog.node(node)
        gpu = preset.gpu
    custom = gpu == CUSTOM_GPU_ID
    if custom:
        gpu = str(gpu_base or "h100-sxm")
    gpu_entry = catalog.gpu(gpu)
    if custom:
        base_gbps = float(gpu_entry.scaleup_bandwidth.per_direction().to("GB/s").magnitude)
        gpu_entry = custom_gpu(gpu_entry, read_scaleup(scaleup_bandwidth, base_gbps, warnings),
                               clean_name(gpu_name, warnings))
    if preset is None:
        preset = _preset_for(catalog, gpu)
    return gpu, gpu_entry, preset, custom


def _node_counts(preset: Any, gpus_per_node: object, nodes: object, warnings: list[str]) -> tuple[int, int]:
    """Return GPUs per node (default: the preset's) and nodes, clamped, with at most ``MAX_RANKS`` GPUs in all."""
    default_g = int(getattr(preset, "gpus", 8)) if preset is not None else 8
    g = _clamp_int("gpus_per_node", gpus_per_node, default_g, 1, MAX_GPUS_PER_NODE, warnings)
    k = _clamp_int("nodes", nodes, 1, 1, MAX_NODES, warnings)
    if g * k > MAX_RANKS:
        capped = max(1, MAX_RANKS // g)
        warnings.append(
            f"nodes: {g * k:,} GPUs is more than the {MAX_RANKS:,} this model handles; using {capped:,} nodes"
        )
        k = capped
    return g, k


@dataclass(frozen=True)
class _NicChoice:
    """The scale-out NIC as read: its id (a bare bandwidth is its own id), label, catalog link or user rate."""

    id: str
    label: str
    link: Link | None
    rate_gbps: float | None = None


def _choose_nic(catalog: Catalog, nic: object, default_id: str, warnings: list[str]) -> _NicChoice:
    """Read ``nic``: a scale-out link id of the catalog, or a per-direction bandwidth clamped to the allowed range.

    Anything else falls back to ``default_id`` with a warning; text that looks like an id but names no
    link raises :class:`~interconnect.catalog.UnknownIdError`.
    """
    default = _NicChoice(default_id, default_id, catalog.link(default_id))
    if nic is None or str(nic).strip() == "":
        return default
    text = str(nic).strip()
    if text in catalog.links:
        candidate = catalog.links[text]
        if candidate.layer != "scale-out":
            warnings.append(f"nic: '{text}' is a {candidate.layer} link, not a NIC; using {default_id}")
            return default
        return _NicChoice(text, text, candidate)
    try:
        parsed = parse_quantity(text, "bandwidth")
    except QuantityInputError as exc:
        looks_like_id = all(ch.isalnum() or ch in "-." for ch in text) and not text[:1].isdigit()
        if looks_like_id:
            raise UnknownIdError("NIC", text, catalog.nics()) from exc
        warnings.append(f"nic: {exc}; using {default_id}")
        return default
    rate_gbit = float(parsed.quantity.to("Gbit/s").magnitude)
    if rate_gbit < MIN_NIC_GBIT_S:
        warnings.append(f"nic: {text} is below {MIN_NIC_GBIT_S:g} Gbit/s; using {MIN_NIC_GBIT_S:g} Gbit/s")
        rate_gbit = MIN_NIC_GBIT_S
    elif rate_gbit > MAX_NIC_GBIT_S:
        warnings.append(f"nic: {text} is above {MAX_NIC_GBIT_S:g} Gbit/s; using {MAX_NIC_GBIT_S:g} Gbit/s")
        rate_gbit = MAX_NIC_GBIT_S
    label = f"{rate_gbit:g} Gbit/s"
    return _NicChoice(label, label, None, rate_gbit / 8.0)  # a bare bandwidth is its own id (round-trips in a URL)


#: What a user may type for each fabric (lower case, without ``-`` and spaces).
_FABRIC_ALIASES = {"ib": "infiniband", "infiniband": "infiniband", "roce": "roce", "rocev2": "roce",
                   "ethernet": "ethernet", "eth": "ethernet", "tcp": "ethernet", "efa": "efa"}


def _choose_fabric(fabric: object, implied: str, warnings: list[str]) -> str:
    """Read ``fabric`` by its aliases; ``implied`` (the NIC's family) when none is given or it is unknown."""
    if fabric is None or str(fabric).strip() == "":
        return implied
    wanted = str(fabric).strip().lower().replace("-", "").replace(" ", "")
    if wanted in _FABRIC_ALIASES:
        return _FABRIC_ALIASES[wanted]
    warnings.append(f"fabric: '{fabric}' is not one of {', '.join(FABRICS)}; using {implied}")
    return implied


def _hop_latency_us(value: object, warnings: list[str]) -> float | None:
    """Read a user's per-hop latency in µs (text with a time unit, or a number of µs); None for the default."""
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    if isinstance(value, bool):
        warnings.append(f"hop_latency: {value!r} is not a time; using the fabric's value")
        return None
    if isinstance(value, int | float):
        micros = float(value)
    else:
        try:
            micros = float(parse_quantity(str(value), "time", allow_zero=True).quantity.to("us").magnitude)
        except QuantityInputError as exc:
            warnings.append(f"hop_latency: {exc}; using the fabric's value")
            return None
    if not math.isfinite(micros):
        warnings.append(f"hop_latency: {value!r} is not finite; using the fabric's value")
        return None
    if micros < 0:
        warnings.append(f"hop_latency: {value} is negative; using 0 µs")
        return 0.0
    if micros > MAX_HOP_LATENCY_US:
        warnings.append(f"hop_latency: {value} is more than 100 ms; using 100 ms")
        return MAX_HOP_LATENCY_US
    return micros
