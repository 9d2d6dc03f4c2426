"""Per-step pieces every collective model shares: network latency, pipeline fills, the ring's passes.

(``interconnect.hardware.collectives.steps``.) Built on :mod:`~interconnect.hardware.collectives.params`
only; the all-reduce model (``model``) and the other collectives (``others``) both time their rings
and network hops with these functions.
"""

from __future__ import annotations

import math

import numpy as np

from interconnect.hardware.collectives.params import (
    _CHUNK_BYTES,
    _LL,
    _LL128,
    _LL_MAX_BW_MANY_NODES,
    _LL_MAX_BW_ONE_NODE,
    _LL_MAX_BW_TWO_NODES,
    _NET_OVERHEAD_US,
    _NVLS_FILL_BYTES,
    _RING_EFFICIENCY,
    _RING_PLATEAU,
    _SIMPLE,
    _TREE_CHANNELS,
    _Params,
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




def _ring_exit_relief(p: _Params) -> float:
    """Return how much faster a multi-domain ring may run than its GPUs' scale-up rate allows, g/(g-1) or 1.

    NCCL's ring search (``src/graph/search.cc``, "Search Patterns": across nodes a ring channel is
    ``NET n -> GPU a -> GPU b -> .. -> GPU x -> NET n``, the network device taken in turn per channel)
    charges a channel's rate only to the links its path crosses: of a domain's g GPUs, g-1 send to the
    next over the scale-up fabric and the last sends to the network device. With at least one device per
    GPU every GPU is the last one on 1/g of the channels, so each sends (g-1)/g of the ring's traffic over
    the scale-up fabric and the ring's bus rate may reach g/(g-1) of the per-GPU scale-up rate. With fewer
    devices than GPUs some GPU is never last and carries all of its traffic in the domain: 1. On one
    domain the ring never leaves the fabric: 1.
    """
    if p.kd <= 1 or p.gd <= 1 or p.nic_devices < p.gd:
        return 1.0
    return p.gd / (p.gd - 1)


def _ring_buses(p: _Params) -> tuple[float, float, float]:
    """Return a ring's bus bandwidth per protocol (LL, LL128, Simple), GB/s.

    The slowest link of the ring, halved for LL (and capped) and x0.92 for LL128 where NCCL allows it
    (tuning.cc).
    """
    bus_simple = min(_RING_EFFICIENCY * p.b_intra * _ring_exit_relief(p), p.egress)
    return (min(_ll_max_bw(p), 0.5 * bus_simple), 0.92 * bus_simple if _ll128_allowed(p) else 0.0, bus_simple)


def _ring_passes(p: _Params, size: np.ndarray, passes: int, volume: float, est: np.ndarray,
                 real: np.ndarray, *, plateau_charged: bool = True) -> None:
    """Fill the estimate and real grids of a ring of ``passes`` trips around the n ranks.

    Two passes for all-reduce (reduce-scatter then all-gather), one for all-gather, reduce-scatter and
    broadcast; each rank moves ``volume`` x S. tuning.cc: ``nsteps = passes·(n-1)`` steps, of which
    ``nInter = passes·(k-1)`` cross the network; latency
    ``base + (nsteps - nInter)·max(intraLat, netOverhead) + nInter·interLat``, the network step from
    :func:`_net_latency` (real and tuner views). The tuner multiplies a multi-node Simple ring
    all-reduce's latency by 1.4 (``plateau_charged``: NCCL's ``ncclTopoGetAlgoTime`` applies it to
    all-reduce only, so all-gather and reduce-scatter pass False); the model's real time adds the Simple
    pipeline start-up once per network pass over TCP-class transports only
    (:class:`~interconnect.hardware.cluster.FabricModel`).
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
        # NCCL's tuner multiplies a multi-node Simple ring all-reduce's latency by 1.4 ("plateau effect").
        plateau = _RING_PLATEAU if (plateau_charged and proto == _SIMPLE and p.kd > 1) else 1.0
        est[proto] = p.lib.launch_us + (lat + ninter * inter_tuner) * plateau + move
