"""Training across data centres: what crosses the wide-area link, how long it takes, how busy the GPUs stay.

Several sites each hold a full replica of the model (data parallel across sites). Every so often the
sites exchange what they learned: the gradient every step (data parallel), or a pseudo-gradient every
H inner steps (DiLoCo and its descendants), dense or compressed. This module computes, per method:

* the **payload**: bytes one site contributes to one synchronisation (:func:`payload_bytes`);
* the **sync time** over the WAN for a ring, a hierarchical or an all-gather exchange, with the
  round-trip time (:func:`sync_time_s`);
* the **exposed time** per round of H inner steps, with and without overlapping the exchange with
  compute (:func:`exposed_time_s`), and the **compute utilisation** (:func:`utilization`);
* the **WAN bandwidth needed** for a target utilisation, in closed form (:func:`required_bandwidth`).

Everything is vectorised with numpy broadcasting, so a curve of 64 bandwidths or model sizes is one
call. Floats carry their unit in their name (``step_s``, ``wan_bytes_per_s``, ``payload_bytes``).

The published figures the page shows and the tests check (method defaults, CrossPipe's network
classes, Streaming DiLoCo's Table 4, INTELLECT-1's Table 2, the SparseLoCo encoding, the reported
results) live in ``interconnect/data/crossdc.toml``, read and checked by the data layer
(:mod:`interconnect.datafiles.crossdc`, whose names this module re-exports); their sources are ids in
``sources.toml``.

What the simple model leaves out: the per-layer order in which gradients become ready (only the last
layer's share is kept exposed), queueing of one exchange behind another beyond link saturation,
compute slowed by communication kernels, single-flow TCP limits (window ÷ RTT), stragglers, and the
outer optimiser's own time. Even so it lands within 20 % of every cell of Streaming DiLoCo's Table 4
up to 95 % utilisation, and within 30 % at 99 % but one (``tests/unit/models/test_crossdc.py``).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from interconnect.datafiles.crossdc import (
    CONFIDENCES,
    METHODS,
    TOPOLOGIES,
    CrossDCData,
    CrossDCDataError,
    get_crossdc_data,
    load_crossdc_data,
)
from interconnect.units import InterconnectError, expects

__all__ = [
    "CONFIDENCES",
    "METHODS",
    "TOPOLOGIES",
    "CrossDCData",
    "CrossDCDataError",
    "CrossDCError",
    "CrossDCInputError",
    "CrossDCResult",
    "Method",
    "Scenario",
    "default_layers",
    "evaluate",
    "exposed_time_s",
    "get_crossdc_data",
    "load_crossdc_data",
    "make_method",
    "method_scenarios",
    "parse_count",
    "parse_params",
    "payload_bytes",
    "required_bandwidth",
    "required_bandwidth_curve",
    "site_allreduce_algbw",
    "step_time_s",
    "sync_time_s",
    "utilization",
    "utilization_curve",
    "wan_traffic",
]

#: Bits per value a dense payload may use (FP32, BF16/FP16, int8, 4-bit E3M0).
DENSE_BITS = (32, 16, 8, 4)

PARAMS_RANGE = (1e6, 1e13)
SITES_RANGE = (2, 10_000)
GPUS_PER_SITE_RANGE = (1, 1_000_000)
INNER_STEPS_MAX = 1_000_000

# --- errors -------------------------------------------------------------------------------------


class CrossDCError(InterconnectError, ValueError):
    """Base class of this module's errors."""


class CrossDCInputError(CrossDCError):
    """A user input that cannot be used; the message names the input and the accepted range."""


