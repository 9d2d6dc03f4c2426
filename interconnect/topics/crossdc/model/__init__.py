"""Training across data centres: what crosses the wide-area link, how long it takes, how busy the GPUs stay.

Several sites each hold a full replica of the model (data parallel across sites). Every so often the
sites exchange what they learned: the gradient every step (data parallel), or a pseudo-gradient every
H inner steps (DiLoCo and its descendants), dense or compressed. This package computes, per method:

* the **payload**: bytes one site contributes to one synchronisation (:func:`payload_bytes`);
* the **sync time** over the WAN for a ring, a hierarchical or an all-gather exchange, with the
  round-trip time (:func:`sync_time_s`);
* the **exposed time** per round of H inner steps, with and without overlapping the exchange with
  compute (:func:`exposed_time_s`), and the **compute utilisation** (:func:`utilization`);
* the **WAN bandwidth needed** for a target utilisation, in closed form (:func:`required_bandwidth`);
* the **time to data parallel's loss**, the published step ratio times the wall-clock per step, relative to
  data parallel on the same link (:func:`time_to_target`).

Everything is vectorised with numpy broadcasting, so a curve of 64 bandwidths or model sizes is one
call. Floats carry their unit in their name (``step_s``, ``wan_bytes_per_s``, ``payload_bytes``).

The published figures the page shows and the tests check (method defaults, CrossPipe's network
classes, Streaming DiLoCo's Table 4, INTELLECT-1's Table 2, the SparseLoCo encoding, the reported
results) live in ``interconnect/data/crossdc.toml``, read and checked by the data layer
(:mod:`interconnect.topics.crossdc.data`, whose names this package re-exports); their sources are ids in
``sources.toml``.

What the simple model leaves out: the per-layer order in which gradients become ready (only the last
layer's share is kept exposed), queueing of one exchange behind another beyond link saturation,
compute slowed by communication kernels, single-flow TCP limits (window ÷ RTT), stragglers, and the
outer optimiser's own time. Even so it lands within 20 % of every cell of Streaming DiLoCo's Table 4
up to 95 % utilisation, and within 30 % at 99 % but one (``tests/topics/crossdc/test_model.py``).

In reading order: :mod:`~interconnect.topics.crossdc.model.methods` (a method and its checked inputs, and the
errors), :mod:`~interconnect.topics.crossdc.model.timing` (the formulas) and
:mod:`~interconnect.topics.crossdc.model.scenario` (one scenario, its curves and every method on it).
"""

from __future__ import annotations

from interconnect.topics.crossdc.data import (
    CONFIDENCES,
    EXCHANGES,
    METHODS,
    CrossDCData,
    CrossDCDataError,
    get_crossdc_data,
    load_crossdc_data,
)
from interconnect.topics.crossdc.model.methods import (
    DENSE_BITS,
    GPUS_PER_SITE_RANGE,
    INNER_STEPS_MAX,
    PARAMS_RANGE,
    SITES_RANGE,
    CrossDCError,
    CrossDCInputError,
    Method,
    default_layers,
    make_method,
    parse_count,
    parse_params,
)
from interconnect.topics.crossdc.model.scenario import (
    CrossDCResult,
    Scenario,
    default_hidden,
    evaluate,
    method_scenarios,
    required_bandwidth_curve,
    utilization_curve,
)
from interconnect.topics.crossdc.model.time_to_target import (
    TimeToTarget,
    resolved_steps_ratios,
    time_to_target,
    time_to_target_ratio,
)
from interconnect.topics.crossdc.model.timing import (
    exposed_time_s,
    payload_bytes,
    required_bandwidth,
    site_allreduce_algbw,
    step_time_s,
    sync_time_s,
    utilization,
    wan_traffic,
)

__all__ = [
    "DENSE_BITS",
    "GPUS_PER_SITE_RANGE",
    "INNER_STEPS_MAX",
    "PARAMS_RANGE",
    "SITES_RANGE",
    "CONFIDENCES",
    "METHODS",
    "EXCHANGES",
    "CrossDCData",
    "CrossDCDataError",
    "CrossDCError",
    "CrossDCInputError",
    "CrossDCResult",
    "Method",
    "Scenario",
    "TimeToTarget",
    "default_hidden",
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
    "resolved_steps_ratios",
    "site_allreduce_algbw",
    "step_time_s",
    "sync_time_s",
    "time_to_target",
    "time_to_target_ratio",
    "utilization",
    "utilization_curve",
    "wan_traffic",
]
