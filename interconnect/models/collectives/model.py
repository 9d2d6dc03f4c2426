"""Cost models of GPU collectives (all-reduce first), calibrated against published nccl-tests runs.

(``interconnect.models.collectives.model``; import the public names from ``interconnect.models.collectives``.)

Everything here runs on plain numpy: message sizes in bytes in, times in microseconds out, bandwidths
in GB/s (1 GB = 1e9 B, as nccl-tests prints them). Units live in the names (``size_bytes``,
``time_us``, ``busbw_gbps``); pint appears only at the boundary (:func:`as_size_bytes`).

Two families of models
----------------------
1. **Textbook alpha-beta formulas** (ring and hierarchical all-reduce): :func:`ring_allreduce_time_us`,
   :func:`hierarchical_allreduce_time_us`. Exact closed forms, for teaching and tests.
2. **An NCCL-like model of a real cluster** (:func:`allreduce`): for every algorithm NCCL has
   (ring, double binary tree, NVLS, NVLSTree, CollNet/SHARP) and protocol (LL, LL128, Simple) it
   computes ``t = launch + latency(algorithm, protocol, topology) + fill + S / algbw``.
   Latencies, protocol factors and per-channel caps are NCCL's own constants (``src/graph/
   tuning.cc``; RCCL's for AMD); bandwidths come from the
   :class:`~interconnect.models.cluster.Cluster` (catalog figures). The *fill* is what NCCL's tuner leaves
   out: the start-up of the bulk (Simple) pipeline, per NVLS stage, tree-chain stage and network hop.
   It is why measured busbw keeps climbing up to GiB sizes. The algorithm and protocol are picked
   as NCCL's tuner would (``ncclTopoGetAlgoTime``: smallest latency + size/bandwidth *without* the
   fill), and the reported time is the model's realistic time for that pick.
   The textbook node-unaware ("flat") ring and the three-phase hierarchical all-reduce are
   modelled too, for comparison, but NCCL never runs them, so ``"auto"`` does not pick them.
   Constants fitted to measurements say so where they are defined.

The model is a teaching model: it reproduces the shape of nccl-tests curves (latency floor, protocol
switches, bandwidth plateau) within the tolerances checked by ``benchmarks/accuracy.py``, not the
exact choices of a particular NCCL release.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.io import nccl_tests
from interconnect.models.cluster import Cluster
from interconnect.units import expects

__all__ = [
    "ALLREDUCE_ALGORITHMS",
    "ALGORITHM_LABELS",
    "AUTO_CANDIDATES",
    "COLLECTIVES",
    "PROTOCOLS",
    "AllreduceDetail",
    "AllreduceResult",
    "allreduce",
    "allreduce_by_algorithm",
    "allreduce_detail",
    "as_size_bytes",
    "busbw_factor",
    "collective_time_us",
    "hierarchical_allreduce_time_us",
    "in_network_busbw_factor",
    "protocol_mask",
    "ring_allreduce_time_us",
    "sweep_allreduce",
]

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
#: NCCL ``ncclTopoGetAlgoTime``: a multi-node Simple ring's latency x1.4 ("plateau effect of ring"),
#: x1.9 before Ampere. Used only for the tuner's choice.
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

    Not in nccl-tests' own ``doc/PERFORMANCE.md``, which lists only 2(n-1)/n, (n-1)/n and 1: this
    factor comes from an unmerged contributor pull request (nccl-tests #239, still open, which its
    author calls "probably not mergable") and its thread, where NCCL's maintainer (sjeaugey) writes
    for NVLS "algobw = busbw * n / (n+1)". With SHARP or NVLS each GPU sends S once and receives S
    once, where a ring carries 2(n-1)/n x S per direction. Reporting the ring
    factor instead is why NVLS busbw (about 480 GB/s on 8 x H100) exceeds the 450 GB/s NVLink line rate.

    Examples
    --------
    >>> round(in_network_busbw_factor(8), 4)
    0.7778
    """
    n = max(int(ranks), 1)
    return (n - 1) / (n + 1)


# ------------------------------------------------------------------------------------------------
# Textbook closed forms
# ------------------------------------------------------------------------------------------------