# --- methods ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One synchronisation method with its knobs resolved.

    ``bits`` is the bits per value sent (for SparseLoCo, per kept value); ``fragments`` 0 means
    "one fragment per ``layers_per_fragment`` layers" (Streaming DiLoCo), 1 for every other method.
    """

    id: str
    inner_steps: int
    bits: int
    topology: str
    fragments: int = 1
    layers_per_fragment: int = 0
    overlap_steps: int = 0
    chunk: int = 0
    topk: int = 0
    index_bits: int = 0

    @property
    def sparse(self) -> bool:
        """Whether the method sends a sparse payload (SparseLoCo)."""
        return self.id == "sparseloco"

    @property
    def bits_per_param(self) -> float:
        r"""Bits sent per model parameter per synchronisation, all fragments together (bit).

        Notes
        -----
        Dense: the value width. SparseLoCo keeps :math:`k` of every :math:`C` values and sends each with
        its value bits :math:`b_v` and its index bits :math:`b_i` (Covenant-72B report, section 2.1,
        ``arxiv-covenant-72b``):

        .. math:: b = \frac{k}{C} (b_v + b_i) = \frac{64}{4096} (2 + 12) = 0.21875
        """
        if self.sparse:
            return self.topk / self.chunk * (self.bits + self.index_bits)
        return float(self.bits)

    def fragments_for(self, layers: object) -> np.ndarray:
        r"""Count the fragments per model: the fixed count, or one per ``layers_per_fragment`` layers (at least 1).

        Parameters
        ----------
        layers : array_like
            Transformer layers.

        Returns
        -------
        numpy.ndarray
            Fragments (a count, as float), the shape of ``layers``.

        Notes
        -----
        .. math:: P = \max\bigl(1, \mathrm{round}(L / \ell)\bigr)

        for :math:`\ell` layers per fragment (Streaming DiLoCo, ``arxiv-streaming-diloco``, section 3).

        Examples
        --------
        >>> make_method("streaming-diloco").fragments_for([24, 108]).tolist()
        [8.0, 36.0]
        """
        layers = np.asarray(layers, dtype=float)
        if self.fragments:
            return np.full_like(layers, float(self.fragments))
        if self.layers_per_fragment:
            return np.maximum(1.0, np.rint(layers / self.layers_per_fragment))
        return np.ones_like(layers)


_REAL_TYPES = (int, float, np.integer, np.floating)


def _whole(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, _REAL_TYPES):
        raise CrossDCInputError(f"{name} must be a whole number from {low:,} to {high:,}, got {value!r}")
    if not math.isfinite(float(value)) or float(value) != int(value):
        raise CrossDCInputError(f"{name} must be a whole number from {low:,} to {high:,}, got {value}")
    if not low <= int(value) <= high:
        raise CrossDCInputError(f"{name} must be from {low:,} to {high:,}, got {int(value):,}")
    return int(value)


def make_method(
    method: str,
    *,
    inner_steps: int | None = None,
    bits: int | None = None,
    topology: str | None = None,
    fragments: int | None = None,
    overlap_steps: int | None = None,
    chunk: int | None = None,
    topk: int | None = None,
    index_bits: int | None = None,
    data: CrossDCData | None = None,
) -> Method:
    """Build a :class:`Method` from its id and the knobs given; ``None`` takes the paper's default.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    inner_steps : int, optional
        H, inner steps per synchronisation (1 for data parallel).
    bits : int, optional
        Bits per value sent (one of :data:`DENSE_BITS` for a dense method).
    topology : str, optional
        One of :data:`TOPOLOGIES`.
    fragments, overlap_steps : int, optional
        Streaming DiLoCo only: fragments per model (0: one per ``layers_per_fragment`` layers) and
        tau, the inner steps a fragment's exchange may overlap.
    chunk, topk, index_bits : int, optional
        SparseLoCo only: chunk size, values kept per chunk and bits per index.
    data : CrossDCData, optional
        Where the defaults come from (:func:`get_crossdc_data` by default).

    Returns
    -------
    Method
        The method with every knob resolved.

    Raises
    ------
    CrossDCInputError
        Naming the knob, for a value out of range or a knob that does not apply.

    Examples
    --------
    >>> f"{make_method('diloco', bits=16).bits_per_param} bit per parameter"
    '16.0 bit per parameter'
    >>> f"{make_method('sparseloco').bits_per_param} bit per parameter"
    '0.21875 bit per parameter'
    >>> make_method("diloco", inner_steps=0)
    Traceback (most recent call last):
    ...
    interconnect.models.crossdc.CrossDCInputError: inner steps H must be from 1 to 1,000,000, got 0
    """
    data = data or get_crossdc_data()
    if method not in METHODS:
        raise CrossDCInputError(f"unknown method '{method}'; choose one of {', '.join(METHODS)}")
    defaults = data.methods[method]
    steps = defaults.inner_steps if inner_steps is None else _whole("inner steps H", inner_steps, 1, INNER_STEPS_MAX)
    if method == "dp" and steps != 1:
        raise CrossDCInputError("data parallel synchronises every step (H = 1); use diloco for H > 1")
    value_bits = defaults.bits if bits is None else _whole("bits per value", bits, 1, 32)
    if method != "sparseloco" and value_bits not in DENSE_BITS:
        raise CrossDCInputError(f"bits per value must be one of {', '.join(map(str, DENSE_BITS))}, got {value_bits}")
    if method == "diloco-int8" and value_bits != 8:
        raise CrossDCInputError("diloco-int8 sends 8-bit values; use diloco for other widths")
    topo = defaults.topology if topology is None else topology
    if topo not in TOPOLOGIES:
        raise CrossDCInputError(f"unknown topology '{topo}'; choose one of {', '.join(TOPOLOGIES)}")
    streaming = method == "streaming-diloco"
    if not streaming and fragments not in (None, 0, 1):
        raise CrossDCInputError("fragments apply to streaming-diloco only")
    if not streaming and overlap_steps not in (None, 0):
        raise CrossDCInputError("overlap steps (tau) apply to streaming-diloco only")
    frag = _whole("fragments", fragments, 0, 100_000) if streaming and fragments is not None else 0
    tau = defaults.overlap_steps if overlap_steps is None else _whole("overlap steps tau", overlap_steps, 0, steps)
    result = Method(method, steps, value_bits, topo, fragments=frag if streaming else 1,
                    layers_per_fragment=defaults.layers_per_fragment if streaming else 0,
                    overlap_steps=tau if streaming else 0)
    if method != "sparseloco":
        if any(v is not None for v in (chunk, topk, index_bits)):
            raise CrossDCInputError("chunk, top-k and index bits apply to sparseloco only")
        return result
    size = defaults.chunk if chunk is None else _whole("chunk size", chunk, 2, 1 << 24)
    keep = defaults.topk if topk is None else _whole("top-k per chunk", topk, 1, size)
    if keep > size:
        raise CrossDCInputError(f"top-k per chunk ({keep:,}) cannot exceed the chunk size ({size:,})")
    index = defaults.index_bits if index_bits is None else _whole("index bits", index_bits, 1, 32)
    needed = math.ceil(math.log2(size))
    if index < needed:
        raise CrossDCInputError(f"{index}-bit indices address {2**index:,} positions; a chunk of {size:,} "
                                f"needs at least {needed} bits")
    return replace(result, chunk=size, topk=keep, index_bits=index)


_PARAMS_RE = re.compile(r"(?P<number>\d{1,15}(?:\.\d{0,15})?(?:[eE][+-]?\d{1,3})?)\s*(?P<suffix>[kKMBbGT]?)")
_PARAMS_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "b": 1e9, "G": 1e9, "T": 1e12}


def parse_count(text: object, name: str = "parameters", low: float = PARAMS_RANGE[0],
                high: float = PARAMS_RANGE[1]) -> float:
    """Read a count typed by a person: ``1e9``, ``7B``, ``70e9``, ``1.5T``, ``4M``.

    Parameters
    ----------
    text : str
        A float literal and one optional suffix (k, M, B or G, T), never an expression.
    name : str, default "parameters"
        What the count is, for the error message.
    low, high : float
        The accepted range, inclusive.

    Returns
    -------
    float
        The count.

    Raises
    ------
    CrossDCInputError
        Naming ``name``, when the text does not match or the count is out of range.

    Examples
    --------
    >>> parse_count("7B"), parse_count("1e9"), parse_count(" 1.5 T ")
    (7000000000.0, 1000000000.0, 1500000000000.0)
    >>> parse_count("-3")
    Traceback (most recent call last):
    ...
    interconnect.models.crossdc.CrossDCInputError: parameters: expected a count like '1e9' or '7B', got '-3'
    """
    raw = text.strip() if isinstance(text, str) else ""
    match = _PARAMS_RE.fullmatch(raw) if len(raw) <= 40 else None
    if match is None:
        shown = raw[:40] + ("…" if len(raw) > 40 else "")
        raise CrossDCInputError(f"{name}: expected a count like '1e9' or '7B', got '{shown}'")
    value = float(match.group("number")) * _PARAMS_SUFFIX[match.group("suffix")]
    if not (math.isfinite(value) and low <= value <= high):
        raise CrossDCInputError(f"{name} must be from {low:.0e} to {high:.0e}, got {raw}")
    return value


def parse_params(text: object) -> float:
    """Read a parameter count (:func:`parse_count` within :data:`PARAMS_RANGE`).

    Parameters
    ----------
    text : str
        For example ``"70e9"`` or ``"7B"``.

    Returns
    -------
    float
        The parameter count.

    Examples
    --------
    >>> parse_params("70e9")
    70000000000.0
    """
    return parse_count(text, "parameters", *PARAMS_RANGE)


def default_layers(params: object) -> np.ndarray:
    r"""Estimate the transformer layers for a model size when none is given.

    Parameters
    ----------
    params : array_like
        Parameter counts N.

    Returns
    -------
    numpy.ndarray
        Layers (whole numbers as float, at least 1).

    Notes
    -----
    A power law through the shapes Streaming DiLoCo simulated (``arxiv-streaming-diloco``,
    section 3): 24 layers at 1B and 108 at 100B; it gives 51 at 10B against the paper's 48. The
    fit is ours:

    .. math:: L(N) = 24 \, (N / 10^9)^{\log_{100}(108/24)}

    Examples
    --------
    >>> default_layers([1e9, 1e10, 1e11]).tolist()
    [24.0, 51.0, 108.0]
    """
    exponent = math.log(108 / 24) / math.log(100)
    return np.maximum(1.0, np.rint(24 * (np.asarray(params, dtype=float) / 1e9) ** exponent))


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
    if topology not in TOPOLOGIES:
        raise CrossDCInputError(f"unknown topology '{topology}'; choose one of {', '.join(TOPOLOGIES)}")
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
    if method.id == "streaming-diloco":
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
        (:mod:`interconnect.models.custom`); empty for the catalog GPU.

    Returns
    -------
    float
        Algbw at 1 GiB (bandwidth-bound), B/s; infinite for one GPU per site (no in-site step).

    Notes
    -----
    .. math:: \mathrm{algbw} = S / t(S), \qquad S = 1\ \mathrm{GiB}

    as nccl-tests defines it (``nccl-tests-performance``), with :math:`t` from
    :func:`~interconnect.models.collectives.allreduce`.

    Examples
    --------
    >>> site_allreduce_algbw("h100-sxm", 1)
    inf
    """
    if gpus_per_site <= 1:
        return math.inf
    from interconnect.models.cluster import resolve_cluster
    from interconnect.models.collectives import allreduce

    custom = {"gpu": "custom", "gpu_base": gpu, "scaleup_bandwidth": scaleup_bandwidth} if scaleup_bandwidth else {}
    cluster, _ = resolve_cluster(**{"gpu": gpu, **custom}, nodes=1)
    per_node = min(cluster.gpus_per_node, gpus_per_site)
    cluster, _ = resolve_cluster(**{"gpu": gpu, **custom}, gpus_per_node=per_node,
                                 nodes=math.ceil(gpus_per_site / per_node))
    size = float(2**30)
    return size / (float(allreduce(cluster, [size]).time_us[0]) * 1e-6)


