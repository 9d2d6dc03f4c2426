"""Megatron-LM 2021's interleaved schedule waits for each batched exchange with both neighbours (rule R56).

Code reference: NVIDIA/Megatron-LM at 6985e589 (2021-08-18, the commit Narayanan et al.'s scripts name),
``megatron/schedules.py`` ``forward_backward_pipelining_with_interleaving`` and ``megatron/p2p_communication.py``.
Rank r of p, v chunks, m micro-batches (n = m v chunk micro-batches; the code asserts p > 2 and m a multiple of p):
``recv_forward``; a warm-up of min(2(p - r - 1) + (v - 1) p, n) chunk forwards, each followed by
``send_forward_recv_forward`` and the last by ``send_forward_backward_recv_forward_backward``; per steady-state step a
chunk forward, a chunk backward and one ``send_forward_backward_recv_forward_backward``; the cool-down's chunk
backwards, each followed by ``send_backward_recv_backward``. With m = p every forward runs first
(``all_warmup_microbatches``), then ``recv_backward``. Chunk ids go in groups of p micro-batches; the first rank does
not receive an activation for chunk 0 nor send a gradient out of it, the last rank does not send the output of the
last chunk nor receive a gradient for it. Next and previous rank wrap round the ring. ``_communicate`` batches its
operations in one ``batch_isend_irecv``, waits for every request, calls ``torch.cuda.synchronize()`` and, without
sequence parallelism, all-gathers each received slice in the TP group.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.model import Layout, Workload, plan
from interconnect.topics.seating.model.grid import OVERLAP_SLOWDOWN
from interconnect.topics.seating.model.layout import layout_problems
from interconnect.topics.seating.model.schedules import blocking_interleaved_transfers, interleaved_pipeline_s
from interconnect.topics.seating.model.stack_defaults import STACKS, stack_workload
from interconnect.topics.seating.model.step import evaluate_layouts
from interconnect.topics.seating.reference_runs import load_reference_runs
from interconnect.workloads.presets import load_model_presets

PRESETS = load_model_presets()


def _calls(r: int, p: int, v: int, m: int) -> list[tuple]:
    """Rank r's calls in order: ("F",) or ("B",) compute, ("X", send_next, send_prev, recv_prev, recv_next)."""
    n, first, last = m * v, r == 0, r == p - 1
    everything_first = m == p
    warm = n if everything_first else min(2 * (p - r - 1) + (v - 1) * p, n)

    def chunk(k: int, forward: bool) -> int:
        c = (k % (p * v)) // p
        return c if forward else v - 1 - c

    calls: list[tuple] = [("X", False, False, not first, False)]
    for k in range(warm):
        calls.append(("F",))
        send = not (last and chunk(k, True) == v - 1)
        recv_prev = not (first and chunk(k + 1, True) == 0) and k != n - 1
        recv_next = k == warm - 1 and not everything_first and not last
        calls.append(("X", send, False, recv_prev, recv_next))
    steady = n - warm
    for k in range(steady):
        calls += [("F",), ("B",)]
        send_next = not (last and chunk(k + warm, True) == v - 1)
        send_prev = not (first and chunk(k, False) == 0)
        recv_prev = not (first and chunk(k + warm - (p - 1), True) == v - 1) and k != steady - 1
        recv_next = not (last and chunk(k - (p - 1), False) == 0)
        calls.append(("X", send_next, send_prev, recv_prev, recv_next))
    if everything_first:
        calls.append(("X", False, False, False, not last))
    for k in range(steady, n):
        calls.append(("B",))
        recv_next = not (last and chunk(k + 1, False) == v - 1) and k != n - 1
        calls.append(("X", False, not (first and chunk(k, False) == 0), False, recv_next))
    return [c for c in calls if c[0] != "X" or any(c[1:])]


