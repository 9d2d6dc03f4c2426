"""One cross-site scenario and its curves: the page's and the command line's inputs as one value.

:class:`Scenario` and its evaluation (:func:`evaluate`), utilisation against WAN bandwidth, bandwidth
needed against model size, and every method on the same scenario.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from interconnect.topics.crossdc.data import (
    METHODS,
    CrossDCData,
)
from interconnect.topics.crossdc.model.methods import (
    GPUS_PER_SITE_RANGE,
    PARAMS_RANGE,
    SITES_RANGE,
    CrossDCInputError,
    Method,
    default_layers,
    make_method,
    whole_number,
)
from interconnect.topics.crossdc.model.timing import (
    exposed_time_s,
    payload_bytes,
    required_bandwidth,
    sync_time_s,
    utilization,
    wan_traffic,
)
from interconnect.units import expects

# --- one scenario and its curves ------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """Everything one answer depends on. ``layers`` 0 means :func:`default_layers`.

    ``site_algbw_bytes_per_s`` is the in-site all-reduce rate for ``hierarchical``
    (:func:`site_allreduce_algbw`; infinite to leave the in-site step out). ``tokens_per_step`` (one site's
    tokens per inner step) and ``hidden`` (0: :func:`default_hidden`) size CrossPipe's activations only.
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
    tokens_per_step: float = 1e6
    hidden: int = 0

    def __post_init__(self) -> None:
        low, high = PARAMS_RANGE
        if not (math.isfinite(self.params) and low <= self.params <= high):
            raise CrossDCInputError(f"parameters must be from {low:.0e} to {high:.0e}, got {self.params:g}")
        whole_number("sites", self.sites, *SITES_RANGE)
        whole_number("GPUs per site", self.gpus_per_site, *GPUS_PER_SITE_RANGE)
        whole_number("layers", self.layers, 0, 100_000)
        whole_number("hidden size", self.hidden, 0, 1 << 20)
        if not (math.isfinite(self.tokens_per_step) and 1 <= self.tokens_per_step <= 1e12):
            raise CrossDCInputError(f"tokens per step must be from 1 to 1e12, got {self.tokens_per_step:g}")
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
    def resolved_hidden(self) -> int:
        """Hidden size: the scenario's, or :func:`default_hidden` of its size and layers."""
        return self.hidden or int(default_hidden(self.params, self.resolved_layers))

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
    if s.method.pipeline:
        return _evaluate_pipeline(s)
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
    if s.method.pipeline:
        message = pipeline_message_bytes(s.method, s.sites * s.tokens_per_step, s.resolved_hidden)
        step = pipeline_wall_s(s.step_s, s.sites, s.method.micro_batches, message, wan_bytes_per_s, s.rtt_s / 2,
                               s.overlap)
        return s.step_s / step
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
    if s.method.pipeline:
        hidden = default_hidden(sizes, layers) if not s.hidden else np.full_like(sizes, float(s.hidden))
        message = pipeline_message_bytes(s.method, s.sites * s.tokens_per_step, hidden)
        return pipeline_required_bandwidth(step, s.sites, s.method.micro_batches, message, s.rtt_s / 2,
                                           s.target_utilization, s.overlap)
    payload = payload_bytes(s.method, sizes, fragments)
    return required_bandwidth(payload, target_utilization=s.target_utilization, method=s.method, step_s=step,
                              layers=layers, overlap=s.overlap, backward_fraction=s.backward_fraction,
                              fragments=fragments, **_common(s))


# --- CrossPipe on this page: one pipeline stage per site ---------------------------------------------


def default_hidden(params: object, layers: object) -> np.ndarray:
    r"""Estimate the hidden size of a transformer from its parameters and layers.

    Notes
    -----
    A transformer block holds about :math:`12 d^2` parameters (attention :math:`4 d^2`, a 4x MLP
    :math:`8 d^2`), so :math:`N \approx 12 L d^2` (Kaplan et al. §2.1, ``arxiv-kaplan-scaling``), rounded to
    a multiple of 64:

    .. math:: d = \sqrt{N / (12 L)}

    Examples
    --------
    >>> default_hidden([1e9, 70e9], [24, 80]).tolist()  # real models: 2048 and 8192
    [1856.0, 8512.0]
    """
    n = np.asarray(params, dtype=float)
    layer_count = np.maximum(np.asarray(layers, dtype=float), 1.0)
    return np.maximum(64.0, np.rint(np.sqrt(n / (12 * layer_count)) / 64) * 64)


def pipeline_message_bytes(method: Method, global_tokens: object, hidden: object) -> np.ndarray:
    r"""Bytes one cut carries per micro-batch in one direction: the micro-batch's activations,
    :math:`M = (T / m)\,d\,b/8` for a global batch of :math:`T` tokens in :math:`m` micro-batches, hidden size
    :math:`d` and :math:`b` bits per value (CrossPipe §3, ``arxiv-crosspipe``).

    >>> f"{float(pipeline_message_bytes(make_method('crosspipe'), 2 * 1e6, 8192)) / 1e6:.0f} MB"
    '1024 MB'
    """
    return (np.asarray(global_tokens, dtype=float) / method.micro_batches * np.asarray(hidden, dtype=float)
            * method.bits / 8)


