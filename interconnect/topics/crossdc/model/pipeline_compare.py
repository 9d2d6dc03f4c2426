"""The pipeline across sites against the same GPUs as one data-parallel replica per site.

Above both :mod:`~interconnect.topics.crossdc.model.pipeline` (the pipeline's own arithmetic) and
:mod:`~interconnect.topics.crossdc.model.scenario` (the replicas' exchange), which each stay free of the other's
comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interconnect.topics.crossdc.model.methods import CrossDCInputError, make_method
from interconnect.topics.crossdc.model.pipeline import (
    PipelineResult,
    PipelineScenario,
    dp_exchange_step_s,
    evaluate_pipeline,
    message_bytes,
    pipeline_step_s,
)
from interconnect.topics.crossdc.model.scenario import Scenario, evaluate, method_scenarios
from interconnect.topics.crossdc.model.static_schedule import static_1f1b_step_s
from interconnect.units import expects

__all__ = ["Alternative", "case_message_bytes", "compare", "crosspipe_pipeline", "crosspipe_scenario",
           "predict_case"]


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


# --- CrossPipe's published cases (crossdc_pipeline.toml), each predicted from its own inputs ---------------------

def case_message_bytes(i: dict[str, float]) -> float:
    """One micro-batch's message at the cut, B, from a published case's inputs."""
    return float(message_bytes(i["micro_batch"], i["seq_len"], i["hidden"], i["bytes_per_value"], i["pipelines"]))


def crosspipe_scenario(i: dict[str, float], schedule: str) -> PipelineScenario:
    """A published case's pipeline over two sites on ``schedule``, a stage's pass taking three forwards."""
    return PipelineScenario(i["params"], int(i["hidden"]), seq_len=int(i["seq_len"]), micro_batch=int(i["micro_batch"]),
                            micro_batches=int(i["micro_batches"]), stages=int(i["stages"]),
                            pipelines=int(i["pipelines"]), sites=2, bytes_per_value=i["bytes_per_value"],
                            wan_bytes_per_s=i["wan_bytes_per_s"], latency_s=i["latency_s"],
                            stage_s=3 * i["forward_s"], schedule=schedule)


def crosspipe_pipeline(i: dict[str, float]) -> PipelineResult:
    """The file's rule 7: CrossUD stands as ZB-H1, CrossWave as ZBV; the faster of the two."""
    return min((evaluate_pipeline(crosspipe_scenario(i, k)) for k in ("zb-h1", "zbv")), key=lambda r: r.step_s)


def predict_case(quantity: str, i: dict[str, float]) -> float:
    """The model's value of one published CrossPipe figure from its own inputs (the rules of
    ``crossdc_pipeline.toml``); ``ValueError`` for a quantity the model does not predict."""
    if quantity == "message_bytes":
        return case_message_bytes(i)
    if quantity == "transfer_over_forward":
        return case_message_bytes(i) / i["wan_bytes_per_s"] / i["forward_s"]
    if quantity == "latency_over_forward":
        return i["latency_s"] / i["forward_s"]
    if quantity == "latency_step_ratio":
        args = (3 * i["forward_s"], i["stages"], i["micro_batches"], i["sites"], case_message_bytes(i),
                i["wan_bytes_per_s"])
        return float(pipeline_step_s(*args, i["latency_high_s"]) / pipeline_step_s(*args, i["latency_low_s"]))
    forward = i.get("forward_s", 0.0)
    if quantity == "runtime_per_micro_batch":  # rule 6: 1F1B with the round trip hidden, per micro-batch
        step = pipeline_step_s(3 * forward, i["stages"], i["micro_batches"], i["sites"],
                               i["transfer_over_forward"] * forward * 1e9, 1e9, i["latency_over_forward"] * forward)
        return float(step) / i["micro_batches"]
    if quantity == "schedule_gain":  # rule 8: the static 1F1B played out against the latency hidden
        latency, transfer = i["latency_over_forward"] * forward, i["transfer_over_forward"] * forward
        hidden = pipeline_step_s(3 * forward, i["stages"], i["micro_batches"], i["sites"], transfer * 1e9, 1e9,
                                 latency)
        static = static_1f1b_step_s(int(i["stages"]), int(i["micro_batches"]), forward, 2 * forward, latency,
                                    transfer)
        return 1 - float(hidden) / static
    if quantity == "slowdown_vs_ideal":  # rule 7
        return crosspipe_pipeline(i).slowdown_vs_ideal
    if quantity == "speedup_vs_dp":  # rule 7
        dp = dp_exchange_step_s(3 * forward, i["stages"], i["micro_batches"], i["params"], i["wan_bytes_per_s"],
                                i["latency_s"], "zbv", i["grad_bytes_per_param"])
        return float(dp) / crosspipe_pipeline(i).step_s
    raise ValueError(f"no prediction for {quantity}")
