"""Scale-out transports as the collective models see them: constants per fabric and GPU family.

These are model constants, not hardware figures (those come from the catalog): the share of a NIC's
line rate NCCL reaches, the extra latency of a network hop, the pipeline start-up, and which NCCL
features a fabric and a GPU generation allow.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


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


def tuning_generation(architecture: str) -> str:
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