@expects(step_s="s", message_bytes="B", wan_bytes_per_s="B/s", latency_s="s")
def pipeline_wall_s(step_s: object, sites: int, micro_batches: int, message_bytes: object, wan_bytes_per_s: object,
                    latency_s: float, overlap: bool = True) -> np.ndarray:
    r"""Wall-clock of one step of the global batch with one pipeline stage per site.

    The same GPUs as data parallel's replicas hold one stage each site, so a micro-batch's forward and
    backward on one stage takes :math:`t = t_{step}/m` (the global batch's FLOPs over all GPUs, in :math:`m`
    pieces). With overlap the step is :func:`~interconnect.topics.crossdc.model.pipeline.pipeline_step_s`
    (1F1B, latency paid in the fill and the drain); without, a static schedule pays the round trip over
    every cut on every micro-batch, which is the delay CrossPipe §3 finds on a static 1F1B's critical path:

    .. math:: T = (m + p - 1)\,t + 2(S-1)\,m\,(\alpha + M/B), \qquad p = S

    >>> round(float(pipeline_wall_s(1.0, 2, 32, 64e6, 12.5e9, 0.01)), 4)  # 33 x 1/32 + 2 x (10 ms + 5.12 ms)
    1.0615
    """
    from interconnect.topics.crossdc.model.pipeline import pipeline_step_s

    t = np.asarray(step_s, dtype=float) / micro_batches
    wire = np.asarray(message_bytes, dtype=float) / np.asarray(wan_bytes_per_s, dtype=float)
    if overlap:
        return pipeline_step_s(t, sites, micro_batches, sites, message_bytes, wan_bytes_per_s, latency_s)
    return (micro_batches + sites - 1) * t + 2 * (sites - 1) * micro_batches * (latency_s + wire)


@expects(step_s="s", message_bytes="B", latency_s="s")
def pipeline_required_bandwidth(step_s: object, sites: int, micro_batches: int, message_bytes: object,
                                latency_s: float, target_utilization: float, overlap: bool = True) -> np.ndarray:
    r"""WAN bandwidth (B/s) at which the pipeline keeps ``target_utilization`` of the ideal step.

    Notes
    -----
    With :math:`w = M/B`, the 1F1B step is the larger of :math:`(m+p-1)t + 2(S-1)(\alpha + w)` and
    :math:`m w + (p-1)t + 2(S-1)(\alpha + w)`, both rising in :math:`w`; each must stay within
    :math:`m t / U`. The largest :math:`w` both allow gives :math:`B = M / w`, infinite when the bubble or the
    latency alone exceeds the allowance. Without overlap the round trip is paid on every micro-batch.

    A 1 s step in 32 micro-batches on two sites at 95 %: the fill and drain may take
    (1/0.95 - 33/32) / 2 = 10.69 ms, so a 64 MB message needs 64e6 / 0.01069 B/s:

    >>> f"{float(pipeline_required_bandwidth(1.0, 2, 32, 64e6, 0.0, 0.95)) * 8 / 1e9:.2f} Gbit/s"
    '47.89 Gbit/s'
    """
    step = np.asarray(step_s, dtype=float)
    message = np.asarray(message_bytes, dtype=float)
    m, p, cuts = float(micro_batches), float(sites), float(sites - 1)
    t = step / m
    allowed = m * t / target_utilization
    if overlap:
        room_fill = (allowed - (m + p - 1) * t) / (2 * cuts) - latency_s
        room_wire = (allowed - (p - 1) * t - 2 * cuts * latency_s) / (m + 2 * cuts)
        room = np.minimum(room_fill, room_wire)
    else:
        room = (allowed - (m + p - 1) * t) / (2 * cuts * m) - latency_s
    with np.errstate(divide="ignore"):
        return np.where(room > 0, message / np.where(room > 0, room, 1.0), np.inf)


def _evaluate_pipeline(s: Scenario) -> CrossDCResult:
    """:func:`evaluate` for CrossPipe: activations per micro-batch cross each cut; the exposed time per round
    (one step) is the pipeline's wall-clock beyond the ideal step, its bubble included."""
    method = s.method
    message = float(pipeline_message_bytes(method, s.sites * s.tokens_per_step, s.resolved_hidden))
    walls = {overlap: float(pipeline_wall_s(s.step_s, s.sites, method.micro_batches, message, s.wan_bytes_per_s,
                                            s.rtt_s / 2, overlap)) for overlap in (False, True)}
    required = {overlap: float(pipeline_required_bandwidth(s.step_s, s.sites, method.micro_batches, message,
                                                           s.rtt_s / 2, s.target_utilization, overlap))
                for overlap in (False, True)}
    per_step = message * method.micro_batches
    return CrossDCResult(
        scenario=s, layers=s.resolved_layers, fragments=1, payload_bytes=message, bytes_per_round=per_step,
        bytes_per_step=per_step, wan_bytes_per_sync=message, sync_s=s.rtt_s / 2 + message / s.wan_bytes_per_s,
        compute_s=s.step_s, exposed_no_overlap_s=walls[False] - s.step_s, exposed_overlap_s=walls[True] - s.step_s,
        required_no_overlap_bytes_per_s=required[False], required_overlap_bytes_per_s=required[True])


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
