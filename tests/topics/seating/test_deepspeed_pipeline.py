"""DeepSpeed's pipeline engine waits for every stage-boundary call and gathers each slice on the compute stream (R62).

Code reference: microsoft/DeepSpeed ``deepspeed/runtime/pipe/schedule.py`` ``TrainSchedule.steps`` at e2fdd254e
(2021-09-29) and 29bee73 (2021-10-21): 2(m + p - 1) steps a stage; stage s runs a forward when step + s is even and a
backward otherwise (``_step_to_micro_batch``: the forward of micro-batch i on stage s at step 2i + s, its backward on
stage s at step 2(i + p) - s - 1). A forward step is ``RecvActivation`` (from s - 1), ``SendGrad`` (of the previous
step's backward, to s - 1), the forward; a backward step is ``SendActivation`` (of the previous step's forward, to
s + 1), ``RecvGrad`` (from s + 1), the backward. ``runtime/pipe/p2p.py``: ``send`` and ``recv`` are blocking
``dist.send`` / ``dist.recv`` (``async_op`` is refused). ``runtime/pipe/engine.py`` with TP > 1
(``is_pipe_partitioned`` and ``is_grad_partitioned``): ``_exec_forward_pass`` all-gathers its received slice
(``PartitionedTensor.full``) unless on the first stage, ``_exec_backward_pass`` gathers its output back and the
received gradient unless on the last stage (which returns after the loss's backward).
"""

from __future__ import annotations

import dataclasses

import pytest

from interconnect.topics.seating.model import plan
from interconnect.topics.seating.model.schedules import deepspeed_pipeline_waits
from interconnect.topics.seating.reference_runs import load_reference_runs
from tests.topics.seating.pipeline_run import run_orders

RUNS = {run.id: run for run in load_reference_runs()}


def _micro_batch(step: int, s: int, p: int) -> tuple[int, bool]:
    """The micro-batch stage s works on at a step of TrainSchedule, and whether it is a forward."""
    if (step + s) % 2 == 0:
        return (step - s) // 2, True
    return (step + s + 1) // 2 - p, False


def _stage_order(s: int, p: int, m: int, gather: float) -> list[tuple[str, object]]:
    """Stage s's instructions: each send or receive an exchange waited for alone, the gathers as compute."""
    order: list[tuple[str, object]] = []
    valid = range(m).__contains__
    prev = -1
    for step in range(2 * (m + p - 1)):
        i, forward = _micro_batch(step, s, p)
        if forward:
            if s > 0 and valid(i):
                order.append(("X", [("act", i, s - 1)]))
            if s > 0 and valid(prev):
                order.append(("X", [("grad", prev, s - 1)]))
            if valid(i):
                order += ([] if s == 0 else [("C", gather)]) + [("F", i)]
        else:
            if s < p - 1 and valid(prev):
                order.append(("X", [("act", prev, s)]))
            if s < p - 1 and valid(i):
                order.append(("X", [("grad", i, s)]))
            if valid(i):
                order += ([] if s == p - 1 else [("C", gather), ("C", gather)]) + [("B", i)]
        prev = i
    return order


def _run(p: int, m: int, fwd: float, bwd: float, send: float, gather: float) -> float:
    return run_orders([_stage_order(s, p, m, gather) for s in range(p)], fwd, bwd, send)


def test_the_order_is_trainschedules():
    # every stage forwards and backwards each micro-batch once, forward first, stage by stage in order
    p, m = 5, 7
    for s in range(p):
        done = [(kind, what) for kind, what in _stage_order(s, p, m, 0.0) if kind in ("F", "B")]
        assert sorted(done) == sorted([("F", i) for i in range(m)] + [("B", i) for i in range(m)])
        assert all(done.index(("F", i)) < done.index(("B", i)) for i in range(m))
        # warm-up: min(p - s, m) forwards before the first backward, then one forward per backward
        assert done.index(("B", 0)) == min(p - s, m)
    assert _micro_batch(0, 0, p) == (0, True) and _micro_batch(2 * p - 1, 0, p) == (0, False)
    assert _micro_batch(p - 1, p - 1, p) == (0, True) and _micro_batch(p, p - 1, p) == (0, False)


@pytest.mark.parametrize("p", [2, 3, 4, 6, 12, 35])
@pytest.mark.parametrize("m", [1, 2, 3, 8, 40])
def test_transfers_and_gathers_match_an_event_by_event_run(p, m):
    fwd, bwd, send, gather = 1.0, 3.0, 0.01, 0.003
    end = _run(p, m, fwd, bwd, send, gather)
    sends, gathers = (float(x) for x in deepspeed_pipeline_waits(p, m))
    assert end == pytest.approx((m + p - 1) * (fwd + bwd) + sends * send + gathers * gather, abs=1e-9)
    # and the counts hold for a slower transfer and a forward a third of the backward
    end = _run(p, m, 1.0, 2.0, 0.3, 0.05)
    assert end == pytest.approx((m + p - 1) * 3.0 + sends * 0.3 + gathers * 0.05, abs=1e-9)


def test_closed_forms():
    # p >= 3, m >= 2: 2(p - 1) + 4(m - 1) - 2 transfers, 3(m + p - 1) - 5 gathers (MT-NLG on 2,240 GPUs: p 35, m 240)
    assert [float(x) for x in deepspeed_pipeline_waits(35, 240)] == [68 + 956 - 2, 3 * 274 - 5]
    assert [float(x) for x in deepspeed_pipeline_waits(2, 5)] == [10.0, 10.0]
    assert [float(x) for x in deepspeed_pipeline_waits(35, 1)] == [68.0, 102.0]
    assert [float(x) for x in deepspeed_pipeline_waits(1, 240)] == [0.0, 0.0]


def test_mtnlg_charges_the_runs_transfers_and_gathers():
    # MT-NLG 530B on 2,240 A100 (Smith et al. 2022, section 2.4): TP 8 x PP 35, m = 1,920 / 8 = 240 micro-batches.
    # Without the gathers (a run whose boundary tensor is not split, here sequence parallelism on) the pipeline's
    # exposed time is N transfers; with them it lies between G and N calls of a transfer and its gather.
    run = RUNS["mtnlg-530b-2240"]
    model, cluster, layout, workload = run.model(), run.cluster(), run.layout(), run.workload()
    sends, gathers = (float(x) for x in deepspeed_pipeline_waits(run.pp, 240))
    split = plan(model, cluster, layout, dataclasses.replace(workload, sequence_parallel=True))
    pp = next(d for d in split.dimensions if d.name == "pp")
    assert split.micro_batches == 240
    assert pp.exposed_s == pytest.approx(sends * pp.time_s / pp.calls_per_step, rel=1e-9)
    bill = plan(model, cluster, layout, workload)
    pp = next(d for d in bill.dimensions if d.name == "pp")
    per_call = pp.time_s / pp.calls_per_step
    assert gathers * per_call < pp.exposed_s < sends * per_call
    # the charge before rule R62: 2(p - 1) + 4(m + p - 1) calls, each with its gather
    assert pp.exposed_s < (2 * 34 + 4 * 274) * per_call