# --- one scenario and its curves ------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """Everything one answer depends on. ``layers`` 0 means :func:`default_layers`.

    ``site_algbw_bytes_per_s`` is the in-site all-reduce rate for ``hierarchical``
    (:func:`site_allreduce_algbw`; infinite to leave the in-site step out).
    """

    params: float
    sites: int
    step_s: float
    wan_bytes_per_s: float
    rtt_s: float
    method: Method
    gpus_per_site: int = 1
    layers: int = 0
    overlap: bool = True
    target_utilization: float = 0.95
    site_algbw_bytes_per_s: float = math.inf
    backward_fraction: float = 2 / 3

    def __post_init__(self) -> None:
        low, high = PARAMS_RANGE
        if not (math.isfinite(self.params) and low <= self.params <= high):
            raise CrossDCInputError(f"parameters must be from {low:.0e} to {high:.0e}, got {self.params:g}")
        _whole("sites", self.sites, *SITES_RANGE)
        _whole("GPUs per site", self.gpus_per_site, *GPUS_PER_SITE_RANGE)
        _whole("layers", self.layers, 0, 100_000)
        for name, value in (("step time", self.step_s), ("WAN bandwidth", self.wan_bytes_per_s)):
            if not (math.isfinite(value) and value > 0):
                raise CrossDCInputError(f"{name} must be positive, got {value}")
        if not (math.isfinite(self.rtt_s) and self.rtt_s >= 0):
            raise CrossDCInputError(f"round-trip time must be zero or positive, got {self.rtt_s}")
        if not 0 < self.target_utilization < 1:
            raise CrossDCInputError(f"target utilisation must lie between 0 and 1, got {self.target_utilization}")

    @property
    def resolved_layers(self) -> int:
        """Layers: the scenario's, or :func:`default_layers` of its size."""
        return self.layers or int(default_layers(self.params))

    @property
    def fragments(self) -> int:
        """Fragments per model for the method at these layers."""
        return int(self.method.fragments_for(self.resolved_layers))

    @property
    def compute_s(self) -> float:
        """Compute per round in s: H inner steps."""
        return self.method.inner_steps * self.step_s


