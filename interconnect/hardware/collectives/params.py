"""Shared constants and parameter records of the collective models: the bottom of ``models/collectives``.

(``interconnect.hardware.collectives.params``; import the public names from ``interconnect.hardware.collectives``.)

NCCL's and RCCL's tuning constants, the per-cluster parameter record :class:`_Params` every
algorithm reads (built by :func:`_params` from a :class:`~interconnect.hardware.cluster.Cluster`),
the protocol mask, the size and bus-bandwidth helpers at the boundary, and the result record
:class:`AllreduceResult`. Nothing here imports another module of this folder; every other module
(``steps``, ``model``, ``others``, ``fitting``, ``measurements``, ``traffic``) imports from here.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.io import nccl_tests

PROTOCOLS = ("LL", "LL128", "Simple")
ALLREDUCE_ALGORITHMS = ("flat_ring", "ring", "tree", "hierarchical", "nvls", "nvls_tree", "collnet")
#: Algorithms NCCL itself chooses among; the chooser ("auto") only considers these.
AUTO_CANDIDATES = ("ring", "tree", "nvls", "nvls_tree", "collnet")
ALGORITHM_LABELS = {
    "flat_ring": "Flat ring (node-unaware, textbook)",
    "ring": "Ring (NCCL, node-aware)",
    "tree": "Double binary tree (NCCL Tree)",
    "hierarchical": "Hierarchical (reduce-scatter, all-reduce, all-gather)",
    "nvls": "NVLink SHARP (in-switch, one domain)",
    "nvls_tree": "NVLS + tree across nodes (NVLSTree)",
    "collnet": "In-network reduction (SHARP / CollNet)",
}
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast")

_LL, _LL128, _SIMPLE = 0, 1, 2
_MIB = 1024 * 1024

# ------------------------------------------------------------------------------------------------
# Library constants
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Library:
    """Latency constants of a collective library, order (LL, LL128, Simple), in µs."""

    name: str
    base: dict[str, tuple[float, float, float]]
    hw_intra: dict[str, tuple[float, float, float]]
    hw_net: dict[str, tuple[float, float, float]]
    ll128: bool  # LL128 protocol available at all
    launch_us: float


#: NVIDIA NCCL ``src/graph/tuning.cc`` (HEAD 5067397c, 2026-06-11), ``ncclTunerConstantsDefaults``:
#: baseLatencies and hwLatencies for NVLINK and NET; except NVLSTree's network hop, 14 µs as in
#: NCCL 2.19-2.27 (v2.26.2 ``hwLat``), the releases the published runs used (2.28 made it 20.9).
_NCCL = _Library(
    name="nccl",
    base={"tree": (6.8, 14.0, 8.4), "ring": (6.6, 14.0, 8.4), "collnet": (0.0, 0.0, 0.0),
          "nvls": (0.0, 0.0, 0.0), "nvls_tree": (0.0, 0.0, 0.0)},
    hw_intra={"tree": (0.6, 1.25, 4.0), "ring": (0.6, 1.9, 3.4), "collnet": (0.0, 0.0, 3.7),
              "nvls": (0.0, 0.0, 25.0), "nvls_tree": (0.0, 0.0, 25.0)},
    hw_net={"tree": (5.0, 8.5, 14.0), "ring": (2.7, 4.0, 14.0), "collnet": (0.0, 0.0, 31.0),
            "nvls": (0.0, 0.0, 18.0), "nvls_tree": (0.0, 0.0, 14.0)},
    ll128=True,
    # Host-side cost of one collective call as nccl-tests times it (kernel launch, stream sync
    # amortised over iterations). Calibrated: NCCL's own ring-LL latency for 8 GPUs is 15 µs, and
    # measured 8-GPU small-message all-reduce is 14-45 µs (Azure/AI-benchmarking-guide one-node sweeps).
    launch_us=4.0,
)

#: AMD RCCL ``src/graph/tuning.cc`` (ROCm/rccl 0cbce2a7, 2024-10-24): baseLat {12, 12, 17} for tree
#: and ring, and the default tuning model's xGMI ("NVLINK" row) and NET latencies. Recent RCCL
#: releases enable LL128 on MI300 (gfx942); the 8 x MI300X sweeps we checked (ROCm 6.4) fit it.
_RCCL = _Library(
    name="rccl",
    base={"tree": (12.0, 12.0, 17.0), "ring": (12.0, 12.0, 17.0), "collnet": (12.0, 12.0, 17.0),
          "nvls": (0.0, 0.0, 0.0), "nvls_tree": (0.0, 0.0, 0.0)},
    hw_intra={"tree": (0.8, 1.4, 2.5), "ring": (0.8, 2.2, 3.6), "collnet": (0.0, 0.0, 0.8),
              "nvls": (0.0, 0.0, 0.0), "nvls_tree": (0.0, 0.0, 0.0)},
    hw_net={"tree": (11.8, 18.2, 20.8), "ring": (9.5, 19.8, 15.1), "collnet": (0.0, 0.0, 11.8),
            "nvls": (0.0, 0.0, 0.0), "nvls_tree": (0.0, 0.0, 0.0)},
    ll128=True,
    # No extra launch cost on top of RCCL's own (already larger) base latency: published 8 x MI300X
    # small all-reduces take 13-14 µs with one process per GPU (ROCm blog "mi300x-rccl-xgmi",
    # hisohara/ai-scripts) and 34-45 µs with one process driving all eight (AMD acceptance guide);
    # RCCL's own ring-LL estimate, 23 µs, sits between the two launch modes.
    launch_us=0.0,
)

#: NCCL ``llMaxBws`` (GB/s of bus bandwidth for the LL protocol): one node by GPU generation, and
#: 2 / more than 2 nodes by CPU vendor (Intel row, the common case).
_LL_MAX_BW_ONE_NODE = {"Volta": 39.0, "Ampere": 87.7, "Hopper": 141.0, "Blackwell": 282.0, "CDNA": 141.0, "Other": 87.7}
_LL_MAX_BW_TWO_NODES = 39.0
_LL_MAX_BW_MANY_NODES = 20.4
#: NCCL ``nvlsEfficiency`` (Hopper 0.85, Blackwell 0.74) ...
_NVLS_EFFICIENCY = {"Hopper": 0.85, "Blackwell": 0.74}
#: ... times this factor gives the measured NVLS algorithm bandwidth as a share of the per-GPU
#: NVLink rate. Calibrated: 8 x H200 NVLS busbw 473-480 GB/s = algbw 270-275 = 0.73 x 370.8
#: (Stas Bekman, ml-engineering network/README.md; nccl-tests #212), 8 x B200 838 GB/s busbw = algbw 479 =
#: 0.66 x 721.8, GB200 NVL72 835 GB/s busbw (coreweave/nccl-tests README).
_NVLS_MEASURED_OVER_MODEL = 0.86
#: Ring busbw reached on one node as a share of the catalog's achievable per-GPU scale-up rate:
#: H100 365-370 of 370.8, A100 231-235 of 240, B200 682 of 721.8, MI300X 316 of 312.9
#: (Azure/AI-benchmarking-guide; ml-engineering network/README.md).
_RING_EFFICIENCY = 0.97
#: Bytes a GPU's NVLS pipeline holds in flight before it streams at full rate (NCCL_BUFFSIZE default
#: 4 MiB per channel). The resulting fill, (domain - 1) x 4 MiB / per-GPU NVLink rate, is 79 µs on
#: 8 x H100 and 410 µs on a 72-GPU NVL72, matching the large-message offsets of the measured
#: NVLS sweeps (coreweave/nccl-tests README; Azure/AI-benchmarking-guide).
_NVLS_FILL_BYTES = 4 * _MIB
#: NVLSTree sends across the network through a limited number of "head" GPUs per NVLink domain.
#: Calibrated: coreweave/nccl-tests GB200 2-rack and 20-rack tables plateau at algbw 410 and 203 GB/s,
#: i.e. about 8 NICs of 48 GB/s (halved beyond 2 domains, as for any tree); on HGX-8 every NIC is
#: a head.
_NVLS_TREE_MAX_HEADS = 8
#: NCCL ``treeCorrectionFactor`` (tuning.cc): tree bandwidth scale for 64 B x 2^i, i = 0..23.
_TREE_CORRECTION = np.array(
    [
        [1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5,
         0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0],  # LL
        [1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6,
         0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0, 1.0],  # LL128
        [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5,
         0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9, 0.9],  # Simple
    ]
)
#: Channels NCCL typically runs for trees and NVLS on NVSwitch systems (the per-channel caps below
#: are multiplied by it), and the bulk chunk per channel step (NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8).
_TREE_CHANNELS = 16
_CHUNK_BYTES = 512 * 1024
#: NCCL tuning.cc ``perChMaxTreeBws`` and ``perChMaxTreeLL128Bws`` (GB/s per channel) for
#: 1 node / 2 nodes / more.
_TREE_CAP = {
    "Volta": (26.5, 18.5, 10.0), "Ampere": (24.0, 23.6, 17.8), "Hopper": (38.7, 41.4, 36.0),
    "Blackwell": (70.0, 42.8, 24.0), "CDNA": (38.7, 41.4, 36.0), "Other": (24.0, 23.6, 17.8),
}
_TREE_LL128_CAP = {
    "Volta": (20.0, 20.0, 20.0), "Ampere": (20.0, 20.0, 20.0), "Hopper": (36.7, 36.7, 29.0),
    "Blackwell": (55.6, 31.67, 20.0), "CDNA": (36.7, 36.7, 29.0), "Other": (20.0, 20.0, 20.0),
}
#: NCCL tuning.cc ``perChMaxNVLSTreeBws`` (GB/s per channel; 1 node unused / 2 nodes / more), NCCL
#: 2.28 on; the model uses them as the measured ceiling of one NVLSTree head.
_NVLS_TREE_CAP = {"Hopper": (0.0, 57.7, 45.5), "Blackwell": (0.0, 96.0, 80.0)}
#: NCCL ``NCCL_MAX_NVLS_ARITY`` (device.h): at most 32 NVLS heads, one per network device.
_NVLS_MAX_ARITY = 32
#: Per-channel (bwIntra, bwInter) of the NVLS graph NCCL builds on a DGX H100 with 8 x 400G NICs
#: (NCCL_DEBUG=GRAPH "Pattern 5, nChannels 8, bw 40.000000/60.000000", quoted from NVIDIA/nccl#1197);
#: Blackwell's search speeds are about twice Hopper's (``sm100SpeedArrayIntra/Inter``, search.cc).
#: Heads with slower network devices take the speed-array value their device can carry.
_NVLS_GRAPH_GBPS = {"Hopper": (40.0, 60.0), "Blackwell": (80.0, 96.0)}
#: NCCL src/graph/search.cc ``sm90SpeedArrayInter`` and ``sm100SpeedArrayInter`` (GB/s per channel).
_SPEEDS_INTER_SM90 = (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24,
                      0.12)
_SPEEDS_INTER_SM100 = (96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0,
                       2.4, 1.2, 0.24, 0.12)
#: NCCL ``ncclTopoGetAlgoTime``: a multi-node Simple ring all-reduce's latency x1.4 ("plateau effect of
#: ring"), x1.9 before Ampere; the condition names ``ncclFuncAllReduce`` in every release from v2.18.5 to
#: v2.29.2, so all-gather, reduce-scatter and broadcast rings are not charged it. Used only for the tuner's choice.
_RING_PLATEAU = 1.4
#: NCCL ``getNetOverhead``: 1 µs per network post on Intel hosts, x3 for Simple.
_NET_OVERHEAD_US = (1.0, 1.0, 3.0)


# ------------------------------------------------------------------------------------------------
# Boundary helpers
# ------------------------------------------------------------------------------------------------


def as_size_bytes(size: object) -> np.ndarray:
    """Convert message size(s) to a float64 numpy array of bytes.

    Parameters
    ----------
    size : object
        A number or array (taken as bytes), a :class:`pint.Quantity` of data size, or a size string
        such as ``"256 MiB"`` (read with the package's own size parser, never pint's expression parser).

    Returns
    -------
    numpy.ndarray
        Sizes in B, at least one-dimensional.

    Examples
    --------
    >>> as_size_bytes("256 MiB").tolist()
    [268435456.0]
    >>> as_size_bytes([8, 1024]).tolist()
    [8.0, 1024.0]
    """
    from interconnect.units import Q_, parse_quantity

    if isinstance(size, str):
        return np.atleast_1d(float(parse_quantity(size, "size").quantity.to("B").magnitude))
    if hasattr(size, "to") and hasattr(size, "magnitude"):
        return np.atleast_1d(np.asarray(Q_(size).to("B").magnitude, dtype=float))
    return np.atleast_1d(np.asarray(size, dtype=float))


def busbw_factor(collective: str, ranks: int) -> float:
    r"""Return nccl-tests' bus-bandwidth factor F of a collective, with busbw = algbw x F.

    Parameters
    ----------
    collective : str
        ``all_reduce``, ``all_gather``, ``reduce_scatter``, ``alltoall``, ``broadcast``, ...
    ranks : int
        Number of ranks n; below 1 is read as 1 (the model treats an empty cluster as one GPU).

    Returns
    -------
    float
        The dimensionless factor F.

    Notes
    -----
    .. math:: F_\text{all-reduce} = \frac{2(n-1)}{n}, \quad
              F_\text{all-gather, reduce-scatter, all-to-all} = \frac{n-1}{n}, \quad F_\text{broadcast} = 1

    nccl-tests ``doc/PERFORMANCE.md``; see :func:`interconnect.io.nccl_tests.busbw_factor`.

    Examples
    --------
    >>> busbw_factor("all_reduce", 8), busbw_factor("all_gather", 8), busbw_factor("broadcast", 8)
    (1.75, 0.875, 1.0)
    """
    return nccl_tests.busbw_factor(collective, max(int(ranks), 1))


def in_network_busbw_factor(ranks: int) -> float:
    r"""Return busbw / algbw for an all-reduce done by in-network reduction.

    Parameters
    ----------
    ranks : int
        Number of ranks n (at least 1).

    Returns
    -------
    float
        The dimensionless ratio (n-1)/(n+1).

    Notes
    -----
    .. math:: \frac{\text{busbw}}{\text{algbw}} = \frac{n-1}{n+1}

    Not a formula of nccl-tests, and not used by this app's models or pages: nccl-tests computes busbw
    as algbw x 2(n-1)/n for every all-reduce algorithm, because it cannot see which algorithm NCCL
    chose (its maintainers, nccl-tests #366); under NVLS or SHARP that busbw is the link rate a ring
    would need for the same time, which is why it exceeds the 450 GB/s NVLink line rate on 8 x H100
    (about 480 GB/s). This ratio was proposed in an unmerged pull request (nccl-tests #239, which its
    author calls "probably not mergable") from a relation in nccl-tests #212 that NCCL's maintainer
    corrected in #239's thread ("algobw = busbw * n / (n+1)"). Kept for callers who want the
    proposal's figure, labelled as such.

    Examples
    --------
    >>> round(in_network_busbw_factor(8), 4)
    0.7778
    """
    n = max(int(ranks), 1)
    return (n - 1) / (n + 1)




# ------------------------------------------------------------------------------------------------
# The NCCL-like model
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Params:
    n: int
    gd: int  # GPUs per scale-up domain
    kd: int  # domains
    generation: str
    lib: _Library
    b_intra: float  # GB/s per GPU per direction (achievable)
    egress: float  # GB/s per domain per direction (achievable), inf on one domain
    nic_gpu: float  # GB/s per GPU per direction (achievable)
    heads: int  # NVLSTree heads per domain that carry the network part
    tuner_heads: int  # NVLS graph channels NCCL's tuner counts (one per network device)
    head_bw: float  # achievable GB/s of one head's network device
    head_line: float  # line rate (GB/s) of one network device, as NCCL's topology sees it
    nvls: bool
    sharp: bool
    hop_extra: float  # real extra µs per network hop
    plugin_lat: float  # µs the network plugin reports per hop; NCCL's tuner only
    fill_net: float
    staged: bool  # the transport stages each chunk through host memory (TCP-class): a start-up per hop
    ll128_net: bool
    nvls_chunk: int  # NCCL_NVLS_CHUNKSIZE (bytes)
    nvls_tree_chunk: int  # NCCL_NVLSTREE_MAX_CHUNKSIZE (bytes)
    nvls_channels: int  # NVLS channels (CTAs)
    allowed: tuple[bool, bool, bool]  # protocols NCCL may use (LL, LL128, Simple)
    forced: bool  # the protocol was forced (NCCL_PROTO): NCCL skips its own LL128 checks
    nvlink_like: bool  # scale-up is NVLink/xGMI (LL128 allowed inside)
    host_floor: float = 0.0  # µs: the issuing process's time per call, overlapped with the GPUs' (-g N)
    nic_devices: int = 0  # network devices NCCL sees per domain (0: none, one domain)


def protocol_mask(protocol: str) -> tuple[tuple[bool, bool, bool], bool]:
    """Return which of (LL, LL128, Simple) a protocol setting allows, and whether it was forced.

    Parameters
    ----------
    protocol : str
        ``"auto"`` lets NCCL choose; ``"LL"``, ``"LL128"`` or ``"Simple"`` (any case) force one, as
        ``NCCL_PROTO`` does.

    Returns
    -------
    tuple
        ``((LL, LL128, Simple) allowed, forced)``, booleans.

    Raises
    ------
    ValueError
        For an unknown protocol name.

    Examples
    --------
    >>> protocol_mask("simple")
    ((False, False, True), True)
    """
    text = str(protocol).strip().lower()
    if text in ("", "auto"):
        return (True, True, True), False
    lookup = {name.lower(): index for index, name in enumerate(PROTOCOLS)}
    if text not in lookup:
        raise ValueError(f"unknown protocol {protocol!r}; choose auto or one of {', '.join(PROTOCOLS)}")
    allowed = [False, False, False]
    allowed[lookup[text]] = True
    return (allowed[0], allowed[1], allowed[2]), True


def _nvls_tuning(cluster: Cluster, fabric_chunk: int) -> tuple[int, int, int]:
    """(NVLS channels, NVLS chunk, NVLSTree max chunk) as ``ncclNvlsTuning`` sets them.

    NCCL ``src/transport/nvls.cc``: 16 channels on Hopper, 32 on Blackwell across nodes (24 inside
    one); chunk 128 KiB; the NVLSTree chunk is capped at 64 KiB from 4 nodes on. Blackwell across
    nodes (``ncclNvlsTreeSm100Tuning``): 2 nodes with 400G-class NICs keep 32 channels and a
    128 KiB tree chunk; more nodes with 800G-class NICs and <= 8 GPUs per node use 24 channels and
    256 KiB chunks; more nodes with 400G-class NICs 24 channels and 128 KiB. A fabric plugin may
    set both chunk sizes (aws-ofi-nccl: 512 KiB on p5 and later).
    """
    kd = cluster.domains
    chunk = 128 * 1024
    tree_chunk = 0
    if cluster.generation == "Blackwell":
        channels = 32 if kd > 1 else 24
        nic = cluster.nic_device_line_gbps
        if kd == 2 and nic >= 48:
            tree_chunk = 256 * 1024 if cluster.domain_size <= 4 else 128 * 1024
            chunk = 256 * 1024 if cluster.domain_size <= 4 else chunk
        elif kd > 2 and nic >= 96:
            channels = 24 if cluster.domain_size <= 8 else 32
            chunk = tree_chunk = 256 * 1024 if cluster.domain_size <= 8 else 128 * 1024
        elif kd > 2 and nic >= 48:
            channels, tree_chunk = 24, 128 * 1024
    else:
        channels = 16
    if fabric_chunk:
        chunk = tree_chunk = fabric_chunk
    if not tree_chunk:
        tree_chunk = 64 * 1024 if kd >= 4 else chunk
    return channels, chunk, tree_chunk


def _params(cluster: Cluster, protocol: str = "auto") -> _Params:
    lib = _RCCL if cluster.library == "rccl" else _NCCL
    if cluster.extra_latency_us:  # a calibration or the benchmark's launch mode: on every call, like the launch
        lib = dataclasses.replace(lib, launch_us=lib.launch_us + cluster.extra_latency_us)
    kd = cluster.domains
    fabric = cluster.fabric_model
    devices = cluster.nic_devices_per_domain
    channels, chunk, tree_chunk = _nvls_tuning(cluster, fabric.nvls_chunk_bytes)
    allowed, forced = protocol_mask(protocol)
    return _Params(
        n=cluster.ranks,
        gd=cluster.domain_size,
        kd=kd,
        generation=cluster.generation,
        lib=lib,
        b_intra=cluster.intra_bw_gbps,
        egress=cluster.domain_egress_gbps if kd > 1 else math.inf,
        nic_gpu=cluster.nic_bw_per_gpu_gbps,
        heads=min(devices, _NVLS_TREE_MAX_HEADS),
        tuner_heads=min(devices, _NVLS_MAX_ARITY),
        head_bw=cluster.nic_device_gbps,
        head_line=cluster.nic_device_line_gbps,
        nvls=cluster.nvls_enabled,
        sharp=cluster.in_network_reduction and cluster.fabric == "infiniband",
        hop_extra=cluster.net_hop_latency_us,
        plugin_lat=fabric.plugin_latency_us,
        fill_net=fabric.simple_fill_us,
        staged=not fabric.rdma,
        ll128_net=fabric.ll128_over_network,
        nvls_chunk=chunk,
        nvls_tree_chunk=tree_chunk,
        nvls_channels=channels,
        allowed=allowed,
        forced=forced,
        nvlink_like=cluster.library != "other",
        host_floor=cluster.host_issue_us,
        nic_devices=devices if kd > 1 else 0,
    )




@dataclass(frozen=True, eq=False)
class AllreduceResult:
    """Model output for one cluster and a set of message sizes (arrays have one entry per size).

    Attributes
    ----------
    size_bytes : numpy.ndarray
        Message sizes per rank, B.
    time_us : numpy.ndarray
        Predicted times, µs (``inf`` where the choice is unavailable).
    algbw_gbps : numpy.ndarray
        Algorithm bandwidth S/t, GB/s.
    busbw_gbps : numpy.ndarray
        nccl-tests' bus bandwidth, algbw x 2(n-1)/n whatever the algorithm, GB/s.
    algorithm : numpy.ndarray
        The algorithm chosen per size (``"none"`` where unavailable).
    protocol : numpy.ndarray
        The protocol chosen per size.
    ranks : int
        Number of ranks n.
    """

    size_bytes: np.ndarray
    time_us: np.ndarray
    algbw_gbps: np.ndarray
    busbw_gbps: np.ndarray
    algorithm: np.ndarray
    protocol: np.ndarray
    ranks: int

    def rows(self) -> list[dict[str, object]]:
        """Return one dictionary per size, with the units in the keys (B, µs, GB/s).

        Returns
        -------
        list of dict
            ``size_bytes``, ``time_us``, ``algbw_gbps``, ``busbw_gbps``, ``algorithm``, ``protocol``.

        Examples
        --------
        >>> from interconnect.hardware.cluster import resolve_cluster
        >>> from interconnect.hardware.collectives import allreduce
        >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
        >>> row = allreduce(cluster, [2**30]).rows()[0]
        >>> row["size_bytes"], row["algorithm"], f"{row['busbw_gbps']:.0f} GB/s"
        (1073741824, 'nvls', '462 GB/s')
        """
        return [
            {
                "size_bytes": int(s),
                "time_us": float(t),
                "algbw_gbps": float(a),
                "busbw_gbps": float(b),
                "algorithm": str(al),
                "protocol": str(pr),
            }
            for s, t, a, b, al, pr in zip(
                self.size_bytes, self.time_us, self.algbw_gbps, self.busbw_gbps, self.algorithm, self.protocol,
                strict=True,
            )
        ]


def _algorithm_choices(algorithm: str, auto: tuple[str, ...], known: tuple[str, ...],
                       what: str = "") -> tuple[str, ...]:
    """NCCL's choices for ``algorithm``: ``auto`` for "auto", one forced name, or a comma-separated list of them, as
    ``NCCL_ALGO`` accepts ("Ring,Tree"); ``what`` names the collective in the error ("" for all-reduce)."""
    if algorithm == "auto":
        return auto
    if algorithm in known:
        return (algorithm,)
    names = [name.strip() for name in algorithm.split(",")] if "," in algorithm else []
    if names and all(name in known for name in names):
        return tuple(dict.fromkeys(names))
    raise ValueError(f"unknown algorithm {algorithm!r}{what}; choose auto, one of {', '.join(known)} "
                     "or a comma-separated list of them")
