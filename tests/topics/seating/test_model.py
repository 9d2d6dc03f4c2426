"""The seating chart's model: traffic per dimension, tiers, memory by ZeRO stage, bubble, search.

Expected values carry their source beside them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.stragglers import slowest_rank_lag
from interconnect.topics.seating.model import (
    Layout,
    LayoutError,
    Workload,
    check_layout,
    dp_traffic_bytes,
    group_domains,
    memory_per_gpu,
    pipeline_bubble_fraction,
    plan,
    search_layouts,
    tp_bytes_per_layer,
    tp_comparison,
)
from interconnect.topics.seating.model import step as step_model
from interconnect.workloads.presets import custom_model, load_model_presets

PRESETS = load_model_presets()
L70 = PRESETS["llama3-70b"]


def h100(nodes: int, gpn: int = 8):
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=gpn, nodes=nodes)
    return cluster


def dim(bill, name):
    return next(d for d in bill.dimensions if d.name == name)


# --- traffic --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dp", [2, 4, 16])
def test_dp_traffic_is_2_n_minus_1_over_n_of_the_gradient_bytes(dp):
    # ring all-reduce of G bytes moves 2(n-1)/n x G per GPU (nccl-tests doc/PERFORMANCE.md); ZeRO-0, bucketed
    cluster = h100(nodes=dp)
    bill = plan(L70, cluster, Layout(tp=8, pp=1, dp=dp, zero=0), Workload(global_batch=dp * 4))
    gradient_bytes = L70.params / 8 * 2  # BF16 gradients of one TP shard
    assert dim(bill, "dp").bytes_per_step == pytest.approx(2 * (dp - 1) / dp * gradient_bytes, rel=1e-9)
    assert dp_traffic_bytes(gradient_bytes, dp) == pytest.approx(2 * (dp - 1) / dp * gradient_bytes)
    # ZeRO-1/2: reduce-scatter + all-gather, the same volume; ZeRO-3: 3 x (n-1)/n (Playbook: 3Ψ vs 2Ψ)
    assert dp_traffic_bytes(gradient_bytes, dp, zero=1) == pytest.approx(dp_traffic_bytes(gradient_bytes, dp))
    assert dp_traffic_bytes(gradient_bytes, dp, zero=3) == pytest.approx(1.5 * dp_traffic_bytes(gradient_bytes, dp))


def test_megatron_tp_volume_per_layer():
    # Playbook (tensor + sequence parallelism) and the Scaling Book (Megatron sharding): per layer, forward,
    # 2 all-gathers and 2 reduce-scatters of the activations s·b·h, each moving (t-1)/t of them per GPU:
    # 4 (t-1)/t · s·b·h·bytes, the same as 2 all-reduces (2 x 2(t-1)/t).
    s, b, h, t = 8192, 1, 8192, 8
    expected = 4 * (t - 1) / t * s * b * h * 2
    assert tp_bytes_per_layer(s, b, h, t) == pytest.approx(expected)
    assert tp_bytes_per_layer(s, b, h, t) == pytest.approx(2 * (2 * (t - 1) / t) * s * b * h * 2)
    workload = Workload(global_batch=8, micro_batch=1, recompute="selective")
    bill = plan(L70, h100(nodes=1), Layout(tp=8), workload)
    per_layer_fwd = dim(bill, "tp").bytes_per_step / (bill.micro_batches * L70.layers * 2)  # forward + backward
    assert per_layer_fwd == pytest.approx(expected)
    # without sequence parallelism the volume is the same, in all-reduces
    plain = plan(L70, h100(nodes=1), Layout(tp=8), Workload(global_batch=8, sequence_parallel=False))
    assert dim(plain, "tp").bytes_per_step == pytest.approx(dim(bill, "tp").bytes_per_step)
    assert dim(plain, "tp").calls_per_step == pytest.approx(dim(bill, "tp").calls_per_step / 2)


def test_tp_inside_the_node_uses_nvlink_and_across_uses_the_nic():
    cluster = h100(nodes=2)
    workload = Workload(global_batch=32)
    inside = plan(L70, cluster, Layout(tp=8, dp=2, zero=1), workload)
    across = plan(L70, cluster, Layout(tp=16, dp=1, zero=1), workload)
    assert dim(inside, "tp").tier == "NVLink" and dim(inside, "tp").domains_spanned == 1
    assert dim(across, "tp").tier == "network (NIC)" and dim(across, "tp").domains_spanned == 2
    # the cliff made visible: exposed time more than doubles (half the DP replicas, so twice the micro-batches
    # per TP group, and every TP call now crosses the network), and each byte is slower on the NIC. With 8 x
    # 400G NICs per node the ring stays NVLink-bound (0.97 x 370.8 = 360 GB/s against 8 x 48 = 384 GB/s of
    # node egress), so the slower bytes come from the network hops' latency, not from the bandwidth.
    per_byte_inside = dim(inside, "tp").exposed_s / dim(inside, "tp").bytes_per_step
    per_byte_across = dim(across, "tp").exposed_s / dim(across, "tp").bytes_per_step
    assert per_byte_across > per_byte_inside
    assert across.exposed_s > 2 * inside.exposed_s and across.step_s > inside.step_s
    one, two = tp_comparison(L70, cluster, Layout(tp=8, dp=2, zero=1), workload)
    assert one.layout.tp == 8 and two.layout.tp == 16 and two.exposed_s > one.exposed_s


def test_the_cliff_per_byte_is_steeper_on_b200():
    # H100: 8 x 400 Gbit/s NICs (8 x 48 GB/s achieved) roughly match NVLink 4's 370 GB/s per GPU, so a ring across
    # two nodes keeps most of its bandwidth; B200's NVLink 5 (722 GB/s planned by NCCL) is twice that.
    b200, _ = resolve_cluster("b200", gpus_per_node=8, nodes=2)
    workload = Workload(global_batch=32)
    inside = dim(plan(L70, b200, Layout(tp=8, dp=2, zero=1), workload), "tp")
    across = dim(plan(L70, b200, Layout(tp=16, dp=1, zero=1), workload), "tp")
    assert across.exposed_s / across.bytes_per_step > 1.8 * inside.exposed_s / inside.bytes_per_step


def test_group_placement_and_straddling():
    # Megatron order: TP fastest, so TP groups are consecutive ranks; DP groups are tp apart
    spans, per = group_domains(Layout(tp=8, dp=4), "tp", 8)
    assert spans.tolist() == [1, 1, 1, 1] and per == 8
    spans, per = group_domains(Layout(tp=8, dp=4), "dp", 8)
    assert spans.tolist() == [4] * 8 and per == 1
    spans, _ = group_domains(Layout(tp=4, dp=6), "tp", 6)  # 4 does not fit 6-GPU domains evenly
    assert spans.max() == 2


def test_pipeline_traffic_and_bubble():
    # 1F1B bubble (p-1)/(m+p-1) of the step (Narayanan et al. 2021; Playbook: (p-1)/m of the ideal time)
    assert pipeline_bubble_fraction(4, 4) == pytest.approx(3 / 7)
    assert pipeline_bubble_fraction(1, 4) == 0.0
    workload = Workload(global_batch=16, micro_batch=1)
    bill = plan(L70, h100(nodes=4), Layout(tp=8, pp=4, dp=1), workload)
    # the step also pays exposed DP/PP traffic and the optimizer, so the bubble is a little under 3/19
    assert bill.micro_batches == 16 and bill.bubble_fraction == pytest.approx(3 / 19, rel=0.03)
    pp = dim(bill, "pp")
    # each micro-batch: its activations forward and their gradient backward, s·b·h/t bytes with SP
    assert pp.calls_per_step == 32
    assert pp.bytes_per_step == pytest.approx(32 * 8192 * 8192 * 2 / 8)
    # a schedule whose steady-state sends run beside compute: only filling and draining the pipeline is exposed
    free_workload = dataclasses.replace(workload, p2p_blocking=False)
    free = dim(plan(L70, h100(nodes=4), Layout(tp=8, pp=4, dp=1), free_workload), "pp")
    t_send = pp.time_s / pp.calls_per_step
    assert free.exposed_s == pytest.approx(2 * (4 - 1) * t_send, rel=1e-9) and free.exposed_s < free.time_s
    # Megatron-LM's 1F1B (the default) waits for each exchange (rule R54): 2m - 3 transfers more on 4 stages
    assert pp.exposed_s == pytest.approx((2 * (4 - 1) + 2 * 16 - 3) * t_send, rel=1e-9)
    assert pp.overlap.startswith("no: 1F1B without interleaving waits") and free.overlap.startswith("yes")


def test_expert_parallel_all_to_all():
    mixtral = PRESETS["mixtral-8x7b"]
    cluster = h100(nodes=2)
    bill = plan(mixtral, cluster, Layout(tp=1, dp=16, ep=8, zero=1), Workload(global_batch=64))
    ep = dim(bill, "ep")
    assert ep.collective == "all-to-all" and ep.tier == "NVLink" and ep.calls_per_step > 0
    # tokens x top-k x hidden x bytes leave each GPU, (ep-1)/ep of them to other GPUs, 4 times per MoE layer
    tokens = 32768 * 1
    assert ep.bytes_per_step == pytest.approx(bill.micro_batches * 32 * 4 * 7 / 8 * tokens * 2 * 4096 * 2)


# --- memory ---------------------------------------------------------------------------------------


def test_llama3_70b_memory_matches_published_estimates():
    # Ultra-Scale Playbook, "Memory usage in Transformers": a 70B model in BF16 mixed precision with Adam needs
    # 1120 GB for weights, gradients and optimizer states (16 bytes per parameter, no FP32 gradient copy).
    # ZeRO paper (Rajbhandari et al., arXiv 1910.02054, Figure 1) with K = 12 and N_d = 64:
    #   ZeRO-1 (P_os): 4Ψ + 12Ψ/N_d = 280 + 13.1 = 293 GB;  ZeRO-3 (P_os+g+p): 16Ψ/N_d = 17.5 GB for Ψ = 70e9.
    cluster = h100(nodes=8)
    workload = Workload(global_batch=64)
    published = {0: 1120e9, 1: 293.1e9, 3: 17.5e9}
    for zero, expected in published.items():
        m = memory_per_gpu(L70, cluster, Layout(dp=64, zero=zero), workload)
        states = m.params + m.grads + m.optimizer
        assert states == pytest.approx(expected, rel=0.10), zero


def test_zero_paper_figure_1_example():
    # ZeRO paper Figure 1: 7.5B parameters, N_d = 64: baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB
    from dataclasses import replace

    model = replace(PRESETS["llama3-8b"], params=7.5e9, active_params=7.5e9)
    cluster = h100(nodes=8)
    for zero, expected in {0: 120e9, 1: 31.4e9, 2: 16.6e9, 3: 1.9e9}.items():
        m = memory_per_gpu(model, cluster, Layout(dp=64, zero=zero), Workload(global_batch=64))
        assert m.params + m.grads + m.optimizer == pytest.approx(expected, rel=0.03), zero


def test_activations_with_and_without_recomputation():
    # Korthikanti et al. 2022 Table 2 (TP + SP) for a GPT (multi-head attention, 4h GELU MLP, dropout):
    # none s·b·h(34 + 5as/h)/t > selective 34 sbh/t > full 2 sbh/t
    from dataclasses import replace

    gpt = replace(L70, kv_heads=L70.heads, ffn_hidden=4 * L70.hidden,
                  params=L70.layers * 12 * L70.hidden ** 2 + 2 * L70.vocab * L70.hidden)
    gpt = replace(gpt, active_params=gpt.params)
    cluster = h100(nodes=1)
    layout = Layout(tp=8, dp=1)
    workload = Workload(global_batch=1, attention="unfused", dropout=True)  # scores and masks stored, as in the paper
    values = {mode: memory_per_gpu(gpt, cluster, layout, workload, recompute=mode).activations
              for mode in ("none", "selective", "full")}
    # flash attention never stores the scores: nothing left for selective recomputation to save
    flash = {mode: memory_per_gpu(gpt, cluster, layout, Workload(global_batch=1, dropout=True),
                                  recompute=mode).activations for mode in ("none", "selective")}
    assert flash["none"] == pytest.approx(flash["selective"]) == pytest.approx(values["selective"])
    assert values["none"] > values["selective"] > values["full"]
    s, h, t, a, layers = 8192, 8192, 8, 64, 80
    logits = 4 * s * L70.vocab / t
    assert values["selective"] - logits == pytest.approx(34 * s * h / t * layers)
    assert values["none"] - logits == pytest.approx(s * h * (34 + 5 * a * s / h) / t * layers)
    assert values["full"] - logits == pytest.approx(2 * s * h / t * layers)
    # without sequence parallelism the norms' and projections' inputs and the masks are whole: 10 + 24/t
    no_sp = memory_per_gpu(gpt, cluster, layout, replace(workload, sequence_parallel=False), recompute="selective")
    assert no_sp.activations - logits == pytest.approx(s * h * (10 + 24 / t) * layers)


def test_activations_of_grouped_query_attention_and_swiglu():
    # Llama 3 70B (8 KV heads of 128, SwiGLU of width 28,672, no dropout), tensor by tensor with SP over t = 8:
    # norms' inputs 4h, QKV and MLP inputs 4h, queries 2h, attention output 2h, keys and values 2 x 2 x 1024,
    # gate and up 4f, their product 2f (bytes per token), all over t
    s, h, t, f, layers = 8192, 8192, 8, 28672, 80
    per_token = 12 * h + 4 * 1024 + 6 * f
    m = memory_per_gpu(L70, h100(nodes=1), Layout(tp=8, dp=1), Workload(global_batch=1), recompute="selective")
    logits = 4 * s * L70.vocab / t
    # the preset's parameter count gives the MLP's width to within its rounding (3 h f per layer)
    assert m.activations - logits == pytest.approx(s * per_token / t * layers, rel=0.01)
    assert per_token / h < 34  # fewer bytes than the GPT-shaped 34 sbh


def test_does_not_fit_is_reported():
    bill = plan(L70, h100(nodes=1), Layout(tp=8, dp=1, zero=0), Workload(global_batch=8))
    # capacity is what the driver reports for an "80 GB" H100: 81,559 MiB (Modal's NVML table)
    assert not bill.fits and bill.memory.total > bill.memory.capacity == pytest.approx(81559 * 2**20)


def test_zero_shards_over_the_context_parallel_ranks_too():
    # Megatron-Core's distributed optimizer is built over the DP x CP group (megatron/core/optimizer/__init__.py at
    # 6cc29a2, data_parallel_group=dp_cp_group) and torchtitan's FSDP over its dp_shard_cp mesh (parallelize_llama.py
    # at 9dec370): with DP 2 x CP 4 the 12 bytes of Adam state shard 8 ways, ZeRO-3 all 16 bytes
    model = PRESETS["llama3-8b"]
    cluster = h100(nodes=1)
    workload = Workload(global_batch=2)
    one = memory_per_gpu(model, cluster, Layout(dp=2, cp=4, zero=1), workload)
    psi = one.params / 2.0  # ZeRO-1 keeps the whole BF16 weights: 2 bytes a parameter
    assert one.optimizer == pytest.approx(12 * psi / 8)
    three = memory_per_gpu(model, cluster, Layout(dp=2, cp=4, zero=3), workload)
    assert three.params + three.grads + three.optimizer == pytest.approx(16 * psi / 8)


def test_torchtitan_operator_policy_keeps_the_saved_matmul_outputs():
    # torchtitan's operator-level selective checkpointing (parallelize_llama.py at 9dec370, _save_list and
    # _custom_policy) saves the 1st, 3rd, 5th and 7th matmul outputs of a Llama block (wq, wv, w1, w2 in the order
    # q, k, v, o, w1, w3, w2 of torchtitan/models/llama/model.py) and attention's output with its FP32 log-sum-exp;
    # the checkpoint keeps the block's input. Llama 3.1 8B at TP 1, bytes per token and layer:
    from interconnect.topics.seating.model.memory import _per_layer_stored

    model = PRESETS["llama3-8b"]
    h, f, kv, a = 4096, 14336, 8 * 128, 32
    expected = 2 * h + (2 * h + 2 * kv + 2 * f + 2 * h) + (2 * h + 4 * a)
    assert expected == 63_616
    one = np.array([1.0])
    op = Workload(seq_len=8192, micro_batch=2, recompute="selective", selective_policy="torchtitan-op")
    stored = _per_layer_stored(model, op, one, one, "selective")
    assert float(stored[0]) == pytest.approx(2 * 8192 * expected, rel=0.01)
    # less than half of what the layer keeps without recomputation (Megatron's selective keeps it all with flash)
    whole = _per_layer_stored(model, Workload(seq_len=8192, micro_batch=2), one, one, "selective")
    assert float(stored[0]) < 0.5 * float(whole[0])


def test_offloaded_layers_keep_no_activations_but_the_one_in_transit():
    # Megatron-Core's cpu_offloading_num_layers (Transformer Engine's CPU offload context): 40 of Llama 3 70B's 80
    # layers offloaded leave 40 on the GPU plus the one whose copy is under way, the logits untouched
    from dataclasses import replace

    cluster = h100(nodes=8)
    layout = Layout(dp=64, zero=3)
    base = Workload(global_batch=128, micro_batch=1, recompute="none", sequence_parallel=False)
    kept = memory_per_gpu(L70, cluster, layout, replace(base, offload_layers=40)).activations
    whole = memory_per_gpu(L70, cluster, layout, base).activations
    logits = 4 * 8192 * L70.vocab
    assert kept - logits == pytest.approx((whole - logits) * 41 / 80)
    with pytest.raises(LayoutError, match="offload"):
        check_layout(L70, cluster, layout, replace(base, offload_layers=80))


def test_fp8_projections_keep_their_inputs_in_one_byte():
    # Transformer Engine's FP8 linear layers save the FP8 cast of their input for the weight gradient (linear.py,
    # layernorm_linear.py): Llama 3 70B at TP 4 with SP keeps 1 byte, not 2, of the QKV and FC1 inputs (h each) and
    # the FC2 input (f), and one FP8 byte more of attention's output (q) for the output projection:
    # (2h + f - q) / t = (16,384 + 28,672 - 8,192) / 4 = 9,216 bytes a token and layer less. torchao's tensorwise
    # Float8 keeps the 16-bit inputs; full recomputation keeps only the layer's input either way.
    from dataclasses import replace

    cluster = h100(nodes=8)
    layout = Layout(tp=4, pp=1, dp=16, zero=1)
    bf16 = Workload(global_batch=16, recompute="none")
    fp8 = replace(bf16, dtype_bytes=1, fp8_recipe="current-scaling")
    base = memory_per_gpu(L70, cluster, layout, bf16).activations
    less = base - memory_per_gpu(L70, cluster, layout, fp8).activations
    assert less == pytest.approx(8192 * 80 * 9216, rel=0.01)
    torchao = replace(fp8, fp8_recipe="tensorwise")
    assert memory_per_gpu(L70, cluster, layout, torchao).activations == pytest.approx(
        memory_per_gpu(L70, cluster, layout, bf16).activations)
    full = (memory_per_gpu(L70, cluster, layout, bf16, recompute="full").activations,
            memory_per_gpu(L70, cluster, layout, fp8, recompute="full").activations)
    assert full[0] == pytest.approx(full[1])


def test_pytorch_cross_entropy_holds_three_fp32_logit_tensors():
    # torchtitan's loss (train.py at 9dec370) is cross_entropy on logits cast to FP32: the backward holds the saved
    # log-softmax, its incoming gradient and the gradient it returns, 3 x 4 s b V bytes; Megatron-Core's
    # vocab-parallel cross entropy works in place on one FP32 copy (cross_entropy.py at 6cc29a2)
    from dataclasses import replace

    model = PRESETS["llama3-8b"]
    cluster = h100(nodes=1)
    layout = Layout(dp=8, zero=3)
    base = Workload(global_batch=16, micro_batch=2, recompute="full")
    one = memory_per_gpu(model, cluster, layout, base).activations
    three = memory_per_gpu(model, cluster, layout, replace(base, loss_fp32_copies=3)).activations
    assert three - one == pytest.approx(2 * 4 * 2 * 8192 * model.vocab)


def test_fsdp_under_pytorch_pipelining_holds_whole_weights_and_gradients():
    # torchtitan shards with reshard_after_forward=False under PP (parallelize_llama.py at 9dec370) and the pipeline
    # stage syncs gradients on the last backward only (torch/distributed/pipelining/stage.py): with 8 micro-batches
    # a ZeRO-3 stage keeps 2 bytes of weights and grad_bytes of gradients per parameter unsharded; one micro-batch
    # (no accumulation) or no pipeline leaves ZeRO-3 as it was
    from dataclasses import replace

    model = PRESETS["llama3-405b"]
    cluster = h100(nodes=64)
    layout = Layout(tp=8, pp=8, dp=8, zero=3)
    base = Workload(global_batch=64, micro_batch=1, recompute="full", grad_bytes=4)
    sharded = memory_per_gpu(model, cluster, layout, base)
    whole = memory_per_gpu(model, cluster, layout, replace(base, pipeline_fsdp_unsharded=True))
    assert whole.params == pytest.approx(sharded.params * 8) and whole.grads == pytest.approx(sharded.grads * 8)
    assert whole.optimizer == pytest.approx(sharded.optimizer)
    single = replace(base, global_batch=8, pipeline_fsdp_unsharded=True)
    assert memory_per_gpu(model, cluster, layout, single).params == pytest.approx(sharded.params)



def test_sharded_gradients_are_reduce_scattered_in_every_micro_batch():
    # ZeRO-2 holds only its shard of the gradients, so with m micro-batches a step it reduce-scatters each
    # micro-batch's gradients as its backward produces them (DeepSpeed ZeRO-2; Megatron-FSDP's optim_grads; PyTorch
    # FSDP with gradient sync on: pytorch/pytorch pull request 126166), where ZeRO-1 keeps the whole buffer and
    # reduces once. Closed form against ZeRO-1 on the 70B search's layout (TP4 x PP4 x DP4 on 64 H100, 64
    # micro-batches), with G the gradient bytes a GPU holds, b its 25 MB buckets and t_rs one micro-batch's
    # reduce-scatters (the model's one-call time per bucket):
    #   time  : ZeRO-2 - ZeRO-1 = (m - 1) t_rs        calls: (m - 1) b        bytes: (m - 1) (d - 1)/d G
    #   exposed: ZeRO-2 - ZeRO-1 = (m - 1) max(0, t_rs - c), c a micro-batch's compute (the last micro-batch is
    #            the same in both: its last bucket, or what outlasts its backward)
    from interconnect.topics.seating.model.step import evaluate_layouts
    from interconnect.topics.seating.model.traffic import _time_s

    cluster = h100(8)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    # both with the syncs of one window (chunk_dp_sync ""): ZeRO-2 is no Megatron-Core DDP, whose interleaved schedule
    # would start ZeRO-1's reduce-scatters chunk by chunk instead (rule R53, tests/topics/seating/test_chunk_dp_sync.py)
    wl = Workload(global_batch=256, micro_batch=1, recompute="none", schedule="interleaved", chunk_dp_sync="")
    one, two = (evaluate_layouts(L70, cluster, wl, a(4), a(4), a(4), a(1), a(1), a(z)) for z in (1, 2))
    m = float(two["micro"][0])
    assert m == 64
    grads = 2 * float(two["psi"][0])
    buckets = np.ceil(grads / 25e6)
    per, dom = np.array([2]), np.array([2])   # DP 4 at stride 4: two ranks in each of two nodes
    t_rs = float(buckets * _time_s(cluster, "reduce_scatter", per, dom, a(grads / buckets))[0])
    assert float(two["dp_time"][0] - one["dp_time"][0]) == pytest.approx((m - 1) * t_rs, rel=1e-9)
    assert float(two["dp_calls"][0] - one["dp_calls"][0]) == (m - 1) * buckets
    assert float(two["dp_bytes"][0] - one["dp_bytes"][0]) == pytest.approx((m - 1) * 3 / 4 * grads, rel=1e-9)
    c = float(two["compute_s"][0]) / m
    assert float(two["dp_exposed"][0] - one["dp_exposed"][0]) == pytest.approx((m - 1) * max(0.0, t_rs - c),
                                                                                 rel=1e-9, abs=1e-12)
    # what hides still slows the compute beside it: the step grows by the overlap slowdown of the added time
    assert float(two["interference_s"][0]) > float(one["interference_s"][0])
    # one micro-batch a step: nothing accumulates, ZeRO-2 moves what ZeRO-1 moves
    single = Workload(global_batch=4, micro_batch=1, recompute="none", schedule="interleaved")
    s1, s2 = (evaluate_layouts(L70, cluster, single, a(4), a(4), a(4), a(1), a(1), a(z)) for z in (1, 2))
    assert float(s2["dp_time"][0]) == pytest.approx(float(s1["dp_time"][0]))
    assert float(s2["dp_calls"][0]) == float(s1["dp_calls"][0])


def test_whole_gradients_are_reduced_once_and_sharded_ones_held_as_a_shard():
    # The memory and the traffic say the same thing: ZeRO-2's gradients are 1/DP of ZeRO-1's (reduce-scattered every
    # micro-batch, above); torchtitan's FSDP under PyTorch's pipelining keeps them whole until the last micro-batch
    # (rule R29, pipeline_fsdp_unsharded) and so reduce-scatters them once a step, as ZeRO-1 does.
    from dataclasses import replace

    from interconnect.topics.seating.model.data_parallel import gradient_reductions
    from interconnect.topics.seating.model.step import evaluate_layouts

    cluster = h100(8)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    wl = Workload(global_batch=256, micro_batch=1, recompute="none")
    z1, z2 = (evaluate_layouts(L70, cluster, wl, a(4), a(4), a(4), a(1), a(1), a(z)) for z in (1, 2))
    assert float(z2["mem_grads"][0]) == pytest.approx(float(z1["mem_grads"][0]) / 4)
    unsharded = replace(wl, pipeline_fsdp_unsharded=True)
    t3, z3 = (evaluate_layouts(L70, cluster, w, a(4), a(4), a(4), a(1), a(1), a(3)) for w in (unsharded, wl))
    assert float(t3["mem_grads"][0]) == pytest.approx(float(z1["mem_grads"][0]))        # whole
    buckets = np.ceil(2 * float(t3["psi"][0]) / 25e6)
    # 64 reduce-scatters or one; and its weights, kept gathered from the first forward to the step's end (R29), are
    # gathered once a layer per step where ZeRO-3 gathers them forward and backward in each of 64 micro-batches
    layers = 80 // 4
    assert float(z3["dp_calls"][0] - t3["dp_calls"][0]) == 63 * buckets + (2 * 64 - 1) * layers
    weights = 2 * float(t3["psi"][0])
    assert float(z3["dp_bytes"][0] - t3["dp_bytes"][0]) == pytest.approx(3 / 4 * (63 * weights + 127 * weights))
    assert gradient_reductions(np.array([2, 3]), np.array([64, 64]), np.array([4, 4]), True).tolist() == [1, 1]
    assert gradient_reductions(np.array([2, 3]), np.array([64, 64]), np.array([1, 1]), True).tolist() == [64, 64]


# --- search ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("nodes", [4, 8, 16])
def test_search_keeps_70b_tensor_parallelism_inside_the_node(nodes):
    cluster = h100(nodes=nodes)
    found = search_layouts(L70, cluster, Workload(global_batch=256))
    assert found.best is not None and found.best.fits
    assert found.best.layout.tp <= 8 and dim(found.best, "tp").domains_spanned == 1
    # every layout it may return fits; the winner is the fastest of those
    assert np.all(found.best.step_s <= found.layouts["step_s"][found.layouts["fits"]] + 1e-9)


def test_the_70b_search_pick_is_a_layout_megatron_core_runs():
    # issue 41: the 70B pick on 64 H100 was TP4 x PP4 x DP4 with ZeRO-2, which fits only with sharded gradients. Now
    # charged what they cost under accumulation (one reduce-scatter of the stage's gradients per micro-batch) it
    # reads 54.1 % MFU (55.9 % before), but no engine runs ZeRO-2 under a pipeline (Megatron-FSDP does not compose
    # with Megatron-Core's pipeline, DeepSpeed's PipelineEngine asserts ZeRO < 2), so the search proposes the
    # fastest layout that does: TP4 x PP8 x DP2 with the distributed optimizer (ZeRO-1)
    from dataclasses import replace

    from interconnect.topics.seating.model.step import evaluate_layouts

    cluster = h100(8)
    found = search_layouts(L70, cluster, Workload(global_batch=256))
    best = found.best
    assert best is not None and best.fits
    lay = best.layout
    assert (lay.tp, lay.pp, lay.dp, lay.zero) == (4, 8, 2, 1) and best.workload.recompute == "none"
    assert 0.50 < best.mfu < 0.55
    assert found.rejected["engine"] > 0
    # the old pick, planned directly: 64 reduce-scatters and one all-gather a step, and it says so
    old = Layout(tp=4, pp=4, dp=4, zero=2)
    bill = plan(L70, cluster, old, best.workload)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    r = evaluate_layouts(L70, cluster, best.workload, a(4), a(4), a(4), a(1), a(1), a(2))
    buckets = np.ceil(2 * float(r["psi"][0]) / 25e6)
    assert bill.micro_batches == 64 and bill.fits
    assert dim(bill, "dp").calls_per_step == 64 * buckets + buckets
    assert "every micro-batch" in dim(bill, "dp").overlap
    assert best.mfu < bill.mfu < 0.55
    # with ZeRO-1 (Megatron's distributed optimizer) that layout does not fit beside the allowance
    assert not plan(L70, cluster, replace(old, zero=1), best.workload).fits
    assert "every micro-batch" not in dim(plan(L70, cluster, replace(old, zero=1), best.workload), "dp").overlap


def test_the_search_proposes_no_sharded_gradients_under_a_pipeline():
    # no engine runs ZeRO-2/3 with PP > 1 (search._engine_runs): layouts with a pipeline are tried at ZeRO-0 and 1
    # only, counted as rejected by the engine; without a pipeline every stage is tried
    from dataclasses import replace

    for workload in (Workload(global_batch=64), replace(Workload(global_batch=64), pipeline_engine="deepspeed")):
        found = search_layouts(L70, h100(4), workload, vary=False)
        piped = found.layouts["pp"] > 1
        assert piped.any() and found.layouts["zero"][piped].max() <= 1
        assert set(found.layouts["zero"][~piped].tolist()) == {0, 1, 2, 3}
        assert found.rejected["engine"] > 0


def test_search_never_returns_a_layout_that_does_not_fit():
    # 405B on one 8-GPU node cannot fit in any layout
    found = search_layouts(PRESETS["llama3-405b"], h100(nodes=1), Workload(global_batch=8))
    assert found.best is None and found.valid > 0 and found.fitting == 0


def test_search_uses_expert_parallelism_only_for_moe():
    dense = search_layouts(L70, h100(nodes=4), Workload(global_batch=64))
    assert set(dense.layouts["ep"].tolist()) == {1}
    moe = search_layouts(PRESETS["mixtral-8x7b"], h100(nodes=4), Workload(global_batch=64))
    assert moe.layouts["ep"].max() > 1


# --- impossible layouts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        (Layout(tp=8, dp=3), "must multiply to the GPU count"),
        (Layout(tp=3, dp=1), "does not divide the model's 64 attention heads"),
        (Layout(tp=8, dp=2, ep=2), "needs a mixture-of-experts model"),
        (Layout(tp=8, dp=2, zero=4), "ZeRO stage must be"),
        (Layout(tp=0, dp=2), "TP must be at least 1"),
    ],
)
def test_impossible_layouts_give_a_clear_message(layout, message):
    cluster = h100(nodes=2)
    with pytest.raises(LayoutError, match=message):
        check_layout(L70, cluster, layout, Workload(global_batch=16))


def test_uneven_stages_are_allowed_but_not_more_stages_than_layers():
    # 80 layers on 3 stages run (27, 27, 26): the fullest stage sets the pace (Llama 3 ran 126 layers on 16)
    check_layout(L70, h100(nodes=3, gpn=1), Layout(pp=3), Workload(global_batch=16))
    bill = plan(L70, h100(nodes=3, gpn=1), Layout(pp=3), Workload(global_batch=16))
    assert bill.stage_layers == (27, 26) and any("Uneven stages" in n for n in bill.notes)
    tiny, _ = custom_model(1e9, 4, 2048, 16)
    with pytest.raises(LayoutError, match="more stages than the model's 4 layers"):
        check_layout(tiny, h100(nodes=1), Layout(pp=8), Workload(global_batch=16))


def test_batch_and_expert_divisibility():
    with pytest.raises(LayoutError, match="not a multiple of DP × micro-batch"):
        check_layout(L70, h100(nodes=2), Layout(tp=8, dp=2), Workload(global_batch=3))
    # Megatron-Core's expert grid (expert TP 1): EP divides TP x CP x DP, the ranks of one pipeline stage, not DP
    # alone (megatron/core/parallel_state.py: expert TP x EP x PP must divide the world size)
    check_layout(PRESETS["mixtral-8x7b"], h100(nodes=2), Layout(tp=8, dp=2, ep=4), Workload(global_batch=16))
    with pytest.raises(LayoutError, match="must divide TP × CP × DP"):
        check_layout(PRESETS["mixtral-8x7b"], h100(nodes=2), Layout(tp=2, pp=4, dp=2, ep=8), Workload(global_batch=16))


def test_micro_batches_in_flight_follow_megatron_interleaved_warm_up():
    # Megatron-LM's interleaved schedule: rank r runs 2(p - r - 1) + (v - 1)p warm-up chunk forwards, capped at
    # all m·v, plus one before its first backward; on rank 0 that is Korthikanti et al.'s p(1 + (p - 1)/(p v))
    from interconnect.topics.seating.model.schedules import _in_flight

    p, v = 16.0, 8.0
    assert float(_in_flight("interleaved", p, 32.0, v, 0)) == pytest.approx(p * (1 + (p - 1) / (p * v)))
    assert float(_in_flight("interleaved", p, 32.0, v, 1)) == pytest.approx((2 * 14 + 7 * 16 + 1) / 8)
    assert float(_in_flight("interleaved", p, 16.0, v, 0)) == 16.0  # m = p: every forward runs before a backward
    assert float(_in_flight("1f1b", p, 32.0, 1.0, 0)) == 16.0 and float(_in_flight("1f1b", p, 4.0, 1.0, 0)) == 4.0


def test_overlapped_communication_slows_the_compute_it_hides_behind():
    # Lee et al. 2025 (arXiv 2507.03114): compute overlapped with a collective runs 18.9 % slower on average. The
    # step pays OVERLAP_SLOWDOWN x the hidden communication (time - exposed, summed over the dimensions), at most
    # OVERLAP_SLOWDOWN x the compute: the closed form, checked on a layout with hidden DP traffic.
    import numpy as np

    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model import DIMENSIONS, Workload
    from interconnect.topics.seating.model.step import OVERLAP_SLOWDOWN, evaluate_layouts
    from interconnect.workloads.presets import load_model_presets

    assert OVERLAP_SLOWDOWN == 0.189
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    out = evaluate_layouts(load_model_presets()["llama3-8b"], cluster, Workload(global_batch=64), a(2), a(1), a(8),
                           a(1), a(1), a(3))
    hidden = sum(float(out[f"{d}_time"][0] - out[f"{d}_exposed"][0]) for d in DIMENSIONS)
    assert hidden > 0
    assert float(out["interference_s"][0]) == pytest.approx(OVERLAP_SLOWDOWN * min(hidden, float(out["compute_s"][0])))


def test_moe_layers_pay_the_token_permutation_through_hbm():
    # Megatron-Core's permute / unpermute copy every token's hidden state into expert order and back: 2 (1 + k) h
    # BF16 values a token, forward and again backward, on the GPU's 1/t of the tokens with sequence parallelism.
    # The closed form against the same layer without routing (experts = 0, same active parameters).
    import dataclasses

    import numpy as np

    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model import Workload
    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s
    from interconnect.topics.seating.model.step import _grid, _layer_times
    from interconnect.workloads.presets import load_model_presets

    moe = load_model_presets()["mixtral-8x7b"]
    dense = dataclasses.replace(moe, experts=0)
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    wl = Workload(global_batch=8, seq_len=4096)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(2), a(1), a(4), a(1), a(1), a(1))
    diff = _layer_times(_grid(moe, cluster, wl, *args)).compute - _layer_times(_grid(dense, cluster, wl, *args)).compute
    tokens = 4096 / 2  # this GPU's half of one sequence (TP 2 with sequence parallelism)
    expected = 2 * (2 * (1 + moe.top_k) * moe.hidden * 2 * tokens) / _hbm_bytes_per_s(cluster)
    assert float(diff[0]) == pytest.approx(expected)


def test_torchtitan_selective_recomputation_runs_every_second_matmul_again():
    # torchtitan's operator-level policy (parallelize_llama.py at 9dec370) saves every odd aten.mm of a block's
    # forward and attention's output: the key, output-projection and up matmuls (Llama's call order q, k, v, o,
    # gate, up, down) and every memory-bound operator run again, attention does not. Closed form against
    # Megatron's selective recomputation (attention forward and the scores' HBM passes) on the same layout.
    from interconnect.topics.seating.model.compute import _MEMORY_PASSES_FWD, _hbm_bytes_per_s, layer_params
    from interconnect.topics.seating.model.memory import _per_layer_stored
    from interconnect.topics.seating.model.step import _grid, _layer_times, every_second_matmul_share

    model = PRESETS["llama3-8b"]
    per_layer, _ = layer_params(model)
    h, kv = model.hidden, 2 * model.kv_heads * model.head_dim
    share = every_second_matmul_share(h, h, kv, model.ffn_hidden, per_layer)
    assert share == pytest.approx(h * (kv / 2 + h + model.ffn_hidden) / per_layer)
    assert 0.3 < share < 0.4   # 4096 x (1024 + 4096 + 14336) of about 218M parameters a layer
    cluster = h100(1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(3))
    base = Workload(global_batch=16, micro_batch=2, recompute="selective")
    op = Workload(global_batch=16, micro_batch=2, recompute="selective", selective_policy="torchtitan-op")
    lt_m, lt_op = _layer_times(_grid(model, cluster, base, *args)), _layer_times(_grid(model, cluster, op, *args))
    hbm = _hbm_bytes_per_s(cluster)
    stored = _per_layer_stored(model, base, a(1), a(1), "none")
    scores = stored - _per_layer_stored(model, base, a(1), a(1), "selective")
    megatron_re = lt_m.attn_fwd + _MEMORY_PASSES_FWD * scores / hbm
    op_re = share * lt_op.gemm_fwd + _MEMORY_PASSES_FWD * stored / hbm
    assert float((lt_op.compute - lt_m.compute)[0]) == pytest.approx(float((op_re - megatron_re)[0]))
    with pytest.raises(LayoutError, match="policy"):
        check_layout(model, cluster, Layout(tp=1, pp=1, dp=8), Workload(selective_policy="everything"))


def test_a_stated_memory_bandwidth_replaces_the_catalogs():
    # Meta's Grand Teton H100 has 96 GB of HBM2e at 2.4 TB/s (torchtitan docs/performance.md at eaea6f6), not the
    # H100 SXM's 3.35 TB/s: every memory-bound term scales by the ratio, e.g. the optimizer's 2 x 16 bytes per
    # parameter this GPU holds.
    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s
    from interconnect.topics.seating.model.step import evaluate_layouts

    cluster = h100(1)
    # both at the share of the spec the fastest published Hopper memory-bound kernel reaches (FlashMLA's README at
    # 414a2f3: 3,000 GB/s on an H800 SXM5, whose HBM3 is the H100's 3.35 TB/s)
    share = 3000 / 3350
    assert _hbm_bytes_per_s(cluster) == pytest.approx(3.35e12 * share, rel=1e-4)
    assert _hbm_bytes_per_s(cluster, Workload(hbm_bytes_per_s=2.4e12)) == pytest.approx(2.4e12 * share, rel=1e-4)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(3))
    model = PRESETS["llama3-8b"]
    spec = evaluate_layouts(model, cluster, Workload(global_batch=16), *args)
    stated = evaluate_layouts(model, cluster, Workload(global_batch=16, hbm_bytes_per_s=2.4e12), *args)
    assert float(stated["optimizer_s"][0]) == pytest.approx(float(spec["optimizer_s"][0]) * 3.35 / 2.4)
    psi = float(spec["psi"][0])
    assert float(stated["optimizer_s"][0]) == pytest.approx((38 + 2) * psi / 8 / (2.4e12 * share), rel=1e-4)  # ZeRO-3
    assert float(stated["step_s"][0]) > float(spec["step_s"][0])


def test_memory_bound_operators_move_two_stored_bytes_forward_and_three_backward():
    # An elementwise operator writes its output and its user reads it (2 values); its backward reads the output's
    # gradient and the saved input and writes the input's gradient (3). Closed form: the layer's memory-bound time
    # is (2 + 3) x stored bytes / HBM bandwidth, the rest (GEMMs, attention) unchanged.
    from interconnect.topics.seating.model import compute
    from interconnect.topics.seating.model.memory import _per_layer_stored
    from interconnect.topics.seating.model.step import _grid, _layer_times

    assert (compute._MEMORY_PASSES_FWD, compute._MEMORY_PASSES_BWD) == (2.0, 3.0)
    model, cluster = PRESETS["llama3-8b"], h100(1)
    wl = Workload(global_batch=16, micro_batch=1, recompute="none")
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    lt = _layer_times(_grid(model, cluster, wl, a(2), a(1), a(4), a(1), a(1), a(1)))
    stored = float(_per_layer_stored(model, wl, a(2), a(1), "none")[0])
    memory = float((lt.compute - lt.gemm_fwd - lt.gemm_bwd - lt.attn_fwd - lt.attn_bwd)[0])
    assert memory == pytest.approx(5 * stored / compute._hbm_bytes_per_s(cluster))


def test_megatron_core_buckets_grow_with_data_parallelism_and_2021_local_ddp_waits_for_the_backward():
    # Megatron-Core's DistributedDataParallel, bucket_size unset: max(40M, 1M x DP) parameters a bucket
    # (megatron/core/distributed/distributed_data_parallel_config.py), so a large DP group makes few large calls;
    # Megatron-LM 2021's local DDP all-reduces the whole buffer after the last backward (training.py at 6985e58).
    from interconnect.topics.seating.model import layout_problems
    from interconnect.topics.seating.model.data_parallel import megatron_bucket_params
    from interconnect.topics.seating.model.step import evaluate_layouts

    assert list(megatron_bucket_params(np.array([1.0, 40.0, 64.0, 1024.0]))) == [40e6, 40e6, 64e6, 1024e6]
    model = PRESETS["llama3-8b"]
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    cluster = h100(128)
    args = (a(1), a(1), a(1024), a(1), a(1), a(1))   # ZeRO-1: reduce-scatter, then all-gather of the weights
    wl = dict(global_batch=4096, micro_batch=1, recompute="none")
    mcore = evaluate_layouts(model, cluster, Workload(ddp="megatron-core", **wl), *args)
    ddp25 = evaluate_layouts(model, cluster, Workload(**wl), *args)
    grads = float(mcore["psi"][0]) * 2  # BF16 gradients of every parameter (TP 1, PP 1)
    assert float(mcore["dp_calls"][0]) == 2 * np.ceil(grads / (1024e6 * 2))  # 8B parameters in 1,024M buckets
    assert float(ddp25["dp_calls"][0]) == 2 * np.ceil(grads / 25e6)          # each way
    # 25 MB calls across 1,024 ranks are latency-bound: seconds exposed; Megatron-Core's few large ones hide
    assert float(mcore["dp_exposed"][0]) < 0.1 * float(ddp25["dp_exposed"][0])
    after = evaluate_layouts(model, h100(4), Workload(ddp="after-backward", **dict(wl, global_batch=128)),
                             a(1), a(1), a(32), a(1), a(1), a(0))   # ZeRO-0: one all-reduce
    assert float(after["dp_calls"][0]) == 1.0
    assert float(after["dp_exposed"][0]) == pytest.approx(float(after["dp_time"][0]))  # nothing hides
    # a bucket the recipe gives replaces the default (Megatron-Bridge's 128 x 1024 x 1024 parameters, rule R55):
    # at DP 1,024 that is more, smaller calls than Megatron-Core's own 1,024M
    given = 128 * 1024 * 1024
    sized = evaluate_layouts(model, cluster, Workload(ddp="megatron-core", dp_bucket_params=given, **wl), *args)
    assert float(sized["dp_calls"][0]) == 2 * np.ceil(grads / (given * 2)) > float(mcore["dp_calls"][0])
    assert float(sized["psi"][0]) == float(mcore["psi"][0])
    assert any("Data-parallel bucket" in p for p in layout_problems(model, h100(1), Layout(tp=1, pp=1, dp=8),
                                                                   Workload(dp_bucket_params=-1.0)))
    with pytest.raises(LayoutError, match="Data-parallel mode"):
        check_layout(model, h100(1), Layout(tp=1, pp=1, dp=8), Workload(ddp="sometimes"))


def test_megatron_core_gathers_the_weights_bucket_by_bucket_as_many_calls_as_reduce_scatters():
    # Megatron-Core at f2e5db402c (rule R60 (c)): ParamAndGradBuffer cuts its buffer into buckets of bucket_size
    # parameters (megatron/core/distributed/param_and_grad_buffer.py), each a view of the gradients and of the weights
    # over the same parameters; Bucket.start_grad_sync reduce-scatters a bucket and the distributed optimizer's
    # _dispatch_gather_model_params all-gathers one (megatron/core/optimizer/distrib_optimizer.py). So ZeRO-1 makes
    # ceil(psi / bucket) calls each way whether the gradients move in FP32 (4 bytes, --bf16's default there) or BF16,
    # and whether the weights are gathered in BF16 or, with fp8_param_gather, in FP8.
    from interconnect.topics.seating.model.step import evaluate_layouts
    from interconnect.topics.seating.model.traffic import _time_s

    model = PRESETS["llama3-8b"]
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(64), a(1), a(1), a(1))   # TP 1, PP 1, DP 64 on 8 nodes, ZeRO-1
    bucket = 64e6                                   # max(40M, 1M x 64) parameters
    wl = dict(global_batch=256, micro_batch=1, recompute="none", ddp="megatron-core")
    for extra, grad_bytes, weight_bytes in (({}, 2, 2), ({"grad_bytes": 4}, 4, 2),
                                            ({"dtype_bytes": 1, "fp8_param_gather": True}, 2, 1)):
        out = evaluate_layouts(model, h100(8), Workload(**wl, **extra), *args)
        psi = float(out["psi"][0])
        n = np.ceil(psi / bucket)
        assert float(out["dp_calls"][0]) == 2 * n
        per, dom = out["dp_per"], out["dp_domains"]
        rs = _time_s(h100(8), "reduce_scatter", per, dom, a(psi * grad_bytes / n))
        ag = _time_s(h100(8), "all_gather", per, dom, a(psi * weight_bytes / n))
        assert float(out["dp_time"][0]) == pytest.approx(n * float(rs[0] + ag[0]), rel=1e-12)


def test_zero_gathers_weights_at_their_own_bytes_whatever_the_gradients_are_reduced_in():
    # ZeRO-3 / FSDP gathers the BF16 weights of each layer forward and backward, every micro-batch, and
    # reduce-scatters the gradients of every micro-batch (they are held sharded): FP32 gradient reduction (Llama 3,
    # torchtitan's FSDP2 default) doubles the reduce-scatters' bytes, not the gathers'. Closed form of the bytes each
    # GPU sends: (d-1)/d x psi x micro-batches x (grad_bytes + 2 x 2).
    from interconnect.topics.seating.model.step import evaluate_layouts

    model = PRESETS["llama3-8b"]
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(3))
    for grad_bytes in (0, 4):
        out = evaluate_layouts(model, h100(1), Workload(global_batch=32, micro_batch=2, grad_bytes=grad_bytes,
                                                        bucket_bytes=0.0), *args)
        micro, psi = float(out["micro"][0]), float(out["psi"][0])
        assert micro == 2
        expected = 7 / 8 * psi * (micro * (grad_bytes or 2) + 2 * micro * 2)
        assert float(out["dp_bytes"][0]) == pytest.approx(expected)


def test_the_optimizer_step_moves_38_bytes_per_parameter_it_updates_and_zeroes_the_gradients():
    # FusedAdam reads gradient, master weight and two moments and writes three (28 bytes), the norm for clipping
    # reads the gradients again (4), the master weight is cast to BF16 (4 + 2): 38 bytes per updated parameter;
    # the gradient buffer is zeroed (2 bytes BF16, per parameter held: all below ZeRO-2, the shard from it up)
    from interconnect.topics.seating.model.data_parallel import OPTIMIZER_BYTES_PER_PARAM
    from interconnect.topics.seating.model.step import evaluate_layouts

    assert OPTIMIZER_BYTES_PER_PARAM == 38
    model, cluster = PRESETS["llama3-8b"], h100(1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    hbm = 3.35e12 * 3000 / 3350  # the spec at the share FlashMLA's memory-bound kernel reaches on Hopper (414a2f3)
    for zero, updated_share, held_share in ((0, 1.0, 1.0), (1, 1 / 8, 1.0), (2, 1 / 8, 1 / 8)):
        out = evaluate_layouts(model, cluster, Workload(global_batch=16), a(1), a(1), a(8), a(1), a(1), a(zero))
        psi = float(out["psi"][0])
        assert float(out["optimizer_s"][0]) == pytest.approx((38 * updated_share + 2 * held_share) * psi / hbm,
                                                             rel=1e-4)


def test_per_expert_gemms_cost_at_least_transformer_engines_per_call_floor():
    # Transformer Engine's GroupedLinear runs one cuBLASLt GEMM per local expert; TE's benchmark times 8 tiny ones at
    # 0.267 ms on a B200 (https://github.com/NVIDIA/TransformerEngine/pull/3134): 33.4 us a call. A Qwen3-30B-A3B-like
    # MoE (128 experts, 8 per token) on 8 GPUs with EP 8 has 16 local experts: 2 GEMMs x 3 passes x 16 = 96 calls,
    # 3.2 ms a layer and micro-batch however few tokens; the routed experts' GEMM time at the kernels' rate is
    # replaced by that floor where it is shorter, and nothing changes where it is longer.
    from interconnect.topics.seating.model.compute import layer_params
    from interconnect.topics.seating.model.step import PER_EXPERT_GEMM_S, _grid, _layer_times, expert_gemm_floor_s

    assert PER_EXPERT_GEMM_S == pytest.approx(33.375e-6)
    assert float(expert_gemm_floor_s(16, 3, 0.0)) == pytest.approx(96 * 33.375e-6)
    assert float(expert_gemm_floor_s(16, 3, 5e-3)) == 5e-3
    model, _ = custom_model(30.5e9, 48, 2048, 32, experts=128, top_k=8, active_params=3.3e9, kv_heads=4)
    per_layer, _ = layer_params(model)
    share = model.top_k * model.expert_params / model.experts / model.layers / per_layer
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(8), a(1))   # TP 1, PP 1, DP 8, CP 1, EP 8, ZeRO-1
    added = []
    for micro in (1, 64):
        kw = dict(global_batch=8 * micro, micro_batch=micro, seq_len=4096, recompute="none", sequence_parallel=False)
        one = _layer_times(_grid(model, h100(1), Workload(**kw), *args))
        each = _layer_times(_grid(model, h100(1), Workload(expert_gemm="per-expert", **kw), *args))
        gpu = 3 * share * float(one.gemm_fwd[0])
        expected = max(gpu, 96 * PER_EXPERT_GEMM_S) - gpu
        assert float((each.compute - one.compute)[0]) == pytest.approx(expected)
        added.append(expected)
    assert added[0] > 1e-3 and added[1] == 0.0   # one 4K sequence: the floor binds; 64 of them: the GEMMs outlast it
    with pytest.raises(LayoutError, match="Expert GEMM mode"):
        check_layout(model, h100(1), Layout(tp=1, pp=1, dp=8, ep=8), Workload(expert_gemm="sometimes"))


def test_expert_all_to_all_inside_one_b200_node_moves_deepeps_published_bandwidth():
    # DeepEP's README (deepseek-ai/DeepEP, "Performance", V2 at 0297fc8: https://github.com/deepseek-ai/DeepEP)
    # times DeepSeek-V3's dispatch and combine on SM100 with EP 8 over NVLink: 8K tokens a rank, hidden 7,168, top 8,
    # FP8 dispatch and BF16 combine, at 726 GB/s (dispatch) and 740 GB/s (combine) of logical bandwidth, the local
    # rank's share counted. The seating model's EP call (:func:`_expert_parallel`: tokens x top-k x hidden x bytes a
    # GPU, one all-to-all on the tier the EP group spans) should move the same buffers at about that rate on 8 B200
    # in one node.
    from interconnect.topics.seating.model.traffic import _time_s

    cluster, _ = resolve_cluster("b200", gpus_per_node=8, nodes=1)
    one = np.array([1.0])
    for value_bytes, published in ((1, 726e9), (2, 740e9)):
        size = 8192 * 8 * 7168 * value_bytes
        seconds = float(_time_s(cluster, "alltoall", np.array([8.0]), one, np.array([float(size)]))[0])
        assert size / seconds == pytest.approx(published, rel=0.15)


def test_deepspeed_2021_zero3_gathers_one_tensor_per_call_and_all_reduces_its_gradient_buckets():
    # DeepSpeed's ZeRO-3 at c83e49f gathers each of the four weight matrices of a layer in its own call, forward and
    # backward, every micro-batch (4 of a GPT layer's 12 tensors; the biases and LayerNorms stay whole); without
    # contiguous_gradients (ZeRO-3's default, zero/constants.py) it reduces the gradients through
    # buffered_reduce_fallback: each bucket all-reduced whole in calls of up to 5e8 elements, every micro-batch (the
    # gradients are held sharded), rule R25 corrected. So calls = m ceil(G / 5e8) + 2 m 4 L for m micro-batches, and
    # the gradients move twice a reduce-scatter's bytes; flattening, dividing and copying each bucket back are three
    # HBM passes of 2 + 2 bytes a gradient beside the compute.
    from interconnect.topics.seating.model.stacks import (
        DEEPSPEED_ALLREDUCE_ELEMENTS,
        DEEPSPEED_FALLBACK_COPY_BYTES,
        DEEPSPEED_GATHERED_PER_LAYER,
    )
    from interconnect.topics.seating.model.step import evaluate_layouts

    model = PRESETS["llama3-8b"]
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(64), a(1), a(1), a(3))
    wl = dict(global_batch=128, micro_batch=1, recompute="full")
    per_tensor = evaluate_layouts(model, h100(8), Workload(ddp="per-tensor", **wl), *args)
    per_layer = evaluate_layouts(model, h100(8), Workload(bucket_bytes=0.0, **wl), *args)
    layers, micro = model.layers, 2   # 128 sequences over DP 64 at micro-batch 1
    psi = float(per_tensor["psi"][0])
    buckets = np.ceil(psi / DEEPSPEED_ALLREDUCE_ELEMENTS)
    assert (DEEPSPEED_GATHERED_PER_LAYER, DEEPSPEED_FALLBACK_COPY_BYTES, buckets) == (4, 12.0, 17)
    assert float(per_tensor["dp_calls"][0]) == micro * buckets + 2 * micro * 4 * layers
    assert float(per_layer["dp_calls"][0]) == micro * layers + 2 * micro * layers
    share = 63 / 64
    gathered = share * 2 * micro * 2 * psi     # BF16 weights, two gathers a micro-batch
    assert float(per_tensor["dp_bytes"][0]) == pytest.approx(gathered + share * micro * 2 * 2 * psi)
    assert float(per_layer["dp_bytes"][0]) == pytest.approx(gathered + share * micro * 2 * psi)
    assert float(per_tensor["dp_time"][0]) > float(per_layer["dp_time"][0])  # more calls and bytes


def test_deepspeed_2021_zero3_gathers_on_demand_three_times_and_waits_for_each():
    # Rule R31: DeepSpeed's ZeRO-3 at c83e49f prefetched nothing (its trace step ran one behind the recorded trace,
    # deepspeedai/DeepSpeed issue 1069 and pull request 1170) and released every module's weights after each use, so
    # with full recomputation each weight matrix is gathered in the forward, the recomputed forward and the backward,
    # and each gather is waited for before the module's compute: all of it exposed. Closed form on one layout:
    #   calls   = m B + 3 m 4 L                  (on demand)   vs m B + 2 m 4 L (prefetch)
    #   gathers = 3 m L 4 t_ag(W / 4L) + 3 m L 4 n t_torch + 3 (3 m W) / HBM     all exposed
    #   exposed = m (waits + end) + gathers
    # with ar = B t_ar(G / B) one micro-batch's all-reduces of its B buckets of up to 5e8 gradients (every micro-batch's
    # gradients are reduced: they are held sharded; rule R25 corrected); each bucket hides only behind the module
    # backward it is issued under, since the next gather synchronizes the device (rule R43: waits, the part of each
    # bucket's reduction that outlasts it; end, the bucket left and the embeddings' gradients after the backward); W the
    # BF16 weights and G the gradients a GPU holds, t the model's one-call times;
    # the last two terms are DeepSpeed's own per gather: a Python slice per rank of the n = 64 (2 µs a torch call,
    # PyTorch's overrides_benchmark README) and the list all-gather's copy per rank (7.35 µs, rule R38), and three
    # passes over HBM (zero-fill, PyTorch's list all-gather's copy out).
    import dataclasses

    from interconnect.topics.seating.model.step import evaluate_layouts
    from interconnect.topics.seating.model.traffic import _time_s

    model = PRESETS["llama3-8b"]
    cluster = h100(8)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(64), a(1), a(1), a(3))
    prefetch = Workload(global_batch=128, micro_batch=1, recompute="full", ddp="per-tensor")
    on_demand = dataclasses.replace(prefetch, zero3_fetch="on-demand")
    pre, dem = (evaluate_layouts(model, cluster, w, *args) for w in (prefetch, on_demand))
    layers, micro = model.layers, 2
    psi = float(dem["psi"][0])
    buckets = float(np.ceil(psi / 5e8))
    assert float(pre["dp_calls"][0]) == micro * buckets + 2 * micro * 4 * layers
    assert float(dem["dp_calls"][0]) == micro * buckets + 3 * micro * 4 * layers
    per, dom = np.array([8]), np.array([8])          # DP 64 over 8 nodes of 8
    t_ag = float(_time_s(cluster, "all_gather", per, dom, a(2 * psi / layers / 4))[0])
    t_ar = float(_time_s(cluster, "all_reduce", per, dom, a(2 * psi / buckets))[0])
    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s

    hbm = _hbm_bytes_per_s(cluster)  # the memory-bound rate every HBM pass of the model runs at
    calls = 3 * micro * layers * 4
    copy_s = (1.1e-3 - 96 * 2e-6 - 2 * 8 * 9_834_560 * 2 / 1.555e12) / 96   # rule R38, about 7.35 µs
    gathers = calls * t_ag + calls * 64 * (2e-6 + copy_s) + 3 * (3 * micro * 2 * psi) / hbm
    ar = buckets * t_ar
    assert float(dem["dp_time"][0]) == pytest.approx(micro * ar + gathers, rel=1e-9)
    from interconnect.topics.seating.model.step import _grid, _layer_gemm_shapes, _layer_times

    g = _grid(model, cluster, on_demand, *args)
    lt = _layer_times(g)
    shapes = _layer_gemm_shapes(g)
    sizes = [float(shapes[k][2]) for k in ("fc2", "fc1", "proj", "qkv")]     # backward order, TP 1
    windows = [float(lt.gemm_bwd[0]) * e / sum(sizes) for e in sizes]
    windows[2] += float(lt.attn_bwd[0])                                    # the attention core after the projection

    def reduce_s(elements: float) -> float:                                # all-reduce + flatten, divide, copy back
        return float(_time_s(cluster, "all_reduce", per, dom, a(2 * elements))[0]) + 12 * elements / hbm

    held, waits = 0.0, 0.0
    for _ in range(layers):
        for e, w in zip(sizes, windows, strict=True):
            if held > 0 and held + e > 5e8:
                waits += max(0.0, reduce_s(held) - w)
                held = e
            else:
                held += e
    rest = psi - layers * sum(sizes)                                       # the embeddings, last in the backward
    end = reduce_s(held + rest) if held + rest <= 5e8 else reduce_s(held) + reduce_s(rest)
    exposed = micro * (waits + end) + gathers
    assert float(dem["dp_exposed"][0]) == pytest.approx(exposed, rel=1e-9)
    # prefetched, the gathers hide behind the compute but for what outlasts it; the compute itself is the same
    assert float(pre["dp_exposed"][0]) < float(dem["dp_exposed"][0])
    assert float(pre["compute_s"][0]) == float(dem["compute_s"][0])
    # without full recomputation nothing runs forward twice: two gathers a micro-batch either way
    selective = evaluate_layouts(model, cluster, dataclasses.replace(on_demand, recompute="selective"), *args)
    assert float(selective["dp_calls"][0]) == micro * buckets + 2 * micro * 4 * layers


def test_deepspeed_2021_gradient_buckets_hide_only_behind_the_module_they_are_issued_under():
    # Rule R43 (DeepSpeed at c83e49f): a gradient that would overflow the 5e8-element bucket has the held ones reduced
    # first (reduce_independent_p_g_buckets_and_remove_grads), and the next gather's torch.cuda.synchronize() waits for
    # that reduction, so it hides only behind the backward of the module whose gradient triggered it. GPT 175B's layer
    # in backward order, FC2 and FC1 (12,288 x 49,152 each), the projection (12,288^2), QKV (3 x 12,288^2): in steady
    # state FC2's gradient reduces the last layer's QKV, FC1's reduces FC2, the projection's FC1, QKV's the projection.
    from interconnect.topics.seating.model.stacks import deepspeed_2021_bucket_wait_s

    h = 12288
    sizes = [4 * h * h, 4 * h * h, h * h, 3 * h * h]
    rate = 1e-11                                   # seconds an element: 6.04 ms for FC1's 604M
    windows = [8e-3, 8e-3, 2e-3, 6e-3]             # the module backwards, ms
    waits, held = deepspeed_2021_bucket_wait_s([np.array([e]) for e in sizes], windows, np.array([3]),
                                               lambda e: np.asarray(e) * rate)
    # first layer: FC1 reduces FC2 (6.04 - 8 < 0), the projection FC1 (6.04 - 2), QKV the projection (1.51 - 6 < 0);
    # later layers add FC2 reducing QKV (4.53 - 8 < 0) and the same three: only FC1's bucket under the projection waits
    assert float(waits[0]) == pytest.approx(3 * (4 * h * h * rate - 2e-3), rel=1e-12)
    assert float(held[0]) == 3 * h * h              # QKV's gradient is left for after the backward
    # a bucket that fits behind its module waits for nothing; windows of zero make every bucket wait whole
    none, _ = deepspeed_2021_bucket_wait_s([np.array([e]) for e in sizes], [1.0] * 4, np.array([3]),
                                           lambda e: np.asarray(e) * rate)
    whole, _ = deepspeed_2021_bucket_wait_s([np.array([e]) for e in sizes], [0.0] * 4, np.array([3]),
                                            lambda e: np.asarray(e) * rate)
    assert float(none[0]) == 0.0
    assert float(whole[0]) == pytest.approx((3 * sum(sizes) - 3 * h * h) * rate, rel=1e-12)


def test_deepspeed_2021_gather_overhead_grows_with_the_ranks_at_a_slice_and_a_copy_a_rank():
    # _allgather_param at c83e49f cuts the gathered buffer into one view per rank in Python before each gather:
    # a torch call each, "on the order of 2 μs" (pytorch/pytorch benchmarks/overrides_benchmark/README.md); PyTorch's
    # list all-gather then copies each rank's piece out of its flat buffer, one copy_ a rank on the NCCL stream
    # (rule R38: 7.35 µs a rank beyond the bytes); the buffer is zero-filled and the copy-out reads and writes it:
    # 3 passes of the bytes over HBM.
    from interconnect.topics.seating.model.stacks import (
        TORCH_CALL_S,
        deepspeed_2021_gather_overhead_s,
        list_allgather_rank_s,
    )

    assert TORCH_CALL_S == 2e-6
    per_rank = 2e-6 + 7.35e-6
    calls, gathered, hbm = 1152, 1.05e12, 2.0e12
    t = {n: float(deepspeed_2021_gather_overhead_s(calls, n, gathered, hbm)) for n in (384, 768, 1536)}
    assert t[1536] - t[768] == pytest.approx(calls * 768 * per_rank, rel=1e-4)   # slices and copies: linear in n
    assert t[768] - t[384] == pytest.approx(calls * 384 * per_rank, rel=1e-4)
    assert t[384] - calls * 384 * (TORCH_CALL_S + list_allgather_rank_s()) == pytest.approx(3 * gathered / hbm)


def test_list_allgather_copy_cost_is_deepspeeds_measured_saving_less_what_the_model_already_charges():
    # Rule R38. DeepSpeed pull request 1188 (commit 67b3db3, tests/benchmarks/allgather_bench.py): 12 list all-gathers
    # of a transformer layer, 9,834,560 FP16 elements a rank over the 8 A100 40 GB of one p4d.24xlarge, against
    # in-place NCCL all-gathers: "about 1.1ms" saved. Less 96 Python slices at 2 µs (192 µs) and the copy-out's read
    # and write of 8 x 9,834,560 x 2 bytes at 1.555 TB/s (NVIDIA's A100 datasheet, 40 GB: 202.4 µs), over 96 pieces.
    from interconnect.topics.seating.model.stacks import (
        A100_40GB_HBM_BYTES_PER_S,
        LIST_ALLGATHER_BENCH_CALLS,
        LIST_ALLGATHER_BENCH_ELEMENTS,
        LIST_ALLGATHER_BENCH_RANKS,
        LIST_ALLGATHER_SAVED_S,
        list_allgather_rank_s,
    )

    # the benchmark's 12 partition sizes, a bing_bert layer of hidden 2,560 split over 8 GPUs, sum to the stated count
    sizes = [2457600, 960, 819200, 320, 320, 320, 3276800, 1280, 3276800, 320, 320, 320]
    assert (len(sizes), sum(sizes)) == (LIST_ALLGATHER_BENCH_CALLS, LIST_ALLGATHER_BENCH_ELEMENTS)
    assert (LIST_ALLGATHER_SAVED_S, LIST_ALLGATHER_BENCH_RANKS, A100_40GB_HBM_BYTES_PER_S) == (1.1e-3, 8, 1.555e12)
    copy_out = 2 * 8 * 9_834_560 * 2 / 1.555e12
    assert copy_out == pytest.approx(202.4e-6, rel=1e-3)
    assert list_allgather_rank_s() == pytest.approx((1.1e-3 - 96 * 2e-6 - copy_out) / 96, rel=1e-12)
    assert list_allgather_rank_s() == pytest.approx(7.35e-6, rel=1e-3)


def test_an_unknown_zero3_fetch_mode_is_refused_by_name():
    from interconnect.topics.seating.model import layout_problems

    problems = layout_problems(PRESETS["llama3-8b"], h100(1), Layout(dp=8, zero=3), Workload(zero3_fetch="lazy"))
    assert any("ZeRO-3 fetch mode 'lazy'" in p for p in problems)


def test_fp8_recipes_cost_their_casts_beyond_the_gemms():
    # What an FP8 recipe costs beyond the GEMMs (Transformer Engine's FP8 recipes, NVIDIA/TransformerEngine docs,
    # "Using FP8 with Transformer Engine"): each GEMM input (QKV, projection, FC1, FC2 forward) and each output
    # gradient (backward) is cast in a memory-bound pass, read at 2 bytes and written row-wise and column-wise at
    # 1 + 1; delayed scaling takes its scale from the amax history, current scaling reads the tensor once more for
    # its own amax first (2 bytes a value), and MXFP8's block scales need no such pass. Closed form of the
    # difference between recipes on the same layer (Llama 3 8B, 8 H100, TP 2 with sequence
    # parallelism: each GPU casts 1/t of each tensor's values, 4,096 tokens).
    import dataclasses

    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s, layer_params
    from interconnect.topics.seating.model.step import _grid, _layer_times

    model = load_model_presets()["llama3-8b"]
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(2), a(1), a(4), a(1), a(1), a(1))
    base = Workload(global_batch=8, seq_len=4096, dtype_bytes=1)
    compute = {r: float(_layer_times(_grid(model, cluster, dataclasses.replace(base, fp8_recipe=r), *args)).compute[0])
               for r in ("delayed", "current-scaling", "mxfp8")}
    h, q, kv = model.hidden, model.heads * model.head_dim, 2 * model.kv_heads * model.head_dim
    mlp_width = (layer_params(model)[0] - (h * (q + kv) + q * h)) / (2 * h)
    values = 4096 * ((2 * h + q + mlp_width) + ((q + kv) + h + mlp_width + h)) / 2  # inputs + output gradients
    hbm = _hbm_bytes_per_s(cluster, base)
    assert compute["current-scaling"] - compute["delayed"] == pytest.approx(values * 2.0 / hbm)
    assert compute["mxfp8"] == pytest.approx(compute["delayed"])


def test_the_step_reads_the_gpu_from_the_cluster_not_the_catalog(monkeypatch):
    from interconnect.catalog import Catalog

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    workload = Workload(global_batch=256, micro_batch=1)
    before = plan(PRESETS["llama3-70b"], cluster, Layout(tp=8, pp=4, dp=2, zero=1), workload)

    def no_lookup(self, gpu_id):
        raise AssertionError(f"looked {gpu_id!r} up in the catalog again")

    monkeypatch.setattr(Catalog, "gpu", no_lookup)
    again = plan(PRESETS["llama3-70b"], cluster, Layout(tp=8, pp=4, dp=2, zero=1), workload)
    assert again.step_s == before.step_s and again.mfu == before.mfu  # the same figures, taken from the cluster


def test_a_custom_gpus_cluster_carries_the_hypothetical_gpu_with_its_bases_compute_and_memory():
    base, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    custom, _ = resolve_cluster("custom", gpu_base="h100-sxm", scaleup_bandwidth="1.8 TB/s", gpu_name="X",
                                gpus_per_node=8, nodes=8)
    assert custom.gpu_spec().name == "X" and custom.gpu == "h100-sxm"
    for figure in ("bf16_dense", "fp8_dense", "memory", "memory_bandwidth"):
        assert getattr(custom.gpu_spec(), figure) == getattr(base.gpu_spec(), figure), figure
    workload = Workload(global_batch=256, micro_batch=1)
    layout = Layout(tp=8, pp=4, dp=2, zero=1)
    # only the scale-up bandwidth differs (1.8 TB/s is H100's 900 GB/s doubled): the compute is the same
    assert plan(PRESETS["llama3-70b"], custom, layout, workload).compute_s == \
        plan(PRESETS["llama3-70b"], base, layout, workload).compute_s


def test_pytorch_ring_attention_charges_its_steps_calls_and_fp32_merges():
    # PyTorch's context_parallel as torchtitan ran it (rule R32; torch/distributed/tensor/experimental/_attention.py):
    # with round-robin load balancing each of the cp steps does 1/cp of the rank's attention FLOPs, the first one
    # causal call of the rank's s/cp tokens, the rest calls without a mask (s/cp queries against s/2cp keys, the
    # work of a square call of s/cp/sqrt(2) tokens); the merges and FP32 accumulators move 12 + 10 (c - 1) bytes
    # per output value forward and 36 + 28 (c - 1) backward. Closed form against one call over the gathered keys
    # (context_parallel "all-gather") on one layout.
    from dataclasses import replace

    from interconnect.topics.seating.kernels import kernel_figures
    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s
    from interconnect.topics.seating.model.stacks import pytorch_ring_hbm_bytes
    from interconnect.topics.seating.model.step import _grid, _layer_times

    assert [tuple(float(v) for v in pytorch_ring_hbm_bytes(c)) for c in (1, 4)] == [(12.0, 36.0), (42.0, 120.0)]
    model, cluster = PRESETS["llama3-8b"], h100(1)
    cp, s = 8, 262144
    ring = Workload(global_batch=1, micro_batch=1, seq_len=s, attention="flash2", recompute="none",
                    context_parallel="all-gather")
    torch_cp = replace(ring, context_parallel="pytorch")
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(1), a(cp), a(1), a(3))
    lt_ring = _layer_times(_grid(model, cluster, ring, *args))
    lt_pt = _layer_times(_grid(model, cluster, torch_cp, *args))
    k = kernel_figures("h100-sxm")
    T, q = s / cp, model.heads * model.head_dim
    flops = 4 * T * (s / 2) * q   # the rank's forward attention FLOPs, causal half
    causal = float(k.attention_flops_for("flash2", T))
    open_ = float(k.attention_flops_for("flash2", T / np.sqrt(2), causal=False))
    pace = 1 + float(slowest_rank_lag(cp, k.speed_spread))  # the slowest of the job's 8 GPUs sets the pace
    causal, open_ = causal / pace, open_ / pace
    assert float(lt_ring.attn_fwd[0]) == pytest.approx(flops / causal)
    expected_fwd = flops / cp / causal + (cp - 1) * flops / cp / open_
    assert float(lt_pt.attn_fwd[0]) == pytest.approx(expected_fwd)
    assert float(lt_pt.attn_first_fwd[0]) == pytest.approx(flops / cp / causal)
    assert float(lt_pt.attn_fwd[0]) < float(lt_ring.attn_fwd[0])   # 338 against 328 TFLOP/s beyond 16k tokens
    fwd_b, bwd_b = (float(v) for v in pytorch_ring_hbm_bytes(cp))
    merges = (fwd_b + bwd_b) * T * q / _hbm_bytes_per_s(cluster)
    attention = 3.5 * (expected_fwd - flops / causal)   # forward + backward (2.5 x) at the steps' own rates
    assert float(lt_pt.compute[0] - lt_ring.compute[0]) == pytest.approx(merges + attention)
    # CP 1: one causal call, nothing to merge
    one = (a(1), a(1), a(1), a(1), a(1), a(3))
    short = replace(torch_cp, seq_len=32768)
    assert float(_layer_times(_grid(model, cluster, short, *one)).compute[0]) == pytest.approx(
        float(_layer_times(_grid(model, cluster, replace(short, context_parallel="ring"), *one)).compute[0]))


def test_transformer_engine_ring_attention_merges_in_16_bits():
    # Megatron-Core's ring (rule R39; Transformer Engine v2.9, AttnFuncWithCPAndKVP2P): the same load-balanced calls
    # as PyTorch's ring, but the running output and dQ, dK, dV stay in BF16: 4 + 6 (c - 1) bytes per value forward
    # (plus K and V concatenated into the send buffer, 4 bytes per K or V value) and (4 + 6 (c - 1)) (1 + k) + 4 k
    # backward, with k = 2 x KV heads / query heads K and V values per output value. Closed form: the two rings
    # differ by the bytes alone.
    from dataclasses import replace

    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s
    from interconnect.topics.seating.model.stacks import pytorch_ring_hbm_bytes, te_ring_hbm_bytes
    from interconnect.topics.seating.model.step import _grid, _layer_times

    assert [tuple(float(v) for v in te_ring_hbm_bytes(c, 0.25)) for c in (1, 2, 8)] == [
        (5.0, 6.0), (11.0, 13.5), (47.0, 58.5)]
    model, cluster = PRESETS["llama3-70b"], h100(2)
    cp, s = 2, 8192
    te = Workload(global_batch=1, micro_batch=1, seq_len=s, recompute="none", context_parallel="ring")
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(8), a(1), a(1), a(cp), a(1), a(1))
    lt_te = _layer_times(_grid(model, cluster, te, *args))
    lt_pt = _layer_times(_grid(model, cluster, replace(te, context_parallel="pytorch"), *args))
    lt_ag = _layer_times(_grid(model, cluster, replace(te, context_parallel="all-gather"), *args))
    k = 2 * model.kv_heads / model.heads                       # 2 x 8 / 64 = 0.25
    out_values = s / cp * model.heads * model.head_dim / 8     # the rank's queries x their width on a TP-8 rank
    hbm = _hbm_bytes_per_s(cluster)
    te_fwd, te_bwd = (float(v) for v in te_ring_hbm_bytes(cp, k))
    pt_fwd, pt_bwd = (float(v) for v in pytorch_ring_hbm_bytes(cp))
    assert (te_fwd, te_bwd) == (11.0, 13.5)
    assert float(lt_te.attn_fwd[0]) == pytest.approx(float(lt_pt.attn_fwd[0]))
    assert float(lt_pt.compute[0] - lt_te.compute[0]) == pytest.approx((pt_fwd + pt_bwd - te_fwd - te_bwd)
                                                                     * out_values / hbm)
    # against one call over the gathered keys: the merges and the calls at their own lengths, 3.5 x the forward's
    attention = 3.5 * float(lt_te.attn_fwd[0] - lt_ag.attn_fwd[0])
    assert float(lt_te.compute[0] - lt_ag.compute[0]) == pytest.approx((te_fwd + te_bwd) * out_values / hbm
                                                                      + attention)
    # CP 1: nothing to merge, one causal call
    one = (a(8), a(1), a(1), a(1), a(1), a(1))
    assert float(_layer_times(_grid(model, cluster, te, *one)).compute[0]) == pytest.approx(
        float(_layer_times(_grid(model, cluster, replace(te, context_parallel="all-gather"), *one)).compute[0]))


def test_pytorch_ring_hides_its_gathers_in_a_node_but_not_the_last_gradient_pass():
    # In one NVLink domain the all-gather of K and V (at the query heads' width: torchtitan repeats them before the
    # call) is shorter than the first step's attention, and each step's FP32 dK, dV hides behind the next step's
    # backward call; the last one is waited for at once (_templated_ring_attention_backward's final next_buffer).
    # Across nodes the gather outlasts the first step and shows.
    from interconnect.topics.seating.model.traffic import _time_s

    model = PRESETS["llama3-8b"]
    wl = Workload(global_batch=1, micro_batch=1, seq_len=262144, attention="flash2", recompute="full",
                  context_parallel="pytorch", sequence_parallel=False)
    bill = plan(model, h100(1), Layout(tp=1, pp=1, dp=1, cp=8, zero=3), wl)
    cp_row = dim(bill, "cp")
    values = 2 * 32768 * model.heads * model.head_dim
    last_pass = _time_s(h100(1), "sendrecv", np.array([8]), np.array([1]), np.array([values * 4.0]))
    assert cp_row.exposed_s == pytest.approx(model.layers * float(last_pass[0]))
    assert cp_row.calls_per_step == model.layers * (3 + 8)   # a gather per pass, a gradient pass per step
    assert cp_row.bytes_per_step == pytest.approx(model.layers * (3 * 7 * values * 2 + 8 * values * 4))
    # one GPU of each of 8 nodes (TP 8 inside the node): the gather crosses the network and outlasts the first step,
    # so more shows than the last gradient pass of each layer
    from dataclasses import replace

    wide = dim(plan(model, h100(8), Layout(tp=8, pp=1, dp=1, cp=8, zero=3), replace(wl, sequence_parallel=True)), "cp")
    wide_pass = _time_s(h100(8), "sendrecv", np.array([1]), np.array([8]), np.array([values / 8 * 4.0]))
    assert wide.tier == "network (NIC)"
    assert wide.exposed_s > 1.5 * model.layers * float(wide_pass[0])
def test_compiled_pytorch_ring_waits_for_every_gather_and_gradient_pass_where_it_is_issued():
    # Rule R48: traced, PyTorch's functional collectives wait right after the call (_maybe_wrap_tensor) and the
    # period's Inductor left the wait there, so under torch.compile nothing of the ring's communication hides. Per layer
    # of the 8B at 256K tokens on 8 GPUs with full recomputation: three gathers of K and V (forward, recomputed
    # forward, backward: 7 of the 8 ranks' T x heads x head_dim values each for K and V, BF16) and eight FP32 passes of
    # dK and dV, all exposed: closed form from the same collective times.
    from dataclasses import replace

    from interconnect.topics.seating.model.traffic import _time_s

    model, cluster = PRESETS["llama3-8b"], h100(1)
    eager = Workload(global_batch=1, micro_batch=1, seq_len=262144, attention="flash2", recompute="full",
                     context_parallel="pytorch", sequence_parallel=False)
    layout = Layout(tp=1, pp=1, dp=1, cp=8, zero=3)
    compiled = replace(eager, cp_waits_at_issue=True)
    values = 2 * 32768 * model.heads * model.head_dim
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    t_gather = float(_time_s(cluster, "all_gather", a(8), a(1), a(values * 2 * 8))[0])
    t_pass = float(_time_s(cluster, "sendrecv", a(8), a(1), a(values * 4.0))[0])
    row = dim(plan(model, cluster, layout, compiled), "cp")
    assert row.exposed_s == pytest.approx(model.layers * (3 * t_gather + 8 * t_pass), rel=1e-9)
    assert row.exposed_s == pytest.approx(row.time_s, rel=1e-9)
    assert row.overlap.startswith("no")
    eager_row = dim(plan(model, cluster, layout, eager), "cp")
    assert eager_row.exposed_s < 0.2 * row.exposed_s        # eagerly only the last gradient pass shows
    assert (eager_row.time_s, eager_row.bytes_per_step) == (row.time_s, row.bytes_per_step)
    # without CP the flag changes nothing
    flat, short = Layout(tp=1, pp=1, dp=8, cp=1, zero=3), dict(global_batch=8, seq_len=32768)
    assert (plan(model, cluster, flat, replace(compiled, **short)).step_s
            == plan(model, cluster, flat, replace(eager, **short)).step_s)


def test_deepspeed_bf16_optimizer_adds_every_micro_batchs_gradients_into_fp32_buffers():
    # Rule R35: under DeepSpeed's pipeline engine the BF16_Optimizer runs update_hp_grads after every micro-batch's
    # backward (deepspeed/runtime/pipe/engine.py and bf16_optimizer.py at 56c5223): each BF16 gradient is read (2 B),
    # copied out in FP32 (4 B) and added into the FP32 buffer (read 4 + 4, write 4): 18 B a parameter, serial with the
    # compute. On one GPU holding the whole model that is 18 x parameters / HBM per micro-batch, closed form.
    import dataclasses

    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s
    from interconnect.topics.seating.model.stacks import BF16_ACCUMULATION_BYTES, bf16_accumulation_s
    from interconnect.topics.seating.model.step import evaluate_layouts

    assert BF16_ACCUMULATION_BYTES == 18.0
    model, cluster = PRESETS["llama3-8b"], h100(1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(1), a(1), a(1), a(0))
    plain = Workload(global_batch=16, micro_batch=2, recompute="full", ddp="after-backward",
                     pipeline_engine="deepspeed", grad_bytes=4)
    bf16 = dataclasses.replace(plain, ddp="deepspeed-bf16")
    one, acc = (evaluate_layouts(model, cluster, w, *args) for w in (plain, bf16))
    hbm = _hbm_bytes_per_s(cluster)
    per_micro = 18 * model.dense_params / hbm   # an untied Llama: every layer, the embedding and the output layer
    assert float(acc["t_micro"][0] - one["t_micro"][0]) == pytest.approx(per_micro, rel=1e-9)
    assert float(acc["compute_s"][0] - one["compute_s"][0]) == pytest.approx(8 * per_micro, rel=1e-9)
    assert float(bf16_accumulation_s(model.dense_params, hbm)) == pytest.approx(per_micro)
    # no data parallelism: the FP32 all-reduce adds nothing here, so the step grows by exactly the 8 passes
    assert float(acc["step_s"][0] - one["step_s"][0]) == pytest.approx(8 * per_micro, rel=1e-6)


def test_unfused_gradient_accumulation_is_a_memory_pass_per_micro_batch():
    # Rule R36: Megatron-LM 2021's local DDP adds every micro-batch's gradient into its buffer in a backward hook,
    # param.main_grad.add_(param.grad.data) (megatron/model/distributed.py at de7dc40): the fp16 gradient read (2 B),
    # the buffer read and written (2 + 2 B, or 4 + 4 with an FP32 buffer), serial with the compute. PyTorch's
    # AccumulateGrad (DDP under no_sync, DeepSpeed's stage-1 ZeRO without overlap_comm) assigns the first
    # micro-batch's gradient and adds each later one in place: 3 x 2 B on m - 1 of m micro-batches. Megatron-Core
    # fuses the add into the weight-gradient GEMM: nothing. On one GPU holding the whole model, closed form:
    #   t_micro(buffer) - t_micro(fused) = 6 P / HBM,  t_micro(autograd) - t_micro(fused) = 6 P (m - 1) / m / HBM
    import dataclasses

    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s
    from interconnect.topics.seating.model.stacks import accumulation_bytes
    from interconnect.topics.seating.model.step import evaluate_layouts

    model, cluster = PRESETS["llama3-8b"], h100(1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(1), a(1), a(1), a(0))
    fused = Workload(global_batch=8, micro_batch=2, recompute="full", ddp="after-backward")   # m = 4
    buffer, autograd = (dataclasses.replace(fused, grad_accumulation=mode) for mode in ("buffer", "autograd"))
    base, buf, auto = (evaluate_layouts(model, cluster, w, *args) for w in (fused, buffer, autograd))
    per_param_s = model.dense_params / _hbm_bytes_per_s(cluster)
    assert float(buf["t_micro"][0] - base["t_micro"][0]) == pytest.approx(6 * per_param_s, rel=1e-9)
    assert float(auto["t_micro"][0] - base["t_micro"][0]) == pytest.approx(6 * 3 / 4 * per_param_s, rel=1e-9)
    assert float(buf["step_s"][0] - base["step_s"][0]) == pytest.approx(4 * 6 * per_param_s, rel=1e-6)
    # an FP32 buffer (Megatron-LM's --accumulate-allreduce-grads-in-fp32, forced for bf16): 2 + 4 + 4 bytes
    assert float(accumulation_bytes(dataclasses.replace(buffer, grad_bytes=4), 4)) == 10.0
    # sharded gradients (ZeRO-2/3) are reduce-scattered every micro-batch: nothing accumulates whole
    assert float(accumulation_bytes(buffer, 4, zero=2)) == 0.0
    with pytest.raises(ValueError, match="Gradient accumulation"):
        plan(model, cluster, Layout(tp=1, pp=1, dp=1), dataclasses.replace(fused, grad_accumulation="sideways"))


def test_deepspeed_bf16_optimizer_all_reduces_fp32_gradients_whole_and_gathers_weights_in_the_step():
    # Rule R35: after the last micro-batch the engine all-reduces the BF16_Optimizer's FP32 buffers in
    # buffered_allreduce_fallback calls of 500,000,000 elements (_bf16_reduce_grads), even under its ZeRO-1, and the
    # optimizer step then all-gathers the updated BF16 weights (all_gather_dp_groups) before the next step can start:
    #   exposed = ceil(P / 5e8) t_ar(4 P / calls) + ceil(P / 5e8) t_ag(2 P / calls)
    # where P is the parameters a GPU of the fullest stage holds. DeepSpeed's fp16 ZeRO-1 (stage2.py at 29bee73)
    # reduce-scatters, but gathers inside its step too: exposed = t_rs(2 P) + t_ag(2 P) with the pipeline.
    import dataclasses

    from interconnect.topics.seating.model.stacks import DEEPSPEED_ALLREDUCE_ELEMENTS
    from interconnect.topics.seating.model.step import evaluate_layouts
    from interconnect.topics.seating.model.traffic import _time_s

    assert DEEPSPEED_ALLREDUCE_ELEMENTS == 500_000_000
    model, cluster = PRESETS["llama3-70b"], h100(16)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(8), a(4), a(4), a(1), a(1), a(1))                 # TP 8 x PP 4 x DP 4, ZeRO-1
    fp16 = Workload(global_batch=64, micro_batch=1, recompute="full", sequence_parallel=False,
                    pipeline_engine="deepspeed", ddp="after-backward")
    bf16 = dataclasses.replace(fp16, ddp="deepspeed-bf16", grad_bytes=4)
    half, full = (evaluate_layouts(model, cluster, w, *args) for w in (fp16, bf16))
    psi = float(full["psi"][0])
    per, dom = np.array([1]), np.array([4])                     # DP 4 strides over nodes: one rank a node
    calls = np.ceil(psi / 5e8)
    t_ar = calls * float(_time_s(cluster, "all_reduce", per, dom, a(4 * psi / calls))[0])
    t_ag_shards = calls * float(_time_s(cluster, "all_gather", per, dom, a(2 * psi / calls))[0])
    t_ag = float(_time_s(cluster, "all_gather", per, dom, a(2 * psi))[0])
    t_rs = float(_time_s(cluster, "reduce_scatter", per, dom, a(2 * psi))[0])
    assert calls > 1
    assert float(full["dp_exposed"][0]) == pytest.approx(t_ar + t_ag_shards, rel=1e-9)
    assert float(full["dp_calls"][0]) == 2 * calls
    assert float(half["dp_exposed"][0]) == pytest.approx(t_rs + t_ag, rel=1e-9)
    # with gradient buckets, Megatron's engine overlaps ZeRO-1's gather with the next step's first forward and its
    # reduction with the last backward; DeepSpeed's exposes both
    bucketed = dataclasses.replace(fp16, ddp="bucketed")
    ds, mg = (evaluate_layouts(model, cluster, dataclasses.replace(bucketed, pipeline_engine=e), *args)
              for e in ("deepspeed", "megatron"))
    assert float(ds["dp_exposed"][0]) == pytest.approx(float(ds["dp_time"][0]), rel=1e-9)
    assert float(mg["dp_exposed"][0]) < 0.5 * float(ds["dp_exposed"][0])


def test_fsdp2_copies_of_one_layer_against_their_closed_form():
    # PyTorch FSDP2 as torchtitan runs it (rule R37; torch/distributed/fsdp _fsdp_collectives.py and _fsdp_param.py):
    # per weight a GPU holds whole, a gather's copy-in casts the FP32 shard to BF16 and copies it into the gather's
    # buffer, (4 + 2 + 2 + 2)/N bytes beside the compute; its copy-out (split_with_sizes_copy) reads and writes the
    # gathered BF16 weight, 2 + 2 on the compute stream; the reduce-scatter's copy-in (chunk_cat) reads the BF16
    # gradient and writes it in FP32, 2 + 4, waited for by the compute stream. Two gathers and one reduction a
    # micro-batch without a pipeline: 2 (2 + 2) + 6 = 14 bytes exposed, 2 x 10/N beside.
    import dataclasses

    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s, layer_params
    from interconnect.topics.seating.model.stacks import fsdp2_copy_bytes
    from interconnect.topics.seating.model.step import evaluate_layouts

    exposed, beside = fsdp2_copy_bytes(1, 8)
    assert (float(exposed), float(beside)) == (14.0, 20 / 8)
    # a step of m micro-batches: m times the passes, and the sharded sums of micro-batches 2..m (read 4 + 4, write 4
    # over the 1/N shard) on the reduce-scatter stream
    exposed, beside = fsdp2_copy_bytes(4, 8)
    assert (float(exposed), float(beside)) == (4 * 14.0, (4 * 20 + 3 * 12) / 8)

    model = PRESETS["llama3-8b"]
    cluster = h100(1)
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(3))
    base = Workload(global_batch=16, micro_batch=2, seq_len=8192, recompute="selective", grad_bytes=4, bucket_bytes=0.0)
    plain, copies = (evaluate_layouts(model, cluster, w, *args)
                     for w in (base, dataclasses.replace(base, fsdp2_copies=True)))
    per_layer, embed = layer_params(model)
    psi = float(plain["psi"][0])                         # the weights one GPU holds whole: 32 layers and V x h twice
    assert psi == pytest.approx(model.layers * per_layer + 2 * embed, rel=1e-3)
    hbm = _hbm_bytes_per_s(cluster)
    one_layer = 14.0 * psi / model.layers / hbm          # the exposed passes of one layer, one micro-batch
    # a Llama 3 8B block's 218M weights: 3.05 GB a micro-batch at the H100 SXM's 3,000 GB/s (0.8955 of 3,350): 1.02 ms
    assert 14.0 * per_layer / hbm == pytest.approx(1.02e-3, rel=0.01)
    assert float(copies["fsdp_copies_s"][0]) == pytest.approx(model.layers * one_layer, rel=1e-9)
    assert float(copies["compute_s"][0]) - float(plain["compute_s"][0]) == pytest.approx(
        model.layers * one_layer, rel=1e-9)
    assert float(copies["fsdp_beside_s"][0]) == pytest.approx(2 * 10 / 8 * psi / hbm, rel=1e-9)
    # nothing for a stack that is not FSDP2, and nothing below ZeRO-3
    assert float(plain["fsdp_copies_s"][0]) == 0.0
    zero1 = evaluate_layouts(model, cluster, dataclasses.replace(base, fsdp2_copies=True), *args[:-1], a(1))
    assert float(zero1["fsdp_copies_s"][0]) == 0.0


def test_fsdp2_under_pytorch_pipelining_accumulates_whole_fp32_gradients_on_the_compute_stream():
    # With PP torchtitan keeps the weights gathered (one gather a step) and PyTorch's pipeline stage turns gradient
    # sync off until the last micro-batch (rule R29), so FSDPParamGroup.post_backward casts the first micro-batch's
    # BF16 gradient to an FP32 accumulator (to_accumulated_grad_if_needed: read 2, write 4), adds each later one into
    # it (accumulate_unsharded_grad_if_needed: read 2 + 4, write 4) and the last reduce-scatter's copy-in reads and
    # writes FP32 (4 + 4); one copy-out (2 + 2). m = 8 micro-batches: 4 + 6 + 7 x 10 + 8 = 88 bytes a weight.
    from interconnect.topics.seating.model.stacks import fsdp2_copy_bytes

    exposed, beside = fsdp2_copy_bytes(8, 8, pipelined=True)
    assert float(exposed) == 4 + 6 + 7 * 10 + 8
    assert float(beside) == 10 / 8                       # the step's one gather copy-in
    # one micro-batch a step is FSDP2's ordinary path even under the pipeline
    assert [float(v) for v in fsdp2_copy_bytes(1, 8, pipelined=True)] == [float(v) for v in fsdp2_copy_bytes(1, 8)]


def test_gradients_and_zero_shards_span_the_context_parallel_ranks():
    # CP ranks hold the same weights and see other tokens of the same sequences, so their gradients are summed with
    # the data-parallel replicas' and ZeRO shards over both: Megatron-Core builds its DDP and distributed optimizer
    # over the DP x CP group (megatron/core/optimizer/__init__.py at 6cc29a2, dp_cp_group), torchtitan shards FSDP
    # over dp_shard_cp (parallelize_llama.py at 9dec370), as the memory already counts. Closed form: on 8 GPUs at TP 4,
    # DP 1 x CP 2 and DP 2 x CP 1 both reduce over two ranks (same bytes and calls a step), each GPU updating half
    # the weights in its optimizer step; with neither, nothing moves.
    from interconnect.topics.seating.model.step import evaluate_layouts

    model = PRESETS["llama3-8b"]
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    wl = Workload(global_batch=8, micro_batch=1)

    def run(dp, cp):
        return evaluate_layouts(model, h100(1), wl, a(4), a(1), a(dp), a(cp), a(1), a(1))

    cp2, dp2, alone = run(1, 2), run(2, 1), evaluate_layouts(model, h100(1), wl, a(4), a(2), a(1), a(1), a(1), a(1))
    psi = float(cp2["psi"][0])
    assert float(cp2["dp_bytes"][0]) == pytest.approx(float(dp2["dp_bytes"][0]))
    assert float(cp2["dp_bytes"][0]) == pytest.approx(0.5 * (2 * psi + 2 * psi))   # RS + AG, (n - 1)/n of 2 B
    assert float(cp2["dp_calls"][0]) == float(dp2["dp_calls"][0]) > 0
    assert float(cp2["optimizer_s"][0]) == pytest.approx(float(dp2["optimizer_s"][0]))
    assert float(alone["dp_bytes"][0]) == 0.0
    # the bill names the group it goes over
    bill = plan(model, h100(1), Layout(tp=4, pp=1, dp=1, cp=2, zero=1), wl)
    row = next(d for d in bill.dimensions if d.name == "dp")
    assert row.collective == "reduce-scatter + all-gather over DP x CP (2)" and row.tier == "NVLink"


def test_fp8_weights_are_gathered_at_one_byte():
    # Rule R40: Megatron-Bridge's FP8 presets set fp8_param_gather, so ZeRO-1's all-gather of the updated weights
    # moves one byte a weight; the gradients' reduce-scatter keeps its two. Closed form, Llama 3 8B on 8 H100 at DP 8,
    # ZeRO-1, one micro-batch: bytes = 7/8 (2 P + 2 P) without, 7/8 (2 P + P) with; BF16 training is not affected.
    import dataclasses

    from interconnect.topics.seating.model.step import evaluate_layouts

    model = PRESETS["llama3-8b"]
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(1))
    fp8 = Workload(global_batch=8, micro_batch=1, dtype_bytes=1)
    plain, gathered = (evaluate_layouts(model, h100(1), w, *args)
                       for w in (fp8, dataclasses.replace(fp8, fp8_param_gather=True)))
    psi = float(plain["psi"][0])
    assert float(plain["dp_bytes"][0]) == pytest.approx(7 / 8 * (2 * psi + 2 * psi))
    assert float(gathered["dp_bytes"][0]) == pytest.approx(7 / 8 * (2 * psi + psi))
    bf16 = Workload(global_batch=8, micro_batch=1, fp8_param_gather=True)
    assert float(evaluate_layouts(model, h100(1), bf16, *args)["dp_bytes"][0]) == pytest.approx(7 / 8 * 4 * psi)


def test_sliding_window_layers_pay_the_band_not_the_causal_triangle():
    # GPT-OSS's windowed layers (rule R41: Transformer Engine window_size (128, 0), causal, cuDNN fused attention)
    # let query i meet min(i + 1, 129) keys. Closed form: half the layers windowed, each at the band's FLOPs and the
    # published rate of a causal call of 2 x 129 tokens, the other half causal over the whole sequence as before.
    import dataclasses

    from interconnect.topics.seating.model.compute import _rates
    from interconnect.topics.seating.model.step import _grid, _layer_times, windowed_keys

    s, w = 4096, 128
    assert float(windowed_keys(s, w)) == pytest.approx(129 - 128 * 129 / 2 / s)   # the first 128 queries see fewer
    assert float(windowed_keys(s, 2 * s)) == pytest.approx((s + 1) / 2)           # a window past the sequence
    assert float(windowed_keys(1, 0)) == 1.0                                      # a query always sees itself
    model = PRESETS["llama3-8b"]
    windowed = dataclasses.replace(model, attention_window=w, window_layers=model.layers // 2)
    cluster = h100(1)
    wl = Workload(global_batch=16, micro_batch=1, seq_len=s, recompute="none")
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(1))
    full, band = _layer_times(_grid(model, cluster, wl, *args)), _layer_times(_grid(windowed, cluster, wl, *args))
    q = model.heads * model.head_dim
    _, causal_rate, _, _ = _rates(cluster, wl, seq=s)
    _, band_rate, _, _ = _rates(cluster, wl, seq=2 * (w + 1))
    assert band_rate < causal_rate                                # short calls run slower (FlashAttention-3 figure)
    causal_s = 4 * s * (s / 2) * q / causal_rate
    expected = 0.5 * causal_s + 0.5 * 4 * s * float(windowed_keys(s, w)) * q / band_rate
    assert float(full.attn_fwd[0]) == pytest.approx(causal_s)
    assert float(band.attn_fwd[0]) == pytest.approx(expected)
    assert float(band.attn_bwd[0]) == pytest.approx(2.5 * expected)
    assert float((full.compute - band.compute)[0]) == pytest.approx(3.5 * (causal_s - expected))
    # the unfused path scores every key whatever the mask: no change
    unfused = dataclasses.replace(wl, attention="unfused")
    assert float(_layer_times(_grid(windowed, cluster, unfused, *args)).compute[0]) == pytest.approx(
        float(_layer_times(_grid(model, cluster, unfused, *args)).compute[0]))


# --- multi-head latent attention (DeepSeek-V3, rule R42) -------------------------------------------------------------
# deepseek-ai/DeepSeek-V3 config.json: hidden 7168, 128 heads, "q_lora_rank": 1536, "kv_lora_rank": 512,
# "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128 (and the report, arXiv 2412.19437, section 4.2)
DSV3 = PRESETS["deepseek-v3"]


def _without_mla(model):
    import dataclasses

    return dataclasses.replace(model, q_lora_rank=None, kv_lora_rank=None, qk_nope_head_dim=None,
                               qk_rope_head_dim=None, v_head_dim=None)


def test_deepseek_v3_preset_carries_its_latent_attention_and_keeps_its_published_totals():
    m = DSV3
    assert (m.q_lora_rank, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim) == (
        1536, 512, 128, 64, 128)
    assert m.is_mla and m.qk_head_dim == 192 and m.value_head_dim == 128
    assert (m.params, m.active_params) == (671e9, 37e9)        # the report's 671B total, 37B active
    # the projections' weights, GEMM by GEMM: q down, q up, kv down (with the 64-wide rotary key), kv up, output
    h = 7168
    assert m.attention_params == h * 1536 + 1536 * 128 * 192 + h * (512 + 64) + 512 * 128 * (128 + 128) + 128 * 128 * h
    assert m.attention_params == 187_105_280 and 4 * h * h == 205_520_896
    assert not any(p.is_mla for key, p in PRESETS.items() if key != "deepseek-v3")


def test_mla_attention_core_is_charged_at_192_and_128_a_head():
    # the attention core of one token in one layer, forward: Q K^T over s keys at 192 a head and P V at 128 a head,
    # 2 FLOPs a multiply-add, 128 heads: 2 s 128 (192 + 128), halved by the causal mask. Standard attention at
    # head_dim 7168 / 128 = 56 charged 4 s h / 2: MLA is 2 x 320 / (4 x 56) = 2.86 times that, at the same rate (R42)
    from interconnect.topics.seating.model.compute import _rates
    from interconnect.topics.seating.model.step import _grid, _layer_times

    s = 4096
    cluster = h100(1)
    wl = Workload(global_batch=8, micro_batch=1, seq_len=s, recompute="none")
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(1))
    _, rate, _, _ = _rates(cluster, wl, seq=s)
    mla = _layer_times(_grid(DSV3, cluster, wl, *args))
    mha = _layer_times(_grid(_without_mla(DSV3), cluster, wl, *args))
    per_token = 2 * s * 128 * (192 + 128) / 2
    assert per_token == 167_772_160
    assert float(mla.attn_fwd[0]) * rate / s == pytest.approx(per_token)
    assert float(mha.attn_fwd[0]) * rate / s == pytest.approx(4 * s * 7168 / 2)
    assert float(mla.attn_fwd[0] / mha.attn_fwd[0]) == pytest.approx(2 * 320 / (4 * 56))  # 2.86
    assert float(mla.attn_bwd[0]) == pytest.approx(2.5 * float(mla.attn_fwd[0]))   # flash's backward, as before


def test_mla_projections_are_their_own_gemms_and_the_layer_keeps_its_parameters():
    from interconnect.topics.seating.model.architecture import mla_projection_shapes
    from interconnect.topics.seating.model.compute import layer_params
    from interconnect.topics.seating.model.step import _grid, _layer_gemm_shapes

    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    shapes = _layer_gemm_shapes(_grid(DSV3, h100(1), Workload(global_batch=8), a(2), a(1), a(4), a(1), a(1), a(1)))
    assert list(shapes) == ["q_a", "q_b", "kv_a", "kv_b", "proj", "fc1", "fc2"]
    # (outputs on one of TP 2's ranks, reduced dimension)
    assert {k: (float(shapes[k][0][0]), float(shapes[k][1])) for k in ("q_a", "q_b", "kv_a", "kv_b")} == {
        "q_a": (768.0, 7168.0), "q_b": (12288.0, 1536.0), "kv_a": (288.0, 7168.0), "kv_b": (16384.0, 512.0)}
    assert (float(shapes["proj"][0]), float(shapes["proj"][1][0])) == (7168.0, 8192.0)
    # every weight of the layer in exactly one GEMM: the GEMMs' FLOPs stay 2 T N_layer
    per_layer, _ = layer_params(DSV3)
    assert sum(float(np.asarray(w).ravel()[0]) for _, _, w in shapes.values()) == pytest.approx(per_layer)
    # no query latent: one h -> heads x 192 GEMM
    import dataclasses

    direct = dataclasses.replace(DSV3, q_lora_rank=None)
    assert mla_projection_shapes(direct)["q"] == (128 * 192, 7168)
    assert direct.attention_params == pytest.approx(DSV3.attention_params - 7168 * 1536 - 1536 * 24576
                                                    + 7168 * 24576)


def test_mla_activations_are_stored_at_the_real_widths():
    # per token, TP 1, no dropout, flash attention, nothing recomputed: the norms' inputs and the projections' inputs
    # 8 h; queries 2 x 128 x 192, keys and values 2 x 128 x (192 + 128), attention's output 2 x 128 x 128; the
    # latents' norms keep input and output, 2 x (2 x 1536 + 2 x 512 + 64); the MLP's 2 N_mlp / h
    from interconnect.topics.seating.model.compute import layer_params
    from interconnect.topics.seating.model.memory import _per_layer_stored

    s, h = 4096, 7168
    per_layer, _ = layer_params(DSV3)
    mlp = per_layer - DSV3.attention_params
    per_token = 8 * h + 2 * 24576 + 2 * 40960 + 2 * 16384 + 2 * (2 * 1536 + 2 * 512 + 64) + 2 * mlp / h
    wl = Workload(global_batch=8, micro_batch=1, seq_len=s, recompute="none")
    one = np.array([1.0])
    assert float(_per_layer_stored(DSV3, wl, one, one, "none")[0]) == pytest.approx(s * per_token)
    assert float(_per_layer_stored(DSV3, wl, one, one, "none")[0]) > float(
        _per_layer_stored(_without_mla(DSV3), wl, one, one, "none")[0])
    # with sequence parallelism over TP 2 everything is split but the latents, gathered whole before the up-projections
    sp = Workload(global_batch=8, micro_batch=1, seq_len=s, recompute="none", sequence_parallel=True)
    latents = 2 * (2 * 1536 + 2 * 512 + 64)
    assert float(_per_layer_stored(DSV3, sp, np.array([2.0]), one, "none")[0]) == pytest.approx(
        s * ((per_token - latents) / 2 + latents))


def _gathers_counted_in_gradient_bytes(monkeypatch):
    """Count Megatron-Core's buckets as the model did before rule R60 (c), forty-eighth pass: in the gradients' bytes
    for the weight gathers too, 2 a value for the rows that use this (their gradients move in BF16)."""
    from interconnect.topics.seating.model import data_parallel

    calls = data_parallel.megatron_core_calls
    monkeypatch.setattr(data_parallel, "megatron_core_calls",
                        lambda total, dp, given, value_bytes: calls(total, dp, given, 2.0))


def _no_slowest_gpu_pace(monkeypatch):
    """Run the tensor cores at a typical GPU's rate, as the model did before the slowest GPU set the pace (seventh
    sitting: the family's measured spread of speeds, hardware/stragglers.py)."""
    from interconnect.topics.seating.model import compute

    monkeypatch.setattr(compute, "slowest_rank_lag", lambda n, spread: 0.0 * np.asarray(n, dtype=float))


