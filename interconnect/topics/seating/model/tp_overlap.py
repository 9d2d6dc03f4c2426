"""What Transformer Engine's userbuffers TP overlap does to a layer's GEMMs: chunks, streams and SMs.

With TP-communication overlap on (Megatron-Core's ``tp_comm_overlap``, which NeMo's and Megatron-Bridge's
performance recipes switch on), Transformer Engine does not run a layer's tensor-parallel GEMMs whole beside
a collective. Each GEMM that an all-gather feeds or a reduce-scatter drains is run by one of three methods,
chosen per GEMM by name (``initialize_ub`` in transformer_engine/pytorch/module/base.py, TE v2.8-v2.10, and
transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp):

``ring``
    ``CommOverlapP2P``: the GEMM runs as TP chunks of :math:`T/t` token rows, one per ring step; each step
    passes one chunk to the next rank (copy engine by default, ``use_ce``). The all-gather form starts on the
    local chunk; the reduce-scatter form sends each finished partial output on. Chunk GEMMs go round-robin on
    up to :data:`UB_STREAMS` CUDA streams, so chunks whose inputs are in can run side by side.
``pipeline``
    ``CommOverlap.split_overlap_rs``: the GEMM runs as ``num_splits`` chunks of its output columns; each
    chunk's reduce-scatter starts when the chunk is done, on ``num_sm`` SMs; with ``set_sm_margin`` the GEMM is
    launched on the SMs less ``num_sm``.
``bulk``
    ``CommOverlap.bulk_overlap``: the backward pass's whole all-gather (of the saved input, for the weights'
    gradient) runs beside the inputs'-gradient GEMM, and the whole reduce-scatter of that gradient beside the
    weights'-gradient GEMM, on ``num_sm`` SMs.

:data:`UB_CONFIGS` holds TE's defaults and the configurations Megatron-Bridge's benchmark recipes pass
(NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/training/comm_overlap.py at v0.2.0); the functions below are
the times of one GEMM and its communication under each method, pure arithmetic on seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.units import expects

__all__ = ["UB_CONFIGS", "UB_STREAMS", "UbGemm", "bulk_extra_s", "packed_sms", "pipeline_s", "ring_s",
           "ub_config"]

#: CUDA streams the chunked GEMMs of one overlap are issued on, round-robin (``_NUM_MAX_UB_STREAMS = 3``,
#: transformer_engine/pytorch/module/base.py in TE v2.8-v2.9, cpp_extensions/gemm.py in v2.10-v2.12;
#: CommOverlapCore creates min(3, num_splits) compute streams).
UB_STREAMS = 3


@dataclass(frozen=True)
class UbGemm:
    """How one of a layer's GEMMs overlaps its TP communication.

    ``method`` is ``ring``, ``pipeline`` or ``bulk``; ``num_sm`` the SMs the communication kernels hold;
    ``sm_margin`` whether the GEMM is launched on the SMs less ``num_sm`` (TE's ``set_sm_margin``);
    ``num_splits`` the pipeline's chunks (a ring has TP chunks).
    """

    method: str
    num_sm: int = 1
    sm_margin: bool = False
    num_splits: int = 0


#: The GEMMs TE names, in the order a layer runs them: the forward pass's four, the backward pass's
#: all-gather-fed inputs' gradients of the row-parallel layers, and the column-parallel layers' bulk pairs.
GEMMS = ("qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop", "proj_dgrad", "fc2_dgrad",
         "qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad")

_RING = UbGemm("ring")


def _te_default() -> dict[str, UbGemm]:
    # initialize_ub's get_default_config (TE v2.9, transformer_engine/pytorch/module/base.py): ring_exchange for
    # qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad with num_sm 1 and no margin; pipeline for proj_fprop, fc2_fprop
    # and bulk for the dgrad/wgrad pairs with num_sm 16, set_sm_margin True (not ring_exchange), num_splits 4
    pipe, bulk = UbGemm("pipeline", 16, True, 4), UbGemm("bulk", 16, True)
    return dict(qkv_fprop=_RING, fc1_fprop=_RING, proj_dgrad=_RING, fc2_dgrad=_RING, proj_fprop=pipe,
                fc2_fprop=pipe, qkv_dgrad=bulk, qkv_wgrad=bulk, fc1_dgrad=bulk, fc1_wgrad=bulk)


def _bridge(bulk_sms: tuple[int, int, int, int], proj: UbGemm, fc2: UbGemm) -> dict[str, UbGemm]:
    # Megatron-Bridge's TransformerLayerTPOverlapCfg: BulkOverlapCfg(num_sm, set_sm_margin=False) for qkv_dgrad,
    # qkv_wgrad, fc1_dgrad, fc1_wgrad; RingExchangeOverlapCfg() (num_sm 1, no margin) for qkv_fprop, proj_dgrad,
    # fc1_fprop, fc2_dgrad; proj_fprop and fc2_fprop as given
    qd, qw, fd, fw = (UbGemm("bulk", n, False) for n in bulk_sms)
    return dict(qkv_fprop=_RING, fc1_fprop=_RING, proj_dgrad=_RING, fc2_dgrad=_RING, proj_fprop=proj,
                fc2_fprop=fc2, qkv_dgrad=qd, qkv_wgrad=qw, fc1_dgrad=fd, fc1_wgrad=fw)


#: FP8 configurations' RingExchangeOverlapCfg(num_sm=1, set_sm_margin=True) for proj_fprop and fc2_fprop.
_RING_RS = UbGemm("ring", 1, True)

#: Userbuffers configurations by the name Megatron-Bridge gives them (src/megatron/bridge/training/comm_overlap.py
#: at v0.2.0, the same at v0.3.0); "" is Transformer Engine's own defaults, what a recipe that names none runs.
UB_CONFIGS: dict[str, dict[str, UbGemm]] = {
    "": _te_default(),
    "userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192": _bridge(
        (4, 24, 2, 4), UbGemm("pipeline", 24, True, 4), UbGemm("pipeline", 16, True, 4)),
    "userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192": _bridge((4, 24, 2, 4), _RING_RS, _RING_RS),
    "userbuffers_bf16_h100_h16384_tp8_cp2_mbs1_seqlen8192": _bridge(
        (2, 24, 2, 2), UbGemm("pipeline", 24, True, 4), UbGemm("pipeline", 8, True, 4)),
    "userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192": _bridge((2, 24, 2, 2), _RING_RS, _RING_RS),
    "userbuffers_bf16_b200_h16384_tp4_cp2_mbs1_seqlen8192": _bridge(
        (8, 24, 2, 2), UbGemm("pipeline", 32, True, 4), UbGemm("pipeline", 8, True, 4)),
    "userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192": _bridge((8, 32, 2, 8), _RING_RS, _RING_RS),
}


def ub_config(name: str) -> dict[str, UbGemm]:
    """The per-GEMM overlap settings of a named configuration ("" for Transformer Engine's defaults).

    >>> ub_config("")["proj_fprop"]
    UbGemm(method='pipeline', num_sm=16, sm_margin=True, num_splits=4)
    """
    try:
        return UB_CONFIGS[name]
    except KeyError:
        known = ", ".join(repr(k) for k in UB_CONFIGS)
        raise ValueError(f"unknown TP-overlap configuration {name!r}; known: {known}") from None


def packed_sms(sms: int | float, chunks: np.ndarray | float) -> np.ndarray:
    r"""SMs one chunk has when :math:`g = \min(3, c)` chunks of a GEMM run side by side.

    ``g`` chunks of :math:`n` tiles each on :math:`S` SMs take :math:`\lceil g n / S \rceil` waves, which is
    :math:`\lceil n / (S/g) \rceil`: one chunk on :math:`S/g` SMs. So passing :math:`S/g` as the SM count to
    :func:`~interconnect.topics.seating.kernels.gemm_shape_factor` gives a chunk's share of the rate when the
    streams pack it with its neighbours.

    >>> float(packed_sms(132, 8)), float(packed_sms(132, 2))
    (44.0, 66.0)
    """
    return sms / np.minimum(float(UB_STREAMS), np.maximum(np.asarray(chunks, dtype=float), 1.0))


@expects(chunk_alone_s="s", chunk_packed_s="s", step_s="s")
def ring_s(chunk_alone_s: np.ndarray, chunk_packed_s: np.ndarray, step_s: np.ndarray,
           chunks: np.ndarray) -> np.ndarray:
    r"""Seconds a ring-exchange GEMM and its communication take together.

    :math:`c` chunks (the TP degree), :math:`c - 1` ring steps. The all-gather form starts the local chunk at
    once and each later chunk when its step has landed; the reduce-scatter form sends each partial output when
    its chunk is done. Either way the chunk GEMMs and the steps are two chains, and the later of

    .. math:: \max\left(c\, t_{packed},\; (c - 1)\, t_{step} + t_{alone}\right)

    ends it: all chunks back to back on the GPU (side by side on the streams, :math:`t_{packed}` each), or
    every step in turn and one chunk alone before or after them. The all-gather ring chains its steps (each send
    waits for the previous receive); the reduce-scatter form sends to a different peer each step on up to three
    send streams, so for it the steps taken in turn are an upper bound.

    >>> float(ring_s(1.0, 0.5, 0.2, 8))   # compute-bound: 8 chunks of 0.5
    4.0
    >>> float(ring_s(1.0, 0.5, 2.0, 8))   # communication-bound: 7 steps of 2 and a chunk alone
    15.0
    """
    return np.maximum(chunks * chunk_packed_s, (chunks - 1) * step_s + chunk_alone_s)


@expects(chunk_s="s", rs_chunk_s="s")
def pipeline_s(chunk_s: np.ndarray, rs_chunk_s: np.ndarray, splits: int) -> np.ndarray:
    r"""Seconds a pipelined GEMM + reduce-scatter takes: ``splits`` GEMM chunks, each chunk's reduce-scatter after it.

    A two-stage pipeline of equal stages, GEMM first:

    .. math:: \max\left(k\, t_{gemm} + t_{rs},\; t_{gemm} + k\, t_{rs}\right)

    >>> float(pipeline_s(1.0, 0.25, 4)), float(pipeline_s(0.25, 1.0, 4))
    (4.25, 4.25)
    """
    return np.maximum(splits * chunk_s + rs_chunk_s, chunk_s + splits * rs_chunk_s)


@expects(gemm_s="s", comm_s="s")
def bulk_extra_s(gemm_s: np.ndarray, comm_s: np.ndarray, num_sm: int, sms: int, sm_margin: bool) -> np.ndarray:
    r"""Seconds a bulk overlap adds to its GEMM: the SMs the collective holds, and the collective that outlasts it.

    Without a margin the GEMM is launched on every SM, but the collective's ``num_sm`` thread blocks hold theirs
    while it runs, so the GEMM loses :math:`t_{comm}\, n/S` of its time's worth of work; with a margin it runs
    on :math:`S - n` SMs throughout, :math:`t_{gemm}\, n / (S - n)` longer. A collective longer than the GEMM
    shows the rest.

    >>> f"{float(bulk_extra_s(1.0, 0.5, 24, 132, False)) * 1e3:.1f} ms"    # 24 of 132 SMs for half the GEMM
    '90.9 ms'
    >>> f"{float(bulk_extra_s(1.0, 0.5, 16, 132, True)) * 1e3:.1f} ms"     # 116 SMs for the whole GEMM
    '137.9 ms'
    """
    gemm_s, comm_s = np.asarray(gemm_s, dtype=float), np.asarray(comm_s, dtype=float)
    if sms <= 0:
        return np.maximum(comm_s - gemm_s, 0.0)
    lost = gemm_s * num_sm / (sms - num_sm) if sm_margin else np.minimum(comm_s, gemm_s) * num_sm / sms
    return lost + np.maximum(comm_s - gemm_s - lost, 0.0)