@dataclass(frozen=True)
class CrossDCResult:
    """The answer for one :class:`Scenario` (bytes per site; times per round of H inner steps)."""

    scenario: Scenario
    layers: int
    fragments: int
    payload_bytes: float
    bytes_per_round: float
    bytes_per_step: float
    wan_bytes_per_sync: float
    sync_s: float
    compute_s: float
    exposed_no_overlap_s: float
    exposed_overlap_s: float
    required_no_overlap_bytes_per_s: float
    required_overlap_bytes_per_s: float

    @property
    def utilization_no_overlap(self) -> float:
        """Utilisation without overlap (fraction)."""
        return float(utilization(self.compute_s, self.exposed_no_overlap_s))

    @property
    def utilization_overlap(self) -> float:
        """Utilisation with overlap (fraction)."""
        return float(utilization(self.compute_s, self.exposed_overlap_s))

    @property
    def exposed_s(self) -> float:
        """Exposed time per round in s, in the scenario's overlap mode."""
        return self.exposed_overlap_s if self.scenario.overlap else self.exposed_no_overlap_s

    @property
    def utilization(self) -> float:
        """Utilisation in the scenario's overlap mode (fraction)."""
        return self.utilization_overlap if self.scenario.overlap else self.utilization_no_overlap

    @property
    def required_bytes_per_s(self) -> float:
        """WAN bandwidth for the target utilisation in the scenario's overlap mode, B/s."""
        s = self.scenario
        return self.required_overlap_bytes_per_s if s.overlap else self.required_no_overlap_bytes_per_s