def test_the_latent_attention_leaves_every_other_model_as_it_was(monkeypatch):
    # a model without MLA takes the same widths as before: queries and keys and values at head_dim, the fused QKV
    # and output projection (4 h^2 for multi-head attention, h (q + 2 kv) + q h with grouped-query), 4 s q / 2
    from interconnect.topics.seating.model.compute import _rates
    from interconnect.topics.seating.model.step import _grid, _layer_gemm_shapes, _layer_times

    h, q, kv = 8192, 8192, 2 * 8 * 128
    assert (L70.query_width, L70.kv_width, L70.attention_out_width) == (q, kv, q)
    assert L70.attention_params == h * (q + kv) + q * h
    s, cluster = 8192, h100(1)
    wl = Workload(global_batch=8, micro_batch=1, seq_len=s, recompute="none")
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    g = _grid(L70, cluster, wl, a(8), a(1), a(1), a(1), a(1), a(1))
    assert list(_layer_gemm_shapes(g)) == ["qkv", "proj", "fc1", "fc2"]
    _, rate, _, _ = _rates(cluster, wl, seq=s)
    assert float(_layer_times(g).attn_fwd[0]) == pytest.approx(4 * s * (s / 2) * q / 8 / rate)
    # and a published run's ratio is what it was before multi-head latent attention came in: Megatron-Bridge 25.11's
    # Llama 3 70B on 64 H100 read 1.0184652104938539 at commit 799444f (the last before it); equal to 1e-9
    from interconnect.topics.seating.reference_runs import ReferenceRun, load_reference_runs, predict

    # (the chunk-by-chunk data-parallel syncs of rule R53 came in with the forty-first pass: without them, the same)
    monkeypatch.setattr(ReferenceRun, "chunk_dp_sync_mode", property(lambda self: ""))
    # (and the recipe's 128 Mi-parameter DP buckets of rule R55, forty-third pass: without them, the same; and the
    # loss's memory-bound passes of rule R59, forty-seventh pass: without them, the same)
    monkeypatch.setattr(step_model, "loss_s", lambda *args: 0.0)
    _gathers_counted_in_gradient_bytes(monkeypatch)
    _no_slowest_gpu_pace(monkeypatch)  # (and without the slowest GPU's pace, seventh sitting: the same)
    run = next(r for r in load_reference_runs() if r.id == "mbridge2511-llama3-70b-h100-64")
    assert predict(dataclasses.replace(run, dp_bucket_params=0)).ratio == pytest.approx(1.0184652104938539, rel=1e-9)