@expects(size_bytes="B", alpha_us="us", bandwidth_gbps="GB/s")
def ring_allreduce_time_us(size_bytes: object, ranks: int, alpha_us: float, bandwidth_gbps: float) -> np.ndarray:
    r"""Compute the textbook ring all-reduce time.

    Parameters
    ----------
    size_bytes : object
        Message size S per rank, B (scalar, array or Quantity).
    ranks : int
        Ring length n.
    alpha_us : float
        Latency per ring step, µs.
    bandwidth_gbps : float
        Link bandwidth B per direction, GB/s (1e9 B/s).

    Returns
    -------
    numpy.ndarray
        Time in µs per size; 0 for a single rank.

    Notes
    -----
    .. math:: T = 2(n-1)\,\alpha + \frac{2(n-1)}{n}\,\frac{S}{B}

    Reduce-scatter then all-gather around a ring of n ranks: 2(n-1) steps, each paying α and moving
    S/n bytes. The bandwidth-optimal ring (Patarasuk and Yuan, JPDC 69(2), 2009); bandwidth term as in
    nccl-tests ``doc/PERFORMANCE.md``. Every link has the same α and B; no pipelining beyond the ring.

    Examples
    --------
    256 MiB on 8 ranks, 5 µs per step, 50 GB/s (2 x 7 x 5 + 1.75 x 268435456 / 50e3):

    >>> from interconnect.units import Q_
    >>> f"{ring_allreduce_time_us(256 * 2**20, 8, 5.0, 50.0)[0]:.2f} us"
    '9465.24 us'
    >>> f"{ring_allreduce_time_us(Q_(256, 'MiB'), 8, Q_(5, 'us'), Q_(400, 'Gbit/s'))[0]:.2f} us"
    '9465.24 us'
    """
    size = as_size_bytes(size_bytes)
    n = int(ranks)
    if n <= 1:
        return np.zeros_like(size)
    return 2 * (n - 1) * alpha_us + 2 * (n - 1) / n * size / (bandwidth_gbps * 1e3)


@expects(size_bytes="B", alpha_in_us="us", bw_in_gbps="GB/s", alpha_out_us="us", bw_out_gbps="GB/s")
def hierarchical_allreduce_time_us(
    size_bytes: object,
    gpus_per_node: int,
    nodes: int,
    alpha_in_us: float,
    bw_in_gbps: float,
    alpha_out_us: float,
    bw_out_gbps: float,
) -> np.ndarray:
    r"""Compute the three-phase hierarchical all-reduce time (Stas Bekman's ml-engineering, "model 3").

    Parameters
    ----------
    size_bytes : object
        Message size S per rank, B.
    gpus_per_node : int
        GPUs per node g.
    nodes : int
        Nodes k.
    alpha_in_us : float
        Latency per step inside the node, µs.
    bw_in_gbps : float
        Bandwidth per GPU inside the node, GB/s.
    alpha_out_us : float
        Latency per step across nodes, µs.
    bw_out_gbps : float
        Network bandwidth per GPU ("rail"), GB/s.

    Returns
    -------
    numpy.ndarray
        Time in µs per size.

    Notes
    -----
    .. math::

        T = 2\,[(g-1)\alpha_{in} + \tfrac{g-1}{g}\tfrac{S}{\beta_{in}}]
            + 2(k-1)\alpha_{out} + \tfrac{2(k-1)}{k}\,\tfrac{S/g}{\beta_{out}}

    Reduce-scatter inside each node (ring of g), all-reduce of each 1/g shard across the k nodes (one
    ring per rail), all-gather inside the node; the phases are serialised (the upper bound of the
    overlap bracket in ml-engineering ``network/README.md``).

    Examples
    --------
    1 GiB on 4 nodes x 8: (47.6 + 5078.5) µs in the node + (84 + 4194.3) µs across nodes:

    >>> f"{hierarchical_allreduce_time_us(2**30, 8, 4, 3.4, 370.0, 14.0, 48.0)[0]:.1f} us"
    '9404.4 us'
    """
    size = as_size_bytes(size_bytes)
    g, k = int(gpus_per_node), int(nodes)
    intra = 0.0 if g <= 1 else 2 * ((g - 1) * alpha_in_us) + 2 * (g - 1) / g * size / (bw_in_gbps * 1e3)
    inter = 0.0 if k <= 1 else 2 * (k - 1) * alpha_out_us + 2 * (k - 1) / k * (size / g) / (bw_out_gbps * 1e3)
    return np.asarray(intra + inter + 0.0 * size, dtype=float)


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
    )


def _ll_max_bw(p: _Params) -> float:
    if p.kd <= 1:
        return _LL_MAX_BW_ONE_NODE.get(p.generation, 87.7)
    return _LL_MAX_BW_TWO_NODES if p.kd == 2 else _LL_MAX_BW_MANY_NODES


def _ll128_allowed(p: _Params) -> bool:
    if not p.lib.ll128 or p.generation == "Other":
        return False
    if p.forced:  # NCCL_PROTO=LL128 skips NCCL's own path checks (tuning.cc: protoEnable 1, not 2)
        return True
    return p.kd <= 1 or p.ll128_net


def _ceil_log2(x: int) -> int:
    return 0 if x <= 1 else math.ceil(math.log2(x))


def _floor_log2(x: int) -> int:
    return 0 if x <= 1 else int(math.floor(math.log2(x)))


def _transfer(size: np.ndarray, algbw_gbps: float) -> np.ndarray:
    if algbw_gbps <= 0 or not math.isfinite(algbw_gbps):
        return np.full_like(size, np.inf) if algbw_gbps <= 0 else np.zeros_like(size)
    return size / (algbw_gbps * 1e3)


def _tree_correction(proto: int, position: np.ndarray) -> np.ndarray:
    """Return NCCL's tree correction factor at log2(S/64 B) = ``position``.

    Interpolated log-linearly between the table's powers of two (NCCL steps at each power of two,
    which makes a 1-byte-larger message up to 25 % faster; interpolation keeps time non-decreasing in
    size). 1 beyond 256 MiB.
    """
    table = np.log(np.append(_TREE_CORRECTION[proto][:23], 1.0))
    return np.exp(np.interp(position, np.arange(table.size), table))


