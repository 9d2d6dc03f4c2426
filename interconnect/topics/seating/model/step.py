"""The vectorised core: one training step of every layout at once, as arrays.

Compute per layer and micro-batch, the tensor-, context-, expert- and pipeline-parallel traffic on its tier and what
of it is exposed, the pipeline bubble and the memory per GPU, put together by :func:`evaluate_layouts`. The grid of
layouts is :mod:`~interconnect.topics.seating.model.grid`; what data parallelism, the optimizer and the gradients'
accumulation cost, :mod:`~interconnect.topics.seating.model.data_parallel`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.topics.seating.model.architecture import (
    a2a_overlap_pair_s,
    a2a_unpaired_share,
    mla_projection_shapes,
)
from interconnect.topics.seating.model.compute import (
    _MEMORY_PASSES_BWD,
    _MEMORY_PASSES_FWD,
    _hbm_bytes_per_s,
    _memory_bytes,
    _peak_flops,
    _rates,
    layer_params,
)
from interconnect.topics.seating.model.data_parallel import (
    _accumulation_s,
    _data_parallel,
    _fsdp2_copies_s,
    _optimizer_s,
)
from interconnect.topics.seating.model.grid import OVERLAP_SLOWDOWN, _Grid, _grid, _layer_gemm_shapes, _LayerTimes
from interconnect.topics.seating.model.layout import DIMENSIONS, Workload
from interconnect.topics.seating.model.memory import (
    GRAD_BYTES,
    OPTIMIZER_BYTES,
    PARAM_BYTES,
    RESERVED_SHARE,
    _activations,
    _per_layer_stored,
    modules_recomputed,
)
from interconnect.topics.seating.model.schedules import (
    _virtual_stages,
    blocking_1f1b_sends,
    blocking_interleaved_transfers,
    deepspeed_pipeline_waits,
    dualpipe_end_rank_s,
)
from interconnect.topics.seating.model.stacks import (
    pytorch_ring_hbm_bytes,
    te_ring_hbm_bytes,
)
from interconnect.topics.seating.model.traffic import _time_s
from interconnect.units import expects
from interconnect.workloads.presets import ModelPreset

__all__ = ["OVERLAP_SLOWDOWN", "PER_EXPERT_GEMM_S", "evaluate_layouts", "every_second_matmul_share",
           "expert_gemm_floor_s", "loss_s"]

#: Seconds one expert's GEMM takes at least in Transformer Engine's GroupedLinear, which runs a mixture of experts'
#: local experts as one cuBLASLt GEMM per expert spread over several CUDA streams (NVIDIA/TransformerEngine pull
#: request 853, "Grouped GEMM via multi-stream cuBLAS"; Megatron-Core's --moe-grouped-gemm uses it). TE's own
#: benchmark (benchmarks/linear/benchmark_grouped_linear.py, on SM100, a B200, as reported in
#: https://github.com/NVIDIA/TransformerEngine/pull/3134) times 8 experts of 128 tokens each (N = K = 2,048)
#: through that multi-stream path at 0.267 ms for the GEMMs alone, operands prepared beforehand: 33.4 us per
#: expert for GEMMs of about a GFLOP, under a microsecond of tensor-core work, so the figure is the path's fixed
#: cost per call. The one measurement found, taken for every GPU family (the host's and driver's issue cost).
PER_EXPERT_GEMM_S = 0.267e-3 / 8


def _layer_times(g: _Grid) -> _LayerTimes:
    """Compute of one layer and one micro-batch on one GPU, from the sourced kernel rates at the layout's shapes."""
    from interconnect.topics.seating.kernels import gemm_pass_shapes, gemm_shape_factor

    model, workload, h, s = g.model, g.workload, g.h, g.s
    # attention at the published rate of the tokens one call sees (the sequence, split by CP), where one is given
    gemm_rate, attn_rate, sms, _ = _rates(g.cluster, workload, seq=g.s / g.cp, gpus=g.gpus)
    hbm = _hbm_bytes_per_s(g.cluster, workload)
    per_layer_params, _ = layer_params(model)
    unfused = workload.attention == "unfused"
    T = s * g.b / g.cp  # tokens of a micro-batch on one CP rank (all TP ranks see them all)
    # the widths attention computes at: the queries' (the hidden size, or not: Qwen3, GPT-OSS; MLA: heads x 192),
    # the keys' and values' together, and the output's (heads x the value width)
    kv_width = float(model.kv_width)
    q = float(model.query_width)
    out_w = float(model.attention_out_width)
    mlp_w = np.maximum(per_layer_params - model.attention_params, 0.0)
    ffn = float(model.ffn_hidden)
    shapes = tuple(_layer_gemm_shapes(g).values())
    weighted = sum(w for _, _, w in shapes)
    inv_factor = sum(w / gemm_shape_factor(T, n, k, sms) for n, k, w in shapes) / weighted
    gemm_fwd = 2 * T * per_layer_params / g.tp / gemm_rate * inv_factor
    # the backward pass's two GEMMs, the inputs' gradient and the weights' (K = tokens), each at its own shape's
    # tiles and waves (gemm_pass_shapes: NVIDIA's fully-connected layers guide, Table 1)
    inv_bwd = sum(w * sum(1.0 / gemm_shape_factor(*shape, sms) for shape in gemm_pass_shapes(T, n, k)[1:])
                  for n, k, w in shapes) / weighted
    gemm_bwd = 2 * T * per_layer_params / g.tp / gemm_rate * inv_bwd
    # Q K^T at the query/key width and P V at the value width, 2 FLOPs a multiply-add (MLA: 192 and 128 a head, rule
    # R42; otherwise both the head width, 4 s q); flash skips the masked half
    attn_flops_fwd = 2 * T * (s if unfused else s / 2) * (q + out_w) / g.tp
    attn_fwd = attn_flops_fwd / (gemm_rate if unfused else attn_rate)
    if model.window_layers and model.attention_window and not unfused:
        # sliding-window layers (rule R41): a query meets at most the window's keys, so a fused kernel that visits
        # only the key tiles meeting the band does the band's FLOPs, at the published rate of a causal call with
        # the same keys a query row (twice the band); the unfused path scores every key whatever the mask. With CP
        # the ring's steps are charged as causal (no windowed run uses CP)
        share = min(model.window_layers, model.layers) / model.layers
        keys = windowed_keys(s, model.attention_window)
        _, band_rate, _, _ = _rates(g.cluster, workload, seq=2.0 * (model.attention_window + 1), gpus=g.gpus)
        windowed = (1.0 - share) * attn_fwd + share * 2 * T * keys * (q + out_w) / g.tp / band_rate
        attn_fwd = np.where(g.cp > 1, attn_fwd, windowed)
    attn_first_fwd = attn_fwd / g.cp
    ring_fwd = ring_bwd = 0.0 * T
    if workload.context_parallel in ("pytorch", "ring") and not unfused:
        # a ring with load-balanced chunks, PyTorch's (rule R32) or Transformer Engine's (rule R39): of the cp steps,
        # each with 1/cp of the rank's attention FLOPs, the first is one causal call of the rank's s/cp tokens; every
        # later one a call without a mask of s/cp queries against half as many keys (or the reverse), the work of a
        # square call of s/cp/sqrt(2) tokens, at the rate published for calls without a mask
        _, open_rate, _, _ = _rates(g.cluster, workload, seq=g.s / g.cp / np.sqrt(2.0), causal=False,
                                   gpus=g.gpus)
        attn_first_fwd = attn_flops_fwd / g.cp / attn_rate
        attn_fwd = np.where(g.cp > 1, attn_first_fwd + (g.cp - 1) * attn_flops_fwd / g.cp / open_rate, attn_fwd)
        # the merges of the partial outputs and the gradient sums, per pass: PyTorch's in FP32, TE's in 16 bits
        fwd_bytes, bwd_bytes = (pytorch_ring_hbm_bytes(g.cp) if workload.context_parallel == "pytorch"
                                else te_ring_hbm_bytes(g.cp, kv_width / out_w))
        out_values = T * out_w / g.tp
        ring_fwd = np.where(g.cp > 1, fwd_bytes * out_values / hbm, 0.0)
        ring_bwd = np.where(g.cp > 1, bwd_bytes * out_values / hbm, 0.0)
    stored = _per_layer_stored(model, workload, g.tp, g.cp, "none")
    scores = stored - _per_layer_stored(model, workload, g.tp, g.cp, "selective")
    # FP8: only the GEMMs speed up, and each GEMM's input (forward) and output gradient (backward) is cast to FP8
    # first, in a memory-bound pass: read 2 bytes, write 1 byte row-wise and 1 byte column-wise (Hopper's FP8
    # tensor cores take only the TN layout, so the weight-gradient GEMM needs a transposed copy; Blackwell's MXFP8
    # keeps both as well); current scaling and torchao's tensorwise scaling read the tensor once more first, for
    # its amax (Transformer Engine's FP8 recipes: delayed scaling reuses an amax history, current scaling computes
    # the tensor's own amax before the cast; NVIDIA/TransformerEngine docs, "Using FP8 with Transformer Engine")
    fp8_fwd = fp8_bwd = 0.0
    per_value = _fp8_cast_bytes(g)  # 0 where no cast runs
    if per_value:
        mlp_width = mlp_w / (2 * h)
        if model.is_mla:
            # MLA's projections (rule R42): each down-projection casts the layer's input, each up-projection its
            # latent, the output projection attention's output; their outputs' gradients are cast the same way
            mla = mla_projection_shapes(model).values()
            attn_inputs, attn_grads = sum(k for _, k in mla) + out_w, sum(n for n, _ in mla) + h
        else:
            attn_inputs, attn_grads = h + q, (q + kv_width) + h
        inputs = (attn_inputs + h + mlp_width) / g.tp                      # QKV, projection, FC1, FC2 inputs
        grads = (attn_grads + mlp_width + h) / g.tp                         # their outputs' gradients
        fp8_fwd = T * inputs * per_value / hbm
        fp8_bwd = T * grads * per_value / hbm
    # MoE: each token's hidden state is copied into expert order before the experts (read once, written top_k
    # times) and gathered back after them (read top_k times, written once), and the same in the backward pass
    # (Megatron-Core's moe_utils.permute / unpermute, in BF16 whatever the GEMMs' format): 2 (1 + k) h values a
    # token each pass, on the tokens this GPU routes (its 1/t of them with sequence parallelism)
    routed = T / (g.tp if workload.sequence_parallel else 1.0)
    permute = (2 * (1 + model.top_k) * h * 2.0 * routed / hbm) if model.is_moe else 0.0 * T
    layer_fwd = gemm_fwd + attn_fwd + ring_fwd + _MEMORY_PASSES_FWD * stored / hbm + fp8_fwd + permute
    # flash attention's backward recomputes the scores: 5 matrix products to the forward's 2, 2.5 times its
    # FLOPs (as FlashAttention's own benchmark counts them, Dao-AILab/flash-attention,
    # benchmarks/benchmark_flash_attention.py: backward 2.5 f, forward and backward 3.5 f); unfused
    # attention's backward is twice its forward, as a GEMM's
    attn_bwd = (2.0 if unfused else 2.5) * attn_fwd
    layer_bwd = gemm_bwd + attn_bwd + ring_bwd + _MEMORY_PASSES_BWD * stored / hbm + fp8_bwd + permute
    if workload.recompute == "selective" and workload.selective_policy == "torchtitan-op":
        # torchtitan's operator-level policy: every second matmul of the block's forward runs again (its share of
        # the GEMM FLOPs, :func:`every_second_matmul_share`), with its FP8 casts, and so does every memory-bound
        # operator; attention's output is saved, so attention does not
        share = every_second_matmul_share(h, q, kv_width, ffn, per_layer_params)
        selective = share * (gemm_fwd + fp8_fwd) + _MEMORY_PASSES_FWD * stored / hbm
    else:
        selective = attn_fwd + ring_fwd + _MEMORY_PASSES_FWD * scores / hbm
    layer_re = {"none": 0.0 * layer_fwd, "selective": selective, "full": g.full_share * layer_fwd}[workload.recompute]
    if modules_recomputed(workload, workload.recompute):
        layer_re = layer_re + _modules_recompute_s(g, gemm_rate, sms, hbm, per_value)
    expert_extra = 0.0 * T
    # the routed experts' share of the layer's GEMM FLOPs (top_k of the experts' weights a token meets)
    expert_share = min(1.0, model.top_k * model.expert_params / max(model.experts, 1) / model.layers
                       / per_layer_params) if model.is_moe else 0.0
    if model.is_moe and workload.expert_gemm == "per-expert":
        # the routed experts' share of the layer's GEMM time, run as one cuBLASLt call per local expert (EP > 1:
        # expert TP 1, experts / EP on a GPU; EP 1: every expert on every GPU, sliced by TP)
        local = np.where(g.ep > 1, model.experts / g.ep, float(model.experts))
        passes = 3.0 + g.full_share
        gpu_s = passes * expert_share * gemm_fwd
        expert_extra = expert_gemm_floor_s(local, passes, gpu_s) - gpu_s
    # the output layer (logits) on the last stage: a GEMM of T x V/t x h, forward and backward, in BF16 even in FP8
    # training (Megatron-Core's output layer is a plain ColumnParallelLinear, outside Transformer Engine's
    # fp8_autocast modules; torchtitan's Float8 conversion leaves the "output" layer out)
    output_rate = gemm_rate if workload.dtype_bytes != 1 else _rates(g.cluster, replace(workload, dtype_bytes=2),
                                                                               gpus=g.gpus)[0]
    output = 2 * T * h * model.vocab / g.tp / output_rate * sum(
        1.0 / gemm_shape_factor(*shape, sms) for shape in gemm_pass_shapes(T, model.vocab / g.tp, h))
    # the loss on the same stage: the cross entropy's memory-bound passes over the T x V/t logits, forward and
    # backward, at the bytes per logit the stack's code moves (rule R59), charged with the output layer (so each MTP
    # depth, which runs the output layer and a loss again, pays it too)
    output = output + loss_s(T, model.vocab / g.tp, workload.loss_bytes_per_logit, hbm)
    # the experts' GEMMs by pass (the per-call floors a third to the forward's GEMM pass, two to the backward's)
    expert_fwd = expert_share * gemm_fwd + expert_extra / 3.0
    expert_bwd = expert_share * gemm_bwd + expert_extra * 2.0 / 3.0
    mtp = _mtp_extra_s(g, gemm_rate, sms, hbm, output, per_value) if workload.mtp_layers else 0.0
    return _LayerTimes(gemm_fwd, gemm_bwd, attn_fwd, attn_bwd, layer_fwd + layer_bwd + layer_re + expert_extra,
                       output, attn_first_fwd, layer_fwd, expert_fwd, expert_bwd, mtp)