# --- Megatron-Core's recompute modules (rule R44; Workload.recompute_modules) ----------------------------------------
# megatron/core/transformer/multi_latent_attention.py (core_r0.15/0.16): "mla_up_proj" runs the latents' norms, the
# query and key-value up-projections and the rotary embedding under an output-discarding checkpoint, so the normed
# latents, the queries, keys and values are freed after attention has used them and made again in the backward pass


def test_mla_up_proj_recomputation_frees_the_queries_keys_values_and_normed_latents():
    from interconnect.topics.seating.model.compute import layer_params
    from interconnect.topics.seating.model.memory import _fp8_saved_less, _modules_freed, _per_layer_stored

    s, h = 4096, 7168
    per_layer, _ = layer_params(DSV3)
    mlp = per_layer - DSV3.attention_params
    one = np.array([1.0])
    keep = Workload(global_batch=8, micro_batch=1, seq_len=s, recompute="none")
    drop = dataclasses.replace(keep, recompute_modules=("mla_up_proj",))
    # per token, TP 1: what the layer stored (test above) less the queries 2 x 128 x 192, the keys and values
    # 2 x 128 x (192 + 128) and the two normed latents 2 x (1536 + 512); the latents themselves (the checkpoint's
    # inputs) and the rotary key stay: 2 x (1536 + 512 + 64)
    kept = 8 * h + 2 * 16384 + 2 * (1536 + 512 + 64) + 2 * mlp / h
    assert 2 * 24576 + 2 * 40960 + 2 * (1536 + 512) == 135_168
    stored = _per_layer_stored(DSV3, drop, one, one, "none") - _modules_freed(DSV3, drop, one, one, "none")
    assert float(stored[0]) == pytest.approx(s * kept)
    assert float(_modules_freed(DSV3, drop, one, one, "none")[0]) == s * 135_168
    # in FP8 the up-projections kept 1-byte casts of the normed latents (R42); those go too, only the byte left
    fp8 = dataclasses.replace(drop, dtype_bytes=1, fp8_recipe="mxfp8")
    assert float(_modules_freed(DSV3, fp8, one, one, "none")[0]) == s * (135_168 - (1536 + 512))
    assert float(_fp8_saved_less(DSV3, fp8, one, one, "none")[0]) == float(
        _fp8_saved_less(DSV3, dataclasses.replace(fp8, recompute_modules=()), one, one, "none")[0])
    # nothing more is freed under full recomputation (only the layer's input is kept anyway)
    assert float(_modules_freed(DSV3, drop, one, one, "full")[0]) == 0.0


