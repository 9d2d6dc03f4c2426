"""What a GPU computes with: catalog peak, memory and HBM bandwidth, and the sourced kernel rates.

Also the parameters one token meets per transformer layer, and the HBM passes charged for activations.
"""

from __future__ import annotations

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.hardware.stragglers import slowest_rank_lag
from interconnect.topics.seating.kernels_data import TileGrid
from interconnect.topics.seating.model.layout import Workload
from interconnect.units import magnitude_in
from interconnect.workloads.presets import ModelPreset

__all__ = [
    "layer_params",
]


#: Bytes moved through HBM per byte of stored activations by the memory-bound operators (norms, activation
#: functions, dropout, softmax, residual adds): in the forward pass each stored tensor is written by the operator
#: that makes it and read by the one that uses it (2); in the backward pass an operator reads the gradient of its
#: output and its saved input and writes the gradient of its input, the same size (3): GeLU's backward is
#: dx = dy * gelu'(x), LayerNorm's reads dy and x (and its two statistics) for dx, dropout's reads dy and the
#: mask. Our count from the operators' definitions (chain rule), as NVIDIA's performance guide classes these
#: layers as memory-limited, their time set by the bytes they move ("Memory-Limited Layers User's Guide",
#: docs.nvidia.com/deeplearning/performance); the stored bytes per layer are Korthikanti et al. 2022's (Table 2).
_MEMORY_PASSES_FWD, _MEMORY_PASSES_BWD = 2.0, 3.0


def _peak_flops(cluster: Cluster, workload: Workload | None = None) -> float:
    """Dense tensor-core peak, FLOP/s: BF16, or FP8 for an FP8 workload on a GPU with an FP8 figure."""
    gpu = cluster.gpu_spec()
    figure = gpu.fp8_dense if workload is not None and workload.dtype_bytes == 1 and gpu.fp8_dense else gpu.bf16_dense
    return magnitude_in(figure.quantity, "FLOP/s")


def _memory_bytes(cluster: Cluster) -> float:
    # what a program can allocate: the driver-reported capacity where the catalog has it ("80 GB" H100s report
    # 81,559 MiB = 85.5 GB), else the label
    return magnitude_in(cluster.gpu_spec().usable_memory().quantity, "B")


def _hbm_bytes_per_s(cluster: Cluster, workload: Workload | None = None) -> float:
    """HBM bandwidth the memory-bound passes reach, B/s.

    The spec figure, the workload's where it gives one (a GPU variant the catalog lacks) else the catalog's, times
    the share of it the family's fastest published memory-bound kernel reaches (``hbm_share`` of
    ``gpu-kernels.toml``; 1 where none is published).
    """
    from interconnect.topics.seating.kernels import kernel_figures

    k = kernel_figures(cluster.gpu)
    share = k.hbm_share if k is not None else 1.0
    if workload is not None and workload.hbm_bytes_per_s > 0:
        return float(workload.hbm_bytes_per_s) * share
    return magnitude_in(cluster.gpu_spec().memory_bandwidth.quantity, "B/s") * share


