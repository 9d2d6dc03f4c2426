"""torchtitan's 1F1B is PyTorch's Schedule1F1B, which waits for its steady-state exchanges (rule R57).

Code reference (torch/distributed/pipelining/schedules.py, ``Schedule1F1B._step_microbatches``, read in a copy from
before torch 1963fc8, the commit torchtitan's December 2024 performance page names, and in one from 2025; they agree):
rank r runs min(m, p - r) warm-up forwards, each after a waited receive of its input, and issues each warm-up
forward's send but the last without waiting, waiting for it only after the next forward. Then, repeatedly: one batch
of the last forward's send and the next backward's gradient receive, waited; the backward; one batch of that
backward's gradient send and the next forward's input receive, waited; the forward. The cool-down waits for each
gradient receive and for each gradient send only after the next backward; the step waits for the last send.

The run below plays that order rank by rank. A transfer starts once both of its ranks have reached it and takes one
send time; a waited exchange holds its rank until its last transfer ends, while an unwaited send lets the rank go
on and is settled at its wait. The closed form it is checked against is rule R54's, Megatron-LM's.
"""

from __future__ import annotations

import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.model import Layout, Workload, plan
from interconnect.topics.seating.model.schedules import blocking_1f1b_sends
from interconnect.topics.seating.model.stack_defaults import stack_workload
from interconnect.topics.seating.reference_runs import load_reference_runs
from interconnect.workloads.presets import load_model_presets
from tests.topics.seating.pipeline_run import blocking_1f1b_closed_form_s, run_orders

PRESETS = load_model_presets()


def _pytorch_order(r: int, p: int, m: int) -> list[tuple[str, object]]:
    """Rank r's steps: ("F"/"B", micro-batch), ("X", transfers) waited now, ("S", transfers) issued unwaited, or
    ("W", transfers) the wait for an earlier "S". A transfer is (kind, micro-batch, lower rank of the two)."""
    first, last = r == 0, r == p - 1
    act_in, act_out = (lambda i: ("act", i, r - 1)), (lambda i: ("act", i, r))
    grad_in, grad_out = (lambda i: ("grad", i, r)), (lambda i: ("grad", i, r - 1))
    steps: list[tuple[str, object]] = []
    unwaited: list = []

    def settle() -> None:
        if unwaited:
            steps.append(("W", list(unwaited)))
            unwaited.clear()

    warm = min(m, p - r)
    held_send: list = []
    for i in range(warm):
        if not first:
            steps.append(("X", [act_in(i)]))
        steps.append(("F", i))
        settle()
        out = [] if last else [act_out(i)]
        if i < warm - 1:
            if out:
                steps.append(("S", out))
                unwaited.extend(out)
        else:
            held_send = out          # goes out with the first backward's receive
    fwd, bwd = warm, 0
    while True:
        batch = held_send + ([] if last else [grad_in(bwd)])
        if batch:
            steps.append(("X", batch))
        steps.append(("B", bwd))
        grad_send = [] if first else [grad_out(bwd)]
        bwd += 1
        if fwd == m:
            break
        batch = grad_send + ([] if first else [act_in(fwd)])
        if batch:
            steps.append(("X", batch))
        steps.append(("F", fwd))
        held_send = [] if last else [act_out(fwd)]
        fwd += 1
    if grad_send:
        steps.append(("S", grad_send))
        unwaited.extend(grad_send)
    while bwd < m:
        if not last:
            steps.append(("X", [grad_in(bwd)]))
        steps.append(("B", bwd))
        settle()
        if not first:
            steps.append(("S", [grad_out(bwd)]))
            unwaited.append(grad_out(bwd))
        bwd += 1
    settle()
    return steps


def _step_s(p: int, m: int, fwd: float, bwd: float, send: float) -> float:
    return run_orders([_pytorch_order(r, p, m) for r in range(p)], fwd, bwd, send)


@pytest.mark.parametrize("p", [2, 3, 4, 5, 8, 12])
@pytest.mark.parametrize("m", [1, 2, 3, 8, 12, 24])
def test_pytorchs_order_ends_where_r54s_closed_form_does(p, m):
    for fwd, bwd, send in ((1.0, 2.0, 0.1), (1.0, 3.0, 0.5), (0.7, 2.3, 0.02)):
        expected = blocking_1f1b_closed_form_s(p, m, fwd, bwd, send)
        assert _step_s(p, m, fwd, bwd, send) == pytest.approx(expected, rel=1e-12), (fwd, bwd, send)


@pytest.mark.parametrize(("p", "m"), [(4, 4), (8, 8), (8, 20), (5, 2)])
def test_the_order_is_complete_and_leaves_its_warm_up_and_cool_down_sends_unwaited(p, m):
    orders = [_pytorch_order(r, p, m) for r in range(p)]
    for order in orders:
        assert sorted(i for kind, i in order if kind == "F") == list(range(m))
        assert sorted(i for kind, i in order if kind == "B") == list(range(m))
    ends: dict = {}
    for r, order in enumerate(orders):
        for kind, what in order:
            if kind in ("X", "S"):
                for transfer in what:
                    ends.setdefault(transfer, set()).add(r)
    assert all(len(ranks) == 2 for ranks in ends.values()) and len(ends) == 2 * m * (p - 1)
    # unwaited: each warm-up forward's send but the last (ranks before the last), and on every rank after the
    # first the steady state's last gradient send and each cool-down one, warm_r in all
    warm = [min(m, p - r) for r in range(p)]
    unwaited = sum(w - 1 for w in warm[:-1]) + sum(warm[1:])
    assert sum(kind == "S" for order in orders for kind, _ in order) == unwaited


def test_torchtitans_stack_and_rows_are_charged():
    assert stack_workload(Workload(), "torchtitan").p2p_blocking
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    layout = Layout(tp=8, pp=4, dp=1)
    titan = stack_workload(Workload(global_batch=32), "torchtitan")
    base = plan(PRESETS["llama3-70b"], cluster, layout, titan)
    free = plan(PRESETS["llama3-70b"], cluster, layout, Workload(**{**titan.__dict__, "p2p_blocking": False}))
    pp_b, pp_f = ({d.name: d for d in b.dimensions}["pp"] for b in (base, free))
    t_send = pp_b.time_s / pp_b.calls_per_step
    assert pp_b.exposed_s - pp_f.exposed_s == pytest.approx(float(blocking_1f1b_sends(4, 32)) * t_send, rel=1e-9)
    runs = {r.id: r for r in load_reference_runs()}
    for rid in ("torchtitan-gt-llama31-405b-512-1f1b", "torchtitan-gt-llama31-405b-512-cp8-256k"):
        assert runs[rid].workload().p2p_blocking and runs[rid].schedule == "1f1b"
    # the interleaved row is charged as before (rule R57 (b)): the flag acts on 1F1B only
    inter = runs["torchtitan-gt-llama31-405b-512-interleaved"]
    assert inter.schedule == "interleaved" and inter.workload().interleaved_p2p == "overlap"
