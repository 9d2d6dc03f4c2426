r"""RL weight sync: how long the trainer takes to hand new weights to the generators, and whether it hides.

In reinforcement learning of LLMs the generators (inference engines producing rollouts) and the trainer
are often separate GPUs, or separate sites. After every optimiser step (or every few) the trainer's new
weights must reach every generator. This module is the arithmetic of that hand-over, in four parts:

1. **Payload** (:func:`payload_bytes`): what one generator replica must receive.

   .. math::
      P_\text{full} = N\,b, \qquad
      P_\text{sparse} = \min\!\left(N f \left(b + \tfrac{i}{8}\right),\ N b\right)

   with :math:`N` parameters, :math:`b` bytes per value (bf16 2, fp8 1), :math:`f` the fraction of
   values sent (``delta``: the bytes that changed since the last sync, measured at about 1-3 % per
   step in bf16 RL runs, verl PR 6974; ``topk``: the share kept) and :math:`i` index bits per value
   sent (32 for a plain position). A sparse payload never costs more than the dense one: a sender
   would send the dense one instead.

2. **Path** (:func:`path_time_s`): one hop of bandwidth :math:`B` and latency :math:`\alpha`, as a
   pipelined broadcast tree or a fan-out from the trainer to :math:`n` receivers:

   .. math::
      t_\text{tree} = \frac{P}{B} + \lceil \log_2 (n + 1) \rceil\,\alpha, \qquad
      t_\text{fan-out} = \frac{n P}{B} + \alpha

   The tree forwards chunks as they arrive, so each byte crosses one link at a time and the depth adds
   only latency (NCCL's pipelined broadcast; Moonshot's checkpoint-engine reports 16 and 256 receiving
   GPUs within 12 % of each other). The fan-out shares the trainer's egress among all receivers
   (OpenRLHF issue 533: "worker0 network bandwidth becomes the bottleneck").

   A **staging rate** :math:`S` caps the wire: gathering the shards, casting, bucketing and loading
   into the inference engine run in a pipeline with the transfer, so the slower of the two sets the pace
   (:math:`P/\min(B, S)`). Inside a site the software path, not the wire, is usually the limit (verl
   issue 7060: 23.5 s of a 24 s sync is assembly and bucketing, 0.5-1.8 s waiting on the wire).

3. **Route** (:func:`sync_time_s`): inside a node (NVLink), inside a site (the cluster's NICs), or across
   a WAN then a tree inside the remote site. The WAN hop costs a round trip (request and
   acknowledgement), the in-site hops a network hop each; the stages pipeline, so the slowest bandwidth
   sets the pace and the latencies add.

4. **Hiding** (:func:`hiding`): generation *paused* while the weights move costs the whole sync time
   each step; syncing in the *background* costs only what is left over (:math:`\max(0, t_s - t_g)`)
   plus the swap itself, and the generators then run on weights :math:`\lceil t_s / t_g \rceil` steps
   old (at least 1). The sync hides as long as :math:`t_s \le t_g`.

Units are in the names: ``_bytes``, ``_bytes_per_s``, ``_s``. Functions broadcast over numpy arrays.
No file is read here and nothing is drawn; the published measurements the tests compare against are in
``interconnect/data/weight_sync.toml``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.units import expects

__all__ = [
    "BYTES_PER_VALUE",
    "MODES",
    "ROUTES",
    "DELIVERIES",
    "Hiding",
    "WeightSyncError",
    "WeightSyncResult",
    "WeightSyncScenario",
    "evaluate_weight_sync",
    "hiding",
    "path_time_s",
    "payload_bytes",
    "site_link",
    "sync_time_s",
    "tree_depth",
]

#: Bytes per value of the precisions a generator is usually served in.
BYTES_PER_VALUE = {"fp32": 4.0, "bf16": 2.0, "fp8": 1.0}
#: What is sent: every value, the values that changed since the last sync, or the top-k share.
MODES = ("full", "delta", "topk")
#: How the receivers are reached: a pipelined broadcast tree, or the trainer sending to each in turn.
DELIVERIES = ("tree", "fanout")
#: Where the generators are: the trainer's own node, another node of its site, or another site.
ROUTES = ("node", "site", "wan")
#: The scenario field holding each route's own link rate (what :func:`sync_time_sweep` varies).
ROUTE_LINKS = {"node": "nvlink_bytes_per_s", "site": "site_bytes_per_s", "wan": "wan_bytes_per_s"}


class WeightSyncError(ValueError):
    """An input the model cannot use (negative sizes, a fraction outside 0..1, an unknown mode)."""


@expects(bytes_per_value="B")
def payload_bytes(params, bytes_per_value, mode: str = "full", fraction=1.0, index_bits=32.0):
    r"""Bytes one generator replica receives per sync.

    Parameters
    ----------
    params : float or array
        Model parameters :math:`N`.
    bytes_per_value : float or array
        :math:`b`: 2 for bf16, 1 for fp8.
    mode : {"full", "delta", "topk"}
        ``full`` sends :math:`N b`; ``delta`` and ``topk`` send :math:`N f (b + i/8)`, capped at :math:`N b`.
    fraction : float or array
        :math:`f`, the share of values sent (ignored for ``full``).
    index_bits : float or array
        :math:`i`, bits of position per value sent (ignored for ``full``).

    Examples
    --------
    >>> f"{payload_bytes(70e9, 2) / 1e9:.0f} GB"
    '140 GB'
    >>> f"{payload_bytes(72.7e9, 2, 'delta', 0.021, 32) / 1e9:.2f} GB"  # verl issue 7060: 8.6 GB measured
    '9.16 GB'
    """
    if mode not in MODES:
        raise WeightSyncError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    n, b = np.asarray(params, dtype=float), np.asarray(bytes_per_value, dtype=float)
    if np.any(n < 0) or np.any(b <= 0):
        raise WeightSyncError("parameters must be >= 0 and bytes per value > 0")
    full = n * b
    if mode == "full":
        return full
    f, i = np.asarray(fraction, dtype=float), np.asarray(index_bits, dtype=float)
    if np.any((f < 0) | (f > 1)):
        raise WeightSyncError("the fraction sent must lie between 0 and 1")
    if np.any(i < 0):
        raise WeightSyncError("index bits must be >= 0")
    return np.minimum(n * f * (b + i / 8.0), full)


def tree_depth(receivers):
    r"""Hops from the trainer to the farthest receiver of a binary broadcast tree: :math:`\lceil\log_2(n+1)\rceil`.

    >>> [int(tree_depth(n)) for n in (1, 3, 7, 8, 63)]
    [1, 2, 3, 4, 6]
    """
    n = np.asarray(receivers, dtype=float)
    return np.ceil(np.log2(np.maximum(n, 0.0) + 1.0))


@expects(link_bytes_per_s="B/s", latency_s="s", staging_bytes_per_s="B/s")
def path_time_s(payload, receivers, link_bytes_per_s, latency_s, topology: str = "tree",
                staging_bytes_per_s=math.inf):
    r"""Time to deliver ``payload`` bytes to each of ``receivers`` over links of one kind.

    ``tree``: :math:`P/\min(B,S) + \lceil\log_2(n+1)\rceil\,\alpha`;
    ``fanout``: :math:`n P/B` (the trainer's egress shared), never faster than :math:`P/S`, plus :math:`\alpha`.
    Zero receivers take no time.

    >>> f"{float(path_time_s(140e9, 8, 48e9, 10e-6)):.2f} s"
    '2.92 s'
    >>> f"{float(path_time_s(140e9, 8, 48e9, 10e-6, 'fanout')):.1f} s"
    '23.3 s'
    """
    if topology not in DELIVERIES:
        raise WeightSyncError(f"topology must be one of {', '.join(DELIVERIES)}, got {topology!r}")
    p, n = np.asarray(payload, dtype=float), np.asarray(receivers, dtype=float)
    bw, lat = np.asarray(link_bytes_per_s, dtype=float), np.asarray(latency_s, dtype=float)
    staging = np.asarray(staging_bytes_per_s, dtype=float)
    if np.any(bw <= 0) or np.any(staging <= 0) or np.any(lat < 0) or np.any(n < 0):
        raise WeightSyncError("bandwidths must be > 0, latency and receivers >= 0")
    if topology == "tree":
        t = p / np.minimum(bw, staging) + tree_depth(n) * lat
    else:
        t = np.maximum(n * p / bw, p / staging) + lat
    return np.where(n > 0, t, 0.0)


@dataclass(frozen=True)
class WeightSyncScenario:
    """One trainer-to-generators hand-over, in plain numbers with units in their names.

    ``route`` picks the path: ``node`` (the generators are GPUs of the trainer's node; ``receivers`` GPUs
    over NVLink), ``site`` (``receivers`` generator nodes over the site's network) or ``wan`` (one WAN hop
    to the remote site, then a tree over its ``receivers`` nodes). ``staging_bytes_per_s`` is the software
    path's rate (infinite: the wire alone).
    """

    params: float
    bytes_per_value: float = 2.0
    mode: str = "full"
    fraction: float = 0.02
    index_bits: float = 32.0
    route: str = "site"
    receivers: int = 8
    topology: str = "tree"
    nvlink_bytes_per_s: float = 450e9
    nvlink_latency_s: float = 3e-6
    site_bytes_per_s: float = 384e9
    site_latency_s: float = 10e-6
    wan_bytes_per_s: float = 12.5e9
    wan_rtt_s: float = 0.02
    staging_bytes_per_s: float = math.inf
    generation_s: float = 60.0
    background: bool = True
    swap_s: float = 0.0

    def __post_init__(self) -> None:
        if self.route not in ROUTES:
            raise WeightSyncError(f"route must be one of {', '.join(ROUTES)}, got {self.route!r}")
        if self.receivers < 1:
            raise WeightSyncError(f"receivers must be at least 1, got {self.receivers}")
        if not self.generation_s > 0 or self.swap_s < 0:
            raise WeightSyncError("generation time must be > 0 and the swap time >= 0")


@dataclass(frozen=True)
class Hiding:
    """What a sync of ``sync_s`` costs a generation step of ``generation_s``."""

    exposed_s: float  #: generation time lost per step
    staleness_steps: int  #: how many optimiser steps old the generators' weights are (0: on-policy)
    generation_share: float  #: share of wall time the generators generate
    hidden: bool  #: whether the transfer fits behind one generation step


@expects(sync_s="s", generation_s="s", swap_s="s")
def hiding(sync_s: float, generation_s: float, background: bool, swap_s: float = 0.0) -> Hiding:
    r"""Paused: :math:`t_\text{exp} = t_s`, staleness 0. Background: :math:`t_\text{exp} = \max(0, t_s - t_g) +
    t_\text{swap}`, staleness :math:`\max(1, \lceil t_s/t_g \rceil)`. Share generating:
    :math:`t_g / (t_g + t_\text{exp})`.

    >>> hiding(9.4, 60.0, background=True, swap_s=1.1)
    Hiding(exposed_s=1.1, staleness_steps=1, generation_share=0.9819967266775778, hidden=True)
    >>> hiding(9.4, 60.0, background=False).exposed_s
    9.4
    """
    if background:
        exposed = max(0.0, sync_s - generation_s) + swap_s
        stale = max(1, math.ceil(sync_s / generation_s - 1e-12))
    else:
        exposed, stale = sync_s, 0
    return Hiding(exposed, stale, generation_s / (generation_s + exposed), sync_s <= generation_s)


@dataclass(frozen=True)
class WeightSyncResult:
    """A scenario's payload, its time on each stage, the total and what it costs generation."""

    scenario: WeightSyncScenario
    payload_bytes: float
    full_bytes: float
    bottleneck_bytes_per_s: float  #: the slowest stage (wire or staging) on the route
    latency_s: float  #: the latencies added along the route
    sync_s: float
    fanout_sync_s: float  #: the same route with the trainer sending to each receiver in turn
    tree_sync_s: float
    hiding: Hiding
    required_bytes_per_s: float  #: the slowest stage's rate that would just hide the sync behind generation

    @property
    def wire_bound(self) -> bool:
        """Whether the wire (not the staging rate) sets the pace."""
        return self.bottleneck_bytes_per_s < self.scenario.staging_bytes_per_s


def _route(s: WeightSyncScenario) -> tuple[float, float, int]:
    """The route's slowest wire bandwidth, its latency on a tree and the hop count of its last stage."""
    if s.route == "node":
        return s.nvlink_bytes_per_s, float(tree_depth(s.receivers)) * s.nvlink_latency_s, s.receivers
    if s.route == "site":
        return s.site_bytes_per_s, float(tree_depth(s.receivers)) * s.site_latency_s, s.receivers
    # wan: one WAN hop to the first remote node, then a tree over the rest of the remote site
    inner = float(tree_depth(s.receivers - 1)) * s.site_latency_s
    return min(s.wan_bytes_per_s, s.site_bytes_per_s), s.wan_rtt_s + inner, s.receivers


def sync_time_s(s: WeightSyncScenario, topology: str | None = None) -> float:
    """Time of one sync along the scenario's route, as a tree or a fan-out (default: the scenario's).

    A fan-out over the WAN shares the WAN link among the remote nodes (each gets its own copy).

    >>> round(sync_time_s(WeightSyncScenario(70e9, route="site", receivers=8)), 3)
    0.365
    """
    topology = topology or s.topology
    payload = float(payload_bytes(s.params, s.bytes_per_value, s.mode, s.fraction, s.index_bits))
    bw, latency, n = _route(s)
    if topology == "tree":
        return payload / min(bw, s.staging_bytes_per_s) + latency
    if topology != "fanout":
        raise WeightSyncError(f"topology must be one of {', '.join(DELIVERIES)}, got {topology!r}")
    hop = s.wan_rtt_s if s.route == "wan" else (s.nvlink_latency_s if s.route == "node" else s.site_latency_s)
    return float(path_time_s(payload, n, bw, hop, "fanout", s.staging_bytes_per_s))


def evaluate_weight_sync(s: WeightSyncScenario) -> WeightSyncResult:
    """Everything about one scenario.

    >>> r = evaluate_weight_sync(WeightSyncScenario(70e9, route="wan", receivers=8, wan_bytes_per_s=12.5e9))
    >>> f"{r.payload_bytes / 1e9:.0f} GB in {r.sync_s:.1f} s, hidden: {r.hiding.hidden}"
    '140 GB in 11.2 s, hidden: True'
    """
    payload = float(payload_bytes(s.params, s.bytes_per_value, s.mode, s.fraction, s.index_bits))
    full = float(payload_bytes(s.params, s.bytes_per_value))
    bw, latency, _ = _route(s)
    tree, fan = sync_time_s(s, "tree"), sync_time_s(s, "fanout")
    sync = tree if s.topology == "tree" else fan
    room = s.generation_s - latency
    required = payload / room if room > 0 else math.inf
    if s.topology == "fanout" and room > 0:
        required *= s.receivers
    return WeightSyncResult(s, payload, full, min(bw, s.staging_bytes_per_s), latency, sync, fan, tree,
                            hiding(sync, s.generation_s, s.background, s.swap_s), required)


def site_link(gpu: str = "h100-sxm", nics_per_node: int | None = None, nic: str | None = None) -> tuple[float, float,
                                                                                                         float]:
    """The site's links from the cluster model: (NVLink B/s per GPU, node egress B/s, network hop latency s).

    Reads the catalog through :func:`interconnect.hardware.cluster.resolve_cluster` (the GPU's reference
    server and NIC); the latency is the fabric's per-hop figure plus 5 µs for the NICs at both ends (an
    assumption; it matters only for payloads under a few MB).

    >>> nvlink, egress, hop = site_link("h100-sxm")
    >>> f"{nvlink / 1e9:.0f} GB/s NVLink, {egress / 1e9:.0f} GB/s per node, {hop * 1e6:.0f} us"
    '371 GB/s NVLink, 384 GB/s per node, 5 us'
    """
    from interconnect.hardware.cluster import fabric_model, resolve_cluster

    extra = {k: v for k, v in {"nics_per_node": nics_per_node, "nic": nic}.items() if v is not None}
    cluster, _ = resolve_cluster(gpu, nodes=2, **extra)
    fabric = fabric_model(cluster.fabric, cluster.generation)
    return (cluster.intra_bw_gbps * 1e9, cluster.node_egress_gbps * 1e9, (5.0 + fabric.hop_latency_us) * 1e-6)


@expects(rates_bytes_per_s="B/s")
def sync_time_sweep(s: WeightSyncScenario, rates_bytes_per_s, modes: tuple[str, ...] = MODES) -> dict[str, list]:
    """One sync's time on the scenario's route as its link rate varies, for each payload mode: the route's own
    link (the WAN for ``wan``, the NICs for ``site``, NVLink for ``node``) set to each rate in turn, the rest of
    the scenario kept.

    Returns ``{mode: [seconds per rate]}``.

    >>> s = WeightSyncScenario(70e9, route="wan", receivers=8, wan_bytes_per_s=12.5e9)
    >>> [round(t, 1) for t in sync_time_sweep(s, [12.5e9, 125e9], ("full",))["full"]]
    [11.2, 1.1]
    """
    from dataclasses import replace

    link = ROUTE_LINKS[s.route]
    return {mode: [sync_time_s(replace(s, mode=mode, **{link: float(rate)})) for rate in rates_bytes_per_s]
            for mode in modes}
