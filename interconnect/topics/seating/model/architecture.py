"""Costs that follow from a model's architecture beyond the dense transformer layer, as pure functions.

Multi-head latent attention's projections (DeepSeek-V3, rule R42), multi-token prediction's weights (rule R46) and
Megatron-Core's overlap of the expert all-to-alls with another micro-batch's compute (rule R45). The step
(:mod:`interconnect.topics.seating.model.step`) charges them on its grid of layouts.
"""

from __future__ import annotations

import numpy as np

from interconnect.topics.seating.model.compute import layer_params
from interconnect.units import expects
from interconnect.workloads.presets import ModelPreset

__all__ = ["a2a_overlap_pair_s", "a2a_unpaired_share", "mla_projection_shapes", "mtp_params"]


def mla_projection_shapes(model: ModelPreset) -> dict[str, tuple[float, float]]:
    r"""The GEMMs that make multi-head latent attention's queries, keys and values: (outputs n, reduced k) each.

    DeepSeek-V3's attention (arXiv 2412.19437, section 2.1.1; rule R42 of ``training-runs.toml``), with :math:`h` the
    hidden size, :math:`n_h` heads, latents :math:`r_q` and :math:`r_{kv}` and head widths :math:`d_{nope}`,
    :math:`d_{rope}` and :math:`d_v` (:math:`d_{qk} = d_{nope} + d_{rope}`):

    - ``q_a``: :math:`h \to r_q`, the query's latent; ``q_b``: :math:`r_q \to n_h d_{qk}` (one ``q`` of
      :math:`h \to n_h d_{qk}` without a query latent);
    - ``kv_a``: :math:`h \to r_{kv} + d_{rope}`, the keys' and values' latent and the rotary key the heads share;
      ``kv_b``: :math:`r_{kv} \to n_h (d_{nope} + d_v)`.

    The output projection (:math:`n_h d_v \to h`) is the layer's ``proj``, as for any attention.

    >>> from interconnect.workloads.presets import load_model_presets
    >>> {k: tuple(int(v) for v in nk) for k, nk in mla_projection_shapes(load_model_presets()["deepseek-v3"]).items()}
    {'q_a': (1536, 7168), 'q_b': (24576, 1536), 'kv_a': (576, 7168), 'kv_b': (32768, 512)}
    """
    h, heads = float(model.hidden), float(model.heads)
    rkv, rope = float(model.kv_lora_rank or 0), float(model.qk_rope_head_dim or 0)
    nope, q = float(model.qk_nope_head_dim or 0), float(model.query_width)
    query = {"q": (q, h)} if model.q_lora_rank is None else {
        "q_a": (float(model.q_lora_rank), h), "q_b": (q, float(model.q_lora_rank))}
    return {**query, "kv_a": (rkv + rope, h), "kv_b": (heads * (nope + model.value_head_dim), rkv)}


def mtp_params(model: ModelPreset, mtp_layers: int) -> float:
    r"""Weights the multi-token-prediction modules add to the model's count (a count; rule R46).

    Per depth one transformer layer as the model holds its layers (the dense part and the experts' averaged over
    the layers) and ``eh_proj``'s :math:`2h \cdot h`; the norms are left out, the embedding and the output layer are
    the model's (a stage that holds MTP without the embedding keeps a copy of it, which :func:`_params_per_gpu`
    adds). DeepSeek's weights note gives 11.5B for DeepSeek-V3's one module (deepseek-ai/DeepSeek-V3
    README_WEIGHTS.md), the averaged layer 4 % less:

    >>> from interconnect.workloads.presets import load_model_presets
    >>> f"{mtp_params(load_model_presets()['deepseek-v3'], 1) / 1e9:.2f}B"
    '11.07B'
    """
    if mtp_layers <= 0:
        return 0.0
    _, embed = layer_params(model)
    ends = 1 if model.tied_embeddings else 2
    layer = (model.dense_params - ends * embed) / model.layers + model.expert_params / model.layers
    return mtp_layers * (layer + 2.0 * float(model.hidden) ** 2)


