"""The pipeline across sites against the same GPUs as one data-parallel replica per site.

Above both :mod:`~interconnect.topics.crossdc.model.pipeline` (the pipeline's own arithmetic) and
:mod:`~interconnect.topics.crossdc.model.scenario` (the replicas' exchange), which each stay free of the other's
comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interconnect.topics.crossdc.model.methods import CrossDCInputError, make_method
from interconnect.topics.crossdc.model.pipeline import PipelineResult, PipelineScenario, evaluate_pipeline
from interconnect.topics.crossdc.model.scenario import Scenario, evaluate, method_scenarios
from interconnect.units import expects

__all__ = ["Alternative", "compare"]


@dataclass(frozen=True)
class Alternative:
    """One way of using the same GPUs and WAN, and its wall-clock per step of the same global batch."""

    id: str  #: a method id of :data:`~interconnect.topics.crossdc.model.methods.METHODS`
    step_s: float  #: wall-clock per step of the global batch
    vs_pipeline: float  #: step over the pipeline's step (> 1: slower than the pipeline)


@expects(site_algbw_bytes_per_s="B/s")
def compare(s: PipelineScenario, methods: tuple[str, ...] = ("dp", "diloco", "streaming-diloco"),
            site_algbw_bytes_per_s: float = math.inf) -> tuple[PipelineResult, tuple[Alternative, ...]]:
    """The pipeline against the same GPUs as one replica per site, for each of ``methods``.

    Each site then runs ``gpus / sites`` GPUs on its share of the global batch; its compute per step is the
    global batch's FLOPs over all GPUs (no bubble, generous to the replicas). The exchange over the WAN
    (the gradient every step for ``dp``, a pseudo-gradient every H steps for DiLoCo) is timed by
    :func:`~interconnect.topics.crossdc.model.scenario.evaluate` with the round trip twice the one-way
    latency; its wall-clock per step is the compute divided by its utilisation.

    >>> r, alts = compare(PipelineScenario(70e9, 8192, stages=8, micro_batches=32, stage_s=0.3,
    ...                                    wan_bytes_per_s=12.5e9, latency_s=0.01))
    >>> {a.id: round(a.vs_pipeline, 2) for a in alts}
    {'dp': 1.23, 'diloco': 0.82, 'streaming-diloco': 0.82}
    """
    if s.sites < 2:
        raise CrossDCInputError("the comparison needs at least two sites")
    result = evaluate_pipeline(s)
    ideal = s.micro_batches * result.stage_s  # m x t_mb: the global batch's FLOPs on all GPUs
    gpus_per_site = max(1, s.gpus // s.sites)
    base = Scenario(s.params, s.sites, ideal, s.wan_bytes_per_s, 2 * s.latency_s, make_method("dp"),
                    gpus_per_site=gpus_per_site, site_algbw_bytes_per_s=site_algbw_bytes_per_s)
    scenarios = method_scenarios(base)
    out = []
    for method_id in methods:
        r = evaluate(scenarios[method_id])
        wall = ideal / r.utilization if r.utilization > 0 else math.inf
        out.append(Alternative(method_id, wall, wall / result.step_s))
    return result, tuple(out)