def test_mla_up_proj_recomputation_charges_the_up_projections_forward_once_more():
    # at one share of the peak for every kernel (no tile costs), the backward pass gains the two up-projections'
    # forward GEMMs, 2 T (1536 x 24,576 + 512 x 32,768) FLOPs, and the memory-bound passes over the bytes they make
    # again, 2 x 135,168 bytes a token at the GPU's memory bandwidth
    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s, _rates
    from interconnect.topics.seating.model.step import _grid, _layer_times

    s, cluster = 4096, h100(1)
    keep = Workload(global_batch=8, micro_batch=1, seq_len=s, recompute="none", compute_efficiency=0.5)
    drop = dataclasses.replace(keep, recompute_modules=("mla_up_proj",))
    a = lambda v: np.array([v], dtype=float)  # noqa: E731
    args = (a(1), a(1), a(8), a(1), a(1), a(1))
    gemm_rate, _, _, _ = _rates(cluster, keep)
    hbm = _hbm_bytes_per_s(cluster, keep)
    flops = 2 * s * (1536 * 24576 + 512 * 32768)
    assert flops == 2 * s * 54_525_952
    extra = float(_layer_times(_grid(DSV3, cluster, drop, *args)).compute[0]
                  - _layer_times(_grid(DSV3, cluster, keep, *args)).compute[0])
    assert extra == pytest.approx(flops / gemm_rate + 2.0 * s * 135_168 / hbm, rel=1e-9)


