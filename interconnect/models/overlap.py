"""Hiding gradient communication behind the backward pass: the data-parallel step, bucket by bucket.

In data-parallel training every GPU computes the gradient of the whole model on its own tokens, then
an all-reduce averages the gradients before the optimizer step. PyTorch DDP does not wait for the
end of the backward pass: it packs gradients into buckets (``bucket_cap_mb=25``, i.e. 25 MiB) and
starts each bucket's all-reduce as soon as its gradients exist, on a second CUDA stream, while the
backward pass goes on (pytorch/pytorch ``torch/nn/parallel/distributed.py``; Li et al., "PyTorch
Distributed", VLDB 2020, https://arxiv.org/abs/2006.15704). Whatever communication is still running
when the backward pass ends is *exposed*: the step waits for it.

This module computes that step as an event list on two lanes (compute, communication) for three
modes, with every bucket's all-reduce time taken from the cluster model
(:func:`interconnect.models.collectives.allreduce`) at the bucket's size:

* ``none``: forward, backward, then every bucket's all-reduce back to back, then the optimizer.
* ``overlap``: bucketed overlap as DDP runs it. Gradients appear in backward order: the output
  layer's first, the transformer blocks' in proportion to their compute, the input embedding's at
  the very end (its backward costs almost nothing). Buckets queue on one communication stream.
  While communication kernels run, compute slows by the SM-contention factor ``c``, and every
  bucket costs the compute lane a fixed launch time (the reducer's bookkeeping and the collective's
  launch), whether or not bytes move (:func:`load_bucket_costs` gives sourced values for both).
* ``ideal``: the textbook bound. Gradients stream out evenly over the backward pass and there is no
  contention and no per-bucket cost, so with enough tokens only the last bucket is exposed.

Conventions: times in seconds (``_s``), sizes in bytes, rates in FLOP/s and bytes/s; a dense
transformer computes ``2 N`` FLOPs per token forward and ``4 N`` backward over its ``N`` matmul
parameters (the input embedding is a lookup, not a matmul). Quantities with units appear only at
the boundary (the CLI and the page parse "25 MiB" with :func:`interconnect.units.parse_quantity`).

Simplifications, said once: PyTorch never splits a tensor across buckets and caps its first bucket
at 1 MiB; here buckets are cut from the gradient as one stream. Attention's sequence-dependent
FLOPs are left out (they lengthen compute, so hiding gets easier with long sequences). Gradient
accumulation is not modelled: ``tokens_per_gpu`` are the tokens of the backward pass that ends
with the all-reduce.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from interconnect.catalog import Catalog, get_catalog
from interconnect.datafiles.overlap import BucketCost, BucketCosts, load_bucket_costs
from interconnect.models.cluster import Cluster
from interconnect.models.collectives import allreduce
from interconnect.models.presets import ModelPreset
from interconnect.units import expects

__all__ = [
    "CLAIM_OVERLAP_FRACTION",
    "CLAIM_TIME_SAVED",
    "DEFAULT_BUCKET_BYTES",
    "GRADIENT_BYTES",
    "MAX_BUCKETS",
    "MODES",
    "MODE_LABELS",
    "OPTIMIZER_BYTES_PER_PARAM",
    "PLAYBOOK_URL",
    "SCALING_BOOK_URL",
    "ClaimCheck",
    "EventList",
    "BucketCost",
    "BucketCosts",
    "Buckets",
    "Production",
    "Roofline",
    "StepResult",
    "Sweep",
    "Workload",
    "check_claim",
    "cluster_roofline_tokens",
    "comm_share_for_saving",
    "gpu_rates",
    "gradient_production",
    "load_bucket_costs",
    "make_buckets",
    "node_sweep",
    "overlap_step_time",
    "playbook_ratios",
    "scaling_book_rooflines",
    "schedule_from_times",
    "slowest_rank_lag",
    "step_schedule",
    "time_saved_fraction",
    "token_sweep",
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


# ------------------------------------------------------------------------------------------------
# What one GPU computes
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
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
    def from_preset(cls, preset: ModelPreset) -> Workload:
        """Build the workload of a preset's published shape, with its output layer and embedding placed in time.

        Parameters
        ----------
        preset : ModelPreset
            A model of ``models.toml``.

        Returns
        -------
        Workload
            Parameter counts: the gradient covers every parameter (all experts of a mixture of
            experts); compute covers the parameters one token uses, less the input embedding (a lookup,
            :math:`V h` parameters for vocabulary :math:`V` and width :math:`h`).

        Notes
        -----
        The output layer is untied from the embedding in every preset (Llama 3, Mixtral, DeepSeek-V3
        ``config.json``, ``tie_word_embeddings: false``).

        Examples
        --------
        >>> from interconnect.models.presets import load_model_presets
        >>> w = Workload.from_preset(load_model_presets()["llama3-8b"])
        >>> f"{w.params:.4g}", f"{w.matmul_params:.4g}", f"{w.head_params:.4g}", f"{w.embedding_params:.4g}"
        ('8.03e+09', '7.505e+09', '5.253e+08', '5.253e+08')
        """
        embedding = float(preset.vocab * preset.hidden)
        return cls(preset.name, float(preset.params), float(preset.active_params) - embedding, embedding, embedding,
                   preset.layers, preset.hidden, False, preset.seq_len, preset.id)

    @classmethod
    def from_params(cls, params: float, layers: int, *, seq_len: int = 8192) -> Workload:
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
        Workload
            Every parameter a matmul parameter, no separate output layer or embedding.

        Notes
        -----
        The width comes from :math:`N \approx 12 L h^2` (Kaplan et al., ``arxiv-kaplan-scaling``,
        section 2.1, equation 2.1, embeddings left out):

        .. math:: h = \sqrt{N / (12 L)}

        Examples
        --------
        >>> w = Workload.from_params(8e9, 32)
        >>> w.hidden, w.embedding_params
        (4564, 0.0)
        """
        layers = max(int(layers), 1)
        hidden = max(int(round(math.sqrt(params / (12 * layers)))), 1)
        return cls(f"{params:.3g} parameters, {layers} layers", float(params), float(params), 0.0, 0.0, layers,
                   hidden, False, seq_len)


