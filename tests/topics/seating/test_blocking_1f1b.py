"""Megatron-LM's 1F1B schedule without interleaving waits for each stage-boundary exchange (rule R54).

Code reference: NVIDIA/Megatron-LM ``forward_backward_pipelining_without_interleaving`` (megatron/schedules.py at
6985e589, 2021; megatron/core/pipeline_parallel/schedules.py at f2e5db402c, core_v0.15.0 and core_v0.16.0): warm-up
``min(p - r - 1, m)`` forwards on rank r, each a ``recv_forward``, the forward and a ``send_forward``; one more
``recv_forward``; then per micro-batch the forward, ``send_forward_recv_backward`` (with rank r + 1), the backward and
``send_backward_recv_forward`` (with rank r - 1; a plain ``send_backward`` after the last); the cool-down's
``recv_backward``, backward, ``send_backward``. ``_communicate`` (p2p_communication.py) waits for every request of
the exchange and, under ``batch_p2p_comm`` and ``batch_p2p_sync`` (both default true in ModelParallelConfig; always
so in 2021), calls ``torch.cuda.synchronize()``: the rank does nothing else until its exchange is done. The schedule
raises ValueError on ``overlap_p2p_comm``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.model import Layout, Workload, plan
from interconnect.topics.seating.model.grid import OVERLAP_SLOWDOWN
from interconnect.topics.seating.model.schedules import blocking_1f1b_sends
from interconnect.topics.seating.model.stack_defaults import STACKS, stack_workload
from interconnect.topics.seating.reference_runs import load_reference_runs
from interconnect.workloads.presets import load_model_presets
from tests.topics.seating.pipeline_run import blocking_1f1b_closed_form_s, run_orders

PRESETS = load_model_presets()


def _rank_order(r: int, p: int, m: int) -> list[tuple[str, object]]:
    """Rank r's calls in Megatron-LM's order: ("F"/"B", micro-batch) or ("X", the transfers its exchange holds).

    A transfer is named by its kind, micro-batch and the lower rank of the two it joins.
    """
    order: list[tuple[str, object]] = []
    first, last = r == 0, r == p - 1
    warm = min(p - r - 1, m)
    act_in, act_out = (lambda i: ("act", i, r - 1)), (lambda i: ("act", i, r))
    grad_in, grad_out = (lambda i: ("grad", i, r)), (lambda i: ("grad", i, r - 1))
    for i in range(warm):
        order += [] if first else [("X", [act_in(i)])]
        order.append(("F", i))
        order += [] if last else [("X", [act_out(i)])]
    steady = m - warm
    if steady > 0 and not first:
        order.append(("X", [act_in(warm)]))
    for i in range(steady):
        order.append(("F", warm + i))
        order += [] if last else [("X", [act_out(warm + i), grad_in(i)])]
        order.append(("B", i))
        if not first:
            order.append(("X", [grad_out(i)] + ([act_in(warm + i + 1)] if i < steady - 1 else [])))
    for i in range(steady, m):
        order += [] if last else [("X", [grad_in(i)])]
        order.append(("B", i))
        order += [] if first else [("X", [grad_out(i)])]
    return order


def _blocking_step_s(p: int, m: int, fwd: float, bwd: float, send: float) -> float:
    """When the last rank finishes, every exchange blocking: a transfer starts once both its ranks have reached it
    and takes ``send``; an exchange ends with its last transfer (the two directions of a link run at once)."""
    return run_orders([_rank_order(r, p, m) for r in range(p)], fwd, bwd, send)


@pytest.mark.parametrize("p", [2, 3, 4, 6, 8, 12])
@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 24])
def test_closed_form_is_the_event_by_event_run_of_megatrons_order(p, m):
    # (m + p - 1) t_micro + [2(p - 1) + blocking_1f1b_sends] t_send, exactly
    for fwd, bwd, send in ((1.0, 2.0, 0.1), (1.0, 1.0, 0.03), (0.7, 2.3, 0.4)):
        expected = blocking_1f1b_closed_form_s(p, m, fwd, bwd, send)
        assert _blocking_step_s(p, m, fwd, bwd, send) == pytest.approx(expected, rel=1e-12), (fwd, bwd, send)


def test_closed_form_values():
    # one neighbour (two stages): m - 1; two neighbours: 2m - 3; one micro-batch or no pipeline: nothing
    assert blocking_1f1b_sends(np.array([1, 2, 3, 64]), np.array([8, 8, 8, 512])).tolist() == [0.0, 7.0, 13.0, 1021.0]
    assert float(blocking_1f1b_sends(8, 1)) == 0.0
    # the steady state's two exchanges a micro-batch, less the three the fill and drain already hold
    assert float(blocking_1f1b_sends(8, 100)) == 2 * 100 - 3


def _bill(workload: Workload, layout: Layout):
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    return plan(PRESETS["llama3-70b"], cluster, layout, workload)


def test_step_charges_the_closed_form_and_hides_none_of_the_sends():
    layout = Layout(tp=8, pp=4, dp=1)
    blocking = _bill(Workload(global_batch=32), layout)
    free = _bill(Workload(global_batch=32, p2p_blocking=False), layout)
    pp_b, pp_f = ({d.name: d for d in b.dimensions}["pp"] for b in (blocking, free))
    t_send, m = pp_b.time_s / pp_b.calls_per_step, blocking.micro_batches
    assert pp_b.time_s == pytest.approx(pp_f.time_s) and m == 32
    assert pp_b.exposed_s - pp_f.exposed_s == pytest.approx(float(blocking_1f1b_sends(4, m)) * t_send, rel=1e-9)
    # the sends that were hidden (2m - 2(p - 1)) no longer slow the compute beside them
    hidden_before = pp_f.time_s - pp_f.exposed_s
    step_gap = blocking.step_s - free.step_s
    assert step_gap == pytest.approx(pp_b.exposed_s - pp_f.exposed_s - OVERLAP_SLOWDOWN * hidden_before, rel=1e-6)


def test_only_megatrons_1f1b_waits():
    layout = Layout(tp=8, pp=4, dp=1)
    for schedule, v in (("interleaved", 2), ("zero-bubble", 0)):
        w = Workload(global_batch=32, schedule=schedule, virtual_stages=v)
        assert _bill(w, layout).step_s == _bill(dataclasses.replace(w, p2p_blocking=False), layout).step_s
    ds = Workload(global_batch=32, pipeline_engine="deepspeed")
    assert _bill(ds, layout).step_s == _bill(dataclasses.replace(ds, p2p_blocking=False), layout).step_s
    no_pp = Workload(global_batch=32)
    assert (_bill(no_pp, Layout(tp=8, dp=4)).step_s
            == _bill(dataclasses.replace(no_pp, p2p_blocking=False), Layout(tp=8, dp=4)).step_s)


def test_stacks_and_runs_follow_the_rule():
    # the page's Megatron-Core family blocks (its default equals the Workload's); so does torchtitan's PyTorch
    # Schedule1F1B since rule R57 (tests/topics/seating/test_torchtitan_1f1b.py)
    assert stack_workload(Workload()).p2p_blocking and Workload().p2p_blocking
    assert [s.id for s in STACKS.values() if not s.p2p_blocking] == []
    runs = load_reference_runs()
    waits = {r.id for r in runs if r.workload().p2p_blocking and r.schedule == "1f1b" and r.pp > 1
             and r.pipeline_engine == "megatron"}
    assert {"narayanan-39.1b-512", "narayanan-1t-3072", "narayanan-t2-ptdp-175b-384", "narayanan-t2-ptdp-530b-2240",
            "mbridge2511-deepseekv3-b200-256", "mbridge2602-gptoss-120b-h100-64"} <= waits
    assert {r.id for r in runs if r.torchtitan and r.id in waits} >= {"torchtitan-gt-llama31-405b-512-1f1b",
                                                                       "torchtitan-gt-llama31-405b-512-cp8-256k"}