def _rates(cluster: Cluster, workload: Workload, seq: np.ndarray | float | None = None,
           causal: bool = True, gpus: np.ndarray | float | None = None) -> tuple[float, float, int | TileGrid, str]:
    """GEMM rate (FLOP/s), attention rate (FLOP/s), the GEMMs' tile grid and the basis, for this GPU and workload.

    The tile grid (``kernels.gemm_shape_factor``'s ``sms``) is the family's SMs and per-tile cost, that cost in
    elements of K scaled by the GEMMs' rate over the BF16 one (FP8); 0 where no kernel figures apply. With ``seq``,
    the tokens one attention call sees, the attention rate is the family's published rate at that length where it
    gives one (``KernelFigures.attention_flops_for``), an array like ``seq``; ``causal=False`` for a call without a
    mask (at the family's published rate for one where it gives it). ``gpus``: the job's GPU count, which sets how far
    its slowest GPU lags a typical one (the cluster's where not given; an array like the layouts').
    """
    from interconnect.topics.seating.kernels import kernel_figures

    peak = _peak_flops(cluster)
    # FP8 GEMMs: at the FP8 peak over the BF16 one (the catalog's fp8_dense; 2x on Hopper, Blackwell and CDNA 3,
    # 1x on Gaudi 3), or at the ratio measured on the family's kernels where there is one (H100: 1.765). A GPU
    # with no FP8 figure (A100 and older) runs them at the BF16 rate: FP8 there only halves the bytes. Attention,
    # norms and the rest stay in BF16.
    fp8_peak = _peak_flops(cluster, workload)
    spec_ratio = fp8_peak / peak
    k = kernel_figures(cluster.gpu)
    if workload.dtype_bytes != 1:
        scale, fp8_note = 1.0, ""
    elif spec_ratio == 1.0:
        scale, fp8_note = 1.0, ("; FP8 GEMMs at the BF16 rate: this GPU's FP8 peak is no higher than its BF16 one, "
                                "or it has no FP8 tensor cores (A100 and older) or no FP8 figure in the catalog")
    elif k is not None and k.fp8_gemm_ratio is not None:
        scale, fp8_note = k.fp8_gemm_ratio, f"; {k.fp8_basis}"
    else:
        scale = spec_ratio
        fp8_note = f"; FP8 GEMMs at {spec_ratio:.2g}x the BF16 rate, as the peaks (no FP8 measurement)"
    if workload.compute_efficiency is not None:
        eff = float(workload.compute_efficiency)
        return peak * eff * spec_ratio, peak * eff, 0, f"{eff:.0%} of the BF16 peak (set by hand){fp8_note}"
    if k is None:
        return (peak * 0.5 * scale, peak * 0.5, 0,
                f"50 % of the BF16 peak (no published kernel figures for this GPU){fp8_note}")
    # a GPU held below its rated power settles at a lower clock: its tensor-core kernels, GEMMs and attention alike,
    # keep the family's power_scale of their rate (1 at the rated limit or with no limit given)
    power = k.power_scale(workload.power_limit_w)
    power_note = f"; at a {workload.power_limit_w:.0f} W limit, {power:.3f} of that ({k.power_basis})" \
        if power != 1.0 else ""
    # a synchronous job waits for its slowest GPU at every collective: its tensor-core kernels go at the pace of the
    # slowest of its GPUs, the family's measured spread of speeds apart (hardware/stragglers.py)
    n = cluster.ranks if gpus is None else gpus
    lag = slowest_rank_lag(n, k.speed_spread)
    power = power / (1.0 + lag)
    if np.ndim(lag) == 0 and lag > 0:
        power_note += (f"; the slowest of {int(n):,} GPUs sets the pace, {float(lag):.1%} behind a typical one "
                       f"({k.speed_spread_basis})")
    if np.ndim(power) == 0:
        power = float(power)
    attention = peak * k.attention_share_for(workload.attention)
    if seq is not None:
        by_length = k.attention_flops_for(workload.attention, seq, causal)
        attention = by_length if by_length is not None else attention
    if workload.dropout and workload.attention == "cudnn":
        # dropout of the attention probabilities inside cuDNN's fused kernel: a random number drawn per score in the
        # forward and again in the backward, at the family's measured ratio of the call's time (1: none published)
        attention = attention / k.cudnn_dropout_ratio
    return (k.gemm_flops * scale * power, attention * power, k.tile_grid(scale), k.gemm_basis + fp8_note + power_note)


def layer_params(model: ModelPreset) -> tuple[float, float]:
    """Count the parameters one token meets per transformer layer, and the embedding's.

    The active parameters minus the input embedding and the output layer (``V h`` each), shared by
    the layers; MoE layers count the experts a token uses.

    Examples
    --------
    >>> from interconnect.workloads.presets import load_model_presets
    >>> per_layer, embed = layer_params(load_model_presets()["llama3-70b"])
    >>> f"{per_layer / 1e6:.0f}M per layer, {embed / 1e9:.2f}B per embedding"
    '856M per layer, 1.05B per embedding'
    """
    embed = float(model.vocab) * model.hidden
    matrices = 1 if model.tied_embeddings else 2  # a tied output layer reuses the embedding's matrix
    per_layer = max(model.active_params - matrices * embed, 0.5 * model.active_params) / model.layers
    return per_layer, embed
