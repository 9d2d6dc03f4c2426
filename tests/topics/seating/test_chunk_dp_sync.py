"""Megatron-Core's interleaved schedule starts each model chunk's data-parallel sync on its own (rule R53).

Code reference: NVIDIA/Megatron-LM megatron/core/pipeline_parallel/schedules.py,
``forward_backward_pipelining_with_interleaving``, at f2e5db402c (2024-07-15) and core_v0.15.0 (0d7e02bd26):
a chunk's ``grad_sync_func`` is called once the backward of its last micro-batch has run (chunks v-1 ... 0 in the
last group of p micro-batches, so p chunk backwards apart, chunk 0 at the very end); ``param_sync_func`` gathers
chunks 0 and 1 before the first forward and chunk k+1 from the first forward of chunk k (p chunk forwards apart).
megatron/training/training.py sets both from --overlap-grad-reduce / --overlap-param-gather with
delay_grad_reduce / align_grad_reduce and delay_param_gather / align_param_gather.
"""

from __future__ import annotations

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.model import Layout, LayoutError, Workload, check_layout
from interconnect.topics.seating.model.data_parallel import chunked_sync_exposed_s
from interconnect.topics.seating.model.stack_defaults import stack_workload
from interconnect.topics.seating.model.step import evaluate_layouts
from interconnect.topics.seating.reference_runs import load_reference_runs
from interconnect.workloads.presets import load_model_presets

PRESETS = load_model_presets()


@pytest.mark.parametrize(("t", "calls", "w"), [(0.6, 10, 0.4), (0.6, 10, 0.7), (0.05, 3, 0.0), (2.0, 40, 1.5)])
def test_one_chunk_is_the_one_window_form_the_model_uses_without_interleaving(t, calls, w):
    # v = 1: the last bucket, or what the one window (the last backward, or the first forward) leaves
    assert float(chunked_sync_exposed_s(t, calls, 1, 123.0, w)) == max(t / calls, t - w)


def test_wide_spacing_leaves_one_chunks_share_and_a_saturated_network_all_but_the_spacings():
    t, v = 0.64, 16
    # each chunk's share ends long before the next one starts: only the last chunk's t/v is exposed
    assert float(chunked_sync_exposed_s(t, 4 * v, v, 1.0, 0.0)) == pytest.approx(t / v)
    # the network cannot keep up: everything but the (v - 1) spacings the compute runs through
    s = 0.01
    assert float(chunked_sync_exposed_s(t, 4 * v, v, s, 0.0)) == pytest.approx(t - (v - 1) * s)
    # a window of its own for the last chunk (the gathers' first forward) comes off both
    assert float(chunked_sync_exposed_s(t, 4 * v, v, s, 0.05)) == pytest.approx(t - (v - 1) * s - 0.05)
    # never below one bucket
    assert float(chunked_sync_exposed_s(t, 4 * v, v, 1.0, 1.0)) == pytest.approx(t / (4 * v))


def _gradient_queue_s(v: int, share: float, spacing: float) -> float:
    """Chunk c's reduce-scatter starts (v - 1 - c) spacings before the last backward ends; one queue, in order."""
    free = -np.inf
    for c in range(v):
        free = max(-(v - 1 - c) * spacing, free) + share
    return max(free, 0.0)


def _gather_queue_s(v: int, share: float, spacing: float) -> float:
    """Chunks 0 and 1 at the start, chunk k from chunk k-1's first forward; a late chunk delays what follows."""
    stall, free = 0.0, 0.0
    for k in range(v):
        start = 0.0 if k < 2 else (k - 1) * spacing + stall
        free = max(start, free) + share
        stall += max(free - (k * spacing + stall), 0.0)
    return stall


@pytest.mark.parametrize("seed", range(5))
def test_the_closed_form_is_the_staggered_queue_step_by_step(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        v = int(rng.integers(1, 30))
        share, spacing = float(rng.uniform(1e-3, 0.1)), float(rng.uniform(0.0, 0.2))
        closed = float(chunked_sync_exposed_s(v * share, v, v, spacing, 0.0))  # one bucket a chunk
        assert _gradient_queue_s(v, share, spacing) == pytest.approx(closed, abs=1e-12)
        assert _gather_queue_s(v, share, spacing) == pytest.approx(closed, abs=1e-12)


def _cluster(nodes: int):
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=nodes)
    return cluster