def _nvls_fill(p: _Params, size: np.ndarray) -> np.ndarray:
    """NVLS pipeline start-up: (g-1) stages of up to 4 MiB at the per-GPU NVLink rate."""
    return (p.gd - 1) * np.minimum(size / p.gd, _NVLS_FILL_BYTES) / (p.b_intra * 1e3)


def _net_fill(p: _Params, size: np.ndarray) -> np.ndarray:
    """Return the bulk-pipeline start-up per network hop, µs (the fabric's ``simple_fill_us``).

    Reached once the message fills one chunk on every channel (16 x 512 KiB); proportionally less below.
    """
    return p.fill_net * np.minimum(1.0, size / (_TREE_CHANNELS * _CHUNK_BYTES))


def _net_latency(p: _Params, algorithm: str, proto: int) -> tuple[float, float]:
    """(real, tuner) latency of one network hop, µs.

    Real: NCCL's ``hwLatencies[NET]`` plus the fabric's extra per hop. Tuner: NCCL's constant plus
    the latency the network plugin reports, twice for Simple (tuning.cc adds ``latencyInter`` once
    and again as the flush). With one GPU per domain NCCL uses the tree's network latency
    ("with ppn=1 latencies are fully exposed").
    """
    base = p.lib.hw_net["tree" if (p.gd == 1 and algorithm == "ring") else algorithm][proto]
    return base + p.hop_extra, base + p.plugin_lat * (2 if proto == _SIMPLE else 1)


def _tree_wave_bytes(p: _Params, proto: int, size: np.ndarray) -> np.ndarray:
    """Bytes the tree's channels have in flight per pipeline stage: channels x chunk.

    Chunks as NCCL ``calcCollChunking`` (enqueue.cc) sizes them: Simple one 512 KiB step
    (``NCCL_BUFFSIZE`` 4 MiB / ``NCCL_STEPS`` 8); LL half a 64 KiB step; LL128 a 576 KiB step of
    data, halved while the message gives each channel fewer than ``nstepsLL128·64/ppn`` chunks
    (down to 128 KiB) and then ``nstepsLL128·16/ppn`` (down to 32 KiB), with
    ``nstepsLL128 = 1 + log2(nodes) + 0.1·ppn``.
    """
    if proto == _LL128:
        chunk = np.full(size.shape, 576.0 * 1024)
        steps = 1 + _floor_log2(p.kd) + 0.1 * p.gd
        per = size / _TREE_CHANNELS
        for _ in range(4):
            chunk = np.where((per / chunk < steps * 64 / p.gd) & (chunk > 131072), chunk / 2, chunk)
        for _ in range(4):
            chunk = np.where((per / chunk < steps * 16 / p.gd) & (chunk > 32768), chunk / 2, chunk)
    elif proto == _LL:
        chunk = np.full(size.shape, 32.0 * 1024)
    else:
        chunk = np.full(size.shape, 512.0 * 1024)
    return _TREE_CHANNELS * chunk


def _ring_buses(p: _Params) -> tuple[float, float, float]:
    """Return a ring's bus bandwidth per protocol (LL, LL128, Simple), GB/s.

    The slowest link of the ring, halved for LL (and capped) and x0.92 for LL128 where NCCL allows it
    (tuning.cc).
    """
    bus_simple = min(_RING_EFFICIENCY * p.b_intra, p.egress)
    return (min(_ll_max_bw(p), 0.5 * bus_simple), 0.92 * bus_simple if _ll128_allowed(p) else 0.0, bus_simple)


def _ring_passes(p: _Params, size: np.ndarray, passes: int, volume: float, est: np.ndarray,
                 real: np.ndarray) -> None:
    """Fill the estimate and real grids of a ring of ``passes`` trips around the n ranks.

    Two passes for all-reduce (reduce-scatter then all-gather), one for all-gather, reduce-scatter and
    broadcast; each rank moves ``volume`` x S. tuning.cc: ``nsteps = passes·(n-1)`` steps, of which
    ``nInter = passes·(k-1)`` cross the network; latency
    ``base + (nsteps - nInter)·max(intraLat, netOverhead) + nInter·interLat``, the network step from
    :func:`_net_latency` (real and tuner views). The tuner multiplies a multi-node Simple ring's latency
    by 1.4; the model's real time adds the Simple pipeline start-up once per network pass over TCP-class
    transports only (:class:`~interconnect.models.cluster.FabricModel`).
    """
    nsteps, ninter = passes * (p.n - 1), passes * (p.kd - 1)
    buses = _ring_buses(p)
    for proto in (_LL, _LL128, _SIMPLE):
        if buses[proto] <= 0:
            continue
        intra = p.lib.hw_intra["ring"][proto]
        if p.kd > 1:
            intra = max(intra, _NET_OVERHEAD_US[proto])
        inter_real, inter_tuner = _net_latency(p, "ring", proto)
        lat = p.lib.base["ring"][proto] + (nsteps - ninter) * intra
        move = _transfer(size, buses[proto] / volume)
        staged = passes * _net_fill(p, size) if (p.staged and proto == _SIMPLE and p.kd > 1) else 0.0
        real[proto] = p.lib.launch_us + lat + ninter * inter_real + move + staged
        # NCCL's tuner multiplies a multi-node Simple ring's latency by 1.4 ("plateau effect").
        plateau = _RING_PLATEAU if (proto == _SIMPLE and p.kd > 1) else 1.0
        est[proto] = p.lib.launch_us + (lat + ninter * inter_tuner) * plateau + move


