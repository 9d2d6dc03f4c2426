"""The grid the step is computed on: every layout of a search as arrays, with what its layers take.

:class:`_Grid` holds one model, cluster and workload with the layouts' degrees as arrays and what follows from them
(stages, micro-batches, the groups' tiers); :class:`_LayerTimes` one layer's compute and micro-batch on that grid.
The step (:mod:`interconnect.topics.seating.model.step`) and the data-parallel costs
(:mod:`interconnect.topics.seating.model.data_parallel`) are computed on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.datafiles.bucket_costs import load_bucket_costs
from interconnect.hardware.cluster import Cluster
from interconnect.topics.seating.model.architecture import mla_projection_shapes
from interconnect.topics.seating.model.compute import layer_params
from interconnect.topics.seating.model.layout import Workload
from interconnect.topics.seating.model.memory import (
    full_recompute_share,
)
from interconnect.topics.seating.model.schedules import stage_layers
from interconnect.workloads.presets import ModelPreset

__all__ = ["OVERLAP_SLOWDOWN"]

#: Compute that runs while a collective runs beside it is slower than alone: the collective's kernels take SMs,
#: HBM bandwidth and power. Lee et al. 2025 (Characterizing Compute-Communication Overlap in GPU-Accelerated
#: Distributed Deep Learning, arXiv 2507.03114, abstract) measure 18.9 % on average (40 % at most) over GPT and
#: Llama training kernels on A100, H100, MI250 and MI210; one figure for every GPU family, as they give one. Declared
#: once, in ``ddp-bucket-costs.toml`` (``sm_contention``), which the Overlap page's buckets read too.
OVERLAP_SLOWDOWN = load_bucket_costs().contention

@dataclass(frozen=True)
class _Grid:
    """The layouts under evaluation as float arrays, with what every phase of the step reads.

    ``s`` is the sequence in tokens, ``b`` the micro-batch in sequences, ``h`` the hidden size,
    ``nbytes`` the bytes per value on the wire; ``micro`` the micro-batches per step per pipeline; ``most`` and
    ``last`` the layers on the fullest and on the last pipeline stage; ``groups`` maps a dimension
    (and ``edp``, expert data parallelism) to its GPUs per scale-up domain and domains spanned.
    """

    model: ModelPreset
    cluster: Cluster
    workload: Workload
    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    zero: np.ndarray
    edp: np.ndarray
    s: float
    b: int
    h: int
    nbytes: float
    micro: np.ndarray
    most: np.ndarray
    last: np.ndarray
    groups: dict[str, tuple[np.ndarray, np.ndarray]]

    @property
    def gpus(self) -> np.ndarray:
        """GPUs of each layout: TP x PP x DP x CP (EP is carved out of DP)."""
        return self.tp * self.pp * self.dp * self.cp

    @property
    def weight_ranks(self) -> np.ndarray:
        """Ranks that hold the same dense weights: the data-parallel replicas and their context-parallel ranks, over
        which the gradients are summed and ZeRO shards (Megatron-Core's ``dp_cp_group``, torchtitan's
        ``dp_shard_cp``)."""
        return self.dp * self.cp

    @property
    def full_share(self) -> np.ndarray:
        """The share of the fullest stage's layers recomputed whole (:func:`~.memory.full_recompute_share`)."""
        return full_recompute_share(self.workload, self.most)

    @property
    def passes(self) -> np.ndarray:
        """Passes that run the layer's collectives: forward, backward, and the recomputed forward (of the layers
        that full recomputation recomputes, an average over the stage's layers)."""
        return 2.0 + self.full_share


@dataclass(frozen=True)
class _LayerTimes:
    """Seconds one GPU spends on one layer and one micro-batch.

    GEMMs forward and backward (the inputs' and the weights' gradients together), attention forward, attention
    backward, all of it with recomputation (``compute``), and the output layer on the last stage.
    """

    gemm_fwd: np.ndarray
    gemm_bwd: np.ndarray
    attn_fwd: np.ndarray
    attn_bwd: np.ndarray
    compute: np.ndarray
    output: np.ndarray
    #: the forward time of attention's first context-parallel step (all of it without CP): what the first gather
    #: of K and V can hide behind in PyTorch's ring (``Workload.context_parallel`` "pytorch")
    attn_first_fwd: np.ndarray | float = 0.0
    #: the layer's forward pass alone (the rest of ``compute`` is its backward and recomputation)
    fwd: np.ndarray | float = 0.0
    #: the routed experts' GEMMs in the forward pass and in the backward pass (inputs' and weights' gradients
    #: together), per-call floors included: what Megatron-Core's combined 1F1B runs between dispatch and combine
    expert_fwd: np.ndarray | float = 0.0
    expert_bwd: np.ndarray | float = 0.0
    #: what one multi-token-prediction depth adds on the last stage besides its transformer layer, forward and
    #: backward (:func:`_mtp_extra_s`; 0 without ``Workload.mtp_layers``)
    mtp: np.ndarray | float = 0.0