def _common(s: Scenario) -> dict[str, Any]:
    return {"sites": s.sites, "rtt_s": s.rtt_s, "topology": s.method.topology, "gpus_per_site": s.gpus_per_site,
            "site_algbw_bytes_per_s": s.site_algbw_bytes_per_s}


def evaluate(s: Scenario) -> CrossDCResult:
    """Compute payload, sync time, exposed time, utilisation and required bandwidth of one scenario.

    Parameters
    ----------
    s : Scenario
        Everything the answer depends on.

    Returns
    -------
    CrossDCResult
        Bytes per site (B), times per round of H inner steps (s), bandwidths in B/s.

    Notes
    -----
    Composes :func:`payload_bytes`, :func:`sync_time_s`, :func:`exposed_time_s`,
    :func:`utilization` and :func:`required_bandwidth`; see each for its formula.

    Examples
    --------
    >>> method = make_method("diloco", inner_steps=100, bits=16)
    >>> result = evaluate(Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=1.25e9, rtt_s=0.02, method=method))
    >>> f"{result.payload_bytes / 1e9} GB", f"{result.sync_s:.2f} s", f"{result.utilization_no_overlap:.1%}"
    ('2.0 GB', '1.62 s', '98.4%')
    """
    layers, fragments = s.resolved_layers, s.fragments
    payload = float(payload_bytes(s.method, s.params, fragments))
    factor, _ = wan_traffic(s.method.topology, s.sites, s.gpus_per_site)
    sync = float(sync_time_s(payload, wan_bytes_per_s=s.wan_bytes_per_s, **_common(s)))
    timing = {"method": s.method, "step_s": s.step_s, "layers": layers, "backward_fraction": s.backward_fraction,
              "fragments": fragments}
    required = {overlap: float(required_bandwidth(payload, target_utilization=s.target_utilization, overlap=overlap,
                                                  **timing, **_common(s)))
                for overlap in (False, True)}
    return CrossDCResult(
        scenario=s, layers=layers, fragments=fragments, payload_bytes=payload,
        bytes_per_round=payload * fragments, bytes_per_step=payload * fragments / s.method.inner_steps,
        wan_bytes_per_sync=factor * payload, sync_s=sync, compute_s=s.compute_s,
        exposed_no_overlap_s=float(exposed_time_s(sync, overlap=False, **timing)),
        exposed_overlap_s=float(exposed_time_s(sync, overlap=True, **timing)),
        required_no_overlap_bytes_per_s=required[False], required_overlap_bytes_per_s=required[True],
    )