def _ring(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """NCCL ring all-reduce: two passes (reduce-scatter, all-gather), 2(n-1)/n x S per rank."""
    _ring_passes(p, size, 2, 2 * (p.n - 1) / p.n, est, real)


def _tree(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """NCCL double binary tree: latency ``base + 2((g-1)·intraLat + log2(k)·interLat)``."""
    bucket = 0 if p.kd <= 1 else (1 if p.kd == 2 else 2)
    cap = _TREE_CHANNELS * _TREE_CAP[p.generation][bucket]
    cap128 = _TREE_CHANNELS * _TREE_LL128_CAP[p.generation][bucket]
    net = p.egress * (1.0 if p.kd == 2 else 0.5)
    bus = 0.92 * p.b_intra
    algbws = (
        min(0.5 * min(bus / 3.8, _ll_max_bw(p)), net),
        min(0.5 * min(bus * (7.0 / 9.0 if p.kd <= 1 else 120.0 / 128.0), cap128), net) if _ll128_allowed(p) else 0.0,
        min(0.5 * min(bus, cap), net),
    )
    position = np.log2(np.maximum(size, 64.0) / 64.0)
    depth = _floor_log2(p.kd)
    for proto in (_LL, _LL128, _SIMPLE):
        if algbws[proto] <= 0:
            continue
        inter_real, inter_tuner = _net_latency(p, "tree", proto)
        intra = p.lib.base["tree"][proto] + 2 * (p.gd - 1) * p.lib.hw_intra["tree"][proto]
        move = size / (algbws[proto] * _tree_correction(proto, position) * 1e3)
        # Pipeline start-up: one wave of chunks crosses the 2(g-1) NVLink stages of the chain and
        # the network levels up and down before the tree streams (LL is latency-bound; none).
        wave = np.minimum(size, _tree_wave_bytes(p, proto, size))
        net_stages = max(2 * _ceil_log2(p.kd) - 1, 0)
        fill = 0.0 if proto == _LL else (2 * (p.gd - 1) * wave / (bus * 1e3)
                                         + net_stages * wave / (algbws[proto] * 1e3))
        est[proto] = p.lib.launch_us + intra + 2 * depth * inter_tuner + move
        real[proto] = p.lib.launch_us + intra + 2 * depth * inter_real + move + fill


def _nvls(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """NVLink SHARP inside one domain: latency 25 µs (tuning.cc), bandwidth ε·B_intra, plus fill."""
    if not p.nvls or p.kd != 1:
        return
    algbw = _NVLS_EFFICIENCY[p.generation] * _NVLS_MEASURED_OVER_MODEL * p.b_intra
    est[_SIMPLE] = p.lib.launch_us + p.lib.hw_intra["nvls"][_SIMPLE] + _transfer(size, algbw)
    real[_SIMPLE] = est[_SIMPLE] + _nvls_fill(p, size)


def _nvls_tree_wave_bytes(p: _Params, size: np.ndarray) -> np.ndarray:
    """Bytes NVLSTree has in flight before the first chunk is through the whole pipeline.

    NCCL ``calcCollChunking`` (enqueue.cc) runs ``channels x heads`` chunks at once and shrinks the
    chunk for smaller messages: from the NVLSTree maximum down to 256, 128, 64 and 32 KiB when the
    message is below 32, 16, 4 and 1 times ``channels x heads x chunk``. A middle-sized message
    therefore starts streaming after a few MiB, not after the 4 MiB staging buffer of every stage.
    """
    concurrent = p.nvls_channels * p.tuner_heads
    chunk = np.full(size.shape, float(min(p.nvls_chunk, p.nvls_tree_chunk)))
    for times, smaller in ((32, 262144.0), (16, 131072.0), (4, 65536.0), (1, 32768.0)):
        chunk = np.where((size < times * concurrent * chunk) & (chunk > smaller), smaller, chunk)
    return np.minimum(size, concurrent * chunk)


def _graph_speed(generation: str, line_gbps: float) -> float:
    """Per-channel bandwidth NCCL's topology search settles on for a network device (GB/s).

    The search (``src/graph/search.cc``) tries the values of ``sm90SpeedArrayInter`` /
    ``sm100SpeedArrayInter`` from the top and keeps the first one the device can carry.
    """
    speeds = _SPEEDS_INTER_SM100 if generation == "Blackwell" else _SPEEDS_INTER_SM90
    return next((speed for speed in speeds if speed <= line_gbps), speeds[-1])


def _nvls_tree(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """NVLS inside each domain, a tree of domain heads across the network (NCCL NVLSTree).

    *What NCCL's tuner believes* (tuning.cc of NCCL 2.19-2.27, the releases behind the published
    runs): one channel per network device ("head", at most 32), each at ``min(bwIntra, bwInter)``
    on two nodes and ``min(bwIntra, bwInter/2)`` beyond, where ``bwInter`` is the topology's
    per-channel network speed (:func:`_graph_speed`); busbw is ``heads`` times that, algbw 5/6 of
    it; latency ``25 + 2·log2(k)·(14 + plugin latency x2)`` µs. (NCCL 2.28 re-rated it:
    ``min(2·bw·ε·(c-1)/c, bw·(2 if 2 nodes), perChMaxNVLSTreeBw)`` per channel, 20.9 µs per hop.)

    *What the model predicts*: the network part runs through at most 8 heads per domain
    (calibrated, ``_NVLS_TREE_MAX_HEADS``), each a merged network device, halved beyond two
    domains as for any tree, and never faster than NCCL's own measured per-channel maxima
    (``perChMaxNVLSTreeBws``: Hopper 57.7 GB/s on 2 nodes, 45.5 beyond). The pipeline starts
    after ``1 + ceil(log2 k)`` waves of ``channels x heads`` chunks
    (:func:`_nvls_tree_wave_bytes`): a few MiB on an HGX board, so middle-sized messages stream
    early, but about 100 MiB on an NVL72 rack with 32 heads, which is why GB200 racks need GiB
    messages to reach full speed. NVLSTree needs at least two heads (tuning.cc: "NVLS/NVLStree
    needs at least 2 channels").
    """
    if not p.nvls or p.kd < 2 or p.tuner_heads < 2:
        return
    efficiency = _NVLS_EFFICIENCY[p.generation]
    nvls_alg = efficiency * _NVLS_MEASURED_OVER_MODEL * p.b_intra
    share = 1.0 if p.kd == 2 else 0.5
    measured_cap = p.heads * _NVLS_TREE_CAP[p.generation][1 if p.kd == 2 else 2] * p.n / (2 * (p.n - 1))
    algbw = min(nvls_alg, p.heads * p.head_bw * share, p.egress * share, measured_cap)
    channels = p.tuner_heads
    intra_speed, inter_speed = _NVLS_GRAPH_GBPS.get(p.generation, (40.0, 60.0))
    speed = _graph_speed(p.generation, p.head_line)
    if speed >= _SPEEDS_INTER_SM90[0]:  # a 400G-class device per head: the DGX H100 graph
        speed = inter_speed
    tuner_algbw = channels * min(intra_speed, speed if p.kd <= 2 else speed / 2) * 5.0 / 6.0
    depth = _floor_log2(p.kd)
    inter_real, inter_tuner = _net_latency(p, "nvls_tree", _SIMPLE)
    intra = p.lib.hw_intra["nvls_tree"][_SIMPLE]
    stages = 1 + _ceil_log2(p.kd)
    wave = _nvls_tree_wave_bytes(p, size)
    staged = _ceil_log2(p.kd) * _net_fill(p, size) if p.staged else 0.0
    real[_SIMPLE] = p.lib.launch_us + intra + 2 * depth * inter_real + _transfer(size + stages * wave, algbw) + staged
    est[_SIMPLE] = p.lib.launch_us + intra + 2 * depth * inter_tuner + _transfer(size, tuner_algbw)


def _collnet(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """SHARP in the InfiniBand switches (NCCL CollNetDirect): each node sends and receives S once."""
    if not p.sharp or p.kd < 2:
        return
    algbw = min(0.5 * p.b_intra, p.egress)
    lat = 2 * (min(1, p.gd - 1) * p.lib.hw_intra["collnet"][_SIMPLE] + (p.gd - 1) * 0.4) + (
        p.lib.hw_net["collnet"][_SIMPLE] + p.hop_extra
    )
    est[_SIMPLE] = p.lib.launch_us + lat + _transfer(size, algbw)
    real[_SIMPLE] = est[_SIMPLE] + 2 * _net_fill(p, size)


def _flat_ring(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """Node-unaware ring: every one of the 2(n-1) steps is treated as a network step."""
    if p.kd > 1:
        alpha = p.lib.hw_net["ring"][_SIMPLE] + p.hop_extra
        beta = min(_RING_EFFICIENCY * p.b_intra, p.nic_gpu)
    else:
        alpha = p.lib.hw_intra["ring"][_SIMPLE]
        beta = _RING_EFFICIENCY * p.b_intra
    real[_SIMPLE] = p.lib.launch_us + p.lib.base["ring"][_SIMPLE] + ring_allreduce_time_us(size, p.n, alpha, beta)
    est[_SIMPLE] = real[_SIMPLE]


def _hierarchical(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """Reduce-scatter in the domain, all-reduce of 1/g shards across domains, all-gather back."""
    alpha_in = p.lib.hw_intra["ring"][_SIMPLE]
    alpha_out = p.lib.hw_net["ring"][_SIMPLE] + p.hop_extra
    t = hierarchical_allreduce_time_us(
        size, p.gd, p.kd, alpha_in, _RING_EFFICIENCY * p.b_intra, alpha_out, p.nic_gpu if p.kd > 1 else 1.0
    )
    real[_SIMPLE] = p.lib.launch_us + p.lib.base["ring"][_SIMPLE] + t
    est[_SIMPLE] = real[_SIMPLE]


_BUILDERS = {
    "flat_ring": _flat_ring,
    "ring": _ring,
    "tree": _tree,
    "hierarchical": _hierarchical,
    "nvls": _nvls,
    "nvls_tree": _nvls_tree,
    "collnet": _collnet,
}


def _grids(p: _Params, size: np.ndarray, algorithms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Return (tuner estimate, realistic time) in µs, each shaped (algorithms, protocols, sizes).

    ``inf`` where an algorithm or protocol is not available. The estimate is what NCCL's tuner
    believes (it picks the algorithm and protocol); the realistic time is what the model predicts for
    that choice.
    """
    shape = (len(algorithms), len(PROTOCOLS), size.size)
    estimate = np.full(shape, np.inf)
    real = np.full(shape, np.inf)
    if p.n <= 1:
        return np.zeros(shape), np.zeros(shape)
    for index, name in enumerate(algorithms):
        _BUILDERS[name](p, size, estimate[index], real[index])
    for proto, allowed in enumerate(p.allowed):
        if not allowed:  # NCCL_PROTO leaves this protocol out
            estimate[:, proto] = np.inf
            real[:, proto] = np.inf
    return estimate, real


def _best_protocol(estimate: np.ndarray, real: np.ndarray, chooser: str = "nccl") -> np.ndarray:
    """Realistic time of the protocol the tuner picks (or the fastest), per algorithm: (algorithms, sizes)."""
    if chooser not in ("nccl", "fastest"):
        raise ValueError(f"unknown chooser {chooser!r}; choose 'nccl' or 'fastest'")
    pick = np.argmin(estimate if chooser == "nccl" else real, axis=1)
    return np.take_along_axis(real, pick[:, None, :], axis=1)[:, 0, :]


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
        >>> from interconnect.models.cluster import resolve_cluster
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


def _result(size: np.ndarray, time: np.ndarray, algos: np.ndarray, protos: np.ndarray, n: int) -> AllreduceResult:
    with np.errstate(divide="ignore", invalid="ignore"):
        algbw = np.where(time > 0, size / (time * 1e3), np.inf)
    factor = busbw_factor("all_reduce", n)
    busbw = algbw * factor if factor > 0 else np.zeros_like(algbw)  # one rank moves nothing
    return AllreduceResult(size, time, algbw, busbw, algos, protos, n)


@expects(size_bytes="B")
def allreduce(
    cluster: Cluster, size_bytes: object, algorithm: str = "auto", *, protocol: str = "auto", chooser: str = "nccl"
) -> AllreduceResult:
    r"""Predict the all-reduce time for each message size, and the algorithm and protocol used.

    Parameters
    ----------
    cluster : Cluster
        The cluster (GPUs, NVLink domain, NICs, fabric).
    size_bytes : object
        Message sizes S per rank, B (numbers, array, Quantity or size string).
    algorithm : str
        ``"auto"`` picks among NCCL's algorithms per size (never the textbook flat ring or
        hierarchical scheme); any name in :data:`ALLREDUCE_ALGORITHMS` forces it.
    protocol : str
        ``"auto"`` lets the tuner choose; ``"LL"``, ``"LL128"`` or ``"Simple"`` force one, as
        ``NCCL_PROTO`` does (a forced LL128 is used even where NCCL would not enable it by default).
    chooser : str
        ``"nccl"`` picks what NCCL's tuner would pick (the smallest tuner estimate, then reports the
        model's realistic time for it); ``"fastest"`` picks the smallest realistic time.

    Returns
    -------
    AllreduceResult
        Times in µs, algbw and busbw in GB/s, and the algorithm and protocol per size; ``inf`` and
        ``"none"`` where the choice is unavailable (NVLS on A100, NVLS with LL).

    Notes
    -----
    For each algorithm a and protocol p:

    .. math:: t = t_\text{launch} + \text{lat}(a, p, n, k) + \text{fill} + \frac{S}{\text{algbw}(a, p)}

    * latency, NCCL ``src/graph/tuning.cc`` with its constants: ring
      :math:`\text{base} + (2(n-1) - 2(k-1))\,\text{intraLat} + 2(k-1)\,\text{interLat}`; tree
      :math:`\text{base} + 2((g-1)\,\text{intraLat} + \log_2 k\,\text{interLat})`; NVLS 25 µs; NVLSTree
      :math:`25 + 2\log_2 k\,\text{interLat}`, with the fabric's extra latency on network hops;
    * algbw: ring :math:`\min(0.97 B_\text{intra}, \text{egress})\,n/(2(n-1))`; tree half the bus rate,
      capped by the domain egress (halved beyond two domains); NVLS :math:`\varepsilon B_\text{intra}`;
      LL :math:`\min(\text{llMaxBw}, \text{busbw}/2)` (tree /3.8), LL128 x0.92 (tuning.cc);
    * fill (bulk protocol only): the pipeline start-up per NVLS stage and tree level, which NCCL's
      tuner leaves out; it is why the pick can be slower than the fastest choice at some sizes.

    Examples
    --------
    One node of 8 x H100 (units in the strings):

    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.units import Q_
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> result = allreduce(cluster, [8, 2**30])
    >>> [f"{t:.0f} us" for t in result.time_us], [str(a) for a in result.algorithm]
    (['19 us', '4070 us'], ['ring', 'nvls'])
    >>> f"{result.busbw_gbps[1]:.0f} GB/s"
    '462 GB/s'
    >>> f"{allreduce(cluster, Q_(1, 'GiB')).time_us[0]:.0f} us"
    '4070 us'
    """
    size = as_size_bytes(size_bytes)
    p = _params(cluster, protocol)
    names = _candidates(algorithm)
    if chooser not in ("nccl", "fastest"):
        raise ValueError(f"unknown chooser {chooser!r}; choose 'nccl' or 'fastest'")
    estimate, real = _grids(p, size, names)
    return _choose(estimate, real, names, size, p.n, chooser)


def _candidates(algorithm: str) -> tuple[str, ...]:
    if algorithm == "auto":
        return AUTO_CANDIDATES
    if algorithm in ALLREDUCE_ALGORITHMS:
        return (algorithm,)
    raise ValueError(f"unknown algorithm {algorithm!r}; choose auto or one of {', '.join(ALLREDUCE_ALGORITHMS)}")


def _choose(estimate: np.ndarray, real: np.ndarray, names: Sequence[str], size: np.ndarray, n: int,
            chooser: str) -> AllreduceResult:
    """Pick per size among ``names`` (grids shaped (len(names), protocols, sizes))."""
    flat_real = real.reshape(len(names) * len(PROTOCOLS), size.size)
    key = estimate if chooser == "nccl" else real
    best = np.argmin(key.reshape(len(names) * len(PROTOCOLS), size.size), axis=0)
    time = flat_real[best, np.arange(size.size)]
    algos = np.array(names)[best // len(PROTOCOLS)]
    protos = np.array(PROTOCOLS)[best % len(PROTOCOLS)]
    unavailable = ~np.isfinite(time)
    if unavailable.any():
        algos = np.where(unavailable, "none", algos)
        protos = np.where(unavailable, "none", protos)
    if n <= 1:
        algos = np.full(size.size, "none")
        protos = np.full(size.size, "none")
    return _result(size, time, algos, protos, n)


@dataclass(frozen=True, eq=False)
class AllreduceDetail:
    """One cluster, every view of it from a single pass of the model.

    Attributes
    ----------
    by_algorithm : dict of str to numpy.ndarray
        Each algorithm's time in µs, with the protocol NCCL's tuner would pick.
    chosen : AllreduceResult
        NCCL's pick (or the forced algorithm and protocol).
    fastest : AllreduceResult
        The fastest algorithm and protocol the model knows at each size.
    """

    by_algorithm: dict[str, np.ndarray]
    chosen: AllreduceResult
    fastest: AllreduceResult


@expects(size_bytes="B")
def allreduce_detail(cluster: Cluster, size_bytes: object, algorithm: str = "auto", *,
                     protocol: str = "auto") -> AllreduceDetail:
    """Run :func:`allreduce_by_algorithm`, :func:`allreduce` and its fastest twin in one pass.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    size_bytes : object
        Message sizes per rank, B.
    algorithm : str
        ``"auto"`` or a forced algorithm, as for :func:`allreduce`.
    protocol : str
        ``"auto"`` or a forced protocol, as for :func:`allreduce`.

    Returns
    -------
    AllreduceDetail
        Every algorithm's time (µs, with the protocol NCCL's tuner would pick), NCCL's pick and the
        fastest choice, all from the same grids.

    Notes
    -----
    The same formulas as :func:`allreduce`; computing them once keeps the page's charts and headline
    consistent and halves the work.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> detail = allreduce_detail(cluster, [2**30])
    >>> bool(detail.chosen.time_us[0] >= detail.fastest.time_us[0])
    True
    """
    size = as_size_bytes(size_bytes)
    p = _params(cluster, protocol)
    names = _candidates(algorithm)
    estimate, real = _grids(p, size, ALLREDUCE_ALGORITHMS)
    index = [ALLREDUCE_ALGORITHMS.index(name) for name in names]
    best = _best_protocol(estimate, real)
    return AllreduceDetail(
        by_algorithm={name: best[i] for i, name in enumerate(ALLREDUCE_ALGORITHMS)},
        chosen=_choose(estimate[index], real[index], names, size, p.n, "nccl"),
        fastest=_choose(estimate[index], real[index], names, size, p.n, "fastest"),
    )


@expects(size_bytes="B")
def allreduce_by_algorithm(
    cluster: Cluster, size_bytes: object, *, protocol: str = "auto", chooser: str = "nccl"
) -> dict[str, np.ndarray]:
    """Predict the time of every algorithm in :data:`ALLREDUCE_ALGORITHMS`.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    size_bytes : object
        Message sizes per rank, B.
    protocol : str
        ``"auto"`` or a forced protocol.
    chooser : str
        ``"nccl"``: each algorithm with the protocol NCCL's tuner would pick; ``"fastest"``: with
        its fastest protocol.

    Returns
    -------
    dict of str to numpy.ndarray
        Time in µs per size for each algorithm; ``inf`` where unavailable.

    Notes
    -----
    The formulas of :func:`allreduce`, one algorithm at a time.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=1)
    >>> times = allreduce_by_algorithm(cluster, [2**20])
    >>> bool(np.isinf(times["nvls"][0])), f"{times['ring'][0]:.0f} us"
    (True, '40 us')
    """
    size = as_size_bytes(size_bytes)
    best = _best_protocol(*_grids(_params(cluster, protocol), size, ALLREDUCE_ALGORITHMS), chooser)
    return {name: best[i] for i, name in enumerate(ALLREDUCE_ALGORITHMS)}


@expects(size_bytes="B")
def sweep_allreduce(
    cluster: Cluster,
    size_bytes: object,
    node_counts: Iterable[int],
    algorithms: Sequence[str] = ALLREDUCE_ALGORITHMS,
    *,
    protocol: str = "auto",
    chooser: str = "nccl",
) -> np.ndarray:
    """Predict best-protocol times for the same cluster at several node counts.

    Parameters
    ----------
    cluster : Cluster
        The cluster; its node count is replaced by each of ``node_counts``.
    size_bytes : object
        Message sizes per rank, B.
    node_counts : iterable of int
        Node counts.
    algorithms : sequence of str
        Algorithms to time (default: all of :data:`ALLREDUCE_ALGORITHMS`).
    protocol : str
        ``"auto"`` or a forced protocol.
    chooser : str
        ``"nccl"`` or ``"fastest"`` protocol per algorithm.

    Returns
    -------
    numpy.ndarray
        Times in µs, shape (node counts, algorithms, sizes).

    Notes
    -----
    The formulas of :func:`allreduce`, in plain numpy per node count: a 64-size x 7-algorithm x
    11-node-count sweep takes about a millisecond (``benchmarks/sweep_speed.py``).

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> sweep_allreduce(cluster, [2**20, 2**30], [1, 2, 4]).shape
    (3, 7, 2)
    """
    size = as_size_bytes(size_bytes)
    counts = list(node_counts)
    out = np.empty((len(counts), len(algorithms), size.size))
    for i, nodes in enumerate(counts):
        out[i] = _best_protocol(*_grids(_params(cluster.with_nodes(nodes), protocol), size, algorithms), chooser)
    return out


# ------------------------------------------------------------------------------------------------
# Other collectives
# ------------------------------------------------------------------------------------------------


@expects(size_bytes="B")
def collective_time_us(cluster: Cluster, collective: str, size_bytes: object) -> np.ndarray:
    r"""Predict the time of a collective with nccl-tests' size convention.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    collective : str
        ``all_reduce``, ``all_gather``, ``reduce_scatter``, ``alltoall`` or ``broadcast``.
    size_bytes : object
        Message sizes, B: the buffer per rank (all-reduce, broadcast), the whole gathered array
        (all-gather, reduce-scatter) or each rank's send buffer (all-to-all).

    Returns
    -------
    numpy.ndarray
        Time in µs per size; 0 on one rank.

    Raises
    ------
    ValueError
        For an unknown collective.

    Notes
    -----
    All-reduce is :func:`allreduce`; all-gather, reduce-scatter and all-to-all are the models of
    :mod:`~interconnect.models.collectives.others` with NCCL's pick. Broadcast is a pipelined ring, one
    pass of n-1 steps, with the ring all-reduce's per-step rules (NCCL tuning.cc) and the fastest protocol:

    .. math:: t = t_\text{launch} + \text{base} + (n-k)\,\text{intraLat} + (k-1)\,\text{interLat}
              + \frac{S}{B_\text{ring}}

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> [f"{collective_time_us(cluster, c, 2**30)[0]:.0f} us" for c in ("all_gather", "broadcast")]
    ['2648 us', '3022 us']
    """
    size = as_size_bytes(size_bytes)
    key = collective.lower().replace("-", "_")
    p = _params(cluster)
    if p.n <= 1:
        return np.zeros_like(size)
    if key in ("all_reduce", "allreduce"):
        return allreduce(cluster, size).time_us
    if key == "broadcast":
        est = np.full((len(PROTOCOLS), size.size), np.inf)
        real = np.full((len(PROTOCOLS), size.size), np.inf)
        _ring_passes(p, size, 1, 1.0, est, real)
        return real.min(axis=0)
    from interconnect.models.collectives.others import collective as _other_collective

    try:
        return _other_collective(cluster, key, size).time_us
    except ValueError:
        raise ValueError(f"unknown collective {collective!r}; known: {', '.join(COLLECTIVES)}") from None