def test_the_step_charges_the_chunked_form_only_for_interleaved_megatron_core():
    model = PRESETS["llama3-70b"]
    a = lambda x: np.array([x], dtype=float)  # noqa: E731
    # TP8 x PP4 x DP16 on 64 nodes, ZeRO-0: one all-reduce of the gradients, no gather
    args = (a(8), a(4), a(16), a(1), a(1), a(0))
    wl = dict(global_batch=512, micro_batch=1, recompute="selective", schedule="interleaved", virtual_stages=5)
    cluster = _cluster(64)
    chunked = evaluate_layouts(model, cluster, Workload(**wl), *args)
    plain = evaluate_layouts(model, cluster, Workload(chunk_dp_sync="", **wl), *args)
    v, micro = float(chunked["virtual"][0]), float(chunked["micro"][0])
    assert v == 5.0
    backward = 2 / 3 * float(chunked["compute_s"][0]) / micro   # one micro-batch's backward on the stage
    expected = chunked_sync_exposed_s(chunked["dp_time"][0], chunked["dp_calls"][0], v, min(4, micro) * backward / v,
                                      0.0)
    assert float(chunked["dp_exposed"][0]) == pytest.approx(float(expected))
    assert float(plain["dp_exposed"][0]) == pytest.approx(max(float(plain["dp_time"][0]) / float(plain["dp_calls"][0]),
                                                              float(plain["dp_time"][0]) - backward))
    # 1F1B: one chunk, the flag changes nothing
    one = {k: evaluate_layouts(model, cluster, Workload(chunk_dp_sync=m, **dict(wl, schedule="1f1b")),
                               *args)["dp_exposed"][0] for k, m in (("on", "grads-params"), ("off", ""))}
    assert one["on"] == one["off"]


def test_zero1_weights_are_staggered_only_with_param_sync_func():
    model = PRESETS["llama3-70b"]
    a = lambda x: np.array([x], dtype=float)  # noqa: E731
    wl = dict(micro_batch=1, recompute="selective", schedule="interleaved", virtual_stages=5)

    def exposed(nodes, pp, dp, batch):
        args = (a(8), a(pp), a(dp), a(1), a(1), a(1))
        return {m: float(evaluate_layouts(model, _cluster(nodes), Workload(chunk_dp_sync=m, global_batch=batch, **wl),
                                          *args)["dp_exposed"][0]) for m in ("", "grads", "grads-params")}

    # TP8 x PP2 x DP128 at 2 micro-batches a step: the traffic outgrows one backward and one forward, and the
    # chunks' queue, started over the cool-down and the warm-up, hides more of it
    busy = exposed(256, 2, 128, 256)
    assert busy["grads-params"] < busy["grads"] < busy[""]
    # the plan's 70B pick, TP4 x PP8 x DP2 on 8 nodes, 10 chunks: DP over NVLink is small; the one window would hide
    # all but a bucket, but chunk 0's share starts only after its own backward, so staggering exposes more, not less
    wl["virtual_stages"] = 10
    args = (a(4), a(8), a(2), a(1), a(1), a(0))   # ZeRO-0: the gradients alone
    small = {m: evaluate_layouts(model, _cluster(8), Workload(chunk_dp_sync=m, global_batch=128, **wl), *args)
             for m in ("", "grads")}
    t, calls = float(small[""]["dp_time"][0]), float(small[""]["dp_calls"][0])
    assert float(small[""]["dp_exposed"][0]) == pytest.approx(t / calls)   # the last bucket
    assert float(small["grads"]["dp_exposed"][0]) == pytest.approx(t / 10)  # the last chunk's share, t / v


def test_which_stacks_stagger_their_syncs_rule_r53():
    runs = {r.id: r for r in load_reference_runs()}
    assert runs["mlm-readme-177b-strong-4608"].chunk_dp_sync_mode == "grads"          # r0.8: no delay_param_gather
    assert runs["mbridge2511-llama31-405b-h100-1024"].chunk_dp_sync_mode == "grads-params"  # align_param_gather
    assert runs["narayanan-529.6b-2520"].chunk_dp_sync_mode == ""                      # Megatron-LM 2021
    assert runs["nemotron4-340b-6144"].chunk_dp_sync_mode == ""
    assert runs["llama3-405b-8k-16384"].chunk_dp_sync_mode == ""
    assert stack_workload(Workload(), "megatron-bridge").chunk_dp_sync == "grads-params"
    assert stack_workload(Workload(), "torchtitan").chunk_dp_sync == ""
    assert stack_workload(Workload(), "deepspeed").chunk_dp_sync == ""
    with pytest.raises(LayoutError, match="Chunk-wise data-parallel sync"):
        check_layout(PRESETS["llama3-8b"], _cluster(1), Layout(tp=1, pp=1, dp=8), Workload(chunk_dp_sync="always"))