def test_layernorm_and_moe_act_free_the_separate_norms_and_the_experts_activation():
    # GPT-OSS-like MoE without MLA: only the pre-MLP norm (before the router) is a module of its own, 2 h a token;
    # moe_act frees the second expert GEMM's input, k experts x their width, in 16 bits
    from interconnect.topics.seating.model.memory import recompute_module_bytes

    moe = PRESETS["deepseek-v3"]
    plain = _without_mla(moe)
    wl = Workload(recompute_modules=("layernorm", "moe_act"), sequence_parallel=False)
    freed = recompute_module_bytes(plain, wl)
    assert float(freed["layernorm"][0]) == 2 * 7168
    per_expert = plain.expert_params / plain.experts / plain.layers
    assert float(freed["moe_act"][0]) == pytest.approx(2 * 8 * per_expert / (3 * 7168))
    # with MLA the input norm is a module of its own too (the down-projections read its output): two norms
    assert float(recompute_module_bytes(moe, wl)["layernorm"][0]) == 2 * 2 * 7168
    # a dense model without MLA fuses both norms into the GEMMs after them: nothing freed
    assert recompute_module_bytes(L70, wl) == {}


def test_recompute_modules_are_checked():
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.layout import Layout, layout_problems

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    bad = Workload(global_batch=8, recompute_modules=("mla_up_proj", "moe_act", "qkv"))
    problems = " ".join(layout_problems(L70, cluster, Layout(tp=8), bad))
    assert "'qkv'" in problems and "mla_up_proj' needs multi-head latent attention" in problems
    assert "'moe_act' needs a mixture-of-experts model" in problems
    assert layout_problems(DSV3, cluster, Layout(dp=8, ep=8), Workload(
        global_batch=8, recompute_modules=("mla_up_proj", "moe_act", "layernorm"))) == []


