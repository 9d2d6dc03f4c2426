"""What one GPU computes in a data-parallel step: the workload, its compute times and the GPU's rates.

Also the page's modes and defaults (bucket size, gradient precision) and the sources the Overlap page cites.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from interconnect.catalog import Catalog, Gpu, get_catalog
from interconnect.units import expects
from interconnect.workloads.presets import ModelPreset

__all__ = [
    "CLAIM_OVERLAP_FRACTION",
    "CLAIM_TIME_SAVED",
    "DEFAULT_BUCKET_BYTES",
    "GRADIENT_BYTES",
    "MAX_BUCKETS",
    "MODES",
    "MODE_LABELS",
    "OPTIMIZER_BYTES_PER_PARAM",
    "PLAYBOOK_TITLE",
    "PLAYBOOK_URL",
    "SCALING_BOOK_TITLE",
    "SCALING_BOOK_URL",
    "ModelShape",
    "compute_times_s",
    "gpu_rates",
]


MODES = ("overlap", "none", "ideal")
MODE_LABELS = {"overlap": "Bucketed overlap (DDP)", "none": "No overlap", "ideal": "Ideal overlap"}
#: Bytes per gradient element.
GRADIENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
#: PyTorch DDP's default bucket: ``bucket_cap_mb=25`` read as ``int(25 * 1024 * 1024)`` bytes
#: (pytorch/pytorch torch/nn/parallel/distributed.py, "default case (bucket cap is 25 MiB)").
DEFAULT_BUCKET_BYTES = 25 * 2**20
#: More buckets than this are merged (the bucket grows, with a note): the event list stays small
#: enough to draw and to send.
MAX_BUCKETS = 250_000
#: Bytes the optimizer step reads and writes per parameter, besides the gradient: mixed-precision
#: Adam keeps fp32 weights, momentum and variance (12 bytes, ZeRO paper section 3.1,
#: https://arxiv.org/abs/1910.02054), reads and rewrites them, and writes the 2-byte bf16 weights:
#: 12 + 12 + 2 = 26 bytes, plus the gradient it reads. Our estimate, memory-bound at HBM speed.
OPTIMIZER_BYTES_PER_PARAM = 26
#: Fixed-point passes for SM contention (each pass re-stretches the backward pass by c x overlap).
_CONTENTION_PASSES = 8

SCALING_BOOK_URL = "https://jax-ml.github.io/scaling-book/gpus/"
SCALING_BOOK_TITLE = ("Austin et al., How to Scale Your Model, part 12 'How to Think About GPUs', "
                      "section 'Rooflines for LLM Scaling on GPUs: Data Parallelism' and Quiz 5 question 1")
PLAYBOOK_URL = "https://huggingface.co/spaces/nanotron/ultrascale-playbook"
PLAYBOOK_TITLE = "Hugging Face, The Ultra-Scale Playbook (2025), appendix A3 and the data-parallelism section"

#: The episode's claim: overlapping about 85 % of communication cut iteration time by about 30 %.
#: No source for it has been found; it is checked here against T = T_comp + (1 - f) T_comm.
CLAIM_OVERLAP_FRACTION = 0.85
CLAIM_TIME_SAVED = 0.30

_COMPUTE, _COMM = 0, 1
_FORWARD, _BACKWARD, _OPTIMIZER, _BUCKET = 0, 1, 2, 3




@dataclass(frozen=True)
class ModelShape:
    """The model as the step schedule sees it: parameter counts (plain numbers of elements).

    Attributes
    ----------
    params : float
        Every parameter: the gradient has this many elements.
    matmul_params : float
        Parameters that multiply activations (2 FLOPs per token each, forward): all but an untied
        input embedding table, which is a lookup.
    head_params : float
        The output layer. Its backward runs first; unless it is tied to the input embedding, its
        gradient is the first one ready (0 if unknown).
    embedding_params : float
        The input embedding table, whose gradient is complete only at the end of the backward pass
        (0 if unknown). With tied embeddings this is the one shared matrix.
    tied : bool
        Output layer and input embedding share one matrix (its gradient is ready at the end).
    layers, hidden : int
        Transformer blocks and width (estimated as ``sqrt(N / (12 L))`` when only N and L are known).
    """

    label: str
    params: float
    matmul_params: float
    head_params: float
    embedding_params: float
    layers: int
    hidden: int
    tied: bool = False
    seq_len: int = 8192
    preset_id: str = "custom"

    @classmethod
    def from_preset(cls, preset: ModelPreset) -> ModelShape:
        """Build the workload of a preset's published shape, with its output layer and embedding placed in time.

        Parameters
        ----------
        preset : ModelPreset
            A model of ``models.toml``.

        Returns
        -------
        ModelShape
            Parameter counts: the gradient covers every parameter (all experts of a mixture of
            experts); compute covers the parameters one token uses, less the input embedding (a lookup,
            :math:`V h` parameters for vocabulary :math:`V` and width :math:`h`).

        Notes
        -----
        The output layer is untied from the embedding in every preset (Llama 3, Mixtral, DeepSeek-V3
        ``config.json``, ``tie_word_embeddings: false``).

        Examples
        --------
        >>> from interconnect.workloads.presets import load_model_presets
        >>> w = ModelShape.from_preset(load_model_presets()["llama3-8b"])
        >>> f"{w.params:.4g}", f"{w.matmul_params:.4g}", f"{w.head_params:.4g}", f"{w.embedding_params:.4g}"
        ('8.03e+09', '7.505e+09', '5.253e+08', '5.253e+08')
        """
        embedding = float(preset.vocab * preset.hidden)
        return cls(preset.name, float(preset.params), float(preset.active_params) - embedding, embedding, embedding,
                   preset.layers, preset.hidden, False, preset.seq_len, preset.id)

    @classmethod
    def from_params(cls, params: float, layers: int, *, seq_len: int = 8192) -> ModelShape:
        r"""Build a workload from a parameter count and a depth only: gradients stream out evenly.

        Parameters
        ----------
        params : float
            N, parameters.
        layers : int
            L, transformer blocks.
        seq_len : int, default 8192
            Sequence length in tokens.

        Returns
        -------
        ModelShape
            Every parameter a matmul parameter, no separate output layer or embedding.

        Notes
        -----
        The width comes from :math:`N \approx 12 L h^2` (Kaplan et al., ``arxiv-kaplan-scaling``,
        section 2.1, equation 2.1, embeddings left out):

        .. math:: h = \sqrt{N / (12 L)}

        Examples
        --------
        >>> w = ModelShape.from_params(8e9, 32)
        >>> w.hidden, w.embedding_params
        (4564, 0.0)
        """
        layers = max(int(layers), 1)
        hidden = max(int(round(math.sqrt(params / (12 * layers)))), 1)
        return cls(f"{params:.3g} parameters, {layers} layers", float(params), float(params), 0.0, 0.0, layers,
                   hidden, False, seq_len)


def gpu_rates(gpu_id: str | Gpu, catalog: Catalog | None = None) -> tuple[float, float]:
    """A GPU's dense BF16 compute rate and HBM bandwidth (spec figures).

    Parameters
    ----------
    gpu_id : str or interconnect.catalog.Gpu
        The GPU (a cluster's :meth:`~interconnect.hardware.cluster.Cluster.gpu_spec`), or its catalog id.
    catalog : interconnect.catalog.Catalog, optional
        Where an id is looked up (the packaged catalog by default).

    Returns
    -------
    flops_per_s : float
        Dense BF16 peak, FLOP/s.
    hbm_bytes_per_s : float
        Memory bandwidth, B/s.

    Examples
    --------
    >>> flops, hbm = gpu_rates("h100-sxm")
    >>> f"{flops:.4g} FLOP/s", f"{hbm:.3g} B/s"
    ('9.894e+14 FLOP/s', '3.35e+12 B/s')
    """
    gpu = (catalog or get_catalog()).gpu(gpu_id) if isinstance(gpu_id, str) else gpu_id
    return (float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude),
            float(gpu.memory_bandwidth.quantity.to("B/s").magnitude))


@expects(flops_per_s="FLOP/s", hbm_bytes_per_s="B/s", gradient_bytes="B")
def compute_times_s(workload: ModelShape, tokens_per_gpu: object, flops_per_s: float, hbm_bytes_per_s: float,
                    gradient_bytes: int, efficiency: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Compute the forward, backward and optimizer time for one GPU's tokens.

    Parameters
    ----------
    workload : ModelShape
        The model.
    tokens_per_gpu : array_like
        D, tokens per GPU.
    flops_per_s : float
        C, dense BF16 peak, FLOP/s.
    hbm_bytes_per_s : float
        W_HBM, memory bandwidth, B/s.
    gradient_bytes : int
        g, bytes per gradient element.
    efficiency : float, default 1.0
        eta, the share of the peak the matmuls reach.

    Returns
    -------
    forward_s, backward_s, optimizer_s : numpy.ndarray
        Times in s, one per token count.

    Notes
    -----
    .. math::

        T_{fwd} = \frac{2 N_{mm} D}{\eta C}, \quad T_{bwd} = \frac{4 N_{mm} D}{\eta C}, \quad
        T_{opt} = \frac{(26 + g) N}{W_{HBM}}

    Two FLOPs per matmul parameter per token forward and four backward (Kaplan et al.,
    ``arxiv-kaplan-scaling``, section 2.1). The optimizer is memory-bound: 26 bytes per parameter
    besides the gradient (:data:`OPTIMIZER_BYTES_PER_PARAM`, our estimate from the ZeRO paper's
    12 bytes of Adam state, https://arxiv.org/abs/1910.02054, section 3.1).

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> w = ModelShape.from_params(8e9, 32)
    >>> fwd, bwd, opt = compute_times_s(w, 4096, 989.4e12, 3.35e12, 2)
    >>> f"{fwd[0] * 1e3:.1f} ms", f"{bwd[0] * 1e3:.1f} ms", f"{opt[0] * 1e3:.1f} ms"
    ('66.2 ms', '132.5 ms', '66.9 ms')
    >>> fwd, _, opt = compute_times_s(w, 4096, Q_(989.4, "TFLOP/s"), Q_(3.35, "TB/s"), 2)
    >>> f"{fwd[0] * 1e3:.1f} ms", f"{opt[0] * 1e3:.1f} ms"
    ('66.2 ms', '66.9 ms')
    """
    tokens = np.atleast_1d(np.asarray(tokens_per_gpu, dtype=float))
    rate = flops_per_s * efficiency
    forward = 2 * workload.matmul_params * tokens / rate
    optimizer = np.full_like(tokens, (OPTIMIZER_BYTES_PER_PARAM + gradient_bytes) * workload.params / hbm_bytes_per_s)
    return forward, 2 * forward, optimizer