def _step_s(p: int, v: int, m: int, fwd: float, bwd: float, net: float, gather: float) -> float:
    """When the last rank is done. A transfer is named by its link and its place in that link's order; it starts once
    both its ranks have reached the exchange holding it and takes ``net``; the transfers of one batch run at once;
    the exchange ends with its last transfer, then one ``gather`` per tensor received."""
    plans = []
    for r in range(p):
        sent_next = sent_prev = got_prev = got_next = 0
        steps = []
        for call in _calls(r, p, v, m):
            if call[0] != "X":
                steps.append(call[0])
                continue
            _, send_next, send_prev, recv_prev, recv_next = call
            transfers = []
            if send_next:
                transfers.append(("down", r, sent_next))
                sent_next += 1
            if send_prev:
                transfers.append(("up", r, sent_prev))
                sent_prev += 1
            if recv_prev:
                transfers.append(("down", (r - 1) % p, got_prev))
                got_prev += 1
            if recv_next:
                transfers.append(("up", (r + 1) % p, got_next))
                got_next += 1
            steps.append((transfers, int(recv_prev) + int(recv_next)))
        plans.append(steps)
    at, clock = [0] * p, [0.0] * p
    arrived: dict[tuple, dict[int, float]] = {}
    progress = True
    while progress:
        progress = False
        for r in range(p):
            while at[r] < len(plans[r]):
                step = plans[r][at[r]]
                if step == "F":
                    clock[r] += fwd
                elif step == "B":
                    clock[r] += bwd
                else:
                    transfers, received = step
                    for t in transfers:
                        arrived.setdefault(t, {}).setdefault(r, clock[r])
                    if any(len(arrived[t]) < 2 for t in transfers):
                        break
                    clock[r] = max(max(arrived[t].values()) + net for t in transfers) + received * gather
                at[r] += 1
                progress = True
    assert at == [len(s) for s in plans], "the order deadlocked"
    return max(clock)


GRID = [(p, v, k * p) for p, v, k in itertools.product([3, 4, 5, 8], [1, 2, 3, 4], [1, 2, 3, 5])]


@pytest.mark.parametrize(("p", "v", "m"), GRID)
def test_closed_form_is_the_event_by_event_run_of_the_2021_order(p, v, m):
    # (m + (p - 1)/v) t_micro + [2(pv - 1) + sends] t_net + [2(pv - 1) + gathers] t_gather, t_micro = v (f + b)
    sends, gathers = (float(x) for x in blocking_interleaved_transfers(p, v, m))
    fill = 2 * (p * v - 1)
    for fwd, bwd, net, gather in ((1.0, 2.0, 0.01, 0.0), (1.0, 1.0, 0.03, 0.02), (0.7, 2.3, 0.4, 0.1)):
        expected = (m + (p - 1) / v) * v * (fwd + bwd) + (fill + sends) * net + (fill + gathers) * gather
        assert _step_s(p, v, m, fwd, bwd, net, gather) == pytest.approx(expected, rel=1e-12), (fwd, bwd, net, gather)


def test_without_sends_the_order_is_the_bubble_of_narayanan_et_al():
    # the simulation's order alone: (m + (p - 1)/v) micro-batch times (Narayanan et al. 2021, section 2.2.2)
    for p, v, m in ((4, 3, 28), (8, 2, 48), (5, 4, 10)):
        assert _step_s(p, v, m, 1.0, 2.0, 0.0, 0.0) == pytest.approx((m + (p - 1) / v) * v * 3.0)


def test_closed_form_values():
    # one transfer a steady-state chunk pair, v(m - p), and p - 1 more; gathers twice per pair, 2p - 3 more
    sends, gathers = blocking_interleaved_transfers(np.array([4, 8, 16, 35]), np.array([3, 2, 2, 3]),
                                                    np.array([28, 48, 144, 280]))
    assert sends.tolist() == [75.0, 87.0, 271.0, 769.0]
    assert gathers.tolist() == [149.0, 173.0, 541.0, 1537.0]
    assert [float(x) for x in blocking_interleaved_transfers(6, 4, 6)] == [10.0, 10.0]  # m = p: 2(p - 1)
    assert [float(x) for x in blocking_interleaved_transfers(1, 4, 64)] == [0.0, 0.0]


def _bill(workload: Workload, layout: Layout, nodes: int = 4):
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=nodes)
    return plan(PRESETS["llama3-70b"], cluster, layout, workload)