def _grid(model: ModelPreset, cluster: Cluster, workload: Workload, tp: np.ndarray, pp: np.ndarray, dp: np.ndarray,
          cp: np.ndarray, ep: np.ndarray, zero: np.ndarray) -> _Grid:
    tp, pp, dp, cp, ep, zero = (np.asarray(v, dtype=float) for v in (tp, pp, dp, cp, ep, zero))
    domain = cluster.domain_size

    def shape(size: np.ndarray, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # consecutive ranks share a domain: a group with this stride has `per` members in each of `dom` domains
        per = np.where(stride < domain, np.maximum(1, np.minimum(size, domain // np.maximum(stride, 1))), 1)
        per = np.where(size <= 1, 1, per)
        return per.astype(int), np.ceil(size / per).astype(int)

    # expert layers (Megatron-Core's MoE parallel folding, expert TP 1 when EP > 1): EP takes consecutive ranks of
    # a stage, expert-data parallelism the rest of the stage's tp*cp*dp ranks; with EP 1 experts follow TP and DP
    folded = ep > 1
    edp = np.where(folded, np.maximum(1, tp * cp * dp / ep), dp)
    groups = {"tp": shape(tp, np.ones_like(tp)), "cp": shape(cp, tp), "dp": shape(dp, tp * cp),
              "dpcp": shape(dp * cp, tp),
              "ep": shape(ep, np.ones_like(tp)), "edp": shape(edp, np.where(folded, ep, tp * cp)),
              "pp": shape(pp, tp * cp * dp)}
    most, last = stage_layers(model.layers, pp, workload.lighter_ends, workload.last_stage_layers)
    return _Grid(model, cluster, workload, tp, pp, dp, cp, ep, zero, edp, workload.tokens(model),
                 workload.micro_batch, model.hidden, _wire_bytes(workload),
                 workload.global_batch / (dp * workload.micro_batch), most, last, groups)


def _wire_bytes(workload: Workload) -> float:
    """Bytes per activation or gradient value between GPUs: 2 (16-bit) even in FP8 training.

    FP8 is a GEMM input format: Transformer Engine casts a tensor to FP8 inside the module whose GEMM reads it and
    keeps the module's outputs, the residual stream, attention and the weight gradients in BF16 (NVIDIA
    Transformer Engine docs, "Using FP8 with Transformer Engine": "only the GEMMs run in FP8"), so pipeline sends,
    context-parallel K and V, the expert all-to-alls (Megatron-Core dispatches BF16 hidden states unless an FP8
    dispatch is asked for) and the data-parallel gradients move 2 bytes per value. The one FP8 transfer, TP's
    all-gather of a GEMM input, is :func:`_tensor_parallel`'s.
    """
    return float(max(workload.dtype_bytes, 2))


def _layer_gemm_shapes(g: _Grid) -> dict[str, tuple]:
    """A layer's linear layers on one TP rank: (outputs n, reduced k, weights) of QKV, the attention's output
    projection, FC1 (SwiGLU's two halves together) and FC2; the tokens of a micro-batch are the rows.

    Under multi-head latent attention (rule R42) QKV is four GEMMs instead (:func:`mla_projection_shapes`): the
    query's down- and up-projection (``q_a``, ``q_b``; one ``q`` without a query latent) and the keys' and values'
    (``kv_a``, ``kv_b``), each split over TP.
    """
    model, h, tp = g.model, g.h, g.tp
    per_layer_params, _ = layer_params(model)
    q, kv_width, out = float(model.query_width), float(model.kv_width), float(model.attention_out_width)
    mlp_w = np.maximum(per_layer_params - model.attention_params, 0.0)
    if model.is_mla:
        attention = {name: (n / tp, k, n * k) for name, (n, k) in mla_projection_shapes(model).items()}
    else:
        attention = {"qkv": ((q + kv_width) / tp, h, h * (q + kv_width))}
    return {**attention, "proj": (h, out / tp, out * h),
            "fc1": (mlp_w / (2 * h) / tp, h, mlp_w / 2),
            "fc2": (h, np.maximum(float(model.ffn_hidden) / tp, 1.0), mlp_w / 2)}