@expects(bytes_per_logit="B", hbm_bytes_per_s="B/s")
def loss_s(tokens, vocab_share, bytes_per_logit: float, hbm_bytes_per_s: float):
    """Seconds the cross entropy's memory-bound passes take per micro-batch on the last stage (rule R59).

    ``tokens`` x ``vocab_share`` logits (a micro-batch's tokens on the GPU, the vocabulary over TP), each read and
    written ``bytes_per_logit`` bytes over the loss's forward and backward passes, at the memory-bound rate of the
    layers' other memory-bound passes (``hbm_bytes_per_s``).

    Examples
    --------
    >>> round(loss_s(4096, 131072, 52.0, 3.35e12 * 0.8955) * 1e3, 2)  # ms: Megatron-Core's unfused loss, H100
    9.31
    """
    return tokens * vocab_share * bytes_per_logit / hbm_bytes_per_s


def _fp8_cast_bytes(g: _Grid) -> float:
    """Bytes one FP8 cast moves per value (read 2, write 1 row-wise and 1 column-wise, plus 2 for an amax pass with
    current or tensorwise scaling), or 0 where no cast runs: not FP8, or FP8 tensor cores no faster than BF16 ones
    (the GEMMs then stay at the BF16 rate, uncast)."""
    workload = g.workload
    if workload.dtype_bytes != 1 or _peak_flops(g.cluster, workload) <= _peak_flops(g.cluster):
        return 0.0
    return 4.0 + (2.0 if workload.fp8_recipe in ("current-scaling", "tensorwise") else 0.0)