@pytest.mark.parametrize("sequence_parallel", [True, False])
def test_step_charges_the_closed_form_and_hides_none_of_the_sends(sequence_parallel):
    layout = Layout(tp=8, pp=4, dp=1)
    overlap = Workload(global_batch=32, schedule="interleaved", virtual_stages=2, sequence_parallel=sequence_parallel)
    blocking = dataclasses.replace(overlap, interleaved_p2p="blocking")
    b, o = _bill(blocking, layout), _bill(overlap, layout)
    pp_b, pp_o = ({d.name: d for d in x.dimensions}["pp"] for x in (b, o))
    t_send, m = pp_b.time_s / pp_b.calls_per_step, b.micro_batches
    assert pp_b.time_s == pytest.approx(pp_o.time_s) and m == 32
    sends, gathers = (float(x) for x in blocking_interleaved_transfers(4, 2, m))
    added = pp_b.exposed_s - pp_o.exposed_s
    if sequence_parallel:
        assert added == pytest.approx(sends * t_send, rel=1e-9)
    else:
        # each transfer's send over the network once, its gather in the TP group once per tensor received
        assert sends * t_send < added < gathers * t_send
    # the sends Megatron-Core hid beside compute no longer slow it
    hidden_before = pp_o.time_s - pp_o.exposed_s
    assert b.step_s - o.step_s == pytest.approx(added - OVERLAP_SLOWDOWN * hidden_before, rel=1e-6)
    assert pp_b.overlap.startswith("no:") and not pp_o.overlap.startswith("no:")


def test_chunk_chooser_prices_what_the_step_charges():
    # the step's gaps between chunk counts are interleaved_pipeline_s's with blocking=True, and a free chunk count
    # takes the fastest of them (Llama 3 70B, TP4 x PP8 x DP2 on 64 H100, memory to spare; the data-parallel
    # round's chunked sync, rule R53, switched off so that the gaps are the pipeline's alone)
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    a = lambda x: np.array([x], dtype=float)  # noqa: E731

    def run(v: int) -> dict:
        workload = Workload(global_batch=256, schedule="interleaved", virtual_stages=v, memory_bytes=141e9,
                            chunk_dp_sync="", interleaved_p2p="blocking")
        return evaluate_layouts(PRESETS["llama3-70b"], cluster, workload, a(4), a(8), a(2), a(1), a(1), a(1))

    fixed = {v: run(v) for v in (1, 2, 5, 10)}
    t_micro, send = float(fixed[1]["t_micro"][0]), float(fixed[1]["pp_time"][0]) / float(fixed[1]["pp_calls"][0])
    for v in (2, 5, 10):
        step_gap = float(fixed[v]["step_s"][0] - fixed[1]["step_s"][0])
        closed = interleaved_pipeline_s(128, 8, np.array([v, 1.0]), t_micro, send, OVERLAP_SLOWDOWN, blocking=True)
        assert step_gap == pytest.approx(float(closed[0] - closed[1]), rel=1e-6), v
    fastest = min(fixed, key=lambda v: float(fixed[v]["step_s"][0]))
    assert float(run(0)["virtual"][0]) == fastest


def test_only_the_2021_interleaved_schedule_waits():
    layout = Layout(tp=8, pp=4, dp=1)
    for schedule in ("1f1b", "zero-bubble"):
        w = Workload(global_batch=32, schedule=schedule)
        assert _bill(w, layout).step_s == _bill(dataclasses.replace(w, interleaved_p2p="blocking"), layout).step_s
    ds = Workload(global_batch=32, schedule="interleaved", virtual_stages=2, pipeline_engine="deepspeed")
    assert _bill(ds, layout).step_s == _bill(dataclasses.replace(ds, interleaved_p2p="blocking"), layout).step_s
    no_pp = Workload(global_batch=32, schedule="interleaved")
    assert (_bill(no_pp, Layout(tp=8, dp=4)).step_s
            == _bill(dataclasses.replace(no_pp, interleaved_p2p="blocking"), Layout(tp=8, dp=4)).step_s)


def test_a_bad_mode_is_a_message():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    problems = layout_problems(PRESETS["llama3-70b"], cluster, Layout(tp=8, pp=4),
                               Workload(interleaved_p2p="<b>sometimes</b>"))
    assert any("Interleaved exchange mode" in p for p in problems)


def test_stacks_and_runs_follow_the_rule():
    # every stack of the page and plan is Megatron-Core's way or its own: none takes the 2021 exchanges
    assert Workload().interleaved_p2p == "overlap"
    assert all(stack_workload(Workload(), s).interleaved_p2p == "overlap" for s in STACKS)
    runs = load_reference_runs()
    blocking = {r.id for r in runs if r.workload().interleaved_p2p == "blocking"}
    assert {"narayanan-76.1b-1024", "narayanan-145.6b-1536", "narayanan-310.1b-1920",
            "narayanan-529.6b-2520"} <= blocking
    assert all("Megatron-LM (2021)" in r.stack or "Megatron-LM (2022)" in r.stack for r in runs if r.id in blocking)
    assert not any(r.megatron_core or r.torchtitan for r in runs if r.id in blocking)
