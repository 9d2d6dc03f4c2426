"""The arithmetic of training across sites: payload, sync time, exposed time, utilisation, bandwidth needed.

The WAN bandwidth a target utilisation needs is in closed form; everything is vectorised with numpy
broadcasting, so a curve of 64 bandwidths or model sizes is one call.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from interconnect.topics.crossdc.data import (
    EXCHANGES,
)
from interconnect.topics.crossdc.model.methods import CrossDCInputError, Method
from interconnect.units import expects

# --- the arithmetic -----------------------------------------------------------------------------


def payload_bytes(method: Method, params: object, fragments: object = 1) -> np.ndarray:
    r"""Compute the bytes one site contributes to one synchronisation (one fragment for Streaming DiLoCo).

    Parameters
    ----------
    method : Method
        The synchronisation method (bits per parameter).
    params : array_like
        Parameter counts N.
    fragments : array_like, default 1
        Fragments P per model.

    Returns
    -------
    numpy.ndarray
        Payload in B.

    Notes
    -----
    .. math:: S = \frac{N \, b}{8 \, P}

    with :math:`b` bits per parameter (:attr:`Method.bits_per_param`) and 8 bits per byte.

    Examples
    --------
    >>> from interconnect.topics.crossdc.model import make_method
    >>> f"{float(payload_bytes(make_method('diloco', bits=16), 1e9)) / 1e9} GB"
    '2.0 GB'
    """
    return np.asarray(params, dtype=float) * method.bits_per_param / 8 / np.asarray(fragments, dtype=float)


def wan_traffic(topology: str, sites: int, gpus_per_site: int = 1) -> tuple[float, int]:
    """Compute the bytes each site sends (and receives) per payload byte, and the latency-bound steps.

    Parameters
    ----------
    topology : {"ring", "hierarchical", "allgather"}
        How the sites exchange their payloads.
    sites : int
        M, the number of sites.
    gpus_per_site : int, default 1
        G, GPUs per site (the ring runs through all of them).

    Returns
    -------
    factor : float
        f, bytes on the WAN per payload byte (dimensionless).
    steps : int
        s, steps that each wait for one WAN hop.

    Notes
    -----
    * ``ring``: one ring through every GPU of every site (:math:`P = M G` ranks). Each ring edge that
      leaves a site carries :math:`f = 2(P-1)/P` of the payload, and each of the :math:`s = 2(P-1)`
      steps waits for the slowest edge, a WAN hop.
    * ``hierarchical``: reduce inside each site, all-reduce the sites' shards over a ring of
      :math:`M` sites, then share inside the site: :math:`f = 2(M-1)/M` in :math:`s = 2(M-1)` steps.
    * ``allgather``: every site receives every other site's payload, which cannot be summed on the
      way (sparse payloads with different indices): :math:`f = M-1` in :math:`s = M-1` steps.

    The ring's :math:`2(n-1)/n` is the all-reduce bus-bandwidth factor of nccl-tests
    (``nccl-tests-performance``); the step counts are the ring's, the composition is ours.

    Examples
    --------
    >>> wan_traffic("hierarchical", 2)
    (1.0, 2)
    >>> wan_traffic("ring", 2, 8)
    (1.875, 30)
    """
    if topology not in EXCHANGES:
        raise CrossDCInputError(f"unknown topology '{topology}'; choose one of {', '.join(EXCHANGES)}")
    if topology == "ring":
        ranks = sites * gpus_per_site
        return 2 * (ranks - 1) / ranks, 2 * (ranks - 1)
    if topology == "hierarchical":
        return 2 * (sites - 1) / sites, 2 * (sites - 1)
    return float(sites - 1), sites - 1


@expects(payload_bytes="B", wan_bytes_per_s="B/s", rtt_s="s", site_algbw_bytes_per_s="B/s")
def sync_time_s(
    payload_bytes: object,
    *,
    sites: int,
    wan_bytes_per_s: object,
    rtt_s: float,
    topology: str,
    gpus_per_site: int = 1,
    site_algbw_bytes_per_s: float = math.inf,
) -> np.ndarray:
    r"""Compute the time of one synchronisation across the sites (alpha-beta).

    Parameters
    ----------
    payload_bytes : array_like
        S, bytes per site per synchronisation, B.
    sites : int
        M, the number of sites.
    wan_bytes_per_s : array_like
        B_WAN, WAN bandwidth per site in each direction, B/s.
    rtt_s : float
        Round-trip time between sites, s.
    topology : {"ring", "hierarchical", "allgather"}
        How the sites exchange (:func:`wan_traffic`).
    gpus_per_site : int, default 1
        GPUs per site.
    site_algbw_bytes_per_s : float, default inf
        B_site, algbw of one all-reduce inside a site, B/s (``hierarchical`` only).

    Returns
    -------
    numpy.ndarray
        Time in s, broadcast over ``payload_bytes`` and ``wan_bytes_per_s``.

    Notes
    -----
    .. math:: T = s \, \frac{\mathrm{RTT}}{2} + \frac{f \, S}{B_{WAN}} + \frac{S}{B_{site}}

    with :math:`(f, s)` from :func:`wan_traffic`, one-way latency RTT/2 per step, and the last term
    only for ``hierarchical``. The alpha-beta (latency plus size over bandwidth) cost model is
    Hockney's (Parallel Computing 20(3), 1994, https://doi.org/10.1016/S0167-8191(06)80021-9).

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> f"{float(sync_time_s(2e9, sites=2, wan_bytes_per_s=1.25e9, rtt_s=0.02, topology='hierarchical')):.2f} s"
    '1.62 s'
    >>> t = sync_time_s(Q_(2, "GB"), sites=2, wan_bytes_per_s=Q_(10, "Gbit/s"), rtt_s=Q_(20, "ms"),
    ...                 topology="hierarchical")
    >>> f"{float(t):.2f} s"
    '1.62 s'
    """
    factor, steps = wan_traffic(topology, sites, gpus_per_site)
    payload = np.asarray(payload_bytes, dtype=float)
    time = steps * rtt_s / 2 + factor * payload / np.asarray(wan_bytes_per_s, dtype=float)
    if topology == "hierarchical" and math.isfinite(site_algbw_bytes_per_s):
        time = time + payload / site_algbw_bytes_per_s
    return time


def _window_and_floor(method: Method, step_s: object, layers: object, fragments: object,
                      backward_fraction: float) -> tuple[np.ndarray, np.ndarray]:
    """How long a sync may run hidden behind compute, and the share that stays exposed regardless.

    Data parallel and the DiLoCo family hide their exchange behind the backward pass of the step in
    which it starts (a layer's gradient or pseudo-gradient is ready once its backward is done); only
    the share of the layer finished last stays exposed (1/layers of the payload). Streaming DiLoCo
    also hides a fragment's exchange behind tau whole inner steps before the worker waits for it, and
    keeps no floor: its Table 4 (arXiv 2501.18512) behaves as if a fragment of a few strided layers
    hides entirely behind the backward pass (with a one-layer floor the model would ask 1.9x its 95 %
    figure at 100B).
    """
    step = np.asarray(step_s, dtype=float)
    window = (method.overlap_steps + backward_fraction) * step
    if method.streaming:
        floor = np.zeros_like(window)
    else:
        floor = np.asarray(fragments, dtype=float) / np.maximum(np.asarray(layers, dtype=float), 1.0)
        floor = np.minimum(floor, 1.0) + np.zeros_like(window)
    return window, floor


@expects(sync_s="s", step_s="s")
def exposed_time_s(
    sync_s: object,
    *,
    method: Method,
    step_s: object,
    layers: object,
    overlap: bool,
    backward_fraction: float,
    fragments: object | None = None,
) -> np.ndarray:
    r"""Compute the exposed communication per round of H inner steps (the time compute waits).

    Parameters
    ----------
    sync_s : array_like
        T, time of one synchronisation, s (:func:`sync_time_s`).
    method : Method
        The synchronisation method (H, tau, fragments).
    step_s : array_like
        t_step, time of one inner step, s.
    layers : array_like
        Transformer layers (the floor is one layer's share).
    overlap : bool
        Whether the exchange overlaps compute.
    backward_fraction : float
        The backward pass's share of a step (dimensionless).
    fragments : array_like, optional
        P, fragments per model; ``method.fragments_for(layers)`` by default.

    Returns
    -------
    numpy.ndarray
        Exposed time per round, s.

    Notes
    -----
    Without overlap every sync blocks: :math:`E = P \, T`. With overlap, each of the :math:`P`
    syncs hides behind a window :math:`W` (the backward share of a step, plus tau inner steps for
    Streaming DiLoCo) except a floor share :math:`\varphi` (the last layer's, when tau = 0), and
    the link cannot carry more than one round's syncs per round:

    .. math:: E = \max\bigl(P \max(T - W, \varphi T),\ P T - H t_{step},\ 0\bigr)

    Streaming DiLoCo's simulator overlaps reductions with the backward pass in the same way
    (``arxiv-streaming-diloco``, section 3.1); the closed form is ours.

    Examples
    --------
    >>> from interconnect.topics.crossdc.model import make_method
    >>> dp = make_method("dp")
    >>> f"{float(exposed_time_s(0.1, method=dp, step_s=0.1, layers=24, overlap=False, backward_fraction=2/3))} s"
    '0.1 s'
    >>> e = exposed_time_s(0.1, method=dp, step_s=0.1, layers=24, overlap=True, backward_fraction=2/3)
    >>> f"{float(e):.4f} s"  # 0.1 - 0.0667
    '0.0333 s'
    """
    sync = np.asarray(sync_s, dtype=float)
    frags = method.fragments_for(layers) if fragments is None else np.asarray(fragments, dtype=float)
    if not overlap:
        return frags * sync
    window, floor = _window_and_floor(method, step_s, layers, frags, backward_fraction)
    per_sync = np.maximum(sync - window, floor * sync)
    saturated = frags * sync - method.inner_steps * np.asarray(step_s, dtype=float)
    return np.maximum(np.maximum(frags * per_sync, saturated), 0.0)


@expects(compute_s="s", exposed_s="s")
def utilization(compute_s: object, exposed_s: object) -> np.ndarray:
    r"""Compute the utilisation: the share of wall-clock time the GPUs compute.

    Parameters
    ----------
    compute_s : array_like
        Compute per round, :math:`H t_{step}`, s.
    exposed_s : array_like
        E, exposed communication per round, s.

    Returns
    -------
    numpy.ndarray
        Utilisation U, a fraction in (0, 1].

    Notes
    -----
    .. math:: U = \frac{H \, t_{step}}{H \, t_{step} + E}

    Examples
    --------
    INTELLECT-1 (``arxiv-intellect-1``, Table 2): 100 inner steps take 38 min and the median
    all-reduce across the USA 103 s, so U = 2280 / 2383:

    >>> from interconnect.units import Q_
    >>> f"{float(utilization(38 * 60, 103)):.1%}"
    '95.7%'
    >>> f"{float(utilization(Q_(38, 'min'), Q_(103, 's'))):.1%}"
    '95.7%'
    """
    compute = np.asarray(compute_s, dtype=float)
    return compute / (compute + np.asarray(exposed_s, dtype=float))


@expects(payload_bytes="B", step_s="s", rtt_s="s", site_algbw_bytes_per_s="B/s")
def required_bandwidth(
    payload_bytes: object,
    *,
    target_utilization: float,
    method: Method,
    step_s: object,
    layers: object,
    overlap: bool,
    backward_fraction: float,
    sites: int,
    rtt_s: float,
    topology: str,
    gpus_per_site: int = 1,
    site_algbw_bytes_per_s: float = math.inf,
    fragments: object | None = None,
) -> np.ndarray:
    r"""Compute the WAN bandwidth that reaches a target compute utilisation.

    Parameters
    ----------
    payload_bytes : array_like
        S, bytes per site per synchronisation, B.
    target_utilization : float
        U, strictly between 0 and 1.
    method : Method
        The synchronisation method.
    step_s : array_like
        t_step, time of one inner step, s.
    layers : array_like
        Transformer layers.
    overlap : bool
        Whether the exchange overlaps compute.
    backward_fraction : float
        The backward pass's share of a step.
    sites : int
        M, the number of sites.
    rtt_s : float
        Round-trip time between sites, s.
    topology : {"ring", "hierarchical", "allgather"}
        How the sites exchange.
    gpus_per_site : int, default 1
        GPUs per site.
    site_algbw_bytes_per_s : float, default inf
        Algbw of one all-reduce inside a site, B/s (``hierarchical`` only).
    fragments : array_like, optional
        P, fragments per model.

    Returns
    -------
    numpy.ndarray
        Bandwidth per site in each direction, B/s; infinite when latency alone exceeds the budget.

    Raises
    ------
    CrossDCInputError
        When ``target_utilization`` is not strictly between 0 and 1.

    Notes
    -----
    Our inversion of :func:`exposed_time_s`. The target allows
    :math:`E^* = H t_{step} (1/U - 1)` of exposed time per round; the longest sync that fits is

    .. math::

        T_{max} = \begin{cases} E^*/P & \text{no overlap} \\
        \min\bigl(W + E^*/P,\ E^*/(P\varphi),\ (E^* + H t_{step})/P\bigr) & \text{overlap}
        \end{cases}

    and with :math:`T = \ell + f S / B` (latency and in-site time :math:`\ell`,
    :func:`sync_time_s`), :math:`B = f S / (T_{max} - \ell)`.

    Examples
    --------
    >>> from interconnect.topics.crossdc.model import make_method
    >>> diloco = make_method("diloco", inner_steps=100, bits=16)
    >>> b = required_bandwidth(2e9, target_utilization=0.95, method=diloco, step_s=0.1, layers=24,
    ...                        overlap=False, backward_fraction=2/3, sites=2, rtt_s=0.0, topology="hierarchical")
    >>> f"{float(b) * 8 / 1e9:.1f} Gbit/s"
    '30.4 Gbit/s'
    """
    if not 0 < target_utilization < 1:
        raise CrossDCInputError(f"target utilisation must lie between 0 and 1 (exclusive), got {target_utilization}")
    step = np.asarray(step_s, dtype=float)
    frags = method.fragments_for(layers) if fragments is None else np.asarray(fragments, dtype=float)
    budget = method.inner_steps * step * (1 / target_utilization - 1)
    if overlap:
        window, floor = _window_and_floor(method, step, layers, frags, backward_fraction)
        with np.errstate(divide="ignore"):
            by_floor = np.where(floor > 0, budget / (frags * np.where(floor > 0, floor, 1.0)), np.inf)
        longest = np.minimum(np.minimum(window + budget / frags, by_floor),
                             (budget + method.inner_steps * step) / frags)
    else:
        longest = budget / frags
    factor, steps = wan_traffic(topology, sites, gpus_per_site)
    payload = np.asarray(payload_bytes, dtype=float)
    fixed = steps * rtt_s / 2 + np.zeros_like(payload)
    if topology == "hierarchical" and math.isfinite(site_algbw_bytes_per_s):
        fixed = fixed + payload / site_algbw_bytes_per_s
    slack = longest - fixed
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(slack > 0, factor * payload / np.where(slack > 0, slack, 1.0), np.inf)


@expects(peak_flops_per_s="FLOP/s")
def step_time_s(params: float, tokens_per_step: float, gpus_per_site: int, peak_flops_per_s: float, mfu: float,
                flops_per_param_per_token: float = 6.0) -> float:
    r"""Compute the time of one inner step of one site, from the model size and the site's compute.

    Parameters
    ----------
    params : float
        N, parameters.
    tokens_per_step : float
        D, tokens per step per site.
    gpus_per_site : int
        G, GPUs per site.
    peak_flops_per_s : float
        F, peak dense BF16 rate per GPU, FLOP/s.
    mfu : float
        Model FLOPs utilisation, in (0, 1].
    flops_per_param_per_token : float, default 6.0
        Training FLOPs per parameter per token.

    Returns
    -------
    float
        Step time in s.

    Raises
    ------
    CrossDCInputError
        For a value out of range.

    Notes
    -----
    .. math:: t_{step} = \frac{6 \, N \, D}{G \, F \, \mathrm{MFU}}

    Six FLOPs per parameter per token for a forward and backward pass: Kaplan et al.,
    ``arxiv-kaplan-scaling``, section 2.1.

    Examples
    --------
    Eight H100 (989.4 TFLOP/s dense BF16 each) at 40 % MFU:

    >>> from interconnect.units import Q_
    >>> f"{step_time_s(1e9, 1e6, 8, 989.4e12, 0.4):.3f} s"
    '1.895 s'
    >>> f"{step_time_s(1e9, 1e6, 8, Q_(989.4, 'TFLOP/s'), 0.4):.3f} s"
    '1.895 s'
    """
    for name, value, low in (("parameters", params, 1.0), ("tokens per step", tokens_per_step, 1.0),
                             ("GPUs per site", gpus_per_site, 1), ("peak FLOP/s", peak_flops_per_s, 1.0)):
        if not (math.isfinite(value) and value >= low):
            raise CrossDCInputError(f"{name} must be at least {low:g}, got {value}")
    if not (math.isfinite(mfu) and 0 < mfu <= 1):
        raise CrossDCInputError(f"MFU must lie in (0, 1], got {mfu}")
    return flops_per_param_per_token * params * tokens_per_step / (gpus_per_site * peak_flops_per_s * mfu)


@functools.lru_cache(maxsize=256)
def site_allreduce_algbw(gpu: str, gpus_per_site: int, scaleup_bandwidth: str = "") -> float:
    r"""Compute the algbw of one all-reduce inside a site, from the collectives model.

    Parameters
    ----------
    gpu : str
        A GPU id of the catalog.
    gpus_per_site : int
        GPUs per site; the site is the GPU's reference server repeated, on its usual NIC.
    scaleup_bandwidth : str
        Per direction (``"3.6 TB/s"``): makes the GPU a custom one built on ``gpu``
        (:mod:`interconnect.hardware.custom`); empty for the catalog GPU.

    Returns
    -------
    float
        Algbw at 1 GiB (bandwidth-bound), B/s; infinite for one GPU per site (no in-site step).

    Notes
    -----
    .. math:: \mathrm{algbw} = S / t(S), \qquad S = 1\ \mathrm{GiB}

    as nccl-tests defines it (``nccl-tests-performance``), with :math:`t` from
    :func:`~interconnect.hardware.collectives.allreduce`.

    Examples
    --------
    >>> site_allreduce_algbw("h100-sxm", 1)
    inf
    """
    if gpus_per_site <= 1:
        return math.inf
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.hardware.collectives import allreduce

    custom = {"gpu": "custom", "gpu_base": gpu, "scaleup_bandwidth": scaleup_bandwidth} if scaleup_bandwidth else {}
    cluster, _ = resolve_cluster(**{"gpu": gpu, **custom}, nodes=1)
    per_node = min(cluster.gpus_per_node, gpus_per_site)
    cluster, _ = resolve_cluster(**{"gpu": gpu, **custom}, gpus_per_node=per_node,
                                 nodes=math.ceil(gpus_per_site / per_node))
    size = float(2**30)
    return size / (float(allreduce(cluster, [size]).time_us[0]) * 1e-6)