def gpu_rates(gpu_id: str, catalog: Catalog | None = None) -> tuple[float, float]:
    """Look up a catalog GPU's dense BF16 compute rate and HBM bandwidth (spec figures).

    Parameters
    ----------
    gpu_id : str
        A GPU id of the catalog.
    catalog : interconnect.catalog.Catalog, optional
        The catalog (the packaged one by default).

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
    gpu = (catalog or get_catalog()).gpu(gpu_id)
    return (float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude),
            float(gpu.memory_bandwidth.quantity.to("B/s").magnitude))


@expects(flops_per_s="FLOP/s", hbm_bytes_per_s="B/s", gradient_bytes="B")
def compute_times_s(workload: Workload, tokens_per_gpu: object, flops_per_s: float, hbm_bytes_per_s: float,
                    gradient_bytes: int, efficiency: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Compute the forward, backward and optimizer time for one GPU's tokens.

    Parameters
    ----------
    workload : Workload
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
    >>> w = Workload.from_params(8e9, 32)
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


# ------------------------------------------------------------------------------------------------
# Buckets and when their gradients are ready
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Buckets:
    """How the gradient is cut: ``count`` buckets of ``size_bytes``, the last one ``last_bytes``."""

    gradient_bytes: float
    size_bytes: float
    count: int
    last_bytes: float
    notes: tuple[str, ...] = ()

    @property
    def end_bytes(self) -> np.ndarray:
        """Cumulative bytes at the end of each bucket, B (the last is the whole gradient)."""
        ends = (np.arange(self.count, dtype=float) + 1) * self.size_bytes
        ends[-1] = self.gradient_bytes
        return ends

    @property
    def sizes_bytes(self) -> np.ndarray:
        """Size of each bucket, B (the last may be smaller)."""
        sizes = np.full(self.count, self.size_bytes)
        sizes[-1] = self.last_bytes
        return sizes


@expects(gradient_bytes="B", bucket_bytes="B")
def make_buckets(gradient_bytes: float, bucket_bytes: float) -> Buckets:
    r"""Cut a gradient into buckets of at most a given size, saying what was changed.

    Parameters
    ----------
    gradient_bytes : float
        G, the gradient's size, B.
    bucket_bytes : float
        b, the bucket capacity, B (PyTorch DDP: 25 MiB, :data:`DEFAULT_BUCKET_BYTES`).

    Returns
    -------
    Buckets
        Count, full size and last size in B, and notes when the size was changed.

    Raises
    ------
    ValueError
        When ``bucket_bytes`` is not a positive finite number.

    Notes
    -----
    .. math:: n = \lceil G / b \rceil, \qquad s_{last} = G - (n - 1) \, b

    A bucket larger than the gradient holds it all; more than :data:`MAX_BUCKETS` buckets are
    merged into that many.

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> b = make_buckets(16e9, 25 * 2**20)
    >>> b.count, f"{b.last_bytes:.4g} B"
    (611, '9.216e+06 B')
    >>> make_buckets(Q_(16, "GB"), Q_(25, "MiB")).count
    611
    >>> make_buckets(1e9, 5e9).notes[0]
    'A bucket of 5 GB is larger than the 1 GB gradient: one bucket holds it all, so nothing can overlap.'
    """
    notes: list[str] = []
    gradient = float(gradient_bytes)
    size = float(bucket_bytes)
    if not (math.isfinite(size) and size > 0):
        raise ValueError("the bucket size must be a positive number of bytes")
    if size >= gradient:
        if size > gradient:
            notes.append(f"A bucket of {_bytes_text(size)} is larger than the {_bytes_text(gradient)} gradient: "
                         "one bucket holds it all, so nothing can overlap.")
        size = gradient
    ratio = gradient / size  # infinite for a denormal size: never handed to ceil()
    count = math.ceil(ratio - 1e-9) if ratio <= MAX_BUCKETS else MAX_BUCKETS + 1
    if count > MAX_BUCKETS:
        wanted = size
        size = gradient / MAX_BUCKETS
        count = MAX_BUCKETS
        many = f"{math.ceil(ratio):,}" if math.isfinite(ratio) else f"far more than {MAX_BUCKETS:,}"
        notes.append(f"{_bytes_text(wanted)} buckets would make {many} of them; "
                     f"using {_bytes_text(size)} ({MAX_BUCKETS:,} buckets).")
    last = gradient - (count - 1) * size
    return Buckets(gradient, size, count, max(last, 0.0), tuple(notes))


def _bytes_text(size: float) -> str:
    for factor, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size:.3g} B"


@dataclass(frozen=True)
class Production:
    """When gradient bytes become ready during the backward pass (piecewise linear, non-decreasing).

    The share of the backward pass elapsed when byte x of the gradient is ready is
    ``interp(x, bytes_knots, fraction_knots)``.
    """

    bytes_knots: tuple[float, ...]
    fraction_knots: tuple[float, ...]

    @expects(at_bytes="B")
    def fraction(self, at_bytes: np.ndarray) -> np.ndarray:
        """Compute the share of the backward pass elapsed when the given gradient bytes are ready.

        Parameters
        ----------
        at_bytes : numpy.ndarray
            Positions in the gradient, B.

        Returns
        -------
        numpy.ndarray
            Fractions in [0, 1].

        Examples
        --------
        >>> Production((0.0, 100e6), (0.0, 1.0)).fraction(np.array([25e6, 100e6])).tolist()
        [0.25, 1.0]
        """
        return np.interp(at_bytes, self.bytes_knots, self.fraction_knots)


def gradient_production(workload: Workload, gradient_bytes_per_param: int, mode: str) -> Production:
    """Order the gradient bytes as the backward pass produces them: output layer first, blocks, input embedding last.

    Parameters
    ----------
    workload : Workload
        The model.
    gradient_bytes_per_param : int
        g, bytes per gradient element.
    mode : {"overlap", "none", "ideal"}
        ``ideal`` streams gradients evenly over the backward pass.

    Returns
    -------
    Production
        Knots in B and in backward-pass share.

    Notes
    -----
    Our model of the backward order: the output layer's share of backward time is its share of
    matmul parameters, :math:`N_{head} / N_{mm}`; the blocks fill the rest evenly; the embedding's
    gradient (a scatter-add, almost free) is complete only at the end. A tied output layer computes
    first but its gradient, shared with the embedding, is ready last. A model without that
    information streams gradients evenly.

    Examples
    --------
    >>> from interconnect.models.presets import load_model_presets
    >>> p = gradient_production(Workload.from_preset(load_model_presets()["llama3-8b"]), 2, "overlap")
    >>> [round(f, 3) for f in p.fraction_knots]
    [0.0, 0.07, 1.0, 1.0]
    """
    g = float(gradient_bytes_per_param)
    total = workload.params * g
    if mode == "ideal" or (workload.head_params == 0 and workload.embedding_params == 0):
        return Production((0.0, total), (0.0, 1.0))
    head_share = min(workload.head_params / workload.matmul_params, 1.0) if workload.matmul_params > 0 else 0.0
    head = 0.0 if workload.tied else workload.head_params * g
    blocks_end = total - workload.embedding_params * g
    xs, fs = [0.0], [0.0 if head > 0 else head_share]
    for x, f in ((head, head_share), (blocks_end, 1.0), (total, 1.0)):
        if x > xs[-1]:
            xs.append(x)
            fs.append(f)
    return Production(tuple(xs), tuple(fs))


def slowest_rank_lag(ranks: object, spread: float) -> np.ndarray:
    r"""Compute how far the slowest of ``ranks`` GPUs lags a typical one, for speeds spread over ``spread``.

    Parameters
    ----------
    ranks : int or array of int
        GPUs that synchronise at every bucket (the data-parallel group).
    spread : float
        w, the range of speeds of GPUs of one model, as a fraction of the median (0.08: 8 %).

    Returns
    -------
    numpy.ndarray
        s, the fraction by which the slowest rank is slower than a typical one (0 for one rank).

    Notes
    -----
    Our model: GPU speeds uniform over :math:`[-w/2, w/2]` around the median, ranks drawn at
    random; the slowest of :math:`N` is on average

    .. math:: s_N = \frac{w}{2} \, \frac{N - 1}{N + 1}

    slower than the median GPU, which a one-GPU run measures on average. Sinha et al. (SC22,
    arXiv 2208.11035) measured 8 % average performance variation (at most 22 %) between V100s of
    one SKU on Summit, Vortex and Longhorn (:func:`load_bucket_costs`, ``gpu_spread``).

    Examples
    --------
    >>> [round(float(s), 4) for s in slowest_rank_lag(np.array([1, 2, 8]), 0.08)]
    [0.0, 0.0133, 0.0311]
    """
    n = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    return spread / 2 * (n - 1) / (n + 1)


# ------------------------------------------------------------------------------------------------
# The step
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class EventList:
    """The step as intervals on two lanes. Arrays share one index; times in seconds from step start.

    ``lane``: 0 compute, 1 communication. ``kind``: 0 forward, 1 backward, 2 optimizer step,
    3 all-reduce of a bucket (``bucket`` is its index, ``size_bytes`` its size; -1 and 0 otherwise).
    """

    start_s: np.ndarray
    end_s: np.ndarray
    lane: np.ndarray
    kind: np.ndarray
    bucket: np.ndarray
    size_bytes: np.ndarray

    LANES = ("compute", "communication")
    KINDS = ("forward", "backward", "optimizer step", "all-reduce")

    def __len__(self) -> int:
        return int(self.start_s.size)

    def label(self, index: int) -> str:
        """Describe one event in words.

        Parameters
        ----------
        index : int
            The event's index.

        Returns
        -------
        str
            ``forward``, ``backward``, ``optimizer step`` or ``all-reduce of bucket 3 (26.2 MB)``.

        Examples
        --------
        >>> buckets = make_buckets(100e6, 25e6)
        >>> step = schedule_from_times(Workload.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
        ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
        >>> step.events.label(1), step.events.label(3)
        ('backward', 'all-reduce of bucket 1 (25 MB)')
        """
        kind = int(self.kind[index])
        if kind == _BUCKET:
            return f"all-reduce of bucket {int(self.bucket[index]) + 1} ({_bytes_text(float(self.size_bytes[index]))})"
        return self.KINDS[kind]

    def rows(self) -> list[dict[str, object]]:
        """List the events as dicts: ``start_s``, ``end_s`` (s), ``lane``, ``label`` (and ``size_bytes`` for buckets).

        Returns
        -------
        list of dict
            One dict per event, JSON-ready.

        Examples
        --------
        >>> buckets = make_buckets(100e6, 25e6)
        >>> step = schedule_from_times(Workload.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
        ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
        >>> step.events.rows()[0]
        {'start_s': 0.0, 'end_s': 0.03, 'lane': 'compute', 'label': 'forward'}
        """
        rows = []
        for i in range(len(self)):
            row: dict[str, object] = {"start_s": float(self.start_s[i]), "end_s": float(self.end_s[i]),
                                      "lane": self.LANES[int(self.lane[i])], "label": self.label(i)}
            if int(self.kind[i]) == _BUCKET:
                row["size_bytes"] = float(self.size_bytes[i])
            rows.append(row)
        return rows

    def buckets(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the start and end times of the bucket all-reduces only.

        Returns
        -------
        start_s, end_s : numpy.ndarray
            Times in s from the start of the step, one per bucket.

        Examples
        --------
        >>> buckets = make_buckets(100e6, 25e6)
        >>> step = schedule_from_times(Workload.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
        ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
        >>> [f"{t * 1e3:.0f} ms" for t in step.events.buckets()[1]]
        ['47 ms', '62 ms', '77 ms', '92 ms']
        """
        mask = self.kind == _BUCKET
        return self.start_s[mask], self.end_s[mask]


@dataclass(frozen=True, eq=False)
class StepResult:
    """One training step of one GPU in one mode. Times in seconds.

    ``step_s = compute_s + wait_s + launch_s + contention_s + exposed_comm_s``; ``wait_s`` is the
    time spent waiting for the slowest rank (forward and backward run at its pace); ``launch_s`` is
    what the buckets' launches cost the compute lane (count x per-bucket time); ``comm_s`` is every
    bucket's all-reduce
    time added up; ``overlap_fraction`` is the share of ``comm_s`` hidden behind compute;
    ``compute_utilization`` is ``compute_s / step_s`` (MFU-style when efficiency is 1);
    ``saved_s`` is the time saved against the same step without overlap;
    ``hide_threshold_tokens`` is the tokens per GPU from which the backward pass lasts as long as
    every bucket's all-reduce but the last (infinite with one bucket: nothing can overlap).
    """

    mode: str
    workload: Workload
    tokens_per_gpu: float
    forward_s: float
    backward_s: float
    optimizer_s: float
    contention_s: float
    comm_s: float
    exposed_comm_s: float
    step_s: float
    no_overlap_step_s: float
    buckets: Buckets
    bucket_time_s: float
    last_bucket_time_s: float
    algorithm: str
    hide_threshold_tokens: float
    events: EventList
    notes: tuple[str, ...] = field(default=())
    launch_s: float = 0.0
    wait_s: float = 0.0

    @property
    def compute_s(self) -> float:
        """Forward, backward and optimizer time added up, s (no contention)."""
        return self.forward_s + self.backward_s + self.optimizer_s

    @property
    def backward_end_s(self) -> float:
        """When the (stretched) backward pass ends, s from the step's start."""
        return self.forward_s + self.backward_s + self.wait_s + self.launch_s + self.contention_s

    @property
    def compute_utilization(self) -> float:
        """Share of the step spent computing, compute_s / step_s (MFU-style when efficiency is 1)."""
        return self.compute_s / self.step_s if self.step_s > 0 else 1.0

    @property
    def overlap_fraction(self) -> float:
        """Share f of communication hidden, 1 - exposed / total (1 when there is nothing to communicate)."""
        return 1.0 - self.exposed_comm_s / self.comm_s if self.comm_s > 0 else 1.0

    @property
    def saved_s(self) -> float:
        """Time saved against the same step without overlap, s."""
        return self.no_overlap_step_s - self.step_s

    @property
    def comm_share(self) -> float:
        """Communication's share of the serialized step, T_comm / (T_comp + T_comm)."""
        total = self.compute_s + self.comm_s
        return self.comm_s / total if total > 0 else 0.0


def _candidates(production: Production, buckets: Buckets) -> np.ndarray:
    """Bucket indices where max_j [ready_j - j t] can peak: the ends and both sides of every knot.

    ready_j is piecewise linear in j (the knots of :class:`Production`) and j t is linear, so over
    the full buckets the maximum sits at an end of a linear piece.
    """
    n = buckets.count
    picks = {0, max(n - 2, 0), n - 1}
    for knot in production.bytes_knots:
        j = knot / buckets.size_bytes - 1
        picks.update((int(math.floor(j)), int(math.ceil(j))))
    return np.array(sorted(p for p in picks if 0 <= p <= n - 1), dtype=np.int64)


def _comm_end_s(forward_s: np.ndarray, backward_s: np.ndarray, fractions: np.ndarray, index: np.ndarray, count: int,
                t_full_s: np.ndarray, t_last_s: np.ndarray) -> np.ndarray:
    """When the last bucket's all-reduce ends, for buckets queued on one stream (closed form).

    With ready times r_j and durations t_j, end = max_j (r_j - S_j) + S_n where S_j is the sum of
    the durations before j. Full buckets all take t and the last takes t_last, so S_j = j t for
    j <= n - 1 and S_n = (n - 1) t + t_last. ``fractions`` are the backward shares at which the
    candidate buckets ``index`` are ready. Broadcasts over sweep axes (leading dimensions).
    """
    ready = forward_s[..., None] + fractions * backward_s[..., None]
    peak = np.max(ready - index * t_full_s[..., None], axis=-1)
    return peak + (count - 1) * t_full_s + t_last_s


def _contended(forward_s: np.ndarray, backward_s: np.ndarray, sm_contention: float, fractions: np.ndarray,
               index: np.ndarray, count: int, t_full_s: np.ndarray, t_last_s: np.ndarray,
               comm_s: np.ndarray, launch_s: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(stretched backward, end of communication): compute loses ``c`` seconds per second of overlap.

    Every bucket's launch first adds ``launch_s`` to the backward pass (``count`` x ``launch_s``).

    The overlapped communication is everything but what runs after the backward pass:
    O = T_comm - (end - T_bwd_end), since after the last gradient is ready the stream never idles.
    The backward pass is stretched to T_bwd + c O and the schedule recomputed until it settles
    (T_comp (1 + c f T_comm / T_comp) + (1 - f) T_comm, applied bucket by bucket).
    """
    base = backward_s + count * launch_s
    stretched = base
    end = _comm_end_s(forward_s, stretched, fractions, index, count, t_full_s, t_last_s)
    if sm_contention <= 0:
        return stretched, end
    for _ in range(_CONTENTION_PASSES):
        overlapped = np.clip(comm_s - (end - forward_s - stretched), 0.0, np.minimum(comm_s, stretched))
        stretched = base + sm_contention * overlapped
        end = _comm_end_s(forward_s, stretched, fractions, index, count, t_full_s, t_last_s)
    return stretched, end


def bucket_times_s(cluster: Cluster, buckets: Buckets, algorithm: str = "auto") -> tuple[float, float, str]:
    """Time the all-reduce of a full bucket and of the last one on a cluster.

    Parameters
    ----------
    cluster : Cluster
        Every GPU is one data-parallel rank.
    buckets : Buckets
        The bucket sizes in B.
    algorithm : str, default "auto"
        An all-reduce algorithm, or ``auto`` for the NCCL-like choice.

    Returns
    -------
    full_s, last_s : float
        All-reduce times in s.
    algorithm : str
        The algorithm that ran: a forced one the cluster cannot run (NVLS across nodes, SHARP
        without the switches) falls back to the NCCL-like choice.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> full, last, algorithm = bucket_times_s(cluster, make_buckets(16e9, 25 * 2**20))
    >>> f"{full * 1e3:.2f} ms", algorithm
    ('0.36 ms', 'nvls_tree')
    """
    sizes = [buckets.size_bytes, buckets.last_bytes]
    result = allreduce(cluster, sizes, algorithm)
    if algorithm != "auto" and not np.all(np.isfinite(result.time_us)):
        result = allreduce(cluster, sizes, "auto")
    return float(result.time_us[0]) * 1e-6, float(result.time_us[1]) * 1e-6, str(result.algorithm[0])


@expects(bucket_bytes="B", bucket_launch_s="s")
def step_schedule(
    cluster: Cluster,
    workload: Workload,
    tokens_per_gpu: float,
    *,
    bucket_bytes: float = DEFAULT_BUCKET_BYTES,
    gradient_dtype: str = "bf16",
    sm_contention: float = 0.0,
    mode: str = "overlap",
    efficiency: float = 1.0,
    algorithm: str = "auto",
    catalog: Catalog | None = None,
    bucket_time_fn: Callable[[np.ndarray], np.ndarray] | None = None,
    bucket_launch_s: float = 0.0,
    speed_spread: float = 0.0,
) -> StepResult:
    r"""Schedule one data-parallel training step of one GPU as an event list, and summarise it.

    Parameters
    ----------
    cluster : Cluster
        Every GPU of the cluster is one data-parallel rank (pure DP); its GPU sets the compute rates.
    workload : Workload
        The model (:meth:`Workload.from_preset` or :meth:`Workload.from_params`).
    tokens_per_gpu : float
        Tokens one GPU processes in the backward pass that ends with the all-reduce (>= 1).
    bucket_bytes : float
        Bucket capacity in B (PyTorch default 25 MiB), or a data-size Quantity.
    gradient_dtype : {"bf16", "fp16", "fp32"}
        Bytes per gradient element sent.
    sm_contention : float
        c in [0, 0.9]: the share of compute speed lost while communication kernels run (``overlap`` only).
    mode : {"overlap", "none", "ideal"}
        See the module docstring.
    efficiency : float
        Share of the GPU's dense BF16 peak the matmuls reach (1 = the rooflines' assumption).
    algorithm : str, default "auto"
        The all-reduce algorithm for the buckets.
    catalog : interconnect.catalog.Catalog, optional
        Where the GPU's rates come from.
    bucket_time_fn : callable, optional
        Bucket size (B, array) -> all-reduce time (s, array); default: the cluster model.
    bucket_launch_s : float, default 0.0
        Compute-lane time per bucket, s (``overlap`` and ``none``; :func:`load_bucket_costs` gives
        a sourced value).
    speed_spread : float, default 0.0
        Range of speeds between the cluster's GPUs, a fraction in [0, 0.5]: the step runs at the
        pace of the slowest rank (:func:`slowest_rank_lag`).

    Returns
    -------
    StepResult
        Times in s, with ``step_s = compute_s + launch_s + contention_s + exposed_comm_s``.

    Raises
    ------
    ValueError
        For an unknown mode or dtype, or a value out of range.

    Notes
    -----
    DDP starts each bucket's all-reduce once its gradients exist and queues buckets on one stream
    (Li et al., "PyTorch Distributed", VLDB 2020, https://arxiv.org/abs/2006.15704, section 3.2:
    gradient bucketing and overlap).
    The closed form of that queue is ours:

    .. math::

        T_{step} = T_{fwd} + \max\bigl(T_{bwd},\ \max_j (r_j - S_j) + S_n - T_{fwd}\bigr) + T_{opt},
        \qquad r_j = T_{fwd} + \phi(e_j) \, T_{bwd}

    where bucket :math:`j` holds gradient bytes up to :math:`e_j`, :math:`\phi` is the backward
    share at which that byte is ready (:func:`gradient_production`), and :math:`S_j` sums the
    all-reduce times before bucket :math:`j`. Without overlap,
    :math:`T_{step} = T_{fwd} + T_{bwd} + \sum_j t_j + T_{opt}`.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.units import Q_
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> step = step_schedule(cluster, Workload.from_params(8e9, 32), 4096)
    >>> f"{step.step_s * 1e3:.0f} ms", step.buckets.count, f"{step.exposed_comm_s * 1e3:.1f} ms exposed"
    ('352 ms', 611, '86.7 ms exposed')
    >>> same = step_schedule(cluster, Workload.from_params(8e9, 32), 4096, bucket_bytes=Q_(25, "MiB"))
    >>> same.step_s == step.step_s
    True
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if gradient_dtype not in GRADIENT_BYTES:
        raise ValueError(f"unknown gradient dtype {gradient_dtype!r}; choose one of {', '.join(GRADIENT_BYTES)}")
    tokens = float(tokens_per_gpu)
    if not (math.isfinite(tokens) and tokens >= 1):
        raise ValueError(f"tokens per GPU must be at least 1, got {tokens_per_gpu!r}")
    if not (0 <= sm_contention < 1):
        raise ValueError(f"SM contention must be in [0, 1), got {sm_contention!r}")
    if not (0 < efficiency <= 1):
        raise ValueError(f"efficiency must be in (0, 1], got {efficiency!r}")
    if not (math.isfinite(bucket_launch_s) and 0 <= bucket_launch_s <= 0.01):
        raise ValueError(f"the launch time per bucket must be in [0, 10 ms], got {bucket_launch_s!r} s")
    if not (math.isfinite(speed_spread) and 0 <= speed_spread <= 0.5):
        raise ValueError(f"the GPU speed spread must be in [0, 0.5], got {speed_spread!r}")
    grad = GRADIENT_BYTES[gradient_dtype]
    flops, hbm = gpu_rates(cluster.gpu, catalog)
    fwd, bwd, opt = (float(a[0]) for a in compute_times_s(workload, tokens, flops, hbm, grad, efficiency))
    buckets = make_buckets(workload.params * grad, bucket_bytes)
    notes: list[str] = []
    if bucket_time_fn is None:
        t_full, t_last, algo = bucket_times_s(cluster, buckets, algorithm)
        if algorithm not in ("auto", algo):
            notes.append(f"The {algorithm} all-reduce cannot run on this cluster; the buckets use the NCCL-like "
                         f"choice ({algo}) instead.")
    else:
        times = np.asarray(bucket_time_fn(np.array([buckets.size_bytes, buckets.last_bytes])), dtype=float)
        t_full, t_last, algo = float(times[0]), float(times[1]), "given"
    step = schedule_from_times(workload, tokens, fwd, bwd, opt, buckets, t_full, t_last,
                               production=gradient_production(workload, grad, mode), mode=mode,
                               sm_contention=sm_contention, algorithm=algo, bucket_launch_s=bucket_launch_s,
                               straggler=float(slowest_rank_lag(cluster.ranks, speed_spread)))
    return replace(step, notes=(*step.notes, *notes)) if notes else step


@expects(forward_s="s", backward_s="s", optimizer_s="s", bucket_time_s="s", last_bucket_time_s="s",
         bucket_launch_s="s")
def schedule_from_times(workload: Workload, tokens_per_gpu: float, forward_s: float, backward_s: float,
                        optimizer_s: float, buckets: Buckets, bucket_time_s: float, last_bucket_time_s: float, *,
                        production: Production, mode: str = "overlap", sm_contention: float = 0.0,
                        algorithm: str = "given", bucket_launch_s: float = 0.0,
                        straggler: float = 0.0) -> StepResult:
    r"""Schedule the step from given phase times and bucket all-reduce times (what :func:`step_schedule` computes).

    Parameters
    ----------
    workload : Workload
        The model.
    tokens_per_gpu : float
        Tokens per GPU (for the hide threshold).
    forward_s, backward_s, optimizer_s : float
        Phase times, s.
    buckets : Buckets
        The buckets (B).
    bucket_time_s, last_bucket_time_s : float
        All-reduce time of a full bucket and of the last one, s.
    production : Production
        When gradient bytes are ready.
    mode : {"overlap", "none", "ideal"}
        The schedule.
    sm_contention : float, default 0.0
        c, compute speed lost while communication runs (``overlap`` only).
    algorithm : str, default "given"
        The name to record.
    bucket_launch_s : float, default 0.0
        Compute-lane time per bucket, s: the reducer's bookkeeping and the collective's launch
        (``overlap`` and ``none``; the ``ideal`` bound has none).
    straggler : float, default 0.0
        How much slower than this GPU the slowest rank computes, a fraction
        (:func:`slowest_rank_lag`; ``overlap`` and ``none``).

    Returns
    -------
    StepResult
        As :func:`step_schedule` (same formulas), for measured compute times
        (``benchmarks/overlap_accuracy.py`` uses a published 1-GPU iteration).

    Notes
    -----
    Each of the :math:`n` buckets costs the compute lane :math:`t_{launch}`; with SM contention,
    compute also loses :math:`c` seconds per second of overlapped communication :math:`O`. Our
    fixed point stretches the backward pass to :math:`T_{bwd} + n \, t_{launch} + c \, O` and
    re-schedules until it settles. Small buckets pay both terms more often: more launches, and
    more communication time (each all-reduce pays its latency) for the SMs to share. No bucket's
    all-reduce can finish before the slowest rank has its gradients, so forward and backward run
    at that rank's pace, :math:`(1 + s)` times this GPU's; the difference is ``wait_s``.

    Examples
    --------
    >>> buckets = make_buckets(100e6, 25e6)
    >>> step = schedule_from_times(Workload.from_params(25e6, 50), 1, 0.03, 0.06, 0.0, buckets, 0.002, 0.002,
    ...                            production=Production((0.0, 100e6), (0.0, 1.0)), mode="ideal")
    >>> f"{step.step_s * 1e3:.1f} ms", f"{step.exposed_comm_s * 1e3:.1f} ms"
    ('92.0 ms', '2.0 ms')
    """
    if not (math.isfinite(straggler) and 0 <= straggler < 1):
        raise ValueError(f"the slowest rank's lag must be a fraction in [0, 1), got {straggler!r}")
    fwd0, bwd0, opt, t_full, t_last = forward_s, backward_s, optimizer_s, bucket_time_s, last_bucket_time_s
    tokens = float(tokens_per_gpu)
    comm = (buckets.count - 1) * t_full + t_last
    contention = sm_contention if mode == "overlap" else 0.0
    launch = buckets.count * bucket_launch_s if mode != "ideal" else 0.0
    lag = straggler if mode != "ideal" else 0.0
    # Every bucket waits for the slowest rank's gradients, so the step runs at that rank's pace.
    fwd, bwd = fwd0 * (1 + lag), bwd0 * (1 + lag)
    wait = (fwd0 + bwd0) * lag
    no_overlap_step = fwd0 + bwd0 + (fwd0 + bwd0) * straggler + buckets.count * bucket_launch_s + comm + opt

    if mode == "none":
        stretched = bwd + launch
        comm_end = fwd + stretched + comm
        starts = fwd + stretched + np.arange(buckets.count) * t_full
    else:
        index = _candidates(production, buckets)
        fractions = production.fraction(buckets.end_bytes[index])
        stretched_a, _ = _contended(np.array([fwd]), np.array([bwd]), contention, fractions, index, buckets.count,
                                    np.array([t_full]), np.array([t_last]), np.array([comm]),
                                    launch / buckets.count)
        stretched = float(stretched_a[0])
        ready = fwd + production.fraction(buckets.end_bytes) * stretched
        before = np.arange(buckets.count) * t_full  # S_j: every bucket before j is full
        starts = np.maximum.accumulate(ready - before) + before
        comm_end = float(starts[-1] + t_last)
    durations = np.full(buckets.count, t_full)
    durations[-1] = t_last
    exposed = max(comm_end - (fwd + stretched), 0.0)
    step = fwd + stretched + exposed + opt
    events = _events(fwd, stretched, opt, comm_end, starts, durations, buckets)
    per_token_bwd = bwd0 / tokens
    # Enough backward pass to cover every bucket but the last, which by construction ends the step.
    threshold = (comm - t_last) / per_token_bwd if per_token_bwd > 0 and buckets.count > 1 else math.inf
    return StepResult(
        mode=mode, workload=workload, tokens_per_gpu=tokens, forward_s=fwd0, backward_s=bwd0, optimizer_s=opt,
        contention_s=stretched - bwd - launch, comm_s=comm, exposed_comm_s=exposed, step_s=step,
        no_overlap_step_s=no_overlap_step, buckets=buckets, bucket_time_s=t_full, last_bucket_time_s=t_last,
        algorithm=algorithm, hide_threshold_tokens=threshold, events=events, notes=buckets.notes, launch_s=launch,
        wait_s=wait,
    )


def _events(fwd: float, bwd: float, opt: float, comm_end: float, starts: np.ndarray, durations: np.ndarray,
            buckets: Buckets) -> EventList:
    n = buckets.count
    compute_start = np.array([0.0, fwd, max(comm_end, fwd + bwd)])
    compute_end = np.array([fwd, fwd + bwd, max(comm_end, fwd + bwd) + opt])
    return EventList(
        start_s=np.concatenate([compute_start, starts]),
        end_s=np.concatenate([compute_end, starts + durations]),
        lane=np.concatenate([np.zeros(3, np.int8), np.ones(n, np.int8)]),
        kind=np.concatenate([np.array([_FORWARD, _BACKWARD, _OPTIMIZER], np.int8), np.full(n, _BUCKET, np.int8)]),
        bucket=np.concatenate([np.full(3, -1, np.int64), np.arange(n, dtype=np.int64)]),
        size_bytes=np.concatenate([np.zeros(3), buckets.sizes_bytes]),
    )


# ------------------------------------------------------------------------------------------------
# Sweeps (vectorized; the same closed form as the schedule)
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Sweep:
    """Exposed communication and utilisation along one axis (``x``), one row per series.

    ``exposed_s`` and ``utilization`` have shape (series, x); ``series`` names each row.
    """

    x: np.ndarray
    series: tuple[str, ...]
    exposed_s: np.ndarray
    utilization: np.ndarray
    step_s: np.ndarray
    comm_s: np.ndarray


def _sweep_rows(fwd: np.ndarray, bwd: np.ndarray, opt: np.ndarray, buckets: Buckets, production: Production,
                t_full: np.ndarray, t_last: np.ndarray, contention: float, mode: str,
                launch_s: float = 0.0, lag: object = 0.0) -> dict[str, np.ndarray]:
    comm = (buckets.count - 1) * t_full + t_last
    launch = launch_s if mode != "ideal" else 0.0
    compute = fwd + bwd + opt
    if mode != "ideal":
        fwd, bwd = fwd * (1 + np.asarray(lag)), bwd * (1 + np.asarray(lag))
    if mode == "none":
        stretched = bwd + buckets.count * launch
        end = fwd + stretched + comm
    else:
        index = _candidates(production, buckets)
        fractions = production.fraction(buckets.end_bytes[index])
        stretched, end = _contended(fwd, bwd, contention, fractions, index, buckets.count, t_full, t_last, comm,
                                    launch)
    exposed = np.maximum(end - (fwd + stretched), 0.0)
    step = fwd + stretched + exposed + opt
    return {"exposed": exposed, "utilization": compute / step, "step": step, "comm": comm}


@expects(bucket_bytes="B", bucket_launch_s="s")
def token_sweep(cluster: Cluster, workload: Workload, tokens: Sequence[float], *, bucket_bytes: float,
                gradient_dtype: str = "bf16", sm_contention: float = 0.0, efficiency: float = 1.0,
                modes: Sequence[str] = ("none", "overlap", "ideal"), algorithm: str = "auto",
                catalog: Catalog | None = None, bucket_launch_s: float = 0.0, speed_spread: float = 0.0) -> Sweep:
    """Sweep exposed communication and utilisation against tokens per GPU, for each mode.

    Parameters
    ----------
    cluster : Cluster
        The cluster (bucket times are fixed along the sweep).
    workload : Workload
        The model.
    tokens : sequence of float
        Tokens per GPU.
    bucket_bytes : float
        Bucket capacity, B.
    gradient_dtype, sm_contention, efficiency, algorithm, catalog, bucket_launch_s, speed_spread
        As for :func:`step_schedule`.
    modes : sequence of str
        One series per mode.

    Returns
    -------
    Sweep
        Exposed time, step time and communication in s, utilisation as a fraction; shape
        (modes, tokens).

    Notes
    -----
    The same closed form as :func:`step_schedule`, vectorised over the token axis.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> sweep = token_sweep(cluster, Workload.from_params(8e9, 32), [512, 4096, 32768], bucket_bytes=25 * 2**20)
    >>> bool(np.all(np.diff(sweep.exposed_s[1]) <= 0))
    True
    """
    grad = GRADIENT_BYTES[gradient_dtype]
    flops, hbm = gpu_rates(cluster.gpu, catalog)
    fwd, bwd, opt = compute_times_s(workload, tokens, flops, hbm, grad, efficiency)
    buckets = make_buckets(workload.params * grad, bucket_bytes)
    t_full, t_last, _ = bucket_times_s(cluster, buckets, algorithm)
    rows = [_sweep_rows(fwd, bwd, opt, buckets, gradient_production(workload, grad, mode), np.full_like(fwd, t_full),
                        np.full_like(fwd, t_last), sm_contention if mode == "overlap" else 0.0, mode, bucket_launch_s,
                        slowest_rank_lag(cluster.ranks, speed_spread)) for mode in modes]
    return Sweep(np.asarray(tokens, dtype=float), tuple(modes), np.array([r["exposed"] for r in rows]),
                 np.array([r["utilization"] for r in rows]), np.array([r["step"] for r in rows]),
                 np.array([r["comm"] for r in rows]))


@expects(bucket_bytes="B", bucket_launch_s="s")
def node_sweep(cluster: Cluster, workload: Workload, tokens_per_gpu: float, node_counts: Sequence[int], *,
               bucket_bytes: float, gradient_dtype: str = "bf16", sm_contention: float = 0.0, efficiency: float = 1.0,
               algorithms: Sequence[str] = ("auto", "ring"), catalog: Catalog | None = None,
               bucket_launch_s: float = 0.0, speed_spread: float = 0.0) -> Sweep:
    """Sweep bucketed overlap against the number of nodes, one series per all-reduce algorithm.

    Parameters
    ----------
    cluster : Cluster
        The cluster; each node count re-times the buckets on a bigger copy of it.
    workload : Workload
        The model.
    tokens_per_gpu : float
        Tokens per GPU.
    node_counts : sequence of int
        The x axis.
    bucket_bytes : float
        Bucket capacity, B.
    gradient_dtype, sm_contention, efficiency, catalog, bucket_launch_s, speed_spread
        As for :func:`step_schedule`.
    algorithms : sequence of str
        One series per algorithm: ``ring`` shows the :math:`2(n - 1)` latency steps of a ring
        growing with the GPU count (the Ultra-Scale Playbook's warning about 512+ GPUs,
        ``ultrascale-playbook``), ``auto`` what an NCCL-like chooser does instead.

    Returns
    -------
    Sweep
        Exposed time, step time and communication in s, utilisation as a fraction; shape
        (algorithms, node counts).

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> sweep = node_sweep(cluster, Workload.from_params(8e9, 32), 4096, [2, 64], bucket_bytes=25 * 2**20)
    >>> sweep.series, sweep.exposed_s.shape
    (('auto', 'ring'), (2, 2))
    """
    grad = GRADIENT_BYTES[gradient_dtype]
    flops, hbm = gpu_rates(cluster.gpu, catalog)
    counts = np.asarray(list(node_counts), dtype=float)
    fwd, bwd, opt = compute_times_s(workload, np.full(counts.size, float(tokens_per_gpu)), flops, hbm, grad,
                                    efficiency)
    buckets = make_buckets(workload.params * grad, bucket_bytes)
    production = gradient_production(workload, grad, "overlap")
    rows = []
    for algorithm in algorithms:
        times = np.array([bucket_times_s(cluster.with_nodes(int(k)), buckets, algorithm)[:2] for k in counts])
        lag = slowest_rank_lag(counts * cluster.gpus_per_node, speed_spread)
        rows.append(_sweep_rows(fwd, bwd, opt, buckets, production, times[:, 0], times[:, 1], sm_contention,
                                "overlap", bucket_launch_s, lag))
    return Sweep(counts, tuple(algorithms), np.array([r["exposed"] for r in rows]),
                 np.array([r["utilization"] for r in rows]), np.array([r["step"] for r in rows]),
                 np.array([r["comm"] for r in rows]))


# ------------------------------------------------------------------------------------------------
# The overlap-fraction model and the episode's claim
# ------------------------------------------------------------------------------------------------


@expects(compute_s="s", comm_s="s")
def overlap_step_time(compute_s: object, comm_s: object, overlap_fraction: object) -> np.ndarray:
    r"""Compute the iteration time when a fraction of the communication hides behind compute.

    Parameters
    ----------
    compute_s : array_like
        T_comp, s.
    comm_s : array_like
        T_comm, s.
    overlap_fraction : array_like
        f, the share of communication hidden.

    Returns
    -------
    numpy.ndarray
        Iteration time, s.

    Notes
    -----
    .. math:: T = T_{comp} + (1 - f) \, T_{comm}

    The textbook overlap model (as the Ultra-Scale Playbook writes it, ``ultrascale-playbook``,
    data-parallelism section); contention is left out.

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> overlap_step_time(100.0, 50.0, 0.85).tolist()
    [107.5]
    >>> f"{overlap_step_time(Q_(0.1, 's'), Q_(50, 'ms'), 0.85)[0]:.4f} s"
    '0.1075 s'
    """
    return np.atleast_1d(np.asarray(compute_s, float) + (1 - np.asarray(overlap_fraction, float))
                         * np.asarray(comm_s, float))


def time_saved_fraction(comm_share: object, overlap_fraction: object) -> np.ndarray:
    r"""Compute the share of the serialized step saved by overlapping a fraction of communication.

    Parameters
    ----------
    comm_share : array_like
        s = T_comm / (T_comp + T_comm).
    overlap_fraction : array_like
        f, the share of communication hidden.

    Returns
    -------
    numpy.ndarray
        The saving, a fraction of the serialized step.

    Notes
    -----
    From :func:`overlap_step_time` (our rearrangement):

    .. math:: \frac{f \, T_{comm}}{T_{comp} + T_{comm}} = f \, s

    Examples
    --------
    >>> f"{float(time_saved_fraction(0.353, 0.85)[0]):.1%}"
    '30.0%'
    """
    return np.atleast_1d(np.asarray(overlap_fraction, float) * np.asarray(comm_share, float))


def comm_share_for_saving(saving: float, overlap_fraction: float) -> float:
    r"""Compute the communication share that makes a claimed saving true.

    Parameters
    ----------
    saving : float
        The claimed saving, a fraction of the serialized step.
    overlap_fraction : float
        f, the share of communication hidden.

    Returns
    -------
    float
        s = saving / f (above 1: impossible; infinite for f <= 0).

    Notes
    -----
    .. math:: s = \frac{\text{saving}}{f}

    the inverse of :func:`time_saved_fraction`.

    Examples
    --------
    >>> f"{comm_share_for_saving(0.30, 0.85):.1%}"
    '35.3%'
    """
    if overlap_fraction <= 0:
        return math.inf
    return saving / overlap_fraction


@dataclass(frozen=True)
class ClaimCheck:
    """The 85 % -> 30 % claim against T = T_comp + (1 - f) T_comm, and what a given step gives."""

    claimed_fraction: float
    claimed_saving: float
    needed_comm_share: float
    needed_comm_over_compute: float
    step_fraction: float
    step_comm_share: float
    step_saving: float
    step_saving_if_claimed_fraction: float


def check_claim(step: StepResult, *, fraction: float = CLAIM_OVERLAP_FRACTION,
                saving: float = CLAIM_TIME_SAVED) -> ClaimCheck:
    r"""Check the 85 % -> 30 % claim: what communication share makes it true, and what a step gives.

    Parameters
    ----------
    step : StepResult
        A scheduled step.
    fraction : float, default :data:`CLAIM_OVERLAP_FRACTION`
        f, the claimed overlap.
    saving : float, default :data:`CLAIM_TIME_SAVED`
        The claimed saving.

    Returns
    -------
    ClaimCheck
        Fractions (dimensionless) for the claim and for ``step``.

    Notes
    -----
    The needed share is :math:`s = \text{saving} / f` (35.3 % for 30 % at f = 0.85);
    communication is then

    .. math:: \frac{T_{comm}}{T_{comp}} = \frac{s}{1 - s} = 0.55

    of compute. The step's own saving is measured against its no-overlap step.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> check = check_claim(step_schedule(cluster, Workload.from_params(8e9, 32), 4096))
    >>> f"{check.needed_comm_share:.1%}", f"{check.needed_comm_over_compute:.2f}"
    ('35.3%', '0.55')
    """
    share = comm_share_for_saving(saving, fraction)
    serial = step.no_overlap_step_s
    return ClaimCheck(
        claimed_fraction=fraction, claimed_saving=saving, needed_comm_share=share,
        needed_comm_over_compute=share / (1 - share) if share < 1 else math.inf,
        step_fraction=step.overlap_fraction, step_comm_share=step.comm_share,
        step_saving=step.saved_s / serial if serial > 0 else 0.0,
        step_saving_if_claimed_fraction=float(time_saved_fraction(step.comm_share, fraction)[0]),
    )


# ------------------------------------------------------------------------------------------------
# Rooflines: when does data-parallel communication hide?
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Roofline:
    """The Scaling Book's data-parallel threshold C / W, rebuilt from catalog figures.

    ``tokens`` is ours (catalog C over catalog W); ``published_tokens`` is the book's figure.
    """

    label: str
    flops_per_s: float
    bandwidth_bytes_per_s: float
    tokens: float
    published_tokens: float
    bandwidth_basis: str
    source_ids: tuple[str, ...]


def scaling_book_rooflines(catalog: Catalog | None = None) -> list[Roofline]:
    """Rebuild the three data-parallel rooflines of the Scaling Book's GPU chapter from the catalog.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog, optional
        The catalog (the packaged one by default).

    Returns
    -------
    list of Roofline
        Tokens per GPU above which data parallelism is compute-bound, ours and the book's.

    Notes
    -----
    Compute-bound data parallelism needs

    .. math:: D > C / W

    tokens per GPU, with bf16 gradients (in place of the book's per-layer MLP derivation), W the
    GPU's NVLink egress inside a node and the node's scale-out egress beyond it (the book:
    990e12 / 450e9 = 2,200; 990e12 / 400e9 = 2,475; B200 2250e12 / 400e9 = 5,625;
    :data:`SCALING_BOOK_URL`, section "Rooflines for LLM Scaling on GPUs"). Here C is the catalog's
    dense BF16 figure and W the catalog's NVLink rate per direction, or the reference server's NICs
    x the NIC line rate per direction.

    Examples
    --------
    >>> [f"{r.tokens:,.0f} tokens" for r in scaling_book_rooflines()]
    ['2,199 tokens', '2,474 tokens', '5,625 tokens']
    """
    catalog = catalog or get_catalog()
    rows = []
    h100 = catalog.gpu("h100-sxm")
    c_h100 = float(h100.bf16_dense.quantity.to("FLOP/s").magnitude)
    nvlink = float(h100.scaleup_bandwidth.per_direction().to("B/s").magnitude)
    rows.append(Roofline("H100, inside a node (NVLink 4, 450 GB/s per GPU)", c_h100, nvlink, c_h100 / nvlink, 2200,
                         "NVLink per direction per GPU", (*h100.bf16_dense.source_ids,
                                                          *h100.scaleup_bandwidth.source_ids)))
    for gpu_id, node_id, published in (("h100-sxm", "dgx-h100", 2475), ("b200", "hgx-b200", 5625)):
        gpu = catalog.gpu(gpu_id)
        node = catalog.node(node_id)
        nic = catalog.nic(node.nic)
        c = float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude)
        w = node.nics * float(nic.bandwidth.per_direction().to("B/s").magnitude)
        name = "H100" if gpu_id == "h100-sxm" else "B200"
        rows.append(Roofline(f"{name}, across nodes ({node.nics} x {nic.name.split(' (')[0]}, {w / 1e9:.0f} GB/s "
                             "per node)", c, w, c / w, published, "node egress per direction",
                             (*gpu.bf16_dense.source_ids, *nic.bandwidth.source_ids, *node.source_ids)))
    return rows


def cluster_roofline_tokens(cluster: Cluster, gradient_dtype: str = "bf16", catalog: Catalog | None = None) -> float:
    r"""Compute the Scaling Book's C / W threshold for a cluster (spec figures), scaled by gradient bytes / 2.

    Parameters
    ----------
    cluster : Cluster
        The cluster.
    gradient_dtype : {"bf16", "fp16", "fp32"}
        Bytes per gradient element (the book assumes 2).
    catalog : interconnect.catalog.Catalog, optional
        Where the GPU's rates come from.

    Returns
    -------
    float
        Tokens per GPU.

    Notes
    -----
    .. math:: D^* = \frac{C}{W} \cdot \frac{g}{2}

    W is the GPU's scale-up rate per direction when the job fits in one NVLink domain, else the
    domain's NIC line rate per direction added up (:data:`SCALING_BOOK_URL`).

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("b200", gpus_per_node=8, nodes=4)
    >>> f"{cluster_roofline_tokens(cluster):,.0f} tokens per GPU"
    '5,625 tokens per GPU'
    """
    flops, _ = gpu_rates(cluster.gpu, catalog)
    if cluster.domains <= 1:
        w = cluster.scaleup_spec_gbps * 1e9
    else:
        w = cluster.nic_line_gbps * cluster.nics_per_domain * 1e9
    return flops / w * GRADIENT_BYTES[gradient_dtype] / 2


def playbook_ratios(workload: Workload, tokens_per_gpu: float, cluster: Cluster,
                    catalog: Catalog | None = None) -> dict[str, float]:
    r"""Compute t_comm / t_compute for each kind of parallelism, from the Ultra-Scale Playbook's overlap conditions.

    Parameters
    ----------
    workload : Workload
        The model (width h and layers L).
    tokens_per_gpu : float
        D, tokens per GPU.
    cluster : Cluster
        The cluster.
    catalog : interconnect.catalog.Catalog, optional
        Where the GPU's rates come from.

    Returns
    -------
    dict of str to float
        ``dp``, ``zero3``, ``tp`` and ``pp`` ratios (dimensionless; at most 1: the communication
        can hide).

    Notes
    -----
    The Playbook's appendix A3 (``ultrascale-playbook``), evaluated for this cluster, with C the
    GPU's dense BF16 rate and W as in :func:`cluster_roofline_tokens` (per-GPU NIC for pp):

    .. math::

        r_{dp} = \frac{DP - 1}{DP} \frac{C}{D W}, \quad
        r_{zero3} = \frac{r_{dp}}{2}, \quad
        r_{tp} = \frac{TP - 1}{2 h} \frac{C}{W_{NVLink}}, \quad
        r_{pp} = \frac{C}{32 \, h \, L_{stage} \, W_{NIC}}

    The Playbook prints :math:`(N / 2D) ((DP-1)/DP) (C / W)` for dp, which keeps a stray factor of
    N (it compares one bucket with the whole backward pass); the form above is our dimensionally
    consistent one for the whole gradient (bf16) against the backward pass. For zero3,
    seq x mbs = the tokens per GPU; TP = GPUs per NVLink domain (at most 8); one pipeline stage per
    node.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> ratios = playbook_ratios(Workload.from_params(8e9, 32), 4096, cluster)
    >>> f"dp {ratios['dp']:.2f}, zero3 {ratios['zero3']:.2f}"
    'dp 0.59, zero3 0.29'
    """
    flops, _ = gpu_rates(cluster.gpu, catalog)
    dp = max(cluster.ranks, 1)
    dp_term = (dp - 1) / dp
    w_dp = cluster_roofline_tokens(cluster, "bf16", catalog)  # C / W
    tp = max(min(cluster.domain_size, 8), 1)
    w_nvlink = cluster.scaleup_spec_gbps * 1e9
    w_nic = cluster.nic_line_gbps * 1e9 * cluster.nics_per_node / cluster.gpus_per_node
    h = workload.hidden
    layers_per_stage = max(workload.layers / max(cluster.domains, 1), 1.0)
    return {
        "dp": dp_term * w_dp / tokens_per_gpu,
        "zero3": dp_term * w_dp / (2 * tokens_per_gpu),
        "tp": (tp - 1) / (2 * h) * flops / w_nvlink,
        "pp": flops / (32 * h * layers_per_stage * w_nic),
    }