def _mtp_extra_s(g: _Grid, gemm_rate: float, sms, hbm: float, output: np.ndarray, cast_bytes: float) -> np.ndarray:
    """Seconds one multi-token-prediction depth adds per micro-batch besides its transformer layer (rule R46).

    As Megatron-Core runs it (megatron/core/transformer/multi_token_prediction.py, ``MultiTokenPredictionLayer``; the
    transformer layer itself is charged as one of the model's layers): ``eh_proj``, a column-parallel GEMM of
    :math:`2h` inputs and :math:`h` outputs, its three passes at their shapes' tile costs and at the layers' GEMM rate
    (it runs inside the FP8 context), with the FP8 casts of its input and of its output's gradient; the memory-bound
    passes over what the module stores (:func:`~interconnect.topics.seating.model.memory.mtp_stored_bytes`: the two
    norms' inputs, the concatenation and the final norm's input) as for a layer's; and the shared output layer once
    more on the depth's hidden states (``output``, the main one's time).
    """
    from interconnect.topics.seating.kernels import gemm_pass_shapes, gemm_shape_factor
    from interconnect.topics.seating.model.memory import mtp_stored_bytes

    workload, h = g.workload, float(g.h)
    T = g.s * g.b / g.cp
    proj = 2 * T * 2 * h * h / g.tp / gemm_rate * sum(
        1.0 / gemm_shape_factor(*shape, sms) for shape in gemm_pass_shapes(T, h / g.tp, 2 * h))
    norms = (_MEMORY_PASSES_FWD + _MEMORY_PASSES_BWD) * T * mtp_stored_bytes(g.model, workload, g.tp) / hbm
    casts = T * (2 * h + h / g.tp) * cast_bytes / hbm  # 0 without FP8 casts (_fp8_cast_bytes)
    return proj + norms + casts + output


def _modules_recompute_s(g: _Grid, gemm_rate: float, sms, hbm: float, cast_bytes: float) -> np.ndarray:
    """Seconds one layer and micro-batch spends running Megatron-Core's recompute modules again in the backward pass.

    Each module's forward once more (``Workload.recompute_modules``): the memory-bound operators at the bytes of the
    outputs they make again (:func:`~interconnect.topics.seating.model.memory.recompute_module_bytes`, 16 bits,
    ``_MEMORY_PASSES_FWD`` passes as in every forward), in FP8 the cast of each re-made GEMM input (4 bytes moved a
    value, 6 with an amax pass, as the forward's casts), and for ``mla_up_proj`` the query's and the key-value
    up-projections' forward GEMMs at their own shapes and tile costs (``q_b``, ``kv_b`` of
    :func:`mla_projection_shapes`).
    """
    from interconnect.topics.seating.kernels import gemm_shape_factor
    from interconnect.topics.seating.model.memory import recompute_module_bytes

    model, workload = g.model, g.workload
    T = g.s * g.b / g.cp
    freed = recompute_module_bytes(model, workload, g.tp)
    seconds = 0.0 * g.tp
    for name, (out, casts) in freed.items():
        seconds = seconds + _MEMORY_PASSES_FWD * T * out / hbm + T * casts * cast_bytes / hbm
        if name == "mla_up_proj":
            shapes = mla_projection_shapes(model)
            for key in ("q_b", "q", "kv_b"):  # without a query latent its one GEMM (``q``) runs inside the module
                if key in shapes:
                    n, k = shapes[key]
                    seconds = seconds + 2 * T * n * k / g.tp / gemm_rate / gemm_shape_factor(T, n / g.tp, k, sms)
    return seconds


def windowed_keys(seq: np.ndarray | float, window: float) -> np.ndarray:
    r"""Mean keys a query attends to in a causal layer with a sliding window (a count).

    Query :math:`i` (from 0) sees itself and at most the :math:`w` tokens before it, :math:`\min(i + 1, w + 1)`
    keys (Transformer Engine's ``window_size = (w, 0)`` with the causal mask); over a sequence of :math:`s`
    tokens, with :math:`m = \min(w + 1, s)`,

    .. math:: \bar k = \frac{m (m + 1) / 2 + (s - m)\, m}{s}

    which is :math:`(s + 1)/2`, the causal triangle's, when the window covers the sequence.

    Examples
    --------
    >>> f"{float(windowed_keys(4096, 128)):.2f} {float(windowed_keys(4, 100)):.1f}"
    '126.98 2.5'
    """
    s = np.asarray(seq, dtype=float)
    m = np.minimum(float(window) + 1.0, s)
    return (m * (m + 1.0) / 2.0 + (s - m) * m) / s