def _kernels_before_flashattention4(tmp_path, monkeypatch):
    """Read the kernel figures without the Blackwell attention tables of the thirty-fourth pass (the 0.6 share)."""
    import shutil

    from interconnect.datafiles.tables import packaged_data_file
    from interconnect.topics.seating import kernels_data

    target = tmp_path / "gpu-kernels.toml"
    shutil.copy(packaged_data_file("published/gpu-kernels.toml"), target)
    text = target.read_text()
    start = text.index("attention_seq = [1024, 2048")
    end = text.index('attention_table_sources = ["fa4-b200"]\n') + len('attention_table_sources = ["fa4-b200"]\n')
    target.write_text(text[:start] + text[end:])
    figures = kernels_data.load_kernel_data(target)
    monkeypatch.setattr(kernels_data, "_packaged", lambda: figures)


def test_runs_without_recompute_modules_are_unchanged_and_the_recipes_modules_reach_the_model(tmp_path, monkeypatch):
    # ratios before the recompute modules came in (commit 5d6fd33), to 12 digits (the last bit varies by machine): two
    # MoE runs without them (Qwen3's recipes set recompute_granularity = None) and a dense one; the GB200 row with
    # Blackwell's attention as it was then (the 0.6 share: FlashAttention-4's figures came in the thirty-fourth
    # pass and move it, 1.198 now)
    from interconnect.topics.seating.reference_runs import ReferenceRun, load_reference_runs, predict

    _kernels_before_flashattention4(tmp_path, monkeypatch)
    # and without the chunk-by-chunk data-parallel syncs of rule R53 (forty-first pass), which came in later
    monkeypatch.setattr(ReferenceRun, "chunk_dp_sync_mode", property(lambda self: ""))
    # and without the recipes' 128 Mi-parameter DP buckets of rule R55 (forty-third pass): Megatron-Core's own
    runs = {r.id: dataclasses.replace(r, dp_bucket_params=0) for r in load_reference_runs()}
    # and without the loss's memory-bound passes (rule R59, forty-seventh pass)
    monkeypatch.setattr(step_model, "loss_s", lambda *args: 0.0)
    _gathers_counted_in_gradient_bytes(monkeypatch)
    _no_slowest_gpu_pace(monkeypatch)  # and without the slowest GPU's pace (seventh sitting)
    before = {"mbridge2511-qwen3-235b-h100-256": 0.8920710448525054,
              "mbridge2602-qwen3-30b-gb200-8": 1.3106571305848382,
              "mbridge2511-llama3-8b-h100-8": 0.9684857682307337}
    # the 8B H100 row's recomputation was corrected since to its recipe's 5 block-recomputed layers (thirty-first
    # pass); read as it was recorded then, it gives the same ratio
    runs["mbridge2511-llama3-8b-h100-8"] = dataclasses.replace(runs["mbridge2511-llama3-8b-h100-8"], recompute="none",
                                                               recompute_num_layers=0)
    # and the 235B H100 row's expert all-to-all overlap came in with the thirty-second pass (R45): without it, the same
    # ratio to 12 digits
    runs["mbridge2511-qwen3-235b-h100-256"] = dataclasses.replace(runs["mbridge2511-qwen3-235b-h100-256"],
                                                                  ep_a2a_overlap=False)
    for run_id, ratio in before.items():
        assert runs[run_id].recompute_modules == ()
        assert predict(runs[run_id]).ratio == pytest.approx(ratio, rel=1e-12)
    # the recipes' lists (Megatron-Bridge v0.2.0 deepseek/workload_base_configs.py, v0.3.0
    # gpt_oss/gpt_oss_workload_base_configs.py) as the workloads carry them, and the DeepSeek-V3 GB200 row's
    # activations no longer hold the up-projections' outputs: its memory is lower than before (169 GB)
    assert runs["mbridge2511-deepseekv3-gb200-256"].workload().recompute_modules == ("mla_up_proj",)
    assert runs["mbridge2602-gptoss-120b-gb200-64"].workload().recompute_modules == ("layernorm", "moe_act")
    assert runs["mbridge2511-deepseekv3-gb200-256"].workload().recompute == "none"
    assert predict(runs["mbridge2511-deepseekv3-gb200-256"]).ratio < 1.2039231307494014  # more backward work


