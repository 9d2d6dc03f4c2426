"""Cost models of GPU collectives (all-reduce first), calibrated against published nccl-tests runs.

(``interconnect.hardware.collectives.model``; import the public names from ``interconnect.hardware.collectives``.)

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
   :class:`~interconnect.hardware.cluster.Cluster` (catalog figures). The *fill* is what NCCL's tuner leaves
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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives.params import (
    _LL,
    _LL128,
    _NVLS_EFFICIENCY,
    _NVLS_GRAPH_GBPS,
    _NVLS_MEASURED_OVER_MODEL,
    _NVLS_TREE_CAP,
    _RING_EFFICIENCY,
    _SIMPLE,
    _SPEEDS_INTER_SM90,
    _SPEEDS_INTER_SM100,
    _TREE_CAP,
    _TREE_CHANNELS,
    _TREE_CORRECTION,
    _TREE_LL128_CAP,
    ALGORITHM_LABELS,
    ALLREDUCE_ALGORITHMS,
    AUTO_CANDIDATES,
    COLLECTIVES,
    PROTOCOLS,
    AllreduceResult,
    _algorithm_choices,
    _Params,
    _params,
    as_size_bytes,
    busbw_factor,
    in_network_busbw_factor,
    protocol_mask,
)
from interconnect.hardware.collectives.steps import (
    _ceil_log2,
    _floor_log2,
    _ll128_allowed,
    _ll_max_bw,
    _net_fill,
    _net_latency,
    _nvls_fill,
    _ring_exit_relief,
    _ring_passes,
    _transfer,
)
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
    "hierarchical_allreduce_time_us",
    "in_network_busbw_factor",
    "protocol_mask",
    "ring_allreduce_time_us",
    "ring_exit_relief",
    "sweep_allreduce",
]

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





def _tree_correction(proto: int, position: np.ndarray) -> np.ndarray:
    """Return NCCL's tree correction factor at log2(S/64 B) = ``position``.

    Interpolated log-linearly between the table's powers of two (NCCL steps at each power of two,
    which makes a 1-byte-larger message up to 25 % faster; interpolation keeps time non-decreasing in
    size). 1 beyond 256 MiB.
    """
    table = np.log(np.append(_TREE_CORRECTION[proto][:23], 1.0))
    return np.exp(np.interp(position, np.arange(table.size), table))




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
    # One process issuing every GPU's call (-g N): back-to-back calls overlap that host time with the GPUs'
    # own, so a call takes the longer of the two. NCCL's tuner does not see it (the estimate is unchanged).
    return estimate, np.maximum(real, p.host_floor)


def _best_protocol(estimate: np.ndarray, real: np.ndarray, chooser: str = "nccl") -> np.ndarray:
    """Realistic time of the protocol the tuner picks (or the fastest), per algorithm: (algorithms, sizes)."""
    if chooser not in ("nccl", "fastest"):
        raise ValueError(f"unknown chooser {chooser!r}; choose 'nccl' or 'fastest'")
    pick = np.argmin(estimate if chooser == "nccl" else real, axis=1)
    return np.take_along_axis(real, pick[:, None, :], axis=1)[:, 0, :]





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

    >>> from interconnect.hardware.cluster import resolve_cluster
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


def ring_exit_relief(cluster: Cluster) -> float:
    """Return how far above its GPUs' scale-up rate a ring across domains may run: g/(g-1), or 1.

    Across domains NCCL's ring channel enters each domain from a network device and leaves it from the
    last GPU of its chain (``src/graph/search.cc``, "Search Patterns"), the device taken in turn per
    channel; with at least one device per GPU each GPU sends 1/g of the ring's traffic to the network and
    (g-1)/g over the scale-up fabric. 1 on one domain, and with fewer network devices than GPUs.

    Parameters
    ----------
    cluster : Cluster
        The cluster.

    Returns
    -------
    float
        The factor on the per-GPU scale-up rate (dimensionless).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> two, _ = resolve_cluster("mi300x", gpus_per_node=8, nodes=2, nic="roce-400g", nics_per_node=8)
    >>> one, _ = resolve_cluster("mi300x", gpus_per_node=8, nodes=1)
    >>> f"{ring_exit_relief(two):.4f}", ring_exit_relief(one)
    ('1.1429', 1.0)
    """
    return _ring_exit_relief(_params(cluster))


def _candidates(algorithm: str) -> tuple[str, ...]:
    """NCCL's choices: every auto candidate, one forced algorithm, or a comma-separated list of them.

    A list is what ``NCCL_ALGO`` accepts ("Ring,Tree"); a run with ``NCCL_NVLS_ENABLE=0`` is the list of the
    auto candidates without ``nvls`` and ``nvls_tree``.
    """
    return _algorithm_choices(algorithm, AUTO_CANDIDATES, ALLREDUCE_ALGORITHMS)


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
    >>> from interconnect.hardware.cluster import resolve_cluster
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
    >>> from interconnect.hardware.cluster import resolve_cluster
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
    >>> from interconnect.hardware.cluster import resolve_cluster
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
