"""Collectives beyond all-reduce: all-gather, reduce-scatter, all-to-all and send/recv.

(``interconnect.hardware.collectives.others``; import the public names from ``interconnect.hardware.collectives``.)

The same treatment as :func:`~interconnect.hardware.collectives.model.allreduce`: every algorithm and
protocol NCCL has for the collective, each timed as ``launch + latency + fill + S / algbw`` on the
cluster's two tiers (NVLink inside a scale-up domain, the NICs between domains), the pick made as
NCCL's tuner makes it, and busbw with nccl-tests' factor. Sizes follow nccl-tests' ``size`` column:

* all-gather / reduce-scatter: S is the **whole** gathered (or to-be-scattered) array; every rank
  holds S/n of it. ``algbw = S/t``, ``busbw = algbw (n-1)/n`` (nccl-tests ``src/all_gather.cu``,
  ``src/reduce_scatter.cu``; ``doc/PERFORMANCE.md``).
* all-to-all: S is each rank's send buffer, S/n to every peer; ``busbw = algbw (n-1)/n`` "since 1/n
  of the data is local" (sjeaugey, nccl-tests issue 130).
* send/recv: S is the buffer one rank sends to its neighbour; ``busbw = algbw`` (factor 1).

Algorithms (NCCL ``src/graph/tuning.cc``, HEAD 5067397c):

* all-gather / reduce-scatter: ``ring`` (LL, LL128, Simple), ``nvls`` (NVLink SHARP multicast /
  in-switch reduction, one NVLink domain, Simple), ``pat`` (Parallel Aggregated Trees, NCCL 2.23+,
  one GPU per node, Simple), ``collnet`` (SHARP in the InfiniBand switches, Simple).
* all-to-all and send/recv: NCCL runs them as grouped point-to-point operations (no algorithm
  choice); the protocol is LL for small per-peer chunks and Simple otherwise.

Reuses the cluster parameters and NCCL constants of :mod:`~interconnect.hardware.collectives.params`
and the ring passes of :mod:`~interconnect.hardware.collectives.steps`; the constants added here say
where they come from. :func:`collective_time_us` (every collective with NCCL's pick, broadcast
included) lives here too, above both the all-reduce model and these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives.fitting import fit_alpha_beta
from interconnect.hardware.collectives.measurements import Comparison, compare_sweep
from interconnect.hardware.collectives.model import allreduce, allreduce_by_algorithm
from interconnect.hardware.collectives.params import (
    _LL,
    _NVLS_EFFICIENCY,
    _NVLS_MEASURED_OVER_MODEL,
    _RING_EFFICIENCY,
    _SIMPLE,
    COLLECTIVES,
    PROTOCOLS,
    AllreduceResult,
    _algorithm_choices,
    _Params,
    _params,
    as_size_bytes,
    busbw_factor,
)
from interconnect.hardware.collectives.steps import _ceil_log2, _net_fill, _nvls_fill, _ring_passes
from interconnect.units import expects

__all__ = [
    "COLLECTIVE_ALGORITHMS",
    "COLLECTIVE_LABELS",
    "OTHER_COLLECTIVES",
    "CollectiveResult",
    "all_gather",
    "alltoall",
    "collective",
    "collective_by_algorithm",
    "collective_time_us",
    "compare_collective_sweep",
    "normalize_collective",
    "reduce_scatter",
    "sendrecv",
]

#: The collectives this module models (all-reduce lives in ``model``), by nccl-tests' names.
OTHER_COLLECTIVES = ("all_gather", "reduce_scatter", "alltoall", "sendrecv")
#: Algorithms per collective (what ``algorithm=`` accepts besides ``"auto"``).
COLLECTIVE_ALGORITHMS: dict[str, tuple[str, ...]] = {
    "all_gather": ("ring", "nvls", "pat", "collnet"),
    "reduce_scatter": ("ring", "nvls", "pat", "collnet"),
    "alltoall": ("p2p",),
    "sendrecv": ("p2p",),
}
COLLECTIVE_LABELS = {
    "all_reduce": "all-reduce",
    "all_gather": "all-gather",
    "reduce_scatter": "reduce-scatter",
    "alltoall": "all-to-all",
    "sendrecv": "send/recv",
}

#: NCCL tuning.cc PAT constants: base latency 8 µs, NVLink hop 4.0 µs, network hop 14 µs, and the
#: latency formula ``8 + log2(nodes) x interLat / 3.5 + 2.8 x ranks``; PAT bus bandwidth x 0.75.
_PAT_BASE_US = 8.0
_PAT_NET_US = 14.0
_PAT_PER_RANK_US = 2.8
_PAT_BW_FACTOR = 0.75
#: NCCL's default threshold below which point-to-point chunks go with the LL protocol
#: (``NCCL_P2P_LL_THRESHOLD``, 16 KiB per peer, ``src/enqueue.cc``).
_P2P_LL_THRESHOLD_BYTES = 16 * 1024
#: Peers a rank exchanges with at once in an all-to-all. NCCL schedules grouped send/recv in rounds
#: over its p2p channels; calibrated so that 64 ranks (8 nodes x 8 H800) at 8 MiB take the measured
#: 338 µs (NVIDIA/nccl issue 1531) while 8 ranks in one node keep the ~11 µs floor of a small
#: all-to-all (8 peers in one round).
_P2P_PEERS_PER_ROUND = 8


@dataclass(frozen=True, eq=False)
class CollectiveResult(AllreduceResult):
    """Model output for one collective on one cluster, one entry per message size.

    The fields and :meth:`rows` of :class:`AllreduceResult`, plus the collective's name;
    ``size_bytes`` follows nccl-tests' size column (see the module docstring), ``algbw_gbps`` is
    S / t and ``busbw_gbps`` is algbw x nccl-tests' factor for this collective.
    """

    collective: str = "all_reduce"


def normalize_collective(name: str) -> str:
    """Normalize a collective's name to the model's key.

    Parameters
    ----------
    name : str
        ``"all_gather_perf"``, ``"AllGather"``, ``"all-gather"``, a path to an nccl-tests binary, ...

    Returns
    -------
    str
        ``all_reduce``, ``all_gather``, ``reduce_scatter``, ``alltoall`` or ``sendrecv``.

    Raises
    ------
    ValueError
        For a name that is none of these.

    Examples
    --------
    >>> normalize_collective("./build/reduce_scatter_perf"), normalize_collective("AllToAll")
    ('reduce_scatter', 'alltoall')
    """
    base = str(name).strip().replace("\\", "/").split("/")[-1].lower()
    for suffix in ("_perf_mpi", "_perf"):
        base = base.removesuffix(suffix)
    key = base.replace("_", "").replace("-", "").replace(" ", "")
    table = {"allreduce": "all_reduce", "allgather": "all_gather", "reducescatter": "reduce_scatter",
             "alltoall": "alltoall", "sendrecv": "sendrecv"}
    if key not in table:
        raise ValueError(f"unknown collective {name!r}; known: {', '.join(table.values())}")
    return table[key]


def _result(collective: str, size: np.ndarray, time: np.ndarray, algos: np.ndarray, protos: np.ndarray,
            n: int) -> CollectiveResult:
    with np.errstate(divide="ignore", invalid="ignore"):
        algbw = np.where(time > 0, size / (time * 1e3), np.inf)
    factor = busbw_factor(collective, n) if n > 1 else 0.0
    busbw = algbw * factor if factor > 0 else np.zeros_like(algbw)
    return CollectiveResult(size, time, algbw, busbw, algos, protos, n, collective=collective)


# ------------------------------------------------------------------------------------------------
# All-gather and reduce-scatter
# ------------------------------------------------------------------------------------------------


def _ring_ag_rs(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """Fill the grids of the ring all-gather / reduce-scatter: one pass of n-1 steps.

    Of those steps (domains - 1) cross the network (tuning.cc ``nInterSteps`` for all-gather and
    reduce-scatter); each rank moves (n-1)/n x S over the slowest link. The per-step rules are the
    all-reduce ring's (:func:`_ring_passes`), except that NCCL's tuner charges its x1.4 "plateau effect"
    to a Simple ring all-reduce only (``ncclTopoGetAlgoTime``), so it does not enter this pick.
    """
    _ring_passes(p, size, 1, (p.n - 1) / p.n, est, real, plateau_charged=False)


def _nvls_ag_rs(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """Fill the grids of NVLink SHARP in one domain.

    Each GPU sends its S/n once, the switch multicasts (all-gather) or reduces (reduce-scatter). The
    receive side still takes (n-1)/n x S, so NVLS saves SMs and latency steps, not bandwidth: bus
    bandwidth is NVLS's measured efficiency times NVLink, without the x2 that all-reduce gets (tuning.cc
    applies x2 to all-reduce only).
    """
    if not p.nvls or p.kd != 1:
        return
    bus = _NVLS_EFFICIENCY[p.generation] * _NVLS_MEASURED_OVER_MODEL * p.b_intra
    move = (p.n - 1) / p.n * size / (bus * 1e3)
    est[_SIMPLE] = p.lib.launch_us + p.lib.hw_intra["nvls"][_SIMPLE] + move
    real[_SIMPLE] = est[_SIMPLE] + _nvls_fill(p, size)


def _pat_ag_rs(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """Fill the grids of PAT (NCCL 2.23+), a log-depth schedule for one GPU per node.

    tuning.cc latency ``8 + log2(nodes) x interLat / 3.5 + 2.8 x ranks`` and bus bandwidth x 0.75.
    """
    if p.gd != 1 or p.kd < 2 or p.lib.name != "nccl":
        return
    bus = _PAT_BW_FACTOR * min(_RING_EFFICIENCY * p.b_intra, p.egress)
    lat = _PAT_BASE_US + _ceil_log2(p.kd) * (_PAT_NET_US + p.hop_extra) / 3.5 + _PAT_PER_RANK_US * p.n
    move = (p.n - 1) / p.n * size / (bus * 1e3)
    est[_SIMPLE] = p.lib.launch_us + lat + move
    real[_SIMPLE] = est[_SIMPLE] + _net_fill(p, size)


def _collnet_ag_rs(p: _Params, size: np.ndarray, est: np.ndarray, real: np.ndarray) -> None:
    """Fill the grids of SHARP in the InfiniBand switches (CollNetDirect).

    One network round instead of (domains - 1) ring steps; the bandwidth bound is the ring's (each rank
    still receives (n-1)/n x S).
    """
    if not p.sharp or p.kd < 2:
        return
    bus = min(_RING_EFFICIENCY * p.b_intra, p.egress)
    lat = 2 * (min(1, p.gd - 1) * p.lib.hw_intra["collnet"][_SIMPLE] + (p.gd - 1) * 0.4) + (
        p.lib.hw_net["collnet"][_SIMPLE] + p.hop_extra)
    move = (p.n - 1) / p.n * size / (bus * 1e3)
    est[_SIMPLE] = p.lib.launch_us + lat + move
    real[_SIMPLE] = est[_SIMPLE] + _net_fill(p, size)


_AG_RS_BUILDERS = {"ring": _ring_ag_rs, "nvls": _nvls_ag_rs, "pat": _pat_ag_rs, "collnet": _collnet_ag_rs}


def _ag_rs(cluster: Cluster, collective: str, size_bytes: object, algorithm: str, chooser: str,
           protocol: str = "auto") -> CollectiveResult:
    size = as_size_bytes(size_bytes)
    names = _algorithm_names(collective, algorithm)
    if chooser not in ("nccl", "fastest"):
        raise ValueError(f"unknown chooser {chooser!r}; choose 'nccl' or 'fastest'")
    p = _params(cluster, protocol)
    if p.n <= 1:
        zeros = np.zeros_like(size)
        return _result(collective, size, zeros, np.full(size.size, "none"), np.full(size.size, "none"), p.n)
    shape = (len(names), len(PROTOCOLS), size.size)
    est, real = np.full(shape, np.inf), np.full(shape, np.inf)
    for i, name in enumerate(names):
        _AG_RS_BUILDERS[name](p, size, est[i], real[i])
    for proto, allowed in enumerate(p.allowed):
        if not allowed:  # NCCL_PROTO leaves this protocol out, as for all-reduce
            est[:, proto] = np.inf
            real[:, proto] = np.inf
    flat_est = est.reshape(-1, size.size)
    flat_real = np.maximum(real, p.host_floor).reshape(-1, size.size)  # -g N: at least the host's issue time
    best = np.argmin(flat_est if chooser == "nccl" else flat_real, axis=0)
    time = flat_real[best, np.arange(size.size)]
    algos = np.array(names)[best // len(PROTOCOLS)]
    protos = np.array(PROTOCOLS)[best % len(PROTOCOLS)]
    return _result(collective, size, time, algos, protos, p.n)


def _algorithm_names(collective: str, algorithm: str) -> tuple[str, ...]:
    known = COLLECTIVE_ALGORITHMS[collective]
    return _algorithm_choices(algorithm, known, known, f" for {collective}")


@expects(size_bytes="B")
def all_gather(cluster: Cluster, size_bytes: object, algorithm: str = "auto", *, protocol: str = "auto",
               chooser: str = "nccl") -> CollectiveResult:
    r"""Predict the all-gather time per message size (S = the whole gathered array, as nccl-tests).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    size_bytes : object
        Sizes S of the gathered array, B (every rank holds S/n of it).
    algorithm : str
        ``"auto"`` or one of ``ring``, ``nvls``, ``pat``, ``collnet``; a forced algorithm the cluster
        cannot run gives ``inf``.
    chooser : str
        ``"nccl"`` (NCCL's tuner pick) or ``"fastest"``.
    protocol : str
        ``"auto"`` or a protocol forced as ``NCCL_PROTO`` does (``LL``, ``LL128``, ``Simple``).

    Returns
    -------
    CollectiveResult
        Times in µs, algbw = S/t and busbw = algbw (n-1)/n in GB/s, algorithm and protocol per size.

    Notes
    -----
    .. math::

        t = t_\text{launch} + \text{lat}(a, p) + \text{fill} + \frac{n-1}{n}\,\frac{S}{B_\text{bus}(a, p)}

    Ring latency :math:`\text{base} + (n-k)\,\text{intraLat} + (k-1)\,\text{interLat}` over k NVLink
    domains (NCCL tuning.cc, ``nInterSteps``), bus bandwidth :math:`\min(0.97 B_\text{NVLink},
    \text{domain egress})` (LL: half, capped by ``llMaxBw``; LL128 x0.92); NVLS, PAT and CollNet as in
    the module docstring. Measured check: 8 x H200 all-gather busbw 361.4 GB/s at 16 GiB
    (ml-engineering, ``network/README.md``).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.units import Q_
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> result = all_gather(cluster, Q_(16, "GiB"))
    >>> f"{result.busbw_gbps[0]:.0f} GB/s", str(result.algorithm[0])
    ('359 GB/s', 'ring')
    """
    return _ag_rs(cluster, "all_gather", size_bytes, algorithm, chooser, protocol)


@expects(size_bytes="B")
def reduce_scatter(cluster: Cluster, size_bytes: object, algorithm: str = "auto", *, protocol: str = "auto",
                   chooser: str = "nccl") -> CollectiveResult:
    r"""Predict the reduce-scatter time (S = the whole array before scattering, as nccl-tests).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    size_bytes : object
        Sizes S of the array before scattering, B.
    algorithm : str
        ``"auto"`` or one of ``ring``, ``nvls``, ``pat``, ``collnet``.
    chooser : str
        ``"nccl"`` or ``"fastest"``.
    protocol : str
        ``"auto"`` or a forced protocol (``NCCL_PROTO``).

    Returns
    -------
    CollectiveResult
        Times in µs, algbw and busbw in GB/s, algorithm and protocol per size.

    Notes
    -----
    The cost of :func:`all_gather` (NCCL's model runs the reduction at link speed):

    .. math:: t = t_\text{launch} + \text{lat}(a, p) + \text{fill} + \frac{n-1}{n}\,\frac{S}{B_\text{bus}(a, p)}

    Measured 8 x H200 at 16 GiB: reduce-scatter 362.9 GB/s busbw against all-gather 361.4
    (ml-engineering, ``network/README.md``).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> r = reduce_scatter(cluster, [2**28])
    >>> f"{r.time_us[0]:.0f} us", str(r.algorithm[0])
    ('819 us', 'ring')
    """
    return _ag_rs(cluster, "reduce_scatter", size_bytes, algorithm, chooser, protocol)


# ------------------------------------------------------------------------------------------------
# Point to point: all-to-all and send/recv
# ------------------------------------------------------------------------------------------------


def _p2p_protocols(p: _Params, chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return, per size, the protocol index and whether LL is used.

    NCCL sends chunks up to 16 KiB per peer with LL, larger ones with Simple (``NCCL_P2P_LL_THRESHOLD``).
    """
    use_ll = chunk <= _P2P_LL_THRESHOLD_BYTES
    return np.where(use_ll, _LL, _SIMPLE), use_ll


@expects(size_bytes="B")
def alltoall(cluster: Cluster, size_bytes: object, algorithm: str = "auto") -> CollectiveResult:
    r"""Predict the all-to-all time (S = each rank's send buffer, S/n to every peer, as nccl-tests).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    size_bytes : object
        Send buffer S per rank, B.
    algorithm : str
        ``"auto"`` or ``"p2p"`` (NCCL runs all-to-all as grouped point-to-point operations).

    Returns
    -------
    CollectiveResult
        Times in µs, algbw and busbw = algbw (n-1)/n in GB/s, protocol per size.

    Notes
    -----
    .. math::

        t = t_\text{launch} + \text{base}_p + \lceil (n-1)/8 \rceil\,\text{hop}_p + \text{fill}
            + \max\Big(\frac{(g-1)\,S/n}{B_\text{NVLink}},\; \frac{(n-g)\,S/n}{B_\text{NIC per GPU}}\Big)

    with g the GPUs of one NVLink domain. The NVLink and network parts run at once; the network part is
    limited by the GPU's own NIC share, because an all-to-all "cannot aggregate the bandwidth of
    multiple NICs" (sjeaugey, nccl-tests issue 267). Hence busbw tends to k/(k-1) x the NIC rate per GPU
    on k nodes (sjeaugey, nccl-tests issue 130). Protocol LL for chunks up to 16 KiB per peer, Simple
    above (``NCCL_P2P_LL_THRESHOLD``); 8 peers per round (calibrated, :data:`_P2P_PEERS_PER_ROUND`).

    Examples
    --------
    About 2 x 48 GB/s per GPU on two nodes:

    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> f"{alltoall(cluster, [2**30]).busbw_gbps[0]:.0f} GB/s"
    '88 GB/s'
    """
    _algorithm_names("alltoall", algorithm)
    size = as_size_bytes(size_bytes)
    cluster = cluster.seen_by("alltoall")  # a fabric topology: all-to-all is never rail-local
    p = _params(cluster)
    if p.n <= 1:
        zeros = np.zeros_like(size)
        return _result("alltoall", size, zeros, np.full(size.size, "none"), np.full(size.size, "none"), p.n)
    chunk = size / p.n
    proto, use_ll = _p2p_protocols(p, chunk)
    rounds = math.ceil((p.n - 1) / _P2P_PEERS_PER_ROUND)
    across = p.kd > 1
    hop = np.where(use_ll, (p.lib.hw_net["ring"][_LL] + p.hop_extra) if across else p.lib.hw_intra["ring"][_LL],
                   (p.lib.hw_net["ring"][_SIMPLE] + p.hop_extra) if across else p.lib.hw_intra["ring"][_SIMPLE])
    base = np.where(use_ll, p.lib.base["ring"][_LL], p.lib.base["ring"][_SIMPLE])
    scale = np.where(use_ll, 0.5, 1.0)  # LL carries 8 bytes of data per 16 on the wire
    intra_bw = _RING_EFFICIENCY * p.b_intra * scale
    intra = (p.gd - 1) * chunk / (intra_bw * 1e3)
    if across:
        inter = (p.n - p.gd) * chunk / (p.nic_gpu * scale * 1e3)
        fill = np.where(use_ll, 0.0, 2 * _net_fill(p, size))
    else:
        inter = np.zeros_like(size)
        fill = np.zeros_like(size)
    time = np.maximum(p.lib.launch_us + base + rounds * hop + fill + np.maximum(intra, inter), p.host_floor)
    protos = np.array(PROTOCOLS)[proto]
    return _result("alltoall", size, time, np.full(size.size, "p2p"), protos, p.n)


@expects(size_bytes="B")
def sendrecv(cluster: Cluster, size_bytes: object, algorithm: str = "auto", *,
             across_domains: bool | None = None) -> CollectiveResult:
    r"""Predict the time of one send/recv of S bytes between neighbours (nccl-tests ``sendrecv_perf``).

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    size_bytes : object
        Bytes S one rank sends, B.
    algorithm : str
        ``"auto"`` or ``"p2p"``.
    across_domains : bool or None
        Whether the pair crosses the network; None: whether the cluster spans more than one NVLink
        domain (nccl-tests pairs rank i with i+1 around a ring, and some pair then crosses it).

    Returns
    -------
    CollectiveResult
        Times in µs, algbw = busbw = S/t in GB/s.

    Notes
    -----
    .. math:: t = t_\text{launch} + \text{base}_p + \text{hop}_p + \text{fill} + \frac{S}{B}

    with B = 0.97 x NVLink per GPU inside a domain, or the NIC rate per GPU across domains; LL (half
    rate) up to 16 KiB, Simple above (NCCL ``NCCL_P2P_LL_THRESHOLD``).

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> f"{sendrecv(cluster, [2**30]).busbw_gbps[0]:.0f} GB/s"
    '48 GB/s'
    """
    _algorithm_names("sendrecv", algorithm)
    size = as_size_bytes(size_bytes)
    p = _params(cluster)
    if p.n <= 1:
        zeros = np.zeros_like(size)
        return _result("sendrecv", size, zeros, np.full(size.size, "none"), np.full(size.size, "none"), p.n)
    across = p.kd > 1 if across_domains is None else bool(across_domains)
    proto, use_ll = _p2p_protocols(p, size)
    scale = np.where(use_ll, 0.5, 1.0)
    if across:
        hop = np.where(use_ll, p.lib.hw_net["ring"][_LL], p.lib.hw_net["ring"][_SIMPLE]) + p.hop_extra
        bw = p.nic_gpu * scale
        fill = np.where(use_ll, 0.0, _net_fill(p, size))
    else:
        hop = np.where(use_ll, p.lib.hw_intra["ring"][_LL], p.lib.hw_intra["ring"][_SIMPLE])
        bw = _RING_EFFICIENCY * p.b_intra * scale
        fill = np.zeros_like(size)
    base = np.where(use_ll, p.lib.base["ring"][_LL], p.lib.base["ring"][_SIMPLE])
    time = np.maximum(p.lib.launch_us + base + hop + fill + size / (bw * 1e3), p.host_floor)
    return _result("sendrecv", size, time, np.full(size.size, "p2p"), np.array(PROTOCOLS)[proto], p.n)


# ------------------------------------------------------------------------------------------------
# One entry point for every collective
# ------------------------------------------------------------------------------------------------


@expects(size_bytes="B")
def collective(cluster: Cluster, name: str, size_bytes: object, algorithm: str = "auto", *,
               chooser: str = "nccl", protocol: str = "auto") -> CollectiveResult:
    """Predict any collective by name, as a :class:`CollectiveResult`.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    name : str
        ``all_reduce``, ``all_gather``, ``reduce_scatter``, ``alltoall`` or ``sendrecv`` (nccl-tests
        program names work too).
    size_bytes : object
        Sizes in B, with nccl-tests' convention for the collective (see the module docstring).
    algorithm : str
        ``"auto"`` or an algorithm of that collective.
    chooser : str
        ``"nccl"`` or ``"fastest"``.
    protocol : str
        ``"auto"`` or a forced protocol (``NCCL_PROTO``) for all-reduce, all-gather and reduce-scatter.

    Returns
    -------
    CollectiveResult
        Times in µs, algbw and busbw in GB/s (nccl-tests' factor for the collective).

    Raises
    ------
    ValueError
        A protocol forced on all-to-all or send/recv (their protocol follows the chunk size).

    Notes
    -----
    Dispatches to :func:`~interconnect.hardware.collectives.model.allreduce`, :func:`all_gather`,
    :func:`reduce_scatter`, :func:`alltoall` or :func:`sendrecv`; their formulas are there.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> [f"{collective(cluster, c, 2**30).busbw_gbps[0]:.0f} GB/s" for c in ("all_reduce_perf", "all_gather")]
    ['462 GB/s', '355 GB/s']
    """
    key = normalize_collective(name)
    if key == "all_reduce":
        result = allreduce(cluster, size_bytes, algorithm, chooser=chooser, protocol=protocol)
        return CollectiveResult(result.size_bytes, result.time_us, result.algbw_gbps, result.busbw_gbps,
                                result.algorithm, result.protocol, result.ranks, collective="all_reduce")
    if key in ("all_gather", "reduce_scatter"):
        return _ag_rs(cluster, key, size_bytes, algorithm, chooser, protocol)
    if str(protocol).strip().lower() not in ("", "auto"):
        raise ValueError(f"the model forces a protocol for all-reduce, all-gather and reduce-scatter only, not {key}")
    if key == "alltoall":
        return alltoall(cluster, size_bytes, algorithm)
    return sendrecv(cluster, size_bytes, algorithm)


@expects(size_bytes="B")
def collective_by_algorithm(cluster: Cluster, name: str, size_bytes: object) -> dict[str, np.ndarray]:
    """Predict the time of each algorithm of a collective, with the protocol NCCL's tuner would pick.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    name : str
        The collective (any spelling :func:`normalize_collective` accepts).
    size_bytes : object
        Sizes in B.

    Returns
    -------
    dict of str to numpy.ndarray
        Time in µs per size for each algorithm; ``inf`` where unavailable.

    Notes
    -----
    The formulas of :func:`collective`, one algorithm at a time.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=1, nodes=16)
    >>> times = collective_by_algorithm(cluster, "all_gather", [2**20])
    >>> sorted(k for k, v in times.items() if np.isfinite(v[0]))
    ['pat', 'ring']
    """
    key = normalize_collective(name)
    if key == "all_reduce":
        return allreduce_by_algorithm(cluster, size_bytes)
    return {algo: collective(cluster, key, size_bytes, algo).time_us for algo in COLLECTIVE_ALGORITHMS[key]}


@expects(size_bytes="B", time_us="us")
def compare_collective_sweep(cluster: Cluster, name: str, size_bytes: object, time_us: object,
                             algorithm: str = "auto", protocol: str = "auto") -> Comparison:
    """Compare the model with a measured sweep of any collective.

    Parameters
    ----------
    cluster : Cluster
        The cluster the sweep was measured on.
    name : str
        The collective; all-reduce goes to
        :func:`~interconnect.hardware.collectives.measurements.compare_sweep`.
    size_bytes : object
        Measured sizes, B.
    time_us : object
        Measured times, µs.
    algorithm : str
        ``"auto"`` or a forced algorithm.
    protocol : str
        ``"auto"`` or a forced protocol (see :func:`collective`).

    Returns
    -------
    Comparison
        Model and measured time (µs) and busbw (GB/s) per kept row, and a ``t = a + S/B`` fit.

    Raises
    ------
    ValueError
        When sizes and times differ in length or no row has a positive size and time.

    Notes
    -----
    busbw on both sides uses nccl-tests' factor for the collective with the cluster's rank count
    (nccl-tests ``doc/PERFORMANCE.md``).

    Examples
    --------
    ml-engineering ``network/README.md``: 8 x H200 all-gather 361.4 GB/s busbw at 16 GiB:

    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h200", gpus_per_node=8, nodes=1)
    >>> c = compare_collective_sweep(cluster, "all_gather", [2**34], [2**34 * 7 / 8 / 361.4e3])
    >>> round(float(c.time_ratio[0]), 2)
    1.01
    """
    key = normalize_collective(name)
    if key == "all_reduce":
        return compare_sweep(cluster, size_bytes, time_us, algorithm, protocol)
    size = as_size_bytes(size_bytes)
    time = np.atleast_1d(np.asarray(time_us, dtype=float))
    if size.shape != time.shape:
        raise ValueError("size_bytes and time_us must have the same length")
    keep = np.isfinite(time) & (time > 0) & np.isfinite(size) & (size > 0)
    size, time = size[keep], time[keep]
    if size.size == 0:
        raise ValueError("no rows with a positive size and time to compare")
    model = collective(cluster, key, size, algorithm, protocol=protocol)
    factor = busbw_factor(key, max(cluster.ranks, 1))
    return Comparison(
        size_bytes=size,
        measured_time_us=time,
        model_time_us=model.time_us,
        measured_busbw_gbps=size / (time * 1e3) * factor,
        model_busbw_gbps=model.busbw_gbps,
        algorithm=model.algorithm,
        protocol=model.protocol,
        ranks=cluster.ranks,
        fit=fit_alpha_beta(size, time) if size.size >= 2 else None,
    )


# ------------------------------------------------------------------------------------------------
# Any collective by name, broadcast included
# ------------------------------------------------------------------------------------------------

_collective_by_name = collective  # collective_time_us's argument named ``collective`` hides the function


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
    :mod:`~interconnect.hardware.collectives.others` with NCCL's pick. Broadcast is a pipelined ring, one
    pass of n-1 steps, with the ring all-reduce's per-step rules (NCCL tuning.cc) and the fastest protocol:

    .. math:: t = t_\text{launch} + \text{base} + (n-k)\,\text{intraLat} + (k-1)\,\text{interLat}
              + \frac{S}{B_\text{ring}}

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
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
        return np.maximum(real.min(axis=0), p.host_floor)
    try:
        return _collective_by_name(cluster, key, size).time_us
    except ValueError:
        raise ValueError(f"unknown collective {collective!r}; known: {', '.join(COLLECTIVES)}") from None