def every_second_matmul_share(h: float, q: float, kv_width: float, ffn: float, per_layer_params: float) -> float:
    r"""Share of a block's forward matmul FLOPs that torchtitan's operator-level recomputation runs again.

    torchtitan's selective "op" policy counts the ``aten.mm`` calls of a transformer block's forward and
    saves the output of every odd one (pytorch/torchtitan torchtitan/parallelisms/parallelize_llama.py at
    9dec370: ``to_save = func in _save_list and not (func == mm and count % 2 == 0)``). A Llama block calls
    them in the order query, key, value, output projection, then gate, up, down (torchtitan's
    ``Attention.forward`` and ``FeedForward.forward``: ``w2(silu(w1(x)) * w3(x))``); a GPT block query,
    key, value, projection, FC1, FC2. Either way the second, fourth and sixth are the key
    (:math:`h \cdot w_{kv}/2`), the output projection (:math:`q h`) and one :math:`h \times f` matrix:

    .. math:: \frac{h\,(w_{kv}/2 + q + f)}{N_{layer}}

    with :math:`w_{kv}` the keys' and values' width together, :math:`q` the queries', :math:`f` the FFN's and
    :math:`N_{layer}` the parameters a token meets in the layer; at most 1.

    Examples
    --------
    >>> f"{every_second_matmul_share(4096, 4096, 2048, 14336, 218.1e6):.3f}"   # Llama 3 8B: k, o and up
    '0.365'
    """
    return min(1.0, h * (kv_width / 2 + q + ffn) / per_layer_params)


@expects(gpu_s="s")
def expert_gemm_floor_s(local_experts: np.ndarray | float, passes: float,
                        gpu_s: np.ndarray | float) -> np.ndarray:
    r"""Seconds a MoE layer's expert GEMMs take when each local expert's GEMM is its own call.

    Each local expert runs two GEMMs (FC1, FC2) in every pass that touches the experts, and a pass over the
    weights is three GEMM passes (forward, the inputs' gradient, the weights' gradient; four with a recomputed
    forward). No call takes less than :data:`PER_EXPERT_GEMM_S`, so the layer's expert GEMMs take

    .. math:: \max\left(t_{GPU},\; 2\, n_{local}\, p\, c\right)

    with :math:`t_{GPU}` their time at the kernels' rate, :math:`n_{local}` the experts on the GPU, :math:`p`
    the GEMM passes and :math:`c` the per-call cost (our bound: the sum of the per-call floors, as TE's
    benchmark measures the calls of a grouped GEMM at about their sum).

    Examples
    --------
    >>> f"{float(expert_gemm_floor_s(16, 3, 1e-3)) * 1e3:.2f} ms"   # 16 local experts: 96 calls
    '3.20 ms'
    """
    calls = 2.0 * np.asarray(local_experts, dtype=float) * passes
    return np.maximum(np.asarray(gpu_s, dtype=float), calls * PER_EXPERT_GEMM_S)


def _params_per_gpu(g: _Grid) -> tuple[np.ndarray, np.ndarray]:
    """Dense and expert parameters on one GPU of the fullest stage (with the embedding or the output layer)."""
    model = g.model
    _, embed_params = layer_params(model)
    dense_layer = (model.dense_params - (1 if model.tied_embeddings else 2) * embed_params) / model.layers
    if g.workload.mtp_layers:
        # rule R46: the MTP layers and eh_proj on the last stage, with a copy of the input embedding where that stage
        # is not the first (DualPipe keeps the last layers on the first stage's rank: no copy)
        n = float(g.workload.mtp_layers)
        copy = np.where((g.pp > 1) & (g.workload.schedule != "dualpipe"), embed_params, 0.0)
        last_dense = dense_layer * (g.last + n) + embed_params + n * 2.0 * float(model.hidden) ** 2 + copy
        dense_gpu = (np.maximum(dense_layer * g.most, last_dense) + np.where(g.pp <= 1, embed_params, 0.0)) / g.tp
        expert_gpu = (model.expert_params / model.layers * np.maximum(g.most, g.last + n)
                      / np.where(g.ep > 1, g.ep, g.tp))
        return dense_gpu, expert_gpu
    dense_gpu = (np.maximum(dense_layer * g.most, dense_layer * g.last + embed_params)
                 + np.where(g.pp <= 1, embed_params, 0.0)) / g.tp
    # the experts of the stage with the most layers (the last only where a layout gives it more, R46)
    expert_gpu = model.expert_params / model.layers * np.maximum(g.most, g.last) / np.where(g.ep > 1, g.ep, g.tp)
    return dense_gpu, expert_gpu