# --- partial full recomputation (Megatron-Core's recompute_method "block") ---------------------------------------


def test_block_recomputation_share_is_n_layers_per_chunk():
    from interconnect.topics.seating.model.memory import full_recompute_share

    five = Workload(recompute="full", recompute_num_layers=5)
    assert float(full_recompute_share(five, 32)) == pytest.approx(5 / 32)
    # interleaved: the first n layers of each of the stage's chunks (transformer_block.py, per model chunk)
    chunks = Workload(recompute="full", recompute_num_layers=2, schedule="interleaved", virtual_stages=5)
    assert float(full_recompute_share(chunks, 20)) == pytest.approx(10 / 20)
    assert float(full_recompute_share(dataclasses.replace(five, recompute_num_layers=40), 32)) == 1.0
    assert float(full_recompute_share(Workload(recompute="full"), 32)) == 1.0
    assert float(full_recompute_share(Workload(recompute="none"), 32)) == 0.0


def test_block_recomputation_costs_and_saves_its_share_of_full_recomputation():
    # Llama 3 8B on 8 H100, no pipeline (32 layers on the one stage), 5 layers recomputed whole, as
    # Megatron-Bridge v0.2.0's LLAMA3_8B_H100_FP8_CS_BASE_CONFIG sets (recompute_num_layers=5, method "block"):
    # the recomputed forward's time and FLOPs, and the activations, are 5/32 of the way from none to full
    from interconnect.topics.seating.model.step import evaluate_layouts

    model, cluster = PRESETS["llama3-8b"], h100(nodes=1)
    grid = [np.array([v]) for v in (1, 1, 8, 1, 1, 3)]   # tp, pp, dp, cp, ep, zero
    base = Workload(global_batch=128, micro_batch=1, seq_len=8192, recompute="none", sequence_parallel=False,
                    bucket_bytes=0.0)
    runs = {name: evaluate_layouts(model, cluster, wl, *grid) for name, wl in (
        ("none", base), ("full", dataclasses.replace(base, recompute="full")),
        ("five", dataclasses.replace(base, recompute="full", recompute_num_layers=5)))}
    share = 5 / 32
    for key in ("compute_s", "mem_activations"):
        none, full, five = (float(runs[n][key][0]) for n in ("none", "full", "five"))
        assert full != pytest.approx(none)
        assert five == pytest.approx(none + share * (full - none), rel=1e-9)
    # hardware FLOPs: 2N + 4 l s h per token more for full recomputation (one more forward), 5/32 of it here
    step = float(runs["five"]["step_s"][0])
    extra = (float(runs["five"]["hw_tflops"][0]) - float(runs["five"]["tflops"][0])) * step * 8
    tokens = 128 * 8192
    assert extra == pytest.approx(share * (2 * model.active_params + 4 * model.layers * 8192 * model.hidden) * tokens,
                                  rel=1e-9)


def test_block_recomputation_needs_full_granularity():
    with pytest.raises(LayoutError, match="needs full recomputation"):
        check_layout(L70, h100(nodes=8), Layout(tp=8, pp=8, dp=1),
                     Workload(global_batch=64, recompute="selective", recompute_num_layers=2))
    with pytest.raises(LayoutError, match="negative"):
        check_layout(L70, h100(nodes=8), Layout(tp=8, pp=8, dp=1),
                     Workload(global_batch=64, recompute="full", recompute_num_layers=-1))


# --- Megatron-Core's expert-parallel all-to-all overlap (overlap_moe_expert_parallel_comm, rule R45) --------------


def test_a2a_overlap_pair_hides_under_longer_windows_and_exposes_the_rest():
    from interconnect.topics.seating.model.architecture import a2a_overlap_pair_s

    # windows A = 2, Mf = 2, Mb = Mw = 1, B = 2 (8 of compute); one all-to-all t
    # t = 1: combine backward under A, dispatch forward under Mb + Mw, dispatch backward under Mw + Mf, combine
    # forward under B: the compute alone
    assert float(a2a_overlap_pair_s(1.0, 2.0, 2.0, 1.0, 1.0, 2.0)) == pytest.approx(8.0)
    # t = 3: max(2, 3) + max(max(2, 3) + 2, max(1, 3) + 3) + max(2, 3) = 3 + 6 + 3 = 12, 4 of 12 exposed
    assert float(a2a_overlap_pair_s(3.0, 2.0, 2.0, 1.0, 1.0, 2.0)) == pytest.approx(12.0)
    # the dispatch backward waits for the experts' input gradients (ends at 2 + 4), then the combine forward follows it
    # on the same stream: max(2, 2) + max(max(4, 2) + 0, max(4, 2) + 2) + max(0, 2) = 2 + 6 + 2, 4 exposed of 10
    assert float(a2a_overlap_pair_s(2.0, 2.0, 0.0, 4.0, 0.0, 0.0)) == pytest.approx(10.0)
    # no compute: the four all-to-alls one after another; no communication: the compute
    assert float(a2a_overlap_pair_s(2.0, 0.0, 0.0, 0.0, 0.0, 0.0)) == pytest.approx(8.0)
    assert float(a2a_overlap_pair_s(0.0, 2.0, 2.0, 1.0, 1.0, 2.0)) == pytest.approx(8.0)


def test_a2a_overlap_warm_up_and_cool_down_run_alone():
    from interconnect.topics.seating.model.architecture import a2a_unpaired_share

    # no pipeline: the first forward and the last backward of 8 micro-batches (combined_1f1b.py)
    assert float(a2a_unpaired_share(1, 1, 8)) == pytest.approx(1 / 8)
    # Qwen3 235B on 256 H100: PP 8, VP 4, 128 micro-batches a pipeline; mean rank warms up with
    # 7 + 3 x 8 + 1 = 32 of 512 chunk forwards (schedules.py get_pp_rank_microbatches, one extra for the overlap)
    assert float(a2a_unpaired_share(8, 4, 128)) == pytest.approx(32 / 512)
    # Qwen3 30B on 16 H100: PP 2, VP 24, 32 micro-batches: 1 + 23 x 2 + 1 = 48 of 768
    assert float(a2a_unpaired_share(2, 24, 32)) == pytest.approx(48 / 768)
    assert float(a2a_unpaired_share(8, 4, 2)) == 1.0   # everything in the warm-up: nothing paired


def test_a2a_overlap_in_one_node_hides_all_but_the_first_forward_and_last_backward():
    # Mixtral 8x7B on one H100 node, EP 8 over NVLink, 8 micro-batches, no pipeline: each all-to-all is far shorter
    # than every window, so only the unpaired first forward and last backward keep theirs: 1/8 of the EP time
    # exposed, and the step shortens by the hidden 7/8 less the overlap slowdown it costs the compute
    from interconnect.topics.seating.model.step import OVERLAP_SLOWDOWN, evaluate_layouts

    model, cluster = PRESETS["mixtral-8x7b"], h100(nodes=1)
    grid = [np.array([v]) for v in (1, 1, 8, 1, 8, 1)]   # tp, pp, dp, cp, ep, zero
    base = Workload(global_batch=64, micro_batch=1, seq_len=4096, recompute="none", sequence_parallel=False)
    off = evaluate_layouts(model, cluster, base, *grid)
    on = evaluate_layouts(model, cluster, dataclasses.replace(base, ep_a2a_overlap=True), *grid)
    ep_time = float(on["ep_time"][0])
    assert ep_time > 0 and float(off["ep_exposed"][0]) == ep_time
    assert float(on["micro"][0]) == 8
    assert float(on["ep_exposed"][0]) == pytest.approx(ep_time / 8, rel=1e-9)
    hidden = ep_time * 7 / 8
    assert float(on["step_s"][0]) - float(off["step_s"][0]) == pytest.approx(-(1 - OVERLAP_SLOWDOWN) * hidden,
                                                                             rel=1e-6)


def test_a2a_overlap_across_nodes_is_communication_bound():
    # Qwen3 235B-A22B on 256 H100 (Megatron-Bridge 25.11): EP 32 over four nodes' InfiniBand, each all-to-all longer
    # than every compute window, so a pair takes 4 t and the layer's compute hides under it: exposed per layer
    # u 4t + (1 - u)(4t - compute) = 4t - (1 - u) compute, u = 32/512
    from interconnect.topics.seating.model.step import _expert_parallel, _grid, _layer_times
    from interconnect.topics.seating.reference_runs import load_reference_runs

    run = next(r for r in load_reference_runs() if r.id == "mbridge2511-qwen3-235b-h100-256")
    layout = run.layout()
    grid = [np.array([float(v)]) for v in (layout.tp, layout.pp, layout.dp, layout.cp, layout.ep, layout.zero)]
    g = _grid(run.model(), run.cluster(), dataclasses.replace(run.workload(), ep_a2a_overlap=True), *grid)
    lt = _layer_times(g)
    seconds, exposed, _ = _expert_parallel(g, lt)
    t, compute = float(seconds[0]) / 4, float(np.ravel(lt.compute)[0])
    attn_fwd = float(np.ravel(lt.fwd - lt.expert_fwd)[0])
    assert t > attn_fwd and t > float(np.ravel(lt.expert_bwd)[0]) and 4 * t > compute
    assert float(exposed[0]) == pytest.approx(4 * t - (1 - 32 / 512) * compute, rel=1e-9)


def test_a2a_overlap_off_or_without_expert_parallelism_changes_nothing():
    from interconnect.topics.seating.model.step import evaluate_layouts

    cluster = h100(nodes=2)
    base = Workload(global_batch=64, micro_batch=1, seq_len=4096, recompute="none")
    on = dataclasses.replace(base, ep_a2a_overlap=True)
    for model, ep in ((PRESETS["mixtral-8x7b"], 1), (L70, 1)):
        grid = [np.array([v]) for v in (8, 1, 2, 1, ep, 1)]
        a, b = (evaluate_layouts(model, cluster, wl, *grid) for wl in (base, on))
        assert all(np.array_equal(a[k], b[k]) for k in a), model.name
    # DualPipe already pairs a forward and a backward chunk: its own rule stands
    grid = [np.array([v]) for v in (1, 2, 8, 1, 8, 1)]
    dual = Workload(global_batch=64, micro_batch=1, seq_len=4096, recompute="none", schedule="dualpipe")
    a, b = (evaluate_layouts(PRESETS["mixtral-8x7b"], cluster, wl, *grid)
            for wl in (dual, dataclasses.replace(dual, ep_a2a_overlap=True)))
    assert np.array_equal(a["step_s"], b["step_s"])


def test_a2a_overlap_refuses_full_recomputation():
    with pytest.raises(LayoutError, match="full recomputation"):
        check_layout(PRESETS["mixtral-8x7b"], h100(nodes=2), Layout(tp=1, dp=16, ep=8),
                     Workload(global_batch=64, recompute="full", ep_a2a_overlap=True))


def test_only_the_qwen3_h100_rows_ran_the_a2a_overlap():
    # NVIDIA-NeMo/Megatron-Bridge v0.2.0 scripts/performance/configs/qwen3/workload_base_configs.py:
    # QWEN3_235B_A22B_H100_FP8_CS_BASE_CONFIG and QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG set moe_a2a_overlap=True;
    # configs/deepseek/workload_base_configs.py sets it False for GB200 and B200; v0.3.0's GPT-OSS and Qwen3 30B
    # B200/GB200 presets leave it at False
    from interconnect.topics.seating.reference_runs import load_reference_runs

    runs = [r for r in load_reference_runs() if r.source == "megatron-bridge-perf"]
    overlapped = {r.id for r in runs if r.workload().ep_a2a_overlap}
    assert overlapped == {"mbridge2511-qwen3-235b-h100-256", "mbridge2511-qwen3-30b-h100-16"}
    assert all(r.provenance["ep_a2a_overlap"].startswith("stated: ") for r in runs if r.id in overlapped)


# --- multi-token prediction and a fixed last pipeline stage (rule R46) ------------------------------------------


