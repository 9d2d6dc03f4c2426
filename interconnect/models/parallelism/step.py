"""The vectorised core: one training step of every layout at once, as arrays.

Compute per layer and micro-batch, each dimension's traffic on its tier and what of it is exposed,
the pipeline bubble and the memory per GPU.
"""

from __future__ import annotations

import numpy as np

from interconnect.models.cluster import Cluster
from interconnect.models.parallelism.compute import (
    _MEMORY_PASSES_BWD,
    _MEMORY_PASSES_FWD,
    _hbm_bytes_per_s,
    _memory_bytes,
    _peak_flops,
    _rates,
    layer_params,
)
from interconnect.models.parallelism.layout import DIMENSIONS, Workload
from interconnect.models.parallelism.memory import (
    GRAD_BYTES,
    OPTIMIZER_BYTES,
    PARAM_BYTES,
    RESERVED_SHARE,
    _activations,
    _per_layer_stored,
)
from interconnect.models.parallelism.schedules import _virtual_stages, stage_layers
from interconnect.models.parallelism.traffic import _time_s
from interconnect.models.presets import ModelPreset

__all__ = [
]


def _evaluate(model: ModelPreset, cluster: Cluster, workload: Workload, tp: np.ndarray, pp: np.ndarray,
              dp: np.ndarray, cp: np.ndarray, ep: np.ndarray, zero: np.ndarray) -> dict[str, np.ndarray]:
    """Everything per layout, as arrays (the layouts must be valid)."""
    from interconnect.models.kernels import gemm_shape_factor

    f = {k: np.asarray(v, dtype=float) for k, v in dict(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, zero=zero).items()}
    tp_, pp_, dp_, cp_, ep_, z = f["tp"], f["pp"], f["dp"], f["cp"], f["ep"], f["zero"]
    domain = cluster.domain_size
    s, b, h, L, V = workload.tokens(model), workload.micro_batch, model.hidden, model.layers, model.vocab
    nbytes = workload.dtype_bytes
    peak = _peak_flops(cluster)
    gemm_rate, attn_rate, sms, _ = _rates(cluster, workload)
    hbm = _hbm_bytes_per_s(cluster)
    micro = workload.global_batch / (dp_ * b)  # micro-batches per step per pipeline
    tokens_step = workload.global_batch * s
    n_gpus = tp_ * pp_ * dp_ * cp_
    per_layer_params, embed_params = layer_params(model)
    unfused = workload.attention == "unfused"

    # --- compute of one layer, one micro-batch, on one GPU (seconds) ----------------------------
    T = s * b / cp_  # tokens of a micro-batch on one CP rank (all TP ranks see them all)
    kv_width = 2 * model.kv_heads * model.head_dim
    attn_w = h * (h + kv_width) + h * h
    mlp_w = np.maximum(per_layer_params - attn_w, 0.0)
    ffn = float(model.ffn_hidden)
    shapes = ((h + kv_width) / tp_, h, h * (h + kv_width)), (h, h / tp_, h * h), \
        (mlp_w / (2 * h) / tp_, h, mlp_w / 2), (h, np.maximum(ffn / tp_, 1.0), mlp_w / 2)
    weighted = sum(w for _, _, w in shapes)
    inv_factor = sum(w / gemm_shape_factor(T, n, k, sms) for n, k, w in shapes) / weighted
    gemm_fwd = 2 * T * per_layer_params / tp_ / gemm_rate * inv_factor
    attn_flops_fwd = 4 * T * (s if unfused else s / 2) * h / tp_  # flash skips the masked half
    attn_fwd = attn_flops_fwd / (gemm_rate if unfused else attn_rate)
    stored = _per_layer_stored(model, workload, tp_, cp_, "none")
    scores = _per_layer_stored(model, workload, tp_, cp_, "none") - _per_layer_stored(model, workload, tp_, cp_,
                                                                                        "selective")
    mem_fwd = _MEMORY_PASSES_FWD * stored / hbm
    layer_fwd = gemm_fwd + attn_fwd + mem_fwd
    # flash attention's backward recomputes the scores: 5 matrix products to the forward's 2, 2.5 times its
    # FLOPs (as FlashAttention's own benchmark counts them, Dao-AILab/flash-attention,
    # benchmarks/benchmark_flash_attention.py: backward 2.5 f, forward and backward 3.5 f); unfused
    # attention's backward is twice its forward, as a GEMM's
    attn_bwd = (2.0 if unfused else 2.5) * attn_fwd
    layer_bwd = 2 * gemm_fwd + attn_bwd + _MEMORY_PASSES_BWD * stored / hbm
    layer_re = {"none": 0.0 * layer_fwd, "selective": attn_fwd + _MEMORY_PASSES_FWD * scores / hbm,
                "full": layer_fwd}[workload.recompute]
    layer_compute = layer_fwd + layer_bwd + layer_re
    # the output layer (logits) on the last stage: a GEMM of T x V/t x h, forward and backward
    out_compute = 6 * T * h * V / tp_ / gemm_rate / gemm_shape_factor(T, V / tp_, h, sms)

    # --- group shapes ------------------------------------------------------------------------
    def shape(size: np.ndarray, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        per = np.where(stride < domain, np.maximum(1, np.minimum(size, domain // np.maximum(stride, 1))), 1)
        per = np.where(size <= 1, 1, per)
        return per.astype(int), np.ceil(size / per).astype(int)

    tp_per, tp_dom = shape(tp_, np.ones_like(tp_))
    cp_per, cp_dom = shape(cp_, tp_)
    dp_per, dp_dom = shape(dp_, tp_ * cp_)
    ep_per, ep_dom = shape(ep_, tp_ * cp_)
    edp = np.maximum(1, dp_ / ep_)  # expert-data-parallel degree
    edp_per, edp_dom = shape(edp, tp_ * cp_ * ep_)
    pp_per, pp_dom = shape(pp_, tp_ * cp_ * dp_)

    # --- stages --------------------------------------------------------------------------------
    most, last = stage_layers(L, pp_, workload.lighter_ends)
    layers_stage = most  # the fullest stage sets the pace and holds the most weights

    # --- parameters per GPU (the fullest stage, with the embedding or output layer) -------------
    dense_layer = (model.dense_params - (1 if model.tied_embeddings else 2) * embed_params) / L
    expert_layer = model.expert_params / L
    dense_gpu = (np.maximum(dense_layer * most, dense_layer * last + embed_params)
                 + np.where(pp_ <= 1, embed_params, 0.0)) / tp_
    expert_gpu = expert_layer * most / (tp_ * ep_)
    psi = dense_gpu + expert_gpu

    out: dict[str, np.ndarray] = {}

    # --- TP: 2 all-reduces per layer forward, 2 backward (or 2 AG + 2 RS each way with SP) -------
    act = (s / cp_) * b * h * nbytes
    passes = 2.0 + (1.0 if workload.recompute == "full" else 0.0)  # forward, backward, recomputed forward
    if workload.sequence_parallel:
        t_ag = _time_s(cluster, "all_gather", tp_per, tp_dom, act)
        t_rs = _time_s(cluster, "reduce_scatter", tp_per, tp_dom, act)
        tp_layer = passes * 2 * (t_ag + t_rs)
        calls_layer = passes * 4
    else:
        t_ar = _time_s(cluster, "all_reduce", tp_per, tp_dom, act)
        tp_layer = passes * 2 * t_ar
        calls_layer = passes * 2
    tp_layer = np.where(tp_ > 1, tp_layer, 0.0)

    # --- CP: ring attention passes K and V around the CP group; it hides behind attention --------
    kv = 2 * (s / cp_) * b * model.kv_heads * model.head_dim * nbytes / np.where(tp_ <= model.kv_heads, tp_, 1)
    attn_window = attn_fwd + attn_bwd + (attn_fwd if workload.recompute != "none" else 0.0)
    if workload.context_parallel == "all-gather":
        # Llama 3's context parallelism (arXiv 2407.21783, section 3.3.2): K and V all-gathered before attention
        # (again in the backward pass), their gradients reduce-scattered after it; attention waits for them
        t_gather = _time_s(cluster, "all_gather", cp_per, cp_dom, kv * cp_)
        t_scatter = _time_s(cluster, "reduce_scatter", cp_per, cp_dom, kv * cp_)
        cp_layer = np.where(cp_ > 1, (passes - 1) * t_gather + t_gather + t_scatter, 0.0)
        cp_layer_exposed = cp_layer
        cp_calls_layer = passes + 1.0
    else:
        t_send = _time_s(cluster, "sendrecv", cp_per, cp_dom, kv)
        cp_layer = np.where(cp_ > 1, 3 * (cp_ - 1) * t_send, 0.0)  # forward K,V; backward K,V and their gradients
        cp_layer_exposed = np.maximum(0.0, cp_layer - attn_window)
        cp_calls_layer = 3 * (cp_ - 1)

    # --- EP: dispatch and combine all-to-alls in every MoE layer, forward and backward ---------
    if model.is_moe:
        a2a = (s / cp_) * b / (tp_ if workload.sequence_parallel else 1) * model.top_k * h * nbytes
        t_a2a = _time_s(cluster, "alltoall", ep_per, ep_dom, a2a)
        ep_layer = np.where(ep_ > 1, 4 * t_a2a, 0.0)
        ep_layer_bytes = np.where(ep_ > 1, 4 * (ep_ - 1) / ep_ * a2a, 0.0)
    else:
        ep_layer = ep_layer_bytes = np.zeros_like(tp_)

    # DualPipe runs a forward and a backward chunk at once: one's all-to-all hides behind the other's compute
    ep_layer_exposed = np.maximum(0.0, ep_layer - layer_compute) if workload.schedule == "dualpipe" else ep_layer

    # --- one micro-batch (forward + backward) on the slowest stage -----------------------------
    per_layer_total = layer_compute + tp_layer + cp_layer_exposed + ep_layer_exposed
    stage_full = most * per_layer_total
    stage_last = last * per_layer_total + out_compute
    t_micro = np.maximum(stage_full, np.where(pp_ > 1, stage_last, stage_full + out_compute))
    compute_micro = np.maximum(most * layer_compute, last * layer_compute + out_compute)

    # --- PP: activations forward, their gradients backward, at every stage boundary ------------
    # each TP rank sends its 1/t of the activation: with SP it holds only that; without, Megatron-LM's
    # scatter/gather optimisation (Narayanan et al. 2021, section 4.1) and DeepSpeed's partitioned pipeline
    # buffers (PipelineEngine.is_pipe_partitioned when TP > 1) split it and all-gather it inside the TP group
    boundary = (s / cp_) * b * h * nbytes / tp_
    t_p2p = _time_s(cluster, "sendrecv", pp_per, pp_dom, boundary)
    if not workload.sequence_parallel:
        t_p2p = t_p2p + np.where(tp_ > 1, _time_s(cluster, "all_gather", tp_per, tp_dom, boundary * tp_), 0.0)
    v = _virtual_stages(workload, most, micro, pp_, t_micro, t_p2p)
    if workload.schedule == "interleaved":
        idle_micro = (pp_ - 1) / v
        fill_sends = 2 * (pp_ * v - 1)
    elif workload.schedule == "zero-bubble":
        idle_micro = (pp_ - 1) / 3.0
        fill_sends = 2 * (pp_ - 1)
    elif workload.schedule == "dualpipe":
        idle_micro = np.maximum(pp_ / 2 - 1, 0.0) * 2 / 3
        fill_sends = 2 * (pp_ - 1)
    else:
        idle_micro = pp_ - 1.0
        fill_sends = 2 * (pp_ - 1)
    idle_micro = np.where(pp_ > 1, idle_micro, 0.0)
    pp_calls = np.where(pp_ > 1, 2 * micro * v, 0.0)
    pp_exposed = np.where(pp_ > 1, fill_sends * t_p2p, 0.0)
    if workload.pipeline_engine == "deepspeed":
        # DeepSpeed's pipeline engine sends and receives synchronously (runtime/pipe/p2p.py: no async_op), so a
        # middle stage waits for its activation in, its activation out, the gradient in and the gradient out
        # of every micro-batch, idle slots included (with two stages, each has one neighbour: two transfers)
        blocking = np.where(pp_ > 2, 4.0, 2.0)
        pp_exposed = pp_exposed + np.where(pp_ > 1, blocking * (micro + idle_micro) * t_p2p, 0.0)
    out.update(pp_bytes=pp_calls * boundary, pp_calls=pp_calls, pp_time=pp_calls * t_p2p, pp_exposed=pp_exposed,
               pp_domains=pp_dom, pp_per=pp_per, virtual=v)

    pipeline_s = (micro + idle_micro) * t_micro

    # totals per step of the communication that sits inside the micro-batches
    layers_per_step = micro * most
    out.update(tp_bytes=layers_per_step * passes * 4 * np.where(tp_ > 1, (tp_ - 1) / tp_, 0) * act,
               tp_calls=np.where(tp_ > 1, layers_per_step * calls_layer, 0.0),
               tp_time=layers_per_step * tp_layer, tp_exposed=layers_per_step * tp_layer,
               tp_domains=tp_dom, tp_per=tp_per)
    cp_volume = (passes + 1.0) * (cp_ - 1) * kv if workload.context_parallel == "all-gather" else 3 * (cp_ - 1) * kv
    out.update(cp_bytes=np.where(cp_ > 1, layers_per_step * cp_volume, 0.0),
               cp_calls=np.where(cp_ > 1, layers_per_step * cp_calls_layer, 0.0),
               cp_time=layers_per_step * cp_layer, cp_exposed=layers_per_step * cp_layer_exposed,
               cp_domains=cp_dom, cp_per=cp_per)
    out.update(ep_bytes=layers_per_step * ep_layer_bytes, ep_calls=np.where(ep_ > 1, layers_per_step * 4, 0.0),
               ep_time=layers_per_step * ep_layer, ep_exposed=layers_per_step * ep_layer_exposed,
               ep_domains=ep_dom, ep_per=ep_per)

    # --- DP: gradients (and weights under ZeRO) across replicas ---------------------------------
    grad_bytes = float(workload.grad_bytes or nbytes)  # FP32 gradients (Llama 3) move twice BF16's bytes
    grad_dense = dense_gpu * grad_bytes
    grad_expert = expert_gpu * grad_bytes
    # bucket_bytes <= 0: one reduction per transformer layer, as FSDP reduce-scatters one wrapped unit (a
    # layer) at a time (Zhao et al. 2023, PyTorch FSDP, arXiv 2304.11277, section 3)
    bucket = workload.bucket_bytes if workload.bucket_bytes > 0 else None

    def sync(name: str, total: np.ndarray, per: np.ndarray, dom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        calls = np.maximum(1, np.ceil(total / bucket)) if bucket is not None else np.maximum(1.0, layers_stage)
        return calls * _time_s(cluster, name, per, dom, total / calls), calls

    dp_time = np.zeros_like(tp_)
    dp_calls = np.zeros_like(tp_)
    dp_bytes = np.zeros_like(tp_)
    exposed_dp = np.zeros_like(tp_)
    backward_window = 2 / 3 * compute_micro  # the last micro-batch's backward on this stage
    forward_window = 1 / 3 * compute_micro   # the next step's first forward
    for grads, per, dom, degree in ((grad_dense, dp_per, dp_dom, dp_), (grad_expert, edp_per, edp_dom, edp)):
        active = (degree > 1) & (grads > 0)
        if not active.any():
            continue
        ar, ar_calls = sync("all_reduce", grads, per, dom)
        rs, rs_calls = sync("reduce_scatter", grads, per, dom)
        ag, ag_calls = sync("all_gather", grads, per, dom)
        layer_ag = _time_s(cluster, "all_gather", per, dom, grads / layers_stage)
        z3_ag = 2 * micro * layers_stage * layer_ag  # weights gathered forward and backward, every micro-batch
        t = np.where(z == 0, ar, np.where(z < 3, rs + ag, rs + z3_ag))
        calls = np.where(z == 0, ar_calls, np.where(z < 3, rs_calls + ag_calls, rs_calls + 2 * micro * layers_stage))
        share = np.where(degree > 1, (degree - 1) / degree, 0.0)
        volume = grads * share * np.where(z == 0, 2.0, np.where(z < 3, 2.0, 1.0 + 2 * micro))
        # Buckets are reduced while the last micro-batch's backward runs (2/3 of its compute); what
        # is left, and at least the last bucket, is exposed. ZeRO-1/2's weight all-gather overlaps the
        # next step's first forward; ZeRO-3's gathers are prefetched a layer ahead of the compute.
        last_bucket = np.where(z == 0, ar / ar_calls, rs / rs_calls)
        grad_part = np.where(z == 0, ar, rs)
        hidden_grad = np.maximum(last_bucket, grad_part - backward_window)
        if workload.pipeline_engine == "deepspeed" and workload.schedule != "dualpipe":
            # DeepSpeed's TrainSchedule reduces the gradients after the last micro-batch (runtime/pipe/schedule.py:
            # ReduceTiedGrads, ReduceGrads, OptimizerStep at the last step): nothing overlaps them
            hidden_grad = np.where(pp_ > 1, grad_part, hidden_grad)
        gather_exposed = np.where(z == 0, 0.0, np.where(z < 3, np.maximum(ag / ag_calls, ag - forward_window),
                                                        np.maximum(layer_ag, z3_ag - micro * compute_micro)))
        exposed = hidden_grad + gather_exposed
        dp_time += np.where(active, t, 0.0)
        dp_calls += np.where(active, calls, 0.0)
        dp_bytes += np.where(active, volume, 0.0)
        exposed_dp += np.where(active, exposed, 0.0)
    out.update(dp_bytes=dp_bytes, dp_calls=dp_calls, dp_time=dp_time, dp_exposed=exposed_dp, dp_domains=dp_dom,
               dp_per=dp_per)

    # --- optimizer: Adam reads and writes its 16 bytes per (sharded) parameter once per step ------
    shard = np.where(z >= 1, dp_, 1.0)
    optimizer_s = 2 * 16 * psi / shard / hbm

    # --- step ----------------------------------------------------------------------------------
    step = pipeline_s + out["pp_exposed"] + exposed_dp + optimizer_s
    exposed = sum(out[f"{d}_exposed"] for d in DIMENSIONS)
    model_flops = (6 * model.active_params + 12 * L * s * h) * tokens_step
    extra = {"none": 0.0, "selective": 4 * L * s * h * tokens_step,
             "full": (2 * model.active_params + 4 * L * s * h) * tokens_step}[workload.recompute]
    compute_s = micro * compute_micro
    bubble_s = idle_micro * t_micro
    out.update(compute_s=compute_s, ideal_s=model_flops / n_gpus / peak, bubble=bubble_s / step, exposed_s=exposed,
               step_s=step, mfu=model_flops / n_gpus / peak / step, micro=micro,
               tflops=model_flops / n_gpus / step, hw_tflops=(model_flops + extra) / n_gpus / step,
               optimizer_s=optimizer_s, t_micro=t_micro, idle_micro=idle_micro, stage_most=most, stage_last=last,
               gemm_share=(micro * most * gemm_fwd * 3) / step)

    # --- memory ----------------------------------------------------------------------------------
    shard_dense = np.where(dp_ > 1, dp_, 1.0)
    shard_expert = edp

    def sharded(bytes_per_param: float, stage: int) -> np.ndarray:
        on = z >= stage
        return (dense_gpu * bytes_per_param / np.where(on, shard_dense, 1.0)
                + expert_gpu * bytes_per_param / np.where(on, shard_expert, 1.0))

    copies = 2.0 if workload.schedule == "dualpipe" else 1.0  # DualPipe keeps the weights twice
    out["mem_params"] = copies * sharded(PARAM_BYTES, 3)
    out["mem_grads"] = copies * sharded(float(workload.grad_bytes or GRAD_BYTES), 2)
    out["mem_optimizer"] = sharded(OPTIMIZER_BYTES, 1)
    out["mem_activations"] = _activations(model, workload, tp_, pp_, cp_, micro, v=v, most=most)
    out["mem_total"] = out["mem_params"] + out["mem_grads"] + out["mem_optimizer"] + out["mem_activations"]
    out["mem_capacity"] = np.full_like(tp_, _memory_bytes(cluster))
    out["mem_reserved"] = RESERVED_SHARE * out["mem_capacity"]
    out["fits"] = out["mem_total"] + out["mem_reserved"] <= out["mem_capacity"]
    out["psi"] = psi
    return out