def _tensor_parallel(g: _Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TP per layer and micro-batch: 2 all-reduces each pass (or 2 all-gathers and 2 reduce-scatters with SP).

    Returns the seconds (all exposed: the next matmul waits), the calls and the bytes each GPU sends.
    """
    per, dom = g.groups["tp"]
    act = (g.s / g.cp) * g.b * g.h * g.nbytes
    # in FP8, Transformer Engine casts a column-parallel GEMM's input to FP8 before gathering it (1 byte a value);
    # the row-parallel GEMM's output is reduce-scattered in BF16
    gathered = act * min(g.workload.dtype_bytes, 2) / g.nbytes
    if g.workload.sequence_parallel:
        t_ag = _time_s(g.cluster, "all_gather", per, dom, gathered)
        t_rs = _time_s(g.cluster, "reduce_scatter", per, dom, act)
        seconds, calls = g.passes * 2 * (t_ag + t_rs), g.passes * 4
    else:
        seconds, calls = g.passes * 2 * _time_s(g.cluster, "all_reduce", per, dom, act), g.passes * 2
    on = g.tp > 1
    sent = g.passes * 2 * np.where(on, (g.tp - 1) / g.tp, 0) * (act + (gathered if g.workload.sequence_parallel
                                                                       else act))
    return np.where(on, seconds, 0.0), np.where(on, calls, 0.0), sent


def _tp_overlap_extra(g: _Grid, tp_layer: np.ndarray) -> np.ndarray:
    """Seconds TP adds per layer and micro-batch under userbuffers overlap, beyond the whole GEMMs in the compute.

    Each of the layer's TP GEMMs runs as its configuration says (:mod:`~interconnect.topics.seating.model.tp_overlap`,
    ``Workload.tp_overlap_config``): a ring-exchange GEMM as TP chunks of ``T/t`` token rows (each at its own
    tiles and waves, packed on the streams, :func:`~interconnect.topics.seating.kernels.gemm_shape_factor`), one
    ring step of :math:`T/t \times h` values a chunk, plus the reduce-scatter form's closing sum of the TP partial
    outputs in HBM; a pipelined one as ``num_splits`` column chunks on the SMs less ``num_sm``, each chunk's
    reduce-scatter after it; a bulk pair (the backward pass of the QKV and FC1 layers) as the whole GEMM beside the
    whole all-gather of its saved input (inputs' gradient) or the reduce-scatter of that gradient (weights'
    gradient), losing the SMs the collective holds. The forward pairs run once more with a recomputed forward; the
    weights' gradients of the projection and FC2 need no collective of their own. A mixture of experts' MLP is not
    a Transformer Engine linear layer with userbuffers, so its half of the layer's TP traffic stays exposed.
    """
    from interconnect.topics.seating.kernels import TileGrid, gemm_shape_factor
    from interconnect.topics.seating.model.tp_overlap import (
        bulk_extra_s,
        packed_sms,
        pipeline_s,
        ring_s,
        ub_config,
    )

    model, workload, h, tp = g.model, g.workload, g.h, g.tp
    cfg = ub_config(workload.tp_overlap_config)
    gemm_rate, _, tiles, _ = _rates(g.cluster, workload, seq=g.s / g.cp, gpus=g.gpus)
    grid = tiles if isinstance(tiles, TileGrid) else TileGrid(int(tiles))
    sms = grid.sms
    hbm = _hbm_bytes_per_s(g.cluster, workload)
    per_layer_params, _ = layer_params(model)
    per, dom = g.groups["tp"]
    T = g.s * g.b / g.cp
    shapes = _layer_gemm_shapes(g)
    weighted = sum(w for _, _, w in shapes.values())
    act = np.full_like(tp, T * h * g.nbytes)                         # a layer's activation, all TP ranks' tokens
    gathered = act * min(workload.dtype_bytes, 2) / g.nbytes          # FP8: the all-gathered inputs in 1 byte
    rows = T / tp

    def at(m, n, k, unit, s_count):
        share = gemm_shape_factor(m, n, k, replace(grid, sms=s_count)) if sms > 0 else 1.0
        return unit / np.maximum(share, 1e-9)

    def sms_for(ub):
        return sms - ub.num_sm if ub.sm_margin else sms

    fwd = bwd = 0.0 * tp
    layers = [name for name in (("qkv", "proj") if model.is_moe else ("qkv", "proj", "fc1", "fc2")) if name in shapes]
    for name in layers:
        n, k, w = shapes[name]
        unit = 2 * T * per_layer_params / tp / gemm_rate * w / weighted  # the forward GEMM at the full rate
        whole = at(T, n, k, unit, sms)
        ub = cfg[f"{name}_fprop"]
        s_eff = sms_for(ub)
        reduce_scatter = name in ("proj", "fc2")
        if ub.method == "ring":
            alone = at(rows, n, k, unit / tp, s_eff)
            packed = at(rows, n, k, unit / tp, packed_sms(s_eff, tp))
            step = _time_s(g.cluster, "sendrecv", per, dom, (act if reduce_scatter else gathered) / tp)
            both = ring_s(alone, packed, step, tp)
            if reduce_scatter:  # the TP partial outputs summed into this rank's chunk: read all, write one
                both = both + act * (1.0 + 1.0 / tp) / hbm
        else:  # pipeline: num_splits chunks of the output columns
            splits = ub.num_splits
            chunk = at(T, n / splits, k, unit / splits, packed_sms(s_eff, splits))
            both = pipeline_s(chunk, _time_s(g.cluster, "reduce_scatter", per, dom, act / splits), splits)
        fwd = fwd + both - whole
        if reduce_scatter:
            # the row-parallel layer's inputs' gradient: its output gradient all-gathered in a ring, (T, k, n)
            ub = cfg[f"{name}_dgrad"]
            s_eff = sms_for(ub)
            whole = at(T, k, n, unit, sms)
            alone = at(rows, k, n, unit / tp, s_eff)
            packed = at(rows, k, n, unit / tp, packed_sms(s_eff, tp))
            bwd = bwd + ring_s(alone, packed, _time_s(g.cluster, "sendrecv", per, dom, gathered / tp), tp) - whole
        else:
            # the column-parallel layer's backward: inputs' gradient beside the all-gather of the saved input,
            # weights' gradient beside the reduce-scatter of that inputs' gradient
            for part, (m_, n_, k_), comm in (("dgrad", (T, k, n), _time_s(g.cluster, "all_gather", per, dom, gathered)),
                                             ("wgrad", (k, n, T), _time_s(g.cluster, "reduce_scatter", per, dom, act))):
                ub = cfg[f"{name}_{part}"]
                bwd = bwd + bulk_extra_s(at(m_, n_, k_, unit, sms), comm, ub.num_sm, sms, ub.sm_margin)
    extra = np.maximum((g.passes - 1.0) * fwd + bwd, 0.0)
    if model.is_moe:
        extra = extra + tp_layer / 2.0  # the MLP's all-gathers and reduce-scatters, outside userbuffers
    if "qkv" not in shapes:
        # MLA (rule R42) has no fused QKV layer with userbuffers: the attention's all-gather (a quarter of the
        # layer's TP traffic with SP) stays exposed, as the MLP's of a mixture of experts
        extra = extra + tp_layer / 4.0
    return extra


def _context_parallel(g: _Grid, lt: _LayerTimes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """CP per layer and micro-batch: seconds, exposed seconds, calls and bytes each GPU sends.

    Ring attention passes K and V around the CP group and hides behind attention; Llama 3's all-gather
    CP (arXiv 2407.21783, section 3.3.2) gathers K and V before attention (again in the backward pass) and
    reduce-scatters their gradients after it, and attention waits for them. PyTorch's ring as torchtitan ran it
    (``pytorch``, rule R32 of ``training-runs.toml``; torchtitan's default rotate method "allgather") gathers K
    and V, repeated to the query heads in BF16, in one all-gather per pass that the first step's call hides and the
    second waits for; in the backward pass each step's FP32 gradients of K and V go to the next rank, waited for
    after the next step's call, the last at once. Compiled with the block (``Workload.cp_waits_at_issue``, rule R48),
    each of those collectives is waited for where it is issued, so all of them show.
    """
    model, workload, cp = g.model, g.workload, g.cp
    per, dom = g.groups["cp"]
    kv = (g.s / cp) * g.b * model.kv_width * g.nbytes / np.where(g.tp <= model.kv_heads, g.tp, 1)
    on = cp > 1
    if workload.context_parallel == "all-gather":
        t_gather = _time_s(g.cluster, "all_gather", per, dom, kv * cp)
        t_scatter = _time_s(g.cluster, "reduce_scatter", per, dom, kv * cp)
        seconds = np.where(on, (g.passes - 1) * t_gather + t_gather + t_scatter, 0.0)
        exposed, calls, sent = seconds, g.passes + 1.0, (g.passes + 1.0) * (cp - 1) * kv
    elif workload.context_parallel == "pytorch":
        # K and V at the query heads' width
        values = (g.s / cp) * g.b * model.heads * (model.qk_head_dim + model.value_head_dim) / g.tp
        t_gather = _time_s(g.cluster, "all_gather", per, dom, values * g.nbytes * cp)
        t_pass = _time_s(g.cluster, "sendrecv", per, dom, values * 4.0)  # dK, dV in FP32
        first_bwd = 2.5 * lt.attn_first_fwd
        later_bwd = (lt.attn_bwd - first_bwd) / np.maximum(cp - 1, 1)
        seconds = np.where(on, g.passes * t_gather + cp * t_pass, 0.0)
        exposed = np.where(on, (g.passes - 1) * np.maximum(0.0, t_gather - lt.attn_first_fwd)
                           + np.maximum(0.0, t_gather - first_bwd)
                           + (cp - 1) * np.maximum(0.0, t_pass - later_bwd) + t_pass, 0.0)
        if workload.cp_waits_at_issue:
            # traced functional collectives wait right after the call (rule R48): nothing of the ring's hides
            exposed = seconds
        calls, sent = g.passes + cp, g.passes * (cp - 1) * values * g.nbytes + cp * values * 4.0
    else:
        recomputed = {"none": 0.0, "selective": 1.0, "full": g.full_share}[workload.recompute]
        window = lt.attn_fwd + lt.attn_bwd + recomputed * lt.attn_fwd
        t_send = _time_s(g.cluster, "sendrecv", per, dom, kv)
        seconds = np.where(on, 3 * (cp - 1) * t_send, 0.0)  # forward K,V; backward K,V and their gradients
        exposed, calls, sent = np.maximum(0.0, seconds - window), 3 * (cp - 1), 3 * (cp - 1) * kv
    return seconds, exposed, np.where(on, calls, 0.0), np.where(on, sent, 0.0)


def _expert_parallel(g: _Grid, lt: _LayerTimes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """EP per MoE layer and micro-batch: dispatch and combine all-to-alls forward and backward.

    Returns seconds, exposed seconds (DualPipe runs a forward and a backward chunk at once, so one's
    all-to-all hides behind the other's compute) and the bytes each GPU sends.
    """
    if not g.model.is_moe:
        zero = np.zeros_like(g.tp)
        return zero, zero, zero
    per, dom = g.groups["ep"]
    a2a = (g.s / g.cp) * g.b / (g.tp if g.workload.sequence_parallel else 1) * g.model.top_k * g.h * g.nbytes
    on = g.ep > 1
    seconds = np.where(on, 4 * _time_s(g.cluster, "alltoall", per, dom, a2a), 0.0)
    sent = np.where(on, 4 * (g.ep - 1) / g.ep * a2a, 0.0)
    workload = g.workload
    if workload.schedule == "dualpipe":
        exposed = np.maximum(0.0, seconds - lt.compute)
    elif workload.ep_a2a_overlap:
        # Megatron-Core's combined 1F1B (rule R45): a forward layer beside another micro-batch's backward layer, the
        # four all-to-alls on their own stream; the warm-up forwards and cool-down backwards run alone
        attn_fwd = np.maximum(lt.fwd - lt.expert_fwd, 0.0)
        rest_bwd = np.maximum(lt.compute - lt.fwd - lt.expert_bwd, 0.0)
        pair = a2a_overlap_pair_s(seconds / 4.0, attn_fwd, lt.expert_fwd, lt.expert_bwd / 2.0, lt.expert_bwd / 2.0,
                                  rest_bwd)
        # (the stated chunk count; the share is p / m whatever it is, so a VP the model picks later changes nothing)
        v = max(workload.virtual_stages, 1) if workload.schedule == "interleaved" else 1
        alone = a2a_unpaired_share(g.pp, v, g.micro)
        exposed = np.where(on, (1.0 - alone) * (pair - lt.compute) + alone * seconds, 0.0)
    else:
        exposed = seconds
    return seconds, exposed, sent


def _pipeline(g: _Grid, t_micro: np.ndarray,
              fits: Callable[[np.ndarray], np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """PP: activations forward and their gradients backward at every stage boundary; the bubble by schedule.

    Each TP rank sends its 1/t of the activation: with SP it holds only that; without, Megatron-LM's
    scatter/gather optimisation (Narayanan et al. 2021, section 4.1) and DeepSpeed's partitioned pipeline
    buffers (PipelineEngine.is_pipe_partitioned when TP > 1) split it and all-gather it inside the TP group.
    """
    workload, pp, micro = g.workload, g.pp, g.micro
    per, dom = g.groups["pp"]
    boundary = (g.s / g.cp) * g.b * g.h * g.nbytes / g.tp
    t_p2p = _time_s(g.cluster, "sendrecv", per, dom, boundary)
    t_gather = np.zeros_like(t_p2p)
    if not workload.sequence_parallel:
        tp_per, tp_dom = g.groups["tp"]
        t_gather = np.where(g.tp > 1, _time_s(g.cluster, "all_gather", tp_per, tp_dom, boundary * g.tp), 0.0)
        t_p2p = t_p2p + t_gather
    v = _virtual_stages(workload, g.most, micro, pp, t_micro, t_p2p, OVERLAP_SLOWDOWN, fits, t_gather)
    fill_sends = 2 * (pp - 1)
    if workload.schedule == "interleaved":
        idle_micro, fill_sends = (pp - 1) / v, 2 * (pp * v - 1)
    elif workload.schedule == "zero-bubble":
        idle_micro = (pp - 1) / 3.0
    elif workload.schedule == "dualpipe":
        idle_micro = np.maximum(pp / 2 - 1, 0.0) * 2 / 3
    else:
        idle_micro = pp - 1.0
    on = pp > 1
    idle_micro = np.where(on, idle_micro, 0.0)
    calls = np.where(on, 2 * micro * v, 0.0)
    exposed = np.where(on, fill_sends * t_p2p, 0.0)
    waits = np.zeros_like(on)
    if workload.p2p_blocking and workload.schedule == "1f1b" and workload.pipeline_engine == "megatron":
        # Megatron-LM's 1F1B without interleaving waits for every exchange before the next forward or backward (rule
        # R54): the steady state's transfers on the stage, as an event-by-event run of the schedule's order adds; no
        # send runs beside compute (with two stages a batched exchange moves a send and a receive in one transfer
        # time, so its 2m sends take m + 1 transfer times and none of them is hidden)
        exposed = exposed + np.where(on, blocking_1f1b_sends(pp, micro) * t_p2p, 0.0)
        waits = on
    if (workload.interleaved_p2p == "blocking" and workload.schedule == "interleaved"
            and workload.pipeline_engine == "megatron"):
        # Megatron-LM 2021's interleaved schedule waits for one batched exchange with both neighbours after each
        # forward-backward chunk pair, then gathers each received slice in the TP group (rule R56): what an
        # event-by-event run of its order adds, with none of its sends beside compute
        sends, gathers = blocking_interleaved_transfers(pp, v, micro)
        exposed = exposed + np.where(on, sends * (t_p2p - t_gather) + gathers * t_gather, 0.0)
        waits = on
    if workload.pipeline_engine == "deepspeed" and workload.schedule == "1f1b":
        # DeepSpeed's TrainSchedule sends and receives one call at a time, each waited for (runtime/pipe/p2p.py: no
        # async_op), and all-gathers each partitioned slice in the TP group inside the forward or backward that needs
        # it (rule R62): the transfers and gathers an event-by-event run of its order ends with, filling and draining
        # included, none beside compute
        sends, gathers = deepspeed_pipeline_waits(pp, micro)
        exposed = np.where(on, sends * (t_p2p - t_gather) + gathers * t_gather, 0.0)
        waits = on
    elif workload.pipeline_engine == "deepspeed":
        # (no other schedule ran under DeepSpeed's engine: four waited transfers a micro-batch slot, as before R62)
        blocking = np.where(pp > 2, 4.0, 2.0)
        exposed = exposed + np.where(on, blocking * (micro + idle_micro) * t_p2p, 0.0)
    return dict(pp_bytes=calls * boundary, pp_calls=calls, pp_time=calls * t_p2p, pp_exposed=exposed,
                pp_domains=dom, pp_per=per, virtual=v, idle_micro=idle_micro, pp_waits=waits)


def _memory(g: _Grid, dense_gpu: np.ndarray, expert_gpu: np.ndarray, v: np.ndarray) -> dict[str, np.ndarray]:
    """Memory per GPU of the fullest stage by ZeRO stage, and whether it fits beside the allowance.

    ZeRO shards over every rank that holds the same weights: the data-parallel replicas and, with context
    parallelism, the CP ranks too (they hold the same weights and their gradients are reduced together):
    Megatron-Core builds its distributed optimizer over the DP x CP group (NVIDIA/Megatron-LM
    megatron/core/optimizer/__init__.py at 6cc29a2, ``data_parallel_group=dp_cp_group``) and torchtitan shards
    FSDP over its ``dp_shard_cp`` mesh (pytorch/torchtitan torchtitan/parallelisms/parallelize_llama.py at 9dec370).
    Expert weights with EP > 1 shard over the expert-data-parallel ranks, which already span CP.

    With ``pipeline_fsdp_unsharded`` (PyTorch FSDP2 under PyTorch's pipelining, as torchtitan runs it) a pipeline
    of more than one micro-batch per step keeps, whatever the ZeRO stage, the stage's weights gathered and its
    gradients whole until the last micro-batch: torchtitan shards with ``reshard_after_forward=False`` when PP is on
    (parallelize_llama.py at 9dec370, ``apply_fsdp``), and the pipeline stage turns gradient sync off for every
    backward but the last (torch/distributed/pipelining/stage.py, ``backward_maybe_with_nosync``), so FSDP2
    accumulates the unsharded gradients, in the reduce dtype where it differs from the weights' (``FSDPParam.
    to_accumulated_grad_if_needed``). Only the optimizer state stays sharded.
    """
    z, workload = g.zero, g.workload
    shard_dense = np.maximum(g.weight_ranks, 1.0)
    shard_expert = np.where(g.ep > 1, g.edp, shard_dense)
    if workload.pipeline_fsdp_unsharded:
        z = np.where((g.pp > 1) & (g.micro > 1), np.minimum(z, 1.0), z)

    def sharded(bytes_per_param: float, stage: int) -> np.ndarray:
        on = z >= stage
        return (dense_gpu * bytes_per_param / np.where(on, shard_dense, 1.0)
                + expert_gpu * bytes_per_param / np.where(on, shard_expert, 1.0))

    copies = 2.0 if workload.schedule == "dualpipe" else 1.0  # DualPipe keeps the weights twice
    out = {"mem_params": copies * sharded(PARAM_BYTES, 3),
           "mem_grads": copies * sharded(float(workload.grad_bytes or GRAD_BYTES), 2),
           "mem_optimizer": sharded(OPTIMIZER_BYTES, 1),
           "mem_activations": _activations(g.model, workload, g.tp, g.pp, g.cp, g.micro, v=v, most=g.most,
                                           last=g.last)}
    out["mem_total"] = out["mem_params"] + out["mem_grads"] + out["mem_optimizer"] + out["mem_activations"]
    out["mem_capacity"] = np.full_like(g.tp, workload.memory_bytes or _memory_bytes(g.cluster))
    out["mem_reserved"] = RESERVED_SHARE * out["mem_capacity"]
    out["fits"] = out["mem_total"] + out["mem_reserved"] <= out["mem_capacity"]
    return out


def evaluate_layouts(model: ModelPreset, cluster: Cluster, workload: Workload, tp: np.ndarray, pp: np.ndarray,
              dp: np.ndarray, cp: np.ndarray, ep: np.ndarray, zero: np.ndarray) -> dict[str, np.ndarray]:
    """Everything per layout, as arrays (the layouts must be valid).

    The step is one micro-batch's forward and backward on the slowest stage (its compute plus the TP,
    CP and EP traffic the layers wait for), times the micro-batches and the schedule's idle slots, plus
    what of the pipeline sends, the data-parallel reduction and the optimizer does not overlap.
    """
    g = _grid(model, cluster, workload, tp, pp, dp, cp, ep, zero)
    lt = _layer_times(g)
    dense_gpu, expert_gpu = _params_per_gpu(g)
    tp_layer, tp_calls, tp_sent = _tensor_parallel(g)
    ub_overlap = workload.tp_userbuffers
    if ub_overlap:
        # userbuffers overlap: each GEMM beside its collective as Transformer Engine runs it (ring-exchange chunks,
        # a pipeline of column chunks, or bulk beside a whole collective); what that adds to the whole GEMMs.
        # Without sequence parallelism there is no all-gather / reduce-scatter to overlap, and Megatron-Bridge turns
        # the overlap off (src/megatron/bridge/training/comm_overlap.py at v0.2.0, "Disabling tensor parallel
        # communication overlap due to sequence_parallel=False")
        tp_exposed = np.where(g.tp > 1, _tp_overlap_extra(g, tp_layer), 0.0)
    else:
        tp_exposed = tp_layer
    cp_layer, cp_exposed, cp_calls, cp_sent = _context_parallel(g, lt)
    ep_layer, ep_exposed, ep_sent = _expert_parallel(g, lt)

    # one micro-batch (forward + backward) on the slowest stage: the fullest, or the last with the output layer
    # each micro-batch's gradients added to the step's where the stack does it as a pass of its own (rule R36: a
    # gradient buffer's add, autograd's in-place add, DeepSpeed's BF16_Optimizer), on each stage for its weights
    accum_layer, accum_end = _accumulation_s(g)
    # PyTorch FSDP2's copies of the gathered weights and the reduced gradients (rule R37): those on the compute stream
    # run in series with the layers' compute; the gathers' copy-ins and the sharded additions run beside it
    fsdp_layer, fsdp_beside = _fsdp2_copies_s(g, dense_gpu, expert_gpu)
    accum_layer = accum_layer + fsdp_layer
    per_layer_total = lt.compute + tp_exposed + cp_exposed + ep_exposed + accum_layer
    stage_full = g.most * per_layer_total
    stage_last = g.last * per_layer_total + lt.output + accum_end
    single = stage_full + lt.output + accum_end
    compute_last = g.last * (lt.compute + accum_layer) + lt.output + accum_end
    if workload.mtp_layers:
        # rule R46: each MTP depth runs on the last stage after the decoder, a layer like the others (its compute and
        # the communication it waits for) and its projection, norms and second pass through the output layer
        n = float(workload.mtp_layers)
        stage_last = stage_last + n * (per_layer_total + lt.mtp)
        single = single + n * (per_layer_total + lt.mtp)
        compute_last = compute_last + n * (lt.compute + accum_layer + lt.mtp)
    compute_full = g.most * (lt.compute + accum_layer)
    if workload.schedule == "dualpipe":
        stage_last = np.where(g.pp > 1, dualpipe_end_rank_s(stage_full, stage_last), stage_last)
        compute_last = np.where(g.pp > 1, dualpipe_end_rank_s(compute_full, compute_last), compute_last)
    t_micro = np.maximum(stage_full, np.where(g.pp > 1, stage_last, single))
    compute_micro = np.maximum(compute_full, compute_last)

    out = _pipeline(g, t_micro, lambda v: _memory(g, dense_gpu, expert_gpu, v)["fits"])
    idle_micro = out.pop("idle_micro")
    pp_waits = out.pop("pp_waits")
    layers_per_step = g.micro * g.most  # the communication inside the micro-batches, per step
    for dim, (seconds, exposed, calls, sent) in {"tp": (tp_layer, tp_exposed, tp_calls, tp_sent),
                                                "cp": (cp_layer, cp_exposed, cp_calls, cp_sent),
                                                "ep": (ep_layer, ep_exposed, np.where(g.ep > 1, 4.0, 0.0),
                                                       ep_sent)}.items():
        per, dom = g.groups[dim]
        out.update({f"{dim}_bytes": layers_per_step * sent, f"{dim}_calls": layers_per_step * calls,
                    f"{dim}_time": layers_per_step * seconds, f"{dim}_exposed": layers_per_step * exposed,
                    f"{dim}_domains": dom, f"{dim}_per": per})
    # what one micro-batch's wall time holds of each other dimension's links, for the per-micro-batch reduce-scatters
    micro_n = np.maximum(g.micro, 1.0)
    others = tuple((out[f"{d}_time"] / micro_n, out[f"{d}_domains"]) for d in ("tp", "cp", "ep", "pp"))
    out.update(_data_parallel(g, dense_gpu, expert_gpu, compute_micro, lt, t_micro, others, chunks=out["virtual"]))

    psi = dense_gpu + expert_gpu
    optimizer_s = _optimizer_s(g, dense_gpu, expert_gpu)

    # communication hidden behind compute slows that compute down (OVERLAP_SLOWDOWN of the overlapped time); under
    # userbuffers TP overlap, what TP's collectives take from the GEMMs is in tp_exposed already (the SMs they hold)
    overlapped = [d for d in DIMENSIONS if not (d == "tp" and ub_overlap)]
    # (a pipeline whose sends wait, R54, R56 or DeepSpeed's R62, has none of its sends beside compute: they are marked
    # pp_waits, since R54's and R56's batched exchanges move two transfers in one transfer time and R62's fill-and-drain
    # overlap can leave fewer transfer times than sends)
    hidden = sum(np.where(pp_waits, 0.0, np.maximum(out[f"{d}_time"] - out[f"{d}_exposed"], 0.0)) if d == "pp" else
                 out[f"{d}_time"] - out[f"{d}_exposed"] for d in overlapped) + fsdp_beside + out.pop("dp_beside")
    interference = OVERLAP_SLOWDOWN * np.minimum(np.maximum(hidden, 0.0), g.micro * compute_micro)
    step = (g.micro + idle_micro) * t_micro + out["pp_exposed"] + out["dp_exposed"] + optimizer_s + interference
    L, s, h = model.layers, g.s, g.h
    tokens_step = workload.global_batch * s
    n_gpus = g.gpus
    peak = _peak_flops(cluster, workload)  # MFU against the peak of the format the GEMMs run in
    model_flops = (6 * model.active_params + 12 * L * s * h) * tokens_step
    extra = {"none": 0.0, "selective": 4 * L * s * h * tokens_step,
             "full": g.full_share * (2 * model.active_params + 4 * L * s * h) * tokens_step}[workload.recompute]
    if workload.mtp_layers:
        # rule R46: the MTP depths' FLOPs (a layer's, eh_proj's and the output layer's, forward and backward), which
        # the model's count leaves out
        per_layer, embed = layer_params(model)
        extra = extra + workload.mtp_layers * (6 * (per_layer + 2 * h * h + embed) + 12 * s * h) * tokens_step
    if "mla_up_proj" in workload.recompute_modules and model.is_mla and workload.recompute != "full":
        # the up-projections' forward GEMMs once more (Workload.recompute_modules)
        up = {k: nk for k, nk in mla_projection_shapes(model).items() if k in ("q_b", "q", "kv_b")}
        extra = extra + 2 * sum(n * k for n, k in up.values()) * L * tokens_step
    out.update(compute_s=g.micro * compute_micro, ideal_s=model_flops / n_gpus / peak,
               bubble=idle_micro * t_micro / step, exposed_s=sum(out[f"{d}_exposed"] for d in DIMENSIONS),
               step_s=step, mfu=model_flops / n_gpus / peak / step, micro=g.micro,
               tflops=model_flops / n_gpus / step, hw_tflops=(model_flops + extra) / n_gpus / step,
               optimizer_s=optimizer_s, interference_s=interference, t_micro=t_micro, idle_micro=idle_micro,
               fsdp_copies_s=g.micro * g.most * fsdp_layer, fsdp_beside_s=fsdp_beside,
               stage_most=g.most,
               stage_last=g.last, gemm_share=(g.micro * g.most * (lt.gemm_fwd + lt.gemm_bwd)) / step)
    out.update(_memory(g, dense_gpu, expert_gpu, out["virtual"]))
    out["psi"] = psi
    return out