@expects(wan_bytes_per_s="B/s")
def utilization_curve(s: Scenario, wan_bytes_per_s: object) -> np.ndarray:
    """Compute the utilisation of a scenario at each WAN bandwidth, in its overlap mode.

    Parameters
    ----------
    s : Scenario
        The scenario (its own ``wan_bytes_per_s`` is ignored).
    wan_bytes_per_s : array_like
        WAN bandwidths per site in each direction, B/s.

    Returns
    -------
    numpy.ndarray
        Utilisation (fraction) per bandwidth, by :func:`utilization`.

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> s = Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=1.25e9, rtt_s=0.02, method=make_method("diloco"))
    >>> utilization_curve(s, [1.25e9]).tolist() == utilization_curve(s, Q_([10], "Gbit/s")).tolist()
    True
    """
    layers, fragments = s.resolved_layers, s.fragments
    payload = payload_bytes(s.method, s.params, fragments)
    sync = sync_time_s(payload, wan_bytes_per_s=np.asarray(wan_bytes_per_s, dtype=float), **_common(s))
    exposed = exposed_time_s(sync, method=s.method, step_s=s.step_s, layers=layers, overlap=s.overlap,
                             backward_fraction=s.backward_fraction, fragments=fragments)
    return utilization(s.compute_s, exposed)


def required_bandwidth_curve(s: Scenario, params: object) -> np.ndarray:
    r"""Compute the WAN bandwidth for the scenario's target utilisation at each model size.

    Parameters
    ----------
    s : Scenario
        The scenario at its own size.
    params : array_like
        Parameter counts N.

    Returns
    -------
    numpy.ndarray
        Bandwidth per site in each direction, B/s (:func:`required_bandwidth`).

    Notes
    -----
    The step time grows in proportion to the parameters (same tokens per step, same GPUs: the
    :math:`6 N D` rule, ``arxiv-kaplan-scaling``):

    .. math:: t_{step}(N) = t_{step}(N_0) \, N / N_0

    Layers follow :func:`default_layers` unless the scenario fixes them.

    Examples
    --------
    >>> s = Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=1.25e9, rtt_s=0.02, method=make_method("diloco"))
    >>> curve = required_bandwidth_curve(s, [1e9])
    >>> bool(curve[0] == evaluate(s).required_bytes_per_s)
    True
    """
    sizes = np.asarray(params, dtype=float)
    layers = default_layers(sizes) if not s.layers else np.full_like(sizes, float(s.layers))
    fragments = s.method.fragments_for(layers)
    step = s.step_s * sizes / s.params
    payload = payload_bytes(s.method, sizes, fragments)
    return required_bandwidth(payload, target_utilization=s.target_utilization, method=s.method, step_s=step,
                              layers=layers, overlap=s.overlap, backward_fraction=s.backward_fraction,
                              fragments=fragments, **_common(s))


def method_scenarios(s: Scenario, data: CrossDCData | None = None) -> dict[str, Scenario]:
    """Build the scenario for every method: the chosen one as configured, the others at their papers' defaults.

    Parameters
    ----------
    s : Scenario
        The scenario as configured.
    data : CrossDCData, optional
        Where the defaults come from.

    Returns
    -------
    dict of str to Scenario
        One scenario per id of :data:`METHODS`.

    Examples
    --------
    >>> s = Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=1.25e9, rtt_s=0.02, method=make_method("dp"))
    >>> {k: v.method.inner_steps for k, v in method_scenarios(s).items()}["diloco"]
    500
    """
    result = {}
    for method_id in METHODS:
        if method_id == s.method.id:
            result[method_id] = s
        else:
            result[method_id] = replace(s, method=make_method(method_id, data=data))
    return result
