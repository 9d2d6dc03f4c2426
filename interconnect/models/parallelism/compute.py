"""What a GPU computes with: catalog peak, memory and HBM bandwidth, and the sourced kernel rates.

Also the parameters one token meets per transformer layer, and the HBM passes charged for activations.
"""

from __future__ import annotations

from interconnect.models.cluster import Cluster
from interconnect.models.parallelism.layout import Workload
from interconnect.models.presets import ModelPreset

__all__ = [
    "layer_params",
]


#: Bytes moved through HBM per byte of stored activations: written and read back in the forward
#: pass, read and its gradient written in the backward pass (our count; the stored bytes per layer
#: are Korthikanti et al. 2022's, Table 2).
_MEMORY_PASSES_FWD, _MEMORY_PASSES_BWD = 2.0, 2.0


def _peak_flops(cluster: Cluster) -> float:
    from interconnect.catalog import get_catalog

    gpu = get_catalog().gpu(cluster.gpu)
    return float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude)


def _memory_bytes(cluster: Cluster) -> float:
    from interconnect.catalog import get_catalog

    # what a program can allocate: the driver-reported capacity where the catalog has it ("80 GB" H100s report
    # 81,559 MiB = 85.5 GB), else the label
    return float(get_catalog().gpu(cluster.gpu).usable_memory().quantity.to("B").magnitude)


def _hbm_bytes_per_s(cluster: Cluster) -> float:
    from interconnect.catalog import get_catalog

    return float(get_catalog().gpu(cluster.gpu).memory_bandwidth.quantity.to("B/s").magnitude)


def _rates(cluster: Cluster, workload: Workload) -> tuple[float, float, int, str]:
    """GEMM rate (FLOP/s), attention rate (FLOP/s), SMs and the basis, for this GPU and workload."""
    from interconnect.models.kernels import kernel_figures

    peak = _peak_flops(cluster)
    # FP8 GEMMs run at twice the BF16 rate on GPUs with FP8 tensor cores (Hopper, Blackwell, CDNA 3 data
    # sheets); Ampere and older have none, so FP8 there only halves the bytes
    has_fp8 = cluster.gpu not in ("p100", "v100", "a100-sxm")
    scale = 2.0 if workload.dtype_bytes == 1 and has_fp8 else 1.0
    if workload.compute_efficiency is not None:
        eff = float(workload.compute_efficiency)
        return peak * eff * scale, peak * eff, 0, f"{eff:.0%} of the BF16 peak (set by hand)"
    k = kernel_figures(cluster.gpu)
    if k is None:
        return peak * 0.5 * scale, peak * 0.5, 0, "50 % of the BF16 peak (no published kernel figures for this GPU)"
    return k.gemm_flops * scale, peak * k.attention_share_for(workload.attention), k.sms, k.gemm_basis


def layer_params(model: ModelPreset) -> tuple[float, float]:
    """Count the parameters one token meets per transformer layer, and the embedding's.

    The active parameters minus the input embedding and the output layer (``V h`` each), shared by
    the layers; MoE layers count the experts a token uses.

    Examples
    --------
    >>> from interconnect.models.presets import load_model_presets
    >>> per_layer, embed = layer_params(load_model_presets()["llama3-70b"])
    >>> f"{per_layer / 1e6:.0f}M per layer, {embed / 1e9:.2f}B per embedding"
    '856M per layer, 1.05B per embedding'
    """
    embed = float(model.vocab) * model.hidden
    matrices = 1 if model.tied_embeddings else 2  # a tied output layer reuses the embedding's matrix
    per_layer = max(model.active_params - matrices * embed, 0.5 * model.active_params) / model.layers
    return per_layer, embed
