"""Memory per GPU: weights, gradients and optimizer state by ZeRO stage, and activations.

Activations are counted tensor by tensor for the layer's shape (Korthikanti et al. 2022, Table 2) and
multiplied by the micro-batches the schedule keeps in flight; an allowance covers buffers and fragmentation.
"""

from __future__ import annotations

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
    "memory_summary",
    "memory_verdict",
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
    """
    s = workload.tokens(model) / cp
    b, h, a = workload.micro_batch, float(model.hidden), model.heads
    seq_total = workload.tokens(model)
    per_layer, _ = layer_params(model)
    kv_width = 2.0 * model.kv_heads * model.head_dim
    kv_split = np.minimum(tp, max(model.kv_heads, 1))  # KV heads are not split below one per GPU
    mlp_params = np.maximum(per_layer - (h * (model.heads * model.head_dim + kv_width)
                                         + model.heads * model.head_dim * h), 0.0)
    mask = 1.0 if workload.dropout else 0.0
    whole = 2 * h + 2 * h + 2 * h + 2 * h + 2 * mask * h  # norm inputs, QKV and MLP inputs, dropout masks
    q = float(model.heads * model.head_dim)             # the queries' width (the hidden size, or not: Qwen3)
    split = 2 * q + 2 * q + 2 * mlp_params / h           # queries, attention output, MLP intermediates
    kv = 2 * kv_width / kv_split                          # keys and values
    scores = (2 + 3 * mask) * a * seq_total / tp if workload.attention == "unfused" else 0.0
    if workload.sequence_parallel:
        selective = s * b * ((whole + split) / tp + kv)
        minimal = 2 * s * b * h / tp
    else:
        selective = s * b * (whole + split / tp + kv)
        minimal = 2 * s * b * h * np.ones_like(tp)
    full = selective + s * b * scores
    return {"none": full, "selective": selective, "full": minimal}[mode]


def _activations(model: ModelPreset, workload: Workload, tp: np.ndarray, pp: np.ndarray, cp: np.ndarray,
                 micro: np.ndarray, recompute: str | None = None, *, v: np.ndarray | float = 1.0,
                 most: np.ndarray | None = None) -> np.ndarray:
    """Activation bytes on the pipeline stage that holds the most: per layer x layers x micro-batches in flight.

    Per layer and micro-batch as :func:`_per_layer_stored`; in flight as :func:`_in_flight`. The first
    stage holds the most micro-batches; with lighter ends it has a layer fewer, so the second stage
    (a full share of layers, slightly fewer in flight) may be the fullest: the larger of the two.
    Plus the FP32 logits of the output layer, ``4 s b V / t`` (on the last stage, counted here as the
    worse case).
    """
    mode = recompute or workload.recompute
    per_layer = _per_layer_stored(model, workload, tp, cp, mode)
    if most is None:
        most, _ = stage_layers(model.layers, pp, workload.lighter_ends)
    pp = np.asarray(pp, dtype=float)
    lighter = workload.lighter_ends & (pp > 2)
    first = np.where(lighter, most - 1, most) * _in_flight(workload.schedule, pp, micro, v, 0)
    second = np.where(pp > 1, most * _in_flight(workload.schedule, pp, micro, v, 1), 0.0)
    s = workload.tokens(model) / cp
    logits = 4 * s * workload.micro_batch * model.vocab / tp
    return per_layer * np.maximum(first, second) + logits