def _deepseek_grid(mtp, pp=1, last=0, nodes=1):
    """DeepSeek-V3 at EP 8 on one or more H100 nodes, kernels at one share of the peak (no tile costs), no recompute."""
    from interconnect.topics.seating.model import step as S

    model, cluster = PRESETS["deepseek-v3"], h100(nodes=nodes)
    workload = Workload(global_batch=64, micro_batch=1, seq_len=4096, recompute="none", sequence_parallel=False,
                        compute_efficiency=0.5, mtp_layers=mtp, last_stage_layers=last)
    arrays = [np.array([float(v)]) for v in (1, pp, 8 * nodes // pp, 1, 8, 1)]  # tp, pp, dp, cp, ep, zero
    g = S._grid(model, cluster, workload, *arrays)
    return model, cluster, workload, g, S._layer_times(g), S.evaluate_layouts(model, cluster, workload, *arrays)


def test_an_mtp_depth_adds_one_layer_and_its_projection_norms_and_output_layer_on_one_stage():
    # Megatron-Core's MultiTokenPredictionLayer (megatron/core/transformer/multi_token_prediction.py at 0d8e071): one
    # transformer layer of the decoder's spec, eh_proj (2h -> h), the norms, and the shared output layer once more.
    # At one share of the peak every GEMM costs 2 m n k FLOPs a pass, three passes: closed forms
    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s, _peak_flops

    model, cluster, workload, g, lt, base = _deepseek_grid(mtp=0)
    *_, lt1, mtp = _deepseek_grid(mtp=1)
    T, h, V = 4096.0, float(model.hidden), float(model.vocab)
    rate_bf16 = 0.5 * _peak_flops(cluster)  # the catalog's H100 SXM dense BF16 peak, at the workload's share
    # and the loss over the T x V logits after it, 52 bytes a logit at the memory-bound rate (Megatron-Core's unfused
    # vocab_parallel_cross_entropy, rule R59): each MTP depth runs a loss of its own too
    loss = T * V * workload.loss_bytes_per_logit / _hbm_bytes_per_s(cluster, workload)
    assert workload.loss_bytes_per_logit == 52.0
    output = 3 * 2 * T * h * V / rate_bf16 + loss
    assert float(lt.output[0]) == pytest.approx(output, rel=1e-9)
    eh_proj = 3 * 2 * T * (2 * h) * h / rate_bf16
    norms = 5 * T * 10 * h / _hbm_bytes_per_s(cluster, workload)   # 2 + 3 passes over 10 h bytes a token
    assert float(lt1.mtp[0]) == pytest.approx(output + eh_proj + norms, rel=1e-9)
    # no pipeline: the one stage runs the 61 layers, the output layer, then the MTP depth
    layer = (float(base["t_micro"][0]) - output) / model.layers
    assert float(mtp["t_micro"][0]) == pytest.approx(float(base["t_micro"][0]) + layer + output + eh_proj + norms,
                                                     rel=1e-9)
    assert float(mtp["step_s"][0]) > float(base["step_s"][0])
    # the published count (6N + 12 l h s) is the model's too, so its TFLOP/s fall with the longer step; the hardware
    # FLOPs count the MTP depth's: 6 (layer + 2 h^2 + V h) + 12 s h a token
    assert float(mtp["tflops"][0]) < float(base["tflops"][0])
    per_layer, embed = (model.active_params - 2 * h * V) / model.layers, h * V
    tokens = 64 * T
    extra = (float(mtp["hw_tflops"][0]) - float(mtp["tflops"][0])) * float(mtp["step_s"][0]) * 8
    assert extra == pytest.approx((6 * (per_layer + 2 * h * h + embed) + 12 * T * h) * tokens, rel=1e-9)


def test_mtp_on_the_last_stage_lengthens_the_step_only_when_that_stage_is_the_slowest():
    # Megatron-Bridge v0.2.0's DeepSeek-V3 layouts give the last stage 1 decoder layer, the MTP layer and the loss
    # (recipes/deepseek/deepseek_v3.py, layout_map): a light last stage hides the MTP depth behind the fullest one
    *_, g, lt, light0 = _deepseek_grid(mtp=0, pp=4, last=1, nodes=4)
    *_, light1 = _deepseek_grid(mtp=1, pp=4, last=1, nodes=4)
    assert (float(g.most[0]), float(g.last[0])) == (20.0, 1.0)   # ceil(60 / 3) on the other stages
    assert float(light1["t_micro"][0]) == float(light0["t_micro"][0])
    # a heavy last stage (19 layers, the others ceil(42 / 3) = 14) is the critical path: one layer and the extras more
    model, cluster, workload, g, lt, heavy0 = _deepseek_grid(mtp=0, pp=4, last=19, nodes=4)
    *_, lt1, heavy1 = _deepseek_grid(mtp=1, pp=4, last=19, nodes=4)
    assert (float(g.most[0]), float(g.last[0])) == (14.0, 19.0)
    layer = (float(heavy0["t_micro"][0]) - float(lt.output[0])) / 19
    assert float(heavy1["t_micro"][0]) == pytest.approx(float(heavy0["t_micro"][0]) + layer + float(lt1.mtp[0]),
                                                        rel=1e-9)


def test_mtp_weights_are_one_layer_and_eh_proj_plus_an_embedding_copy_on_a_later_stage():
    # deepseek-ai/DeepSeek-V3 README_WEIGHTS.md: 11.5B unique MTP parameters besides the 671B, the embedding and the
    # output head shared; Megatron-Core keeps a copy of the embedding on a last stage that holds MTP
    # (language_module.py, setup_embeddings_and_output_layer)
    from interconnect.topics.seating.model.architecture import mtp_params

    model = PRESETS["deepseek-v3"]
    h, embed = float(model.hidden), float(model.hidden) * model.vocab
    dense_layer = (model.dense_params - 2 * embed) / model.layers
    expert_layer = model.expert_params / model.layers
    assert mtp_params(model, 1) == pytest.approx(dense_layer + expert_layer + 2 * h * h, rel=1e-12)
    assert mtp_params(model, 1) == pytest.approx(11.5e9, rel=0.05)
    assert mtp_params(model, 0) == 0.0
    # one stage: the layer's dense part whole on the GPU, its experts over EP 8; 2 bytes a weight (ZeRO-0)
    *_, base = _deepseek_grid(mtp=0)
    *_, mtp = _deepseek_grid(mtp=1)
    added = float(mtp["mem_params"][0]) - float(base["mem_params"][0])
    assert added == pytest.approx(2 * (dense_layer + 2 * h * h + expert_layer / 8), rel=1e-9)
    # four stages, the last the fullest (19 layers): the copy of the embedding comes too, and the expert layer
    *_, base = _deepseek_grid(mtp=0, pp=4, last=19, nodes=4)
    *_, mtp = _deepseek_grid(mtp=1, pp=4, last=19, nodes=4)
    added = float(mtp["mem_params"][0]) - float(base["mem_params"][0])
    assert added == pytest.approx(2 * (dense_layer + 2 * h * h + embed + expert_layer / 8), rel=1e-9)
    # under 1F1B the first stage keeps 4 micro-batches of its 14 layers, more than the last's one of 19 + 1: the
    # activations do not move; on one stage the MTP depth adds a layer's, its own 10 h bytes a token and a second
    # set of FP32 logits (4 bytes a token and vocabulary entry, Megatron-Core's loss)
    assert float(mtp["mem_activations"][0]) == float(base["mem_activations"][0])
    from interconnect.topics.seating.model.memory import _stored_per_layer

    model, cluster, workload, g, lt, base = _deepseek_grid(mtp=0)
    *_, mtp = _deepseek_grid(mtp=1)
    layer = float(_stored_per_layer(model, workload, np.array([1.0]), np.array([1.0]), "none")[0])
    added = float(mtp["mem_activations"][0]) - float(base["mem_activations"][0])
    assert added == pytest.approx(layer + 4096 * 10 * h + 4 * 4096 * model.vocab, rel=1e-9)


def test_without_mtp_or_a_fixed_last_stage_nothing_changes():
    # the defaults are the even split and no MTP: every published run without them is evaluated as before (the
    # development set's figures were compared digit for digit when the keys were added)
    from interconnect.topics.seating.model.schedules import stage_layers

    for pp in (1, 2, 4, 16):
        even = stage_layers(61, np.array([float(pp)]), False)
        assert [float(v[0]) for v in stage_layers(61, np.array([float(pp)]), False, 0)] == [float(v[0]) for v in even]
    model, cluster = PRESETS["deepseek-v3"], h100(nodes=4)
    arrays = [np.array([float(v)]) for v in (1, 4, 8, 1, 8, 1)]
    from interconnect.topics.seating.model.step import evaluate_layouts

    plain = evaluate_layouts(model, cluster, Workload(global_batch=64, seq_len=4096), *arrays)
    zero = evaluate_layouts(model, cluster, Workload(global_batch=64, seq_len=4096, mtp_layers=0,
                                                     last_stage_layers=0), *arrays)
    assert all(np.array_equal(plain[k], zero[k]) for k in plain)


def test_mtp_and_last_stage_layers_are_checked():
    model, cluster = PRESETS["deepseek-v3"], h100(nodes=4)
    with pytest.raises(LayoutError, match="negative"):
        check_layout(model, cluster, Layout(tp=1, pp=4, dp=8, ep=8), Workload(global_batch=64, mtp_layers=-1))
    with pytest.raises(LayoutError, match="needs pipeline parallelism"):
        check_layout(model, h100(nodes=1), Layout(tp=1, pp=1, dp=8, ep=8),
                     Workload(global_batch=64, last_stage_layers=3))
    with pytest.raises(LayoutError, match="fewer than one"):
        check_layout(model, cluster, Layout(tp=1, pp=4, dp=8, ep=8), Workload(global_batch=64, last_stage_layers=59))
    check_layout(model, cluster, Layout(tp=1, pp=4, dp=8, ep=8), Workload(global_batch=64, last_stage_layers=58,
                                                                          mtp_layers=1))


def test_the_plan_says_when_it_charges_multi_token_prediction():
    model, cluster = PRESETS["deepseek-v3"], h100(nodes=4)
    layout = Layout(tp=1, pp=4, dp=8, ep=8, zero=1)
    with_mtp = plan(model, cluster, layout, Workload(global_batch=64, seq_len=4096, mtp_layers=1, last_stage_layers=1))
    assert any(note.startswith("Multi-token prediction: 1 more layer after") for note in with_mtp.notes)
    assert with_mtp.stage_layers == (20, 1)
    without = plan(model, cluster, layout, Workload(global_batch=64, seq_len=4096))
    assert not any("Multi-token" in note for note in without.notes)


# --- DualPipe's end rank holds the first and the last stage ---------------------------------------------------------

def test_dualpipe_end_rank_is_the_mean_of_its_two_stages():
    from interconnect.topics.seating.model.schedules import dualpipe_end_rank_s

    # DeepSeek-V3 report (arXiv 2412.19437) section 3.2.3: the shallowest and the deepest layers share a PP rank
    assert dualpipe_end_rank_s(4.0, 6.0) == 5.0
    assert dualpipe_end_rank_s(np.array([2.0]), np.array([2.0]))[0] == 2.0


def test_dualpipe_pays_half_of_a_heavier_last_stage():
    from interconnect.topics.seating.model.step import evaluate_layouts

    # Llama 3 70B on PP 4 (20 layers a stage): the last stage is the slowest (its output layer), so one MTP depth adds
    # its layer and its extras to every micro-batch under 1F1B, and half of them under DualPipe, whose end rank runs
    # the last stage for half the micro-batches and the first for the other half; per micro-batch slot
    # (64 micro-batches + 3 idle for 1F1B, + (4/2 - 1) x 2/3 for DualPipe)
    grid = [np.array([v]) for v in (8, 4, 1, 1, 1, 1)]
    added = {}
    for schedule in ("1f1b", "dualpipe"):
        steps = [evaluate_layouts(L70, h100(nodes=4), Workload(global_batch=64, micro_batch=1, seq_len=4096,
                                                                recompute="none", schedule=schedule, mtp_layers=m),
                                  *grid)["step_s"][0] for m in (0, 1)]
        added[schedule] = steps[1] - steps[0]
    assert added["dualpipe"] / (64 + 2 / 3) == pytest.approx(0.5 * added["1f1b"] / (64 + 3), rel=1e-3)


# --- interleaved schedule: what a chunk costs --------------------------------------------------------------------


def _megatron_interleaved_step(p: int, v: int, m: int, fwd: float, bwd: float, send: float,
                               last_fwd: float = 0.0, last_bwd: float = 0.0) -> float:
    """Makespan of Megatron-LM's interleaved order (megatron/core/pipeline_parallel/schedules.py at core_r0.8.0).

    Each rank runs its warm-up forwards (2(p - r - 1) + (v - 1)p, all m·v when m = p), then one forward and one
    backward alternately, then the remaining backwards; virtual micro-batch k is chunk (k mod pv) // p of
    micro-batch (k // pv)·p + k mod p, backwards in reverse chunk order. A chunk waits for its input from the
    neighbouring rank (rank p - 1's previous chunk for rank 0), ``send`` seconds after it was produced; the last
    rank's last chunk adds ``last_fwd`` / ``last_bwd`` (the output layer). The ops run one after the other on a rank.
    """
    total = m * v

    def chunk(k: int) -> int:
        return (k % (p * v)) // p

    def micro(k: int) -> int:
        return (k // (p * v)) * p + k % p

    orders = []
    for r in range(p):
        warm = total if m == p else min(2 * (p - r - 1) + (v - 1) * p, total)
        ops = [("F", chunk(k), micro(k)) for k in range(warm)]
        for k in range(total - warm):
            ops += [("F", chunk(warm + k), micro(warm + k)), ("B", v - 1 - chunk(k), micro(k))]
        ops += [("B", v - 1 - chunk(k), micro(k)) for k in range(total - warm, total)]
        orders.append(ops)
    end: dict[tuple, float] = {}
    nxt, clock = [0] * p, [0.0] * p
    while any(nxt[r] < len(orders[r]) for r in range(p)):
        moved = False
        for r in range(p):
            while nxt[r] < len(orders[r]):
                kind, c, j = orders[r][nxt[r]]
                if kind == "F":
                    dep = (r - 1, "F", c, j) if r > 0 else ((p - 1, "F", c - 1, j) if c > 0 else None)
                else:
                    dep = ((r + 1, "B", c, j) if r < p - 1 else
                           (0, "B", c + 1, j) if c < v - 1 else (r, "F", c, j))
                if dep is not None and dep not in end:
                    break
                ready = 0.0 if dep is None else end[dep] + (send if dep[0] != r else 0.0)
                heavy = r == p - 1 and c == v - 1
                took = (fwd + heavy * last_fwd) if kind == "F" else (bwd + heavy * last_bwd)
                clock[r] = end[(r, kind, c, j)] = max(clock[r], ready) + took
                nxt[r] += 1
                moved = True
        assert moved, "the order deadlocked"
    return max(clock)


@pytest.mark.parametrize(("p", "v", "m"), [(4, 2, 8), (8, 5, 16), (8, 10, 16), (6, 4, 12), (4, 3, 4)])
def test_megatron_interleaved_order_gives_the_closed_form(p, v, m):
    # The step's pipeline terms, (m + (p - 1)/v) t_micro plus 2(pv - 1) sends exposed, are what Megatron-LM's own
    # order of chunk forwards and backwards takes when each send delays only its receiver: the code's warm-up depth
    # leaves every steady-state send a backward to hide behind, so a chunk more costs no wait beyond its sends.
    from interconnect.topics.seating.model.schedules import interleaved_pipeline_s

    fwd, bwd, send = 1.0, 2.0, 0.07
    t_micro = v * (fwd + bwd)
    expected = float(interleaved_pipeline_s(m, p, v, t_micro, send))
    assert _megatron_interleaved_step(p, v, m, fwd, bwd, send) == pytest.approx(expected, rel=1e-9)
    # with the output layer on the last rank's last chunk the last rank sets the pace of the m micro-batches, but
    # the (p - 1)/v idle slots are the other ranks' chunks: the step's closed form, which prices them at the slowest
    # rank's micro-batch, is above the order's by (p - 1)/v times the difference
    out = 1.2 * (fwd + bwd)
    exact = m * (t_micro + out) + (p - 1) / v * t_micro + 2 * (p * v - 1) * send
    got = _megatron_interleaved_step(p, v, m, fwd, bwd, send, 1.2 * fwd, 1.2 * bwd)
    assert got == pytest.approx(exact, rel=1e-9)
    assert float(interleaved_pipeline_s(m, p, v, t_micro + out, send)) - got == pytest.approx((p - 1) / v * out)


def test_one_chunk_more_costs_its_hidden_sends_slowdown_too():
    # Each chunk more adds 2p exposed sends and 2(m - p) sends hidden behind compute, which the step slows by
    # OVERLAP_SLOWDOWN (Lee et al. 2025, arXiv 2507.03114). Closed form: p = 8, m = 128, t_micro = 1 s, send 10 ms.
    from interconnect.topics.seating.model.schedules import interleaved_pipeline_s
    from interconnect.topics.seating.model.step import OVERLAP_SLOWDOWN

    def by_hand(v: int) -> float:
        exposed, hidden = 2 * (8 * v - 1), 2 * 128 * v - 2 * (8 * v - 1)
        return (128 + 7 / v) + exposed * 0.01 + OVERLAP_SLOWDOWN * hidden * 0.01

    for v in (1, 2, 5, 10):
        assert float(interleaved_pipeline_s(128, 8, v, 1.0, 0.01, OVERLAP_SLOWDOWN)) == pytest.approx(by_hand(v))
    # the bubble saved from 5 to 10 chunks (0.7 s) is less than what 5 chunks' sends cost (0.4 + 0.189 x 11.2 s)
    assert by_hand(5) < by_hand(10)


def test_free_chunk_count_is_the_fastest_split_the_step_charges_that_fits():
    # With virtual_stages = 0 the model takes the whole-layer split whose step is shortest, by the step itself: the
    # step's differences between chunk counts are exactly interleaved_pipeline_s's; and a split whose memory does
    # not fit is passed over while one that fits exists (Llama 3 70B, TP4 x PP8 x DP2 on 64 H100: 10 layers a rank).
    import numpy as np

    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.schedules import interleaved_pipeline_s
    from interconnect.topics.seating.model.step import OVERLAP_SLOWDOWN, evaluate_layouts

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    a = lambda x: np.array([x], dtype=float)  # noqa: E731

    def run(v: int, memory_bytes: float = 0.0) -> dict:
        # the data-parallel round's chunked sync (rule R53) also moves with v; it is switched off here so that the
        # step's differences are the pipeline's alone, which is what the chooser weighs
        workload = Workload(global_batch=256, schedule="interleaved", virtual_stages=v, memory_bytes=memory_bytes,
                            chunk_dp_sync="")
        return evaluate_layouts(L70, cluster, workload, a(4), a(8), a(2), a(1), a(1), a(1))

    fixed = {v: run(v) for v in (1, 2, 5, 10)}
    t_micro, send = float(fixed[1]["t_micro"][0]), float(fixed[1]["pp_time"][0]) / float(fixed[1]["pp_calls"][0])
    for v in (2, 5, 10):
        step_gap = float(fixed[v]["step_s"][0] - fixed[1]["step_s"][0])
        closed = interleaved_pipeline_s(128, 8, np.array([v, 1.0]), t_micro, send, OVERLAP_SLOWDOWN)
        assert step_gap == pytest.approx(float(closed[0] - closed[1]), rel=1e-6), v
    # on the 80 GB H100 the 5-chunk split is the fastest but only tight (more micro-batches in flight): 10 it is
    assert fixed[5]["step_s"][0] < fixed[10]["step_s"][0] and not fixed[5]["fits"][0] and fixed[10]["fits"][0]
    assert float(run(0)["virtual"][0]) == 10.0
    # with memory to spare the fastest split is taken: 5 chunks of 2 layers
    roomy = {v: float(run(v, 141e9)["step_s"][0]) for v in (1, 2, 5, 10)}
    assert min(roomy, key=roomy.get) == 5 and float(run(0, 141e9)["virtual"][0]) == 5.0


def test_one_layout_collective_time_is_the_array_paths():
    # the collective-time lookup has a path for one layout (a plan, a published run) beside the one that groups many
    # layouts by their group shape; the two must give the same seconds, bit for bit
    import numpy as np

    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.traffic import _time_s

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=16)
    shapes = [(8, 1), (4, 2), (1, 16), (8, 16), (2, 64), (1, 1)]
    for name in ("all_reduce", "all_gather", "reduce_scatter", "alltoall"):
        for (per, dom), size in zip(shapes * 3, [0.0, 1.0, 3e3, 2e6, 7.5e7, 5e9, 1e12] * 3, strict=False):
            one = _time_s(cluster, name, np.array([per]), np.array([dom]), np.array([size]))
            many = _time_s(cluster, name, np.array([per, 2]), np.array([dom, 3]), np.array([size, 1e6]))
            assert one.shape == (1,) and float(one[0]) == float(many[0]), (name, per, dom, size)