@expects(a2a_s="s", attn_fwd_s="s", experts_fwd_s="s", experts_dgrad_s="s", experts_wgrad_s="s", rest_bwd_s="s")
def a2a_overlap_pair_s(a2a_s, attn_fwd_s, experts_fwd_s, experts_dgrad_s, experts_wgrad_s, rest_bwd_s) -> np.ndarray:
    r"""Seconds one forward layer and another micro-batch's backward layer take together under Megatron-Core's
    expert-parallel all-to-all overlap (``overlap_moe_expert_parallel_comm`` with ``delay_wgrad_compute``; rule R45).

    Megatron-Core's combined 1F1B runs the two layers' nodes on a compute and a communication stream, each micro-batch's
    nodes in order (megatron/core/models/common/model_chunk_schedule_plan.py at 0d8e071,
    ``TransformerLayerSchedulePlan.run``):

    - communication: combine backward, then dispatch forward and dispatch backward, then combine forward;
    - compute: attention and router forward (:math:`A`), then the experts' input gradients (:math:`M_b`), their
      weight gradients (:math:`M_w`) and the experts forward (:math:`M_f`), then the rest of the backward (:math:`B`).

    The dispatch forward waits for :math:`A`, the experts forward for the dispatch, the dispatch backward for
    :math:`M_b`, the rest of the backward for the dispatch backward; with :math:`t` one all-to-all, from both streams
    idle:

    .. math:: T = \max(A, t) + \max\big(\max(M_b + M_w, t) + M_f,\; \max(M_b, t) + t\big) + \max(B, t)

    which is the compute alone when every window is longer than the all-to-all, and :math:`4t` with no compute.

    >>> f"{float(a2a_overlap_pair_s(1.0, 2.0, 2.0, 1.0, 1.0, 2.0)):.1f}"    # every all-to-all hidden: the compute
    '8.0'
    >>> f"{float(a2a_overlap_pair_s(3.0, 2.0, 2.0, 1.0, 1.0, 2.0)):.1f}"    # 3 + max(3 + 2, 3 + 3) + 3
    '12.0'
    """
    t, a, mf, mb, mw, b = (np.asarray(v, dtype=float) for v in (a2a_s, attn_fwd_s, experts_fwd_s, experts_dgrad_s,
                                                                 experts_wgrad_s, rest_bwd_s))
    middle = np.maximum(np.maximum(mb + mw, t) + mf, np.maximum(mb, t) + t)
    return np.maximum(a, t) + middle + np.maximum(b, t)


def a2a_unpaired_share(pp: np.ndarray | float, virtual: int, micro: np.ndarray | float) -> np.ndarray:
    """Share of a rank's forward (and backward) chunk steps that run alone under the combined 1F1B, not beside another
    micro-batch's (rule R45).

    Without pipelining the first forward and the last backward (megatron/core/pipeline_parallel/combined_1f1b.py at
    0d8e071: "executed alone, no a2a overlapping"): 1 of the micro-batches. With PP stages of ``virtual`` chunks a rank
    warms up with :math:`2(p - 1 - r) + (v - 1)p + 1` chunk forwards, one more than the interleaved schedule's own, and
    cools down with as many backwards, of :math:`m v` (schedules.py, ``get_pp_rank_microbatches``, the micro-batch
    group per virtual stage PP by default); at the mean rank :math:`(p - 1) + (v - 1)p + 1 = v p`. At most 1.

    So the share is :math:`p / m` whatever the chunk count: a layout whose VP the model picks (``virtual_stages`` 0)
    loses nothing by being charged at one chunk before the pick.

    >>> [round(float(v), 4) for v in a2a_unpaired_share(np.array([1, 8, 4]), 4, np.array([8, 128, 8]))]
    [0.125, 0.0625, 0.5]
    >>> [round(float(a2a_unpaired_share(8, v, 128)), 4) for v in (1, 5, 12)]
    [0.0625, 0.0625, 0.0625]
    """
    pp, micro = (np.asarray(v, dtype=float) for v in (pp, micro))
    steps = np.maximum(micro * virtual, 1.0)
    warm = np.where(pp > 1, (pp - 1.0) + (virtual - 1.0) * pp + 1.0, 1.0)
    return np.minimum(warm / np.where(pp > 1, steps, np.maximum(micro, 1.0)), 1.0)
