"""Memory per GPU: weights, gradients and optimizer state by ZeRO stage, and activations.

Activations are counted tensor by tensor for the layer's shape (Korthikanti et al. 2022, Table 2) and
multiplied by the micro-batches the schedule keeps in flight; an allowance covers buffers and fragmentation.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from interconnect.topics.seating.model.compute import layer_params
from interconnect.topics.seating.model.layout import Workload
from interconnect.topics.seating.model.schedules import _in_flight, stage_layers
from interconnect.workloads.presets import ModelPreset

__all__ = [
    "GRAD_BYTES",
    "MEMORY_VERDICTS",
    "OPTIMIZER_BYTES",
    "PARAM_BYTES",
    "RESERVED_SHARE",
    "full_recompute_share",
    "memory_summary",
    "memory_verdict",
    "modules_recomputed",
    "mtp_stored_bytes",
    "recompute_module_bytes",
]


#: Memory set aside per GPU for what the formulas do not count: the CUDA and NCCL context, communication
#: buffers and the caching allocator's fragmentation. Our allowance, 10 % of the GPU's memory; the ZeRO
#: paper (arXiv 1910.02054, section 3.2 and 6.3) reports fragmentation alone leaving 30 % unusable in
#: extreme cases, which its memory defragmentation removes.
RESERVED_SHARE = 0.10
#: Bytes per parameter of mixed-precision Adam: BF16 weights 2, BF16 gradients 2, FP32 master weights,
#: momentum and variance 4 + 4 + 4 (ZeRO paper, arXiv 1910.02054, section 3.1, K = 12).
PARAM_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 2.0, 12.0
#: The three things the memory can say, in the words every view uses (page, live chart, comparisons, search, CLI).
MEMORY_VERDICTS = ("fits", "tight", "does not fit")


def memory_verdict(total, reserved, capacity):
    """What the memory says: ``"fits"``, ``"tight"`` or ``"does not fit"`` (the one verdict of the app).

    Fits when the counted bytes and the allowance for buffers and fragmentation fit in the GPU's memory;
    tight when the counted bytes fit only if buffers and fragmentation take less than the allowance; does
    not fit when the counted bytes alone exceed the GPU's memory. Scalars give a ``str``, arrays an array
    of them.

    >>> memory_verdict(70e9, 8.55e9, 85.5e9), memory_verdict(82e9, 8.55e9, 85.5e9), memory_verdict(90e9, 8.55e9, 85.5e9)
    ('fits', 'tight', 'does not fit')
    >>> memory_verdict(np.array([70e9, 82e9]), 8.55e9, 85.5e9).tolist()
    ['fits', 'tight']
    """
    total, reserved, capacity = (np.asarray(v, dtype=float) for v in (total, reserved, capacity))
    out = np.where(total + reserved <= capacity, MEMORY_VERDICTS[0],
                   np.where(total <= capacity, MEMORY_VERDICTS[1], MEMORY_VERDICTS[2]))
    return str(out) if out.ndim == 0 else out


def memory_summary(total: float, reserved: float, capacity: float) -> str:
    """The memory per GPU against the GPU's, and the verdict, as every view writes it.

    >>> memory_summary(82.3e9, 8.55e9, 85.5e9)
    '82 / 85.5 GB per GPU, tight'
    """
    return f"{total / 1e9:.0f} / {capacity / 1e9:.3g} GB per GPU, {memory_verdict(total, reserved, capacity)}"


def _per_layer_stored(model: ModelPreset, workload: Workload, tp: np.ndarray, cp: np.ndarray,
                      mode: str) -> np.ndarray:
    """Activation bytes one layer stores for one micro-batch on one GPU, counted tensor by tensor.

    Korthikanti et al. 2022 (arXiv 2205.05198, section 4.1 and Table 2) count the tensors a layer keeps
    for its backward pass, in 16-bit values (2 bytes) and 1-byte dropout masks, per token:

    * the inputs of the two norms (2 h each) and of the QKV and first MLP projections (2 h each);
    * the queries (2 h) and the keys and values (2 x 2 kv_heads·head_dim: with grouped-query attention
      only the KV heads are stored; Ainslie et al. 2023, arXiv 2305.13245);
    * the attention output, the output projection's input (2 h);
    * the MLP's intermediate tensors: the first projection's output(s) and the second projection's
      input, ``2 x mlp_params / h`` bytes (GELU MLP, 2 matrices: 8 h + 8 h; SwiGLU, 3 matrices of width
      f: gate and up 4 f plus the product 2 f, Shazeer 2020, arXiv 2002.05202);
    * with dropout, a 1-byte mask after attention and after the MLP (h each);
    * unfused attention also keeps the scores: softmax 2 a s, with dropout its mask a s and output 2 a s.

    For a GPT (multi-head, 4 h GELU MLP, dropout) that is the paper's ``34 s b h`` plus ``5 a s² b``.
    Sequence parallelism shards every term over TP; without it the norms' inputs, the projections'
    inputs and the masks are whole on each GPU (the paper's ``10 + 24/t``). Flash attention keeps
    no scores (only a 4-byte softmax statistic per head and token, left out here: below 0.1 %); full
    recomputation keeps the layer's input only (``2 s b h``, /t with SP). CP splits the sequence.
    Selective recomputation under torchtitan's operator-level policy keeps what :func:`_op_policy_stored` counts.
    """
    s = workload.tokens(model) / cp
    b, h, a = workload.micro_batch, float(model.hidden), model.heads
    seq_total = workload.tokens(model)
    per_layer, _ = layer_params(model)
    kv_width = float(model.kv_width)
    kv_split = np.minimum(tp, max(model.kv_heads, 1))  # KV heads are not split below one per GPU
    mlp_params = np.maximum(per_layer - model.attention_params, 0.0)
    mask = 1.0 if workload.dropout else 0.0
    whole = 2 * h + 2 * h + 2 * h + 2 * h + 2 * mask * h  # norm inputs, QKV and MLP inputs, dropout masks
    q = float(model.query_width)                        # the queries' width (the hidden size, or not: Qwen3)
    out = float(model.attention_out_width)              # attention's output (MLA: heads x the value width)
    split = 2 * q + 2 * out + 2 * mlp_params / h         # queries, attention output, MLP intermediates
    kv = 2 * kv_width / kv_split                          # keys and values
    kv = kv + _mla_latents_stored(model)                 # MLA's latents, whole on every TP rank (rule R42)
    scores = (2 + 3 * mask) * a * seq_total / tp if workload.attention == "unfused" else 0.0
    if workload.sequence_parallel:
        selective = s * b * ((whole + split) / tp + kv)
        minimal = 2 * s * b * h / tp
    else:
        selective = s * b * (whole + split / tp + kv)
        minimal = 2 * s * b * h * np.ones_like(tp)
    full = selective + s * b * scores
    if mode == "selective" and workload.selective_policy == "torchtitan-op":
        return s * b * _op_policy_stored(model, tp, kv_split, mlp_params, workload.sequence_parallel)
    return {"none": full, "selective": selective, "full": minimal}[mode]


def _mla_latents_stored(model: ModelPreset) -> float:
    r"""Bytes per token multi-head latent attention keeps beside the queries, keys and values (0 for other attention).

    Megatron-Core's MLA (rule R42 of ``training-runs.toml``) norms each latent inside its up-projection's
    LayerNormLinear, which keeps the norm's input and output for its backward pass: the query's latent
    (:math:`r_q`, twice) and the keys' and values' (:math:`r_{kv}`, twice), plus the rotary key the heads share
    (:math:`d_{rope}`), in 16 bits: :math:`2 (2 r_q + 2 r_{kv} + d_{rope})`. Kept whole on every TP rank (the latents
    are gathered before the up-projections; our reading).

    >>> from interconnect.workloads.presets import load_model_presets
    >>> _mla_latents_stored(load_model_presets()["deepseek-v3"])
    8320.0
    """
    if not model.is_mla:
        return 0.0
    return 2.0 * (2 * (model.q_lora_rank or 0) + 2 * (model.kv_lora_rank or 0) + (model.qk_rope_head_dim or 0))


def _op_policy_stored(model: ModelPreset, tp: np.ndarray, kv_split: np.ndarray, mlp_params: np.ndarray,
                      sequence_parallel: bool) -> np.ndarray:
    """Bytes per token one layer keeps under torchtitan's operator-level selective checkpointing.

    torchtitan wraps each transformer block in a checkpoint whose policy saves the outputs of the operators in
    its ``_save_list`` (matrix multiplies, the SDPA kernels, TP's reduce-scatter) and recomputes everything else,
    except that every second matrix multiply of the block is recomputed too (pytorch/torchtitan
    torchtitan/parallelisms/parallelize_llama.py at 9dec370, ``_save_list`` and ``_custom_policy``: the count
    restarts in each block). A Llama block multiplies, in this order, by wq, wk, wv, wo, then w1, w3 and w2
    (torchtitan/models/llama/model.py: ``self.w2(F.silu(self.w1(x)) * self.w3(x))``), so the saved outputs are
    wq's, wv's, w1's and w2's (wq, wv, w1 and w2 without the gate w3). Besides them the block keeps its input
    (the checkpoint's argument, recomputed from) and attention's output with its FP32 log-sum-exp per head.
    Column-parallel outputs are split over TP; a row-parallel matmul's output is the whole partial sum before
    its reduce-scatter (whose output, also saved, is split).
    """
    h = float(model.hidden)
    q = float(model.heads * model.head_dim)
    kv = float(model.kv_heads * model.head_dim)
    f = np.maximum(mlp_params / h, 0.0)              # the MLP's matrices times their width, per token
    gated = bool(model.ffn_hidden and np.all(np.round(f / model.ffn_hidden) >= 3))
    rowwise = 2 * h * np.ones_like(tp, dtype=float)   # whole on every GPU of the TP group
    widths = [2 * q / tp, 2 * kv / kv_split, 2 * kv / kv_split, rowwise, 2 * model.ffn_hidden / tp]
    widths += [2 * model.ffn_hidden / tp] if gated else []
    widths.append(rowwise)
    saved = sum(w for i, w in enumerate(widths) if i % 2 == 0)  # the 1st, 3rd, ... multiply of the block
    block_input = 2 * h / tp if sequence_parallel else 2 * h * np.ones_like(tp)
    attention_out = 2 * q / tp + 4.0 * model.heads / tp
    reduced = np.where(tp > 1, 2 * (2 * h / tp), 0.0)  # the two reduce-scatters' outputs
    return block_input + saved + attention_out + reduced


def recompute_module_bytes(model: ModelPreset, workload: Workload, tp: np.ndarray | float = 1.0
                           ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    r"""What each of Megatron-Core's recompute modules frees, per token of one layer on one GPU.

    For each module of ``workload.recompute_modules`` that the model has (see :class:`Workload`), a pair: the bytes
    of the outputs it frees, in 16 bits, and the values of them that the stored figure otherwise keeps as 1-byte FP8
    casts instead (:func:`_fp8_saved_less`; only counted where FP8 applies). With :math:`q = n_h d_{qk}` the queries'
    width, :math:`w_{kv} = n_h (d_{qk} + d_v)` the keys' and values' (each split over TP, the keys and values not
    below one head a GPU), :math:`r_q`, :math:`r_{kv}` the latents (whole on every TP rank, rule R42), :math:`u` 1/t
    with sequence parallelism and 1 without, :math:`k` the experts a token uses and :math:`f_r` one routed expert's
    FFN width averaged over the layers:

    - ``mla_up_proj``: :math:`2 q / t + 2 w_{kv} / t + 2 (r_q + r_{kv})` bytes (queries, keys and values, the normed
      latents); FP8 casts :math:`r_q + r_{kv}`;
    - ``layernorm``: :math:`2 h u` bytes per separate norm (the pre-MLP norm of a mixture of experts, the input norm
      under MLA); FP8 casts :math:`h u` each;
    - ``moe_act``: :math:`2 k f_r / t` bytes (the second expert GEMM's input); FP8 casts :math:`k f_r / t`.

    Examples
    --------
    >>> from interconnect.workloads.presets import load_model_presets
    >>> from interconnect.topics.seating.model.layout import Workload
    >>> m = load_model_presets()["deepseek-v3"]
    >>> out, casts = recompute_module_bytes(m, Workload(recompute_modules=("mla_up_proj",)))["mla_up_proj"]
    >>> float(out), float(casts)   # 2 (24,576 + 40,960 + 2,048) and 1,536 + 512
    (135168.0, 2048.0)
    """
    tp = np.asarray(tp, dtype=float)
    h = float(model.hidden)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    modules = workload.recompute_modules
    if "mla_up_proj" in modules and model.is_mla:
        kv_split = np.minimum(tp, max(model.kv_heads, 1))
        latents = float((model.q_lora_rank or 0) + (model.kv_lora_rank or 0))
        out["mla_up_proj"] = (2 * float(model.query_width) / tp + 2 * float(model.kv_width) / kv_split
                              + 2 * latents, latents + 0.0 * tp)
    norms = (1.0 if model.is_moe else 0.0) + (1.0 if model.is_mla else 0.0)
    if "layernorm" in modules and norms:
        u = 1.0 / tp if workload.sequence_parallel else np.ones_like(tp)
        out["layernorm"] = (norms * 2 * h * u, norms * h * u)
    if "moe_act" in modules and model.is_moe:
        per_expert = model.expert_params / max(model.experts, 1) / model.layers  # one expert's weights a layer
        matrices = max(1.0, float(round(per_expert / (h * model.ffn_hidden))))   # 3 gated (SwiGLU), 2 not
        routed = model.top_k * per_expert / (matrices * h)                      # the second GEMM's input width
        out["moe_act"] = (2 * routed / tp, routed / tp)
    return out


def modules_recomputed(workload: Workload, mode: str) -> bool:
    """Whether Megatron-Core's recompute modules act under recomputation ``mode``: some are named, and neither full
    recomputation nor torchtitan's operator-level policy already decides what is kept."""
    return bool(workload.recompute_modules) and mode != "full" and not (
        mode == "selective" and workload.selective_policy == "torchtitan-op")


def _modules_freed(model: ModelPreset, workload: Workload, tp: np.ndarray, cp: np.ndarray, mode: str) -> np.ndarray:
    """Bytes one layer stores less per micro-batch for its recompute modules (:func:`recompute_module_bytes`).

    Measured from the figure :func:`_per_layer_stored` less :func:`_fp8_saved_less` gives, so where FP8 casts were
    counted at 1 byte only the byte left is freed. Nothing under full recomputation or torchtitan's policy.
    """
    if not modules_recomputed(workload, mode):
        return np.zeros_like(np.asarray(tp, dtype=float))
    fp8 = _fp8_keeps_casts(workload, mode)
    s = workload.tokens(model) / cp * workload.micro_batch
    freed = sum((out - (casts if fp8 else 0.0) for out, casts in recompute_module_bytes(model, workload, tp).values()),
                start=np.zeros_like(np.asarray(tp, dtype=float)))
    return s * freed


def _fp8_keeps_casts(workload: Workload, mode: str) -> bool:
    """Whether the stored figure keeps the GEMMs' inputs as 1-byte casts (Transformer Engine FP8; _fp8_saved_less)."""
    return not (workload.dtype_bytes != 1 or workload.fp8_recipe == "tensorwise" or mode == "full" or (
        mode == "selective" and workload.selective_policy == "torchtitan-op"))


def _fp8_saved_less(model: ModelPreset, workload: Workload, tp: np.ndarray, cp: np.ndarray, mode: str) -> np.ndarray:
    """Bytes one layer stores less per micro-batch when its projections run in FP8 through Transformer Engine.

    A Transformer Engine linear layer running in FP8 keeps, for its weight-gradient GEMM, the FP8 cast of its input
    (1 byte a value) instead of the 16-bit input (NVIDIA/TransformerEngine transformer_engine/pytorch/module/
    linear.py, ``_Linear.forward``: with FP8 the saved input is the quantized ``inputmat``; layernorm_linear.py
    likewise saves the FP8 ``ln_out``). So the QKV and first MLP projections' inputs (the norms' outputs) and the
    second MLP projection's input (the activation's output) take 1 byte a value, not 2; the output projection
    keeps an FP8 copy of attention's output besides the 16-bit one attention itself keeps for its backward. Not
    with torchao's Float8 (``tensorwise``), whose linear layer keeps its high-precision input and casts again in
    the backward, nor with full recomputation (only the layer's input is kept). Memory only: the memory-bound
    passes of the step are counted from :func:`_per_layer_stored`.
    """
    if not _fp8_keeps_casts(workload, mode):
        return np.zeros_like(np.asarray(tp, dtype=float))
    h, q = float(model.hidden), float(model.attention_out_width)  # the output projection's input
    per_layer, _ = layer_params(model)
    mlp_params = max(per_layer - model.attention_params, 0.0)
    matrices = 3.0 if round(mlp_params / (h * model.ffn_hidden)) % 3 == 0 else 2.0  # gated (SwiGLU) or not
    fc2_input = mlp_params / (matrices * h)
    s = workload.tokens(model) / cp * workload.micro_batch
    norms_out = 2 * h / tp if workload.sequence_parallel else 2 * h * np.ones_like(tp)
    # MLA's up-projections keep their normed latents in FP8 too (rule R42)
    latents = float((model.q_lora_rank or 0) + (model.kv_lora_rank or 0)) if model.is_mla else 0.0
    return s * (norms_out + latents + (fc2_input - q) / tp)


def full_recompute_share(workload: Workload, most: np.ndarray | float) -> np.ndarray:
    r"""The share of a pipeline stage's transformer layers that are recomputed whole in the backward pass.

    1 under ``full`` recomputation of every layer, 0 under ``none`` or ``selective``. With
    ``Workload.recompute_num_layers`` = n > 0 (Megatron-Core's ``recompute_method`` "block"), the first n layers of
    each model chunk are recomputed and the others are not, so a stage of ``most`` layers in c chunks (the interleaved
    schedule's ``virtual_stages``, else 1) recomputes :math:`\min(n c, L_{stage}) / L_{stage}` of them. With the
    interleaved schedule and ``virtual_stages`` 0 (left to the model) one chunk is counted, the fewest recomputed.

    >>> float(full_recompute_share(Workload(recompute="full", recompute_num_layers=5), 32))
    0.15625
    >>> float(full_recompute_share(Workload(recompute="full"), 32)), float(full_recompute_share(Workload(), 32))
    (1.0, 0.0)
    >>> w = Workload(recompute="full", recompute_num_layers=1, schedule="interleaved", virtual_stages=4)
    >>> float(full_recompute_share(w, 8))
    0.5
    """
    most = np.maximum(np.asarray(most, dtype=float), 1.0)
    if workload.recompute != "full":
        return np.zeros_like(most)
    n = workload.recompute_num_layers
    if n <= 0:
        return np.ones_like(most)
    chunks = workload.virtual_stages if workload.schedule == "interleaved" and workload.virtual_stages > 0 else 1
    return np.minimum(float(n * chunks), most) / most


def _stored_per_layer(model: ModelPreset, workload: Workload, tp: np.ndarray, cp: np.ndarray, mode: str) -> np.ndarray:
    """Activation bytes one layer stores per micro-batch under ``mode``, FP8 casts and recompute modules counted."""
    return (_per_layer_stored(model, workload, tp, cp, mode) - _fp8_saved_less(model, workload, tp, cp, mode)
            - _modules_freed(model, workload, tp, cp, mode))


def mtp_stored_bytes(model: ModelPreset, workload: Workload, tp: np.ndarray | float) -> np.ndarray:
    """Bytes one multi-token-prediction depth stores per token on one GPU besides its transformer layer (rule R46).

    In 16 bits: the inputs of its two norms (the shifted tokens' embedding and the decoder's output, h each), their
    concatenation, ``eh_proj``'s input (2 h), and the final norm's input (h): 10 h bytes, split over TP with sequence
    parallelism (Megatron-Core scatters the module's tensors along the sequence as the decoder's), whole without.

    >>> from interconnect.workloads.presets import load_model_presets
    >>> int(mtp_stored_bytes(load_model_presets()["deepseek-v3"], Workload(sequence_parallel=False), 1))
    71680
    """
    per_token = 2.0 * (float(model.hidden) * 5)
    tp = np.asarray(tp, dtype=float)
    return per_token / tp if workload.sequence_parallel else per_token * np.ones_like(tp)


def _activations(model: ModelPreset, workload: Workload, tp: np.ndarray, pp: np.ndarray, cp: np.ndarray,
                 micro: np.ndarray, recompute: str | None = None, *, v: np.ndarray | float = 1.0,
                 most: np.ndarray | None = None, last: np.ndarray | None = None) -> np.ndarray:
    """Activation bytes on the pipeline stage that holds the most: per layer x layers x micro-batches in flight.

    Per layer and micro-batch as :func:`_per_layer_stored`; in flight as :func:`_in_flight`. The first
    stage holds the most micro-batches; with lighter ends it has a layer fewer, so the second stage
    (a full share of layers, slightly fewer in flight) may be the fullest: the larger of the two.
    Plus the FP32 logits of the output layer, ``4 s b V / t`` per copy the loss holds at its peak
    (``Workload.loss_fp32_copies``; on the last stage, counted here as the worse case). With
    ``offload_layers`` (no pipeline, Megatron-Core's rule) the offloaded layers keep nothing on the GPU but the
    one whose copy is under way. Megatron-Core's recompute modules free what :func:`_modules_freed` counts.
    With multi-token prediction (rule R46) the last stage may hold the most: its layers and the MTP layers, with
    what each MTP depth stores besides (:func:`mtp_stored_bytes`), for the micro-batches the last rank keeps in
    flight, and one more set of logits per depth (each loss keeps its own until the backward pass).
    """
    mode = recompute or workload.recompute
    per_layer = _stored_per_layer(model, workload, tp, cp, mode)
    if most is None or last is None:
        even_most, even_last = stage_layers(model.layers, pp, workload.lighter_ends, workload.last_stage_layers)
        most = even_most if most is None else most
        last = even_last if last is None else last
    if mode == "full" and workload.recompute_num_layers > 0:
        # Megatron-Core's "block" method: the layers past the first n of each chunk keep what no recomputation keeps
        # (the recompute modules act only under selective granularity, so none of them here)
        share = full_recompute_share(replace(workload, recompute="full"), most)
        plain = _stored_per_layer(model, replace(workload, recompute_modules=()), tp, cp, "none")
        per_layer = share * per_layer + (1.0 - share) * plain
    pp = np.asarray(pp, dtype=float)
    lighter = workload.lighter_ends & (pp > 2)
    first = np.where(lighter, most - 1, most) * _in_flight(workload.schedule, pp, micro, v, 0)
    second = np.where(pp > 1, most * _in_flight(workload.schedule, pp, micro, v, 1), 0.0)
    if workload.offload_layers:
        # layers whose activations went to the host keep none here, but the one being copied (our allowance)
        kept = np.minimum(np.maximum(most - workload.offload_layers, 0.0) + 1.0, most)
        first, second = first * kept / np.maximum(most, 1.0), second * kept / np.maximum(most, 1.0)
    s = workload.tokens(model) / cp
    logits = workload.loss_fp32_copies * 4 * s * workload.micro_batch * model.vocab / tp
    if workload.mtp_layers:
        n = float(workload.mtp_layers)
        in_last = _in_flight(workload.schedule, pp, micro, v, np.maximum(pp - 1.0, 0.0))
        tokens = s * workload.micro_batch
        last_stage = ((per_layer * (last + n) + n * tokens * mtp_stored_bytes(model, workload, tp)) * in_last
                      + (1.0 + n) * logits)
        return np.maximum(per_layer * np.maximum(first, second) + logits, last_stage)
    return per_layer * np.maximum(first, second) + logits
