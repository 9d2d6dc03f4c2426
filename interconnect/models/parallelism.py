"""The seating chart: where each kind of parallelism talks, how much, on which wire, and what it costs.

A training step of a transformer split TP x CP x DP x PP ways (tensor, context, data, pipeline
parallelism; expert parallelism EP inside DP for mixture-of-experts models) on a
:class:`~interconnect.models.cluster.Cluster`. For every dimension this module computes the bytes
each GPU sends per step, how many collective calls carry them, which tier they use (NVLink inside a
scale-up domain, the NICs across domains), the time on that tier from the collective models of
:mod:`interconnect.models.collectives`, how much of it can hide behind compute, and the exposed rest;
then the step time, the compute utilisation, the pipeline bubble, and the memory per GPU by ZeRO
stage. :func:`search_layouts` tries every valid factorization of the GPU count, vectorised over
layouts, and returns the fastest that fits in memory.

Rank placement (Megatron-LM's default order): TP varies fastest, then CP, then DP, then PP, so a
TP group is ``tp`` consecutive ranks; an EP group is ``ep`` consecutive DP ranks. A scale-up domain
holds consecutive ranks. Nothing here says "keep TP inside the node": that comes out of the
times (a TP group that spans domains runs its all-reduces over the NICs).

Units are in the names: bytes, seconds (``_s``), FLOP. Sources of the formulas:

* traffic per dimension: Ultra-Scale Playbook (Hugging Face, 2025), sections on data, tensor,
  sequence, context, pipeline and expert parallelism and appendix A3; ml-engineering
  ``training/model-parallelism/README.md``; Megatron-LM with sequence parallelism: 2 all-gathers
  and 2 reduce-scatters of ``s·b·h`` per layer in the forward pass, the same volume as 2 all-reduces
  (Korthikanti et al. 2022, arXiv 2205.05198, section 4.2.2);
* memory: mixed-precision Adam, ``2 + 2 + 12`` bytes per parameter, sharded by ZeRO stage
  (Rajbhandari et al. 2019, arXiv 1910.02054, Figure 1); activations per layer counted tensor by
  tensor as Korthikanti et al. 2022 (Table 2) do, for the layer's own shape (grouped-query attention's
  KV heads, a gated MLP's three matrices, dropout masks only with dropout): a GPT gives their
  ``s·b·h·(34 + 5·a·s/h)/t`` with TP and sequence parallelism, ``34·s·b·h/t`` with selective and
  ``2·s·b·h/t`` with full recomputation; micro-batches in flight as Megatron-LM's schedules count them;
* compute: model FLOPs ``6·N_active + 12·L·h·s`` per token (PaLM, arXiv 2204.02311, appendix B);
  time per layer from the sourced GEMM and flash-attention rates of the GPU family at the layout's
  GEMM shapes (:mod:`interconnect.models.kernels`) plus the HBM traffic of the stored activations;
  the slowest pipeline stage sets the pace; the bubble by schedule (:data:`SCHEDULES`: 1F1B,
  interleaved, zero-bubble, DualPipe; Narayanan et al. 2021, arXiv 2104.04473, section 2.2).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace

import numpy as np

from interconnect.models.cluster import Cluster
from interconnect.models.collectives import collective
from interconnect.models.presets import ModelPreset
from interconnect.units import InterconnectError, expects

__all__ = [
    "DIMENSIONS",
    "PLAN_DEFAULTS",
    "fit_layout",
    "layer_params",
    "stage_layers",
    "RESERVED_SHARE",
    "SCHEDULES",
    "ATTENTION_KERNELS",
    "DIMENSION_LABELS",
    "Dimension",
    "Layout",
    "LayoutError",
    "Memory",
    "Plan",
    "SearchResult",
    "Workload",
    "check_layout",
    "dp_traffic_bytes",
    "group_domains",
    "groups_of",
    "layout_problems",
    "memory_per_gpu",
    "pipeline_bubble_fraction",
    "plan",
    "rank_grid",
    "search_layouts",
    "seat_map",
    "tp_bytes_per_layer",
    "tp_comparison",
]

DIMENSIONS = ("tp", "cp", "ep", "dp", "pp")
#: Pipeline schedules, with the idle time each pays in units of one micro-batch's forward and backward
#: on the slowest stage: 1F1B p - 1 (Narayanan et al. 2021, arXiv 2104.04473, section 2.2.1);
#: interleaved 1F1B with v model chunks per GPU (p - 1) / v, for v times the stage-boundary sends
#: (same paper, section 2.2.2); zero-bubble ZB-H1 about a third of 1F1B's at 1F1B's memory, by
#: splitting the backward pass into input and weight gradients and filling the bubble with the latter
#: (Qi et al. 2023, arXiv 2401.10241, section 3); DualPipe, bidirectional, as DeepSeek-V3 trained:
#: (p/2 - 1)(F&B + B - 3W), i.e. (p/2 - 1) x 2/3 micro-batch times with F = W = 1, B = 2, F&B = F + B,
#: for two copies of the weights and p + 1 micro-batches in flight, with the expert all-to-all of one
#: chunk hidden behind the other's compute (deepseek-ai/DualPipe README; DeepSeek-V3 report,
#: arXiv 2412.19437, section 3.2.1).
#: Attention kernels a workload may name (see :class:`Workload`).
ATTENTION_KERNELS = ("flash", "flash2", "unfused")
SCHEDULES = {"1f1b": "1F1B", "interleaved": "interleaved 1F1B", "zero-bubble": "zero-bubble (ZB-H1)",
             "dualpipe": "DualPipe"}
#: Memory set aside per GPU for what the formulas do not count: the CUDA and NCCL context, communication
#: buffers and the caching allocator's fragmentation. Our allowance, 10 % of the GPU's memory; the ZeRO
#: paper (arXiv 1910.02054, section 3.2 and 6.3) reports fragmentation alone leaving 30 % unusable in
#: extreme cases, which its memory defragmentation removes.
RESERVED_SHARE = 0.10
#: Bytes moved through HBM per byte of stored activations: written and read back in the forward
#: pass, read and its gradient written in the backward pass (our count; the stored bytes per layer
#: are Korthikanti et al. 2022's, Table 2).
_MEMORY_PASSES_FWD, _MEMORY_PASSES_BWD = 2.0, 2.0
DIMENSION_LABELS = {"tp": "Tensor (TP)", "cp": "Context (CP)", "ep": "Expert (EP)", "dp": "Data (DP)",
                    "pp": "Pipeline (PP)"}
#: Bytes per parameter of mixed-precision Adam: BF16 weights 2, BF16 gradients 2, FP32 master weights,
#: momentum and variance 4 + 4 + 4 (ZeRO paper, arXiv 1910.02054, section 3.1, K = 12).
PARAM_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 2.0, 12.0
#: Message sizes at which each collective is tabulated (two per octave, 1 B to 1 TiB); times between
#: them are interpolated log-log, which keeps one layout's bill and the search in exact agreement.
_TABLE_SIZES = 2.0 ** np.arange(0, 40.5, 0.5)


#: Defaults shared by the Seating chart page and ``interconnect plan`` (the page's link keys in brackets):
#: Llama 3 70B on 8 nodes of 8 H100, TP 8 x PP 4 with DP taking the rest, ZeRO-1 (the distributed
#: optimizer), 1F1B, selective recomputation, sequence parallelism, BF16, micro-batch 1, global batch 256.
PLAN_DEFAULTS = {"model": "llama3-70b", "gpu": "h100-sxm", "nodes": 8, "tp": 8, "pp": 4, "cp": 1, "ep": 1, "zero": 1,
                 "micro_batch": 1, "global_batch": 256, "recompute": "selective", "sequence_parallel": True,
                 "schedule": "1f1b", "virtual_stages": 0, "attention": "flash", "dtype": "bf16"}


def fit_layout(model: ModelPreset, gpus: int, tp: int, pp: int, cp: int = 1, ep: int = 1,
               zero: int = 1) -> tuple[Layout, str]:
    """Fit a layout to a GPU count: keep TP, shrink PP, let DP take the rest; say what changed.

    Parameters
    ----------
    model : ModelPreset
        The model (TP must divide its heads, PP may not exceed its layers).
    gpus : int
        The cluster's GPU count.
    tp, pp, cp, ep, zero : int
        The layout asked for (DP is what is left).

    Returns
    -------
    layout : Layout
        ``tp x pp x cp x dp = gpus``; TP, then CP, are kept when they divide the GPU count, PP is the
        largest that still does, DP takes the rest; EP becomes 1 when it no longer divides DP.
    change : str
        One sentence saying what changed, or "" when the layout fitted as asked.

    Examples
    --------
    >>> from interconnect.models.presets import load_model_presets
    >>> layout, change = fit_layout(load_model_presets()["llama3-70b"], 16, tp=8, pp=4)
    >>> layout.label()
    'TP8 × PP2 × DP1, ZeRO-1'
    >>> print(change)
    The cluster has 16 GPUs, not the 32 that TP 8 × PP 4 needs: kept TP 8, PP 4 → 2, DP takes the rest (1).
    """
    gpus = max(1, int(gpus))
    tp0, pp0, cp0 = max(1, tp), max(1, pp), max(1, cp)
    if gpus % (tp0 * pp0 * cp0) == 0 or model.heads % tp0:  # fits, or TP itself is wrong: say so, do not guess
        dp = max(1, gpus // (tp0 * pp0 * cp0))
        return Layout(tp=tp0, pp=pp0, dp=dp, cp=cp0, ep=ep if dp % max(ep, 1) == 0 else 1, zero=zero), ""
    new_tp = tp0 if gpus % tp0 == 0 else max(d for d in _divisors(gpus) if d <= tp0 and model.heads % d == 0)
    rest = gpus // new_tp
    new_cp = cp0 if rest % cp0 == 0 else 1
    rest //= new_cp
    new_pp = max(d for d in _divisors(rest) if d <= min(pp0, model.layers))
    dp = rest // new_pp
    new_ep = ep if dp % max(ep, 1) == 0 else 1
    kept = [f"kept TP {tp0}" if new_tp == tp0 else f"TP {tp0} → {new_tp}"]
    if cp0 > 1:
        kept.append(f"kept CP {cp0}" if new_cp == cp0 else f"CP {cp0} → {new_cp}")
    kept.append(f"kept PP {pp0}" if new_pp == pp0 else f"PP {pp0} → {new_pp}")
    need = tp0 * pp0 * cp0
    why = (f"not the {need:,} that TP {tp0} × PP {pp0}" + (f" × CP {cp0}" if cp0 > 1 else "") + " needs"
           if need > gpus else f"which TP {tp0} × PP {pp0}" + (f" × CP {cp0}" if cp0 > 1 else "") + " does not divide")
    change = f"The cluster has {gpus:,} GPUs, {why}: {', '.join(kept)}, DP takes the rest ({dp:,})."
    return Layout(tp=new_tp, pp=new_pp, dp=dp, cp=new_cp, ep=new_ep, zero=zero), change


class LayoutError(InterconnectError, ValueError):
    """A layout that cannot run; the message says what to change.

    For example degrees that do not multiply to the GPU count, TP not dividing the heads, or EP
    without experts.
    """


@dataclass(frozen=True)
class Layout:
    """Degrees of parallelism and the ZeRO stage.

    ``tp * cp * dp * pp`` is the GPU count; EP groups are carved out of DP (``ep`` divides ``dp``).
    """

    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 0

    @property
    def gpus(self) -> int:
        """GPUs the layout uses: tp x pp x dp x cp."""
        return self.tp * self.pp * self.dp * self.cp

    def as_dict(self) -> dict[str, int]:
        """Return the degrees and the ZeRO stage as a dict.

        Returns
        -------
        dict of str to int
            ``tp``, ``pp``, ``dp``, ``cp``, ``ep`` and ``zero`` (JSON-ready).

        Examples
        --------
        >>> Layout(tp=8, dp=2, zero=1).as_dict()
        {'tp': 8, 'pp': 1, 'dp': 2, 'cp': 1, 'ep': 1, 'zero': 1}
        """
        return {"tp": self.tp, "pp": self.pp, "dp": self.dp, "cp": self.cp, "ep": self.ep, "zero": self.zero}

    def label(self) -> str:
        """Write the layout for people.

        Returns
        -------
        str
            TP, PP and DP always, CP and EP above 1 only, and the ZeRO stage.

        Examples
        --------
        >>> Layout(tp=8, dp=2, zero=1).label()
        'TP8 × PP1 × DP2, ZeRO-1'
        """
        parts = [f"TP{self.tp}", f"PP{self.pp}", f"DP{self.dp}"]
        parts += [f"CP{self.cp}"] if self.cp > 1 else []
        parts += [f"EP{self.ep}"] if self.ep > 1 else []
        return " × ".join(parts) + f", ZeRO-{self.zero}"


@dataclass(frozen=True)
class Workload:
    """The training job besides the model and the layout.

    ``micro_batch`` and ``global_batch`` count sequences; ``seq_len`` tokens (None: the model's
    pre-training length); ``dtype_bytes`` of weights, activations and gradients on the wire (2 for
    BF16); ``recompute`` ``none``, ``selective`` or ``full``; ``compute_efficiency`` overrides the
    sourced kernel figures with one share of the GPU's dense BF16 peak for every kernel (None: use
    :mod:`interconnect.models.kernels`, what GEMM and attention kernels reach on this GPU family at
    these matrix shapes); ``bucket_bytes`` the gradient bucket of data parallelism (PyTorch DDP's
    25 MB default, Playbook appendix A3; 0 or less: one per transformer layer, as FSDP reduces).

    ``schedule`` is the pipeline schedule (see :data:`SCHEDULES`); ``virtual_stages`` the model
    chunks per GPU of the interleaved schedule (0: the fastest the stage's layers allow);
    ``lighter_ends`` gives the first and the last pipeline stage one transformer layer fewer, to
    make room for the embedding and the output layer (Llama 3, arXiv 2407.21783, section 3.3.2);
    ``attention`` ``flash`` (fused, scores never stored; the newest FlashAttention for the GPU family),
    ``flash2`` (FlashAttention-2, which runs at a lower share of a Hopper GPU's peak: runs made before
    FlashAttention-3, July 2024) or ``unfused`` (scores written to memory, as Megatron-LM before 2023);
    ``dropout`` whether the layers apply dropout, which stores a 1-byte mask per value after attention
    and after the MLP (Megatron-LM's GPT default; Llama-style models train without it);
    ``pipeline_engine`` who runs the pipeline schedule: ``megatron`` (Megatron-LM: sends
    overlap compute, gradient buckets reduced during the last backward) or ``deepspeed`` (DeepSpeed's
    PipelineEngine, as MT-NLG and BLOOM trained: blocking sends and receives, gradients reduced after the
    last micro-batch); ``context_parallel`` how CP ranks share K and V: ``ring`` (ring attention, passed
    around while attention runs) or ``all-gather`` (gathered before attention, as Llama 3 did);
    ``grad_bytes`` bytes per gradient value kept and reduced across data parallelism (0: as the weights;
    4 where gradients are accumulated and reduce-scattered in FP32, as Llama 3 did).
    """

    micro_batch: int = 1
    global_batch: int = 256
    seq_len: int | None = None
    dtype_bytes: int = 2
    recompute: str = "selective"
    sequence_parallel: bool = True
    compute_efficiency: float | None = None
    bucket_bytes: float = 25e6
    schedule: str = "1f1b"
    virtual_stages: int = 0
    lighter_ends: bool = False
    attention: str = "flash"
    dropout: bool = False
    pipeline_engine: str = "megatron"
    context_parallel: str = "ring"
    grad_bytes: int = 0

    def tokens(self, model: ModelPreset) -> int:
        """Return the sequence length in tokens: the workload's, else the model's pre-training length.

        Parameters
        ----------
        model : ModelPreset
            The model.

        Returns
        -------
        int
            Tokens per sequence.

        Examples
        --------
        >>> from interconnect.models.presets import load_model_presets
        >>> Workload().tokens(load_model_presets()["llama3-8b"]), Workload(seq_len=4096).tokens(None)
        (8192, 4096)
        """
        return int(self.seq_len or model.seq_len)


# ------------------------------------------------------------------------------------------------
# Closed forms (tested against the sources)
# ------------------------------------------------------------------------------------------------


@expects(gradient_bytes="B")
def dp_traffic_bytes(gradient_bytes: float, dp: int, zero: int = 0) -> float:
    r"""Compute the bytes each GPU sends per step for data parallelism.

    Parameters
    ----------
    gradient_bytes : float
        G, the gradient each GPU holds, B (or a data-size Quantity).
    dp : int
        n, the data-parallel degree.
    zero : int, default 0
        The ZeRO stage.

    Returns
    -------
    float
        Bytes sent per GPU per step, B.

    Notes
    -----
    .. math::

        V = \begin{cases}
        2 \frac{n-1}{n} G & \text{ZeRO-0, 1, 2} \\
        3 \frac{n-1}{n} G & \text{ZeRO-3}
        \end{cases}

    ZeRO-0 all-reduces the gradients; ZeRO-1/2 reduce-scatter the gradients and all-gather the
    updated BF16 weights, :math:`(n-1)/n \cdot G` each, the same total; ZeRO-3 adds a second
    all-gather of the weights (forward and backward): "3Ψ instead of 2Ψ" (``ultrascale-playbook``,
    ZeRO-3 section; ZeRO paper, https://arxiv.org/abs/1910.02054, section 7). The
    :math:`(n-1)/n` factors are nccl-tests' bus factors (``nccl-tests-performance``).

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> f"{dp_traffic_bytes(1e9, 8) / 1e9} GB", f"{dp_traffic_bytes(1e9, 8, zero=3) / 1e9} GB"
    ('1.75 GB', '2.625 GB')
    >>> dp_traffic_bytes(Q_(1, "GB"), 8) == dp_traffic_bytes(1e9, 8)
    True
    """
    if dp <= 1:
        return 0.0
    share = (dp - 1) / dp
    return gradient_bytes * share * (3.0 if zero >= 3 else 2.0)


@expects(dtype_bytes="B")
def tp_bytes_per_layer(seq_len: int, micro_batch: int, hidden: int, tp: int, dtype_bytes: int = 2) -> float:
    r"""Compute the bytes each GPU sends per transformer layer in the forward pass of Megatron TP.

    Parameters
    ----------
    seq_len : int
        s, tokens per sequence.
    micro_batch : int
        b, sequences per micro-batch.
    hidden : int
        h, the model width.
    tp : int
        t, the tensor-parallel degree.
    dtype_bytes : int, default 2
        Bytes per activation element, B (2 for BF16).

    Returns
    -------
    float
        Bytes per GPU per layer, forward pass, B (the backward pass moves as much again).

    Notes
    -----
    Two all-reduces of the activations :math:`A = s b h` (after attention and after the MLP), or
    with sequence parallelism 2 all-gathers and 2 reduce-scatters of the same volume
    (``ultrascale-playbook``, "Sequence Parallelism"; Korthikanti et al.,
    https://arxiv.org/abs/2205.05198, section 4.2.2):

    .. math:: V = 2 \cdot 2 \frac{t-1}{t} A = 4 \frac{t-1}{t} \, s \, b \, h \cdot \mathrm{bytes}

    Examples
    --------
    >>> f"{tp_bytes_per_layer(4096, 1, 8192, 8) / 2**20} MiB"  # 4 x 7/8 x 64 MiB
    '224.0 MiB'
    """
    if tp <= 1:
        return 0.0
    return 4 * (tp - 1) / tp * seq_len * micro_batch * hidden * dtype_bytes


def pipeline_bubble_fraction(pp: int, micro_batches: int, schedule: str = "1f1b", virtual_stages: int = 1) -> float:
    r"""Compute the share of a pipeline step spent idle, by schedule.

    Parameters
    ----------
    pp : int
        p, pipeline stages.
    micro_batches : int
        m, micro-batches per step.
    schedule : {"1f1b", "interleaved", "zero-bubble", "dualpipe"}, default "1f1b"
        The pipeline schedule.
    virtual_stages : int, default 1
        v, model chunks per GPU (interleaved only).

    Returns
    -------
    float
        The idle share of the whole step (0 for one stage).

    Notes
    -----
    The idle time in units of one micro-batch's forward and backward is :math:`I = p - 1` for 1F1B
    (Narayanan et al., https://arxiv.org/abs/2104.04473, section 2.2.1: the bubble is
    :math:`(p-1)/m` of the ideal time), :math:`(p - 1)/v` for the interleaved schedule (same paper,
    section 2.2.2) and about :math:`(p - 1)/3` for ZB-H1 (Qi et al.,
    https://arxiv.org/abs/2401.10241, with equal forward, input-gradient and weight-gradient
    times). Of the whole step it is

    .. math:: \beta = \frac{I}{m + I}

    Examples
    --------
    >>> f"{pipeline_bubble_fraction(4, 12):.0%}", f"{pipeline_bubble_fraction(16, 32, 'interleaved', 4):.1%}"
    ('20%', '10.5%')
    """
    if pp <= 1:
        return 0.0
    idle = {"1f1b": pp - 1.0, "interleaved": (pp - 1.0) / max(1, virtual_stages),
            "zero-bubble": (pp - 1.0) / 3.0, "dualpipe": max(pp / 2 - 1.0, 0.0) * 2 / 3}[schedule]
    return idle / (micro_batches + idle)


# ------------------------------------------------------------------------------------------------
# Placement: which ranks form a group and which domains it touches
# ------------------------------------------------------------------------------------------------


def rank_grid(layout: Layout) -> np.ndarray:
    """Arrange the ranks as ``(pp, dp, cp, tp)`` in Megatron-LM's order (TP fastest).

    Parameters
    ----------
    layout : Layout
        The degrees.

    Returns
    -------
    numpy.ndarray
        Rank ids, shape (pp, dp, cp, tp).

    Examples
    --------
    >>> rank_grid(Layout(tp=2, dp=2)).tolist()
    [[[[0, 1]], [[2, 3]]]]
    """
    return np.arange(layout.gpus).reshape(layout.pp, layout.dp, layout.cp, layout.tp)


def _groups(layout: Layout, dim: str) -> np.ndarray:
    """Rank ids of every group of one dimension: shape (groups, group size)."""
    grid = rank_grid(layout)
    if dim == "ep":
        # EP groups: ep consecutive DP ranks (Megatron's expert-model-parallel groups)
        pp, dp, cp, tp = grid.shape
        g = grid.reshape(pp, dp // layout.ep, layout.ep, cp, tp)
        return np.moveaxis(g, 2, -1).reshape(-1, layout.ep)
    axis = {"pp": 0, "dp": 1, "cp": 2, "tp": 3}[dim]
    size = grid.shape[axis]
    return np.moveaxis(grid, axis, -1).reshape(-1, size)


def groups_of(layout: Layout, dim: str) -> np.ndarray:
    """List the rank ids of every group of one dimension.

    Parameters
    ----------
    layout : Layout
        The degrees.
    dim : {"tp", "cp", "ep", "dp", "pp"}
        The dimension.

    Returns
    -------
    numpy.ndarray
        Shape (groups, group size).

    Examples
    --------
    >>> groups_of(Layout(tp=2, dp=2), "dp").tolist()
    [[0, 2], [1, 3]]
    """
    return _groups(layout, dim)


def group_domains(layout: Layout, dim: str, domain_size: int) -> tuple[np.ndarray, int]:
    """Count the scale-up domains each group of a dimension spans, and its most members in one domain.

    Parameters
    ----------
    layout : Layout
        The degrees.
    dim : {"tp", "cp", "ep", "dp", "pp"}
        The dimension.
    domain_size : int
        GPUs per scale-up domain (consecutive ranks).

    Returns
    -------
    spans : numpy.ndarray
        Domains spanned, one per group.
    per_domain : int
        The most members any group has in one domain.

    Examples
    --------
    A TP group of 8 on 8-GPU nodes spans 1 domain; of 16, it spans 2 (8 each):

    >>> spans, per_domain = group_domains(Layout(tp=16, dp=2), "tp", 8)
    >>> spans.tolist(), per_domain
    ([2, 2], 8)
    """
    groups = _groups(layout, dim)
    domains = np.sort(groups // max(domain_size, 1), axis=1)
    spans = 1 + np.count_nonzero(np.diff(domains, axis=1), axis=1)
    if groups.shape[1] == 1:
        return spans, 1
    # members per domain: the longest run of equal domain ids
    change = np.diff(domains, axis=1) != 0
    per_domain = _longest_run(change)
    return spans, per_domain


def _longest_run(change: np.ndarray) -> int:
    best = 1
    for row in change[: min(len(change), 64)]:  # groups of one dimension share a shape; a few suffice
        run = cur = 1
        for flag in row:
            cur = 1 if flag else cur + 1
            run = max(run, cur)
        best = max(best, run)
    return best


def seat_map(layout: Layout, domain_size: int) -> dict[str, np.ndarray]:
    """Place every rank and name the groups it belongs to, for drawing the seating chart.

    Parameters
    ----------
    layout : Layout
        The degrees.
    domain_size : int
        GPUs per scale-up domain.

    Returns
    -------
    dict of str to numpy.ndarray
        One entry per rank: ``rank``, ``domain``, ``tp``, ``cp``, ``dp``, ``pp`` (the rank's index
        in each dimension), ``ep`` (its expert group within DP) and, per dimension,
        ``straddle_<dim>``: the rank's group crosses a domain boundary it should not. Any TP group
        that spans two domains is flagged (its all-reduces then go over the NICs), a CP or EP group
        that spans more domains than its size needs; DP and PP groups cross domains by design.

    Examples
    --------
    >>> seats = seat_map(Layout(tp=4, dp=3), 6)
    >>> seats["domain"].tolist(), seats["straddle_tp"].tolist()[:8]
    ([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], [False, False, False, False, True, True, True, True])
    """
    n = layout.gpus
    ranks = np.arange(n)
    domain = ranks // max(domain_size, 1)
    tp_i = ranks % layout.tp
    cp_i = (ranks // layout.tp) % layout.cp
    dp_i = (ranks // (layout.tp * layout.cp)) % layout.dp
    pp_i = ranks // (layout.tp * layout.cp * layout.dp)
    out = {"rank": ranks, "domain": domain, "tp": tp_i, "cp": cp_i, "dp": dp_i, "pp": pp_i,
           "ep": dp_i // max(layout.ep, 1)}
    for dim in DIMENSIONS:
        size = getattr(layout, dim)
        if size <= 1:
            out[f"straddle_{dim}"] = np.zeros(n, dtype=bool)
            continue
        groups = _groups(layout, dim)
        spans, _ = group_domains(layout, dim, domain_size)
        needed = math.ceil(size / max(domain_size, 1))
        # DP and PP groups span domains by design; TP must not, CP and EP not more than they need
        bad = (spans > 1) if dim == "tp" else (spans > needed) if dim in ("cp", "ep") else np.zeros_like(spans, bool)
        flags = np.zeros(n, dtype=bool)
        flags[groups[bad].ravel()] = True
        out[f"straddle_{dim}"] = flags
    return out


# ------------------------------------------------------------------------------------------------
# Collective times on a group of the cluster, tabulated over message size
# ------------------------------------------------------------------------------------------------


def _group_cluster(cluster: Cluster, per_domain: int, domains: int) -> Cluster:
    """Shrink the cluster to what one group sees.

    ``per_domain`` GPUs in each of ``domains`` NVLink domains, each GPU with its share of the node's
    NICs (all groups of a dimension run at the same time).
    """
    share = cluster.nics_per_node / cluster.gpus_per_node
    return replace(
        cluster,
        gpus_per_node=per_domain,
        nodes=domains,
        scaleup_domain=per_domain,
        nics_per_node=per_domain,
        nic_achieved_gbps=cluster.nic_achieved_gbps * share,
        nic_line_gbps=cluster.nic_line_gbps * share,
    )


@functools.lru_cache(maxsize=4096)
def _table(cluster: Cluster, name: str, per_domain: int, domains: int) -> np.ndarray:
    """log(time in µs) of ``name`` over ``_TABLE_SIZES`` on a group of the cluster."""
    if per_domain * domains <= 1:
        return np.full(_TABLE_SIZES.size, -np.inf)
    group = _group_cluster(cluster, per_domain, domains)
    times = collective(group, name, _TABLE_SIZES, chooser="fastest" if name != "all_reduce" else "nccl").time_us
    # keep the table non-decreasing so interpolation never makes a larger message faster
    return np.log(np.maximum.accumulate(np.maximum(times, 1e-3)))


def _time_s(cluster: Cluster, name: str, per_domain: np.ndarray, domains: np.ndarray,
            size_bytes: np.ndarray) -> np.ndarray:
    """Time (s) of one call of ``name`` per layout (arrays of equal length)."""
    out = np.zeros(size_bytes.shape, dtype=float)
    keys = np.stack([per_domain, domains], axis=-1)
    log_x = np.log(_TABLE_SIZES)
    for pd, dm in {tuple(int(v) for v in k) for k in keys.reshape(-1, 2)}:
        mask = (per_domain == pd) & (domains == dm) & (size_bytes > 0)
        if not mask.any() or pd * dm <= 1:
            continue
        table = _table(cluster, name, pd, dm)
        x = np.log(np.clip(size_bytes[mask], 1.0, _TABLE_SIZES[-1]))
        out[mask] = np.exp(np.interp(x, log_x, table)) * 1e-6
    return out


# ------------------------------------------------------------------------------------------------
# The vectorised core
# ------------------------------------------------------------------------------------------------


def layout_problems(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload) -> list[str]:
    """Say why a layout cannot run, one sentence each.

    Parameters
    ----------
    model : ModelPreset
        The model (heads, layers, experts).
    cluster : Cluster
        The cluster (GPU count).
    layout : Layout
        The degrees.
    workload : Workload
        Batch and sequence length.

    Returns
    -------
    list of str
        Empty when the layout can run.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.models.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> for problem in layout_problems(load_model_presets()["llama3-8b"], cluster, Layout(tp=3, dp=2), Workload()):
    ...     print(problem[:59])
    TP × PP × DP × CP = 3 × 1 × 2 × 1 = 6 GPUs, but the cluster
    TP = 3 does not divide the model's 32 attention heads.
    """
    problems: list[str] = []
    degrees = {"TP": layout.tp, "PP": layout.pp, "DP": layout.dp, "CP": layout.cp, "EP": layout.ep}
    for name, value in degrees.items():
        if value < 1:
            problems.append(f"{name} must be at least 1 (got {value}).")
    if problems:
        return problems
    if layout.gpus != cluster.ranks:
        problems.append(f"TP × PP × DP × CP = {layout.tp} × {layout.pp} × {layout.dp} × {layout.cp} = "
                        f"{layout.gpus:,} GPUs, but the cluster has {cluster.ranks:,}; the degrees must multiply "
                        f"to the GPU count.")
    if model.heads % layout.tp:
        problems.append(f"TP = {layout.tp} does not divide the model's {model.heads} attention heads.")
    if layout.pp > model.layers:
        problems.append(f"PP = {layout.pp} is more stages than the model's {model.layers} layers.")
    if workload.schedule not in SCHEDULES:
        problems.append(f"Schedule '{workload.schedule}' is not one of {', '.join(SCHEDULES)}.")
    elif workload.schedule == "dualpipe" and layout.pp % 2:
        problems.append(f"DualPipe needs an even number of pipeline stages (got PP = {layout.pp}).")
    if workload.recompute not in ("none", "selective", "full"):
        problems.append(f"Recomputation '{workload.recompute}' is not none, selective or full.")
    if workload.tokens(model) % layout.cp:
        problems.append(f"CP = {layout.cp} does not divide the sequence length of {workload.tokens(model):,} tokens.")
    if layout.ep > 1 and not model.is_moe:
        problems.append(f"EP = {layout.ep} needs a mixture-of-experts model; {model.name} has no experts.")
    elif layout.ep > 1:
        if model.experts % layout.ep:
            problems.append(f"EP = {layout.ep} does not divide the model's {model.experts} experts.")
        if layout.dp % layout.ep:
            problems.append(f"EP = {layout.ep} must divide DP = {layout.dp} (expert groups are carved out of the "
                            f"data-parallel ranks).")
    if layout.zero not in (0, 1, 2, 3):
        problems.append(f"ZeRO stage must be 0, 1, 2 or 3 (got {layout.zero}).")
    batch = layout.dp * workload.micro_batch
    if workload.global_batch % batch:
        problems.append(f"The global batch of {workload.global_batch:,} sequences is not a multiple of DP × "
                        f"micro-batch = {batch:,}.")
    return problems


def check_layout(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload) -> None:
    """Raise :class:`LayoutError` with every problem of the layout, or return quietly.

    Parameters
    ----------
    model, cluster, layout, workload
        As for :func:`layout_problems`.

    Returns
    -------
    None
        When the layout can run.

    Raises
    ------
    LayoutError
        With every sentence of :func:`layout_problems`.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.models.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    >>> check_layout(load_model_presets()["llama3-8b"], cluster, Layout(tp=8), Workload(global_batch=8))
    """
    problems = layout_problems(model, cluster, layout, workload)
    if problems:
        raise LayoutError(" ".join(problems))


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


def stage_layers(layers: int, pp: np.ndarray, lighter_ends: bool) -> tuple[np.ndarray, np.ndarray]:
    """Count the transformer layers on the fullest pipeline stage and on the last (which adds the output).

    Layers are spread as evenly as they go; the last stage gets the floor. With ``lighter_ends``
    the first and last stage each count the embedding or the output layer as one layer's slot.

    Examples
    --------
    >>> most, last = stage_layers(126, np.array([16]), lighter_ends=True)   # Llama 3 405B on 16 stages
    >>> int(most[0]), int(last[0])
    (8, 7)
    >>> [int(v[0]) for v in stage_layers(126, np.array([16]), lighter_ends=False)]
    [8, 7]
    """
    pp = np.asarray(pp, dtype=float)
    slots = layers + (2.0 if lighter_ends else 0.0)
    slots = np.where(pp > 2, slots, layers)
    most = np.ceil(slots / pp)
    last = np.floor(slots / pp) - np.where((pp > 2) & lighter_ends, 1.0, 0.0)
    last = np.where(pp <= 1, layers, np.maximum(last, 1.0))
    return most, last


def _evaluate(model: ModelPreset, cluster: Cluster, workload: Workload, tp: np.ndarray, pp: np.ndarray,
              dp: np.ndarray, cp: np.ndarray, ep: np.ndarray, zero: np.ndarray) -> dict[str, np.ndarray]:
    """Everything per layout, as arrays (the layouts must be valid)."""
    from interconnect.models.kernels import gemm_shape_factor

    f = {k: np.asarray(v, dtype=float) for k, v in dict(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, zero=zero).items()}
    tp_, pp_, dp_, cp_, ep_, z = f["tp"], f["pp"], f["dp"], f["cp"], f["ep"], f["zero"]
    domain = cluster.domain_size
    s, b, h, L, V = workload.tokens(model), workload.micro_batch, model.hidden, model.layers, model.vocab
    nbytes = workload.dtype_bytes
    peak = _peak_flops(cluster)
    gemm_rate, attn_rate, sms, _ = _rates(cluster, workload)
    hbm = _hbm_bytes_per_s(cluster)
    micro = workload.global_batch / (dp_ * b)  # micro-batches per step per pipeline
    tokens_step = workload.global_batch * s
    n_gpus = tp_ * pp_ * dp_ * cp_
    per_layer_params, embed_params = layer_params(model)
    unfused = workload.attention == "unfused"

    # --- compute of one layer, one micro-batch, on one GPU (seconds) ----------------------------
    T = s * b / cp_  # tokens of a micro-batch on one CP rank (all TP ranks see them all)
    kv_width = 2 * model.kv_heads * model.head_dim
    attn_w = h * (h + kv_width) + h * h
    mlp_w = np.maximum(per_layer_params - attn_w, 0.0)
    ffn = float(model.ffn_hidden)
    shapes = ((h + kv_width) / tp_, h, h * (h + kv_width)), (h, h / tp_, h * h), \
        (mlp_w / (2 * h) / tp_, h, mlp_w / 2), (h, np.maximum(ffn / tp_, 1.0), mlp_w / 2)
    weighted = sum(w for _, _, w in shapes)
    inv_factor = sum(w / gemm_shape_factor(T, n, k, sms) for n, k, w in shapes) / weighted
    gemm_fwd = 2 * T * per_layer_params / tp_ / gemm_rate * inv_factor
    attn_flops_fwd = 4 * T * (s if unfused else s / 2) * h / tp_  # flash skips the masked half
    attn_fwd = attn_flops_fwd / (gemm_rate if unfused else attn_rate)
    stored = _per_layer_stored(model, workload, tp_, cp_, "none")
    scores = _per_layer_stored(model, workload, tp_, cp_, "none") - _per_layer_stored(model, workload, tp_, cp_,
                                                                                        "selective")
    mem_fwd = _MEMORY_PASSES_FWD * stored / hbm
    layer_fwd = gemm_fwd + attn_fwd + mem_fwd
    # flash attention's backward recomputes the scores: 5 matrix products to the forward's 2, 2.5 times its
    # FLOPs (as FlashAttention's own benchmark counts them, Dao-AILab/flash-attention,
    # benchmarks/benchmark_flash_attention.py: backward 2.5 f, forward and backward 3.5 f); unfused
    # attention's backward is twice its forward, as a GEMM's
    attn_bwd = (2.0 if unfused else 2.5) * attn_fwd
    layer_bwd = 2 * gemm_fwd + attn_bwd + _MEMORY_PASSES_BWD * stored / hbm
    layer_re = {"none": 0.0 * layer_fwd, "selective": attn_fwd + _MEMORY_PASSES_FWD * scores / hbm,
                "full": layer_fwd}[workload.recompute]
    layer_compute = layer_fwd + layer_bwd + layer_re
    # the output layer (logits) on the last stage: a GEMM of T x V/t x h, forward and backward
    out_compute = 6 * T * h * V / tp_ / gemm_rate / gemm_shape_factor(T, V / tp_, h, sms)

    # --- group shapes ------------------------------------------------------------------------
    def shape(size: np.ndarray, stride: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        per = np.where(stride < domain, np.maximum(1, np.minimum(size, domain // np.maximum(stride, 1))), 1)
        per = np.where(size <= 1, 1, per)
        return per.astype(int), np.ceil(size / per).astype(int)

    tp_per, tp_dom = shape(tp_, np.ones_like(tp_))
    cp_per, cp_dom = shape(cp_, tp_)
    dp_per, dp_dom = shape(dp_, tp_ * cp_)
    ep_per, ep_dom = shape(ep_, tp_ * cp_)
    edp = np.maximum(1, dp_ / ep_)  # expert-data-parallel degree
    edp_per, edp_dom = shape(edp, tp_ * cp_ * ep_)
    pp_per, pp_dom = shape(pp_, tp_ * cp_ * dp_)

    # --- stages --------------------------------------------------------------------------------
    most, last = stage_layers(L, pp_, workload.lighter_ends)
    layers_stage = most  # the fullest stage sets the pace and holds the most weights

    # --- parameters per GPU (the fullest stage, with the embedding or output layer) -------------
    dense_layer = (model.dense_params - (1 if model.tied_embeddings else 2) * embed_params) / L
    expert_layer = model.expert_params / L
    dense_gpu = (np.maximum(dense_layer * most, dense_layer * last + embed_params)
                 + np.where(pp_ <= 1, embed_params, 0.0)) / tp_
    expert_gpu = expert_layer * most / (tp_ * ep_)
    psi = dense_gpu + expert_gpu

    out: dict[str, np.ndarray] = {}

    # --- TP: 2 all-reduces per layer forward, 2 backward (or 2 AG + 2 RS each way with SP) -------
    act = (s / cp_) * b * h * nbytes
    passes = 2.0 + (1.0 if workload.recompute == "full" else 0.0)  # forward, backward, recomputed forward
    if workload.sequence_parallel:
        t_ag = _time_s(cluster, "all_gather", tp_per, tp_dom, act)
        t_rs = _time_s(cluster, "reduce_scatter", tp_per, tp_dom, act)
        tp_layer = passes * 2 * (t_ag + t_rs)
        calls_layer = passes * 4
    else:
        t_ar = _time_s(cluster, "all_reduce", tp_per, tp_dom, act)
        tp_layer = passes * 2 * t_ar
        calls_layer = passes * 2
    tp_layer = np.where(tp_ > 1, tp_layer, 0.0)

    # --- CP: ring attention passes K and V around the CP group; it hides behind attention --------
    kv = 2 * (s / cp_) * b * model.kv_heads * model.head_dim * nbytes / np.where(tp_ <= model.kv_heads, tp_, 1)
    attn_window = attn_fwd + attn_bwd + (attn_fwd if workload.recompute != "none" else 0.0)
    if workload.context_parallel == "all-gather":
        # Llama 3's context parallelism (arXiv 2407.21783, section 3.3.2): K and V all-gathered before attention
        # (again in the backward pass), their gradients reduce-scattered after it; attention waits for them
        t_gather = _time_s(cluster, "all_gather", cp_per, cp_dom, kv * cp_)
        t_scatter = _time_s(cluster, "reduce_scatter", cp_per, cp_dom, kv * cp_)
        cp_layer = np.where(cp_ > 1, (passes - 1) * t_gather + t_gather + t_scatter, 0.0)
        cp_layer_exposed = cp_layer
        cp_calls_layer = passes + 1.0
    else:
        t_send = _time_s(cluster, "sendrecv", cp_per, cp_dom, kv)
        cp_layer = np.where(cp_ > 1, 3 * (cp_ - 1) * t_send, 0.0)  # forward K,V; backward K,V and their gradients
        cp_layer_exposed = np.maximum(0.0, cp_layer - attn_window)
        cp_calls_layer = 3 * (cp_ - 1)

    # --- EP: dispatch and combine all-to-alls in every MoE layer, forward and backward ---------
    if model.is_moe:
        a2a = (s / cp_) * b / (tp_ if workload.sequence_parallel else 1) * model.top_k * h * nbytes
        t_a2a = _time_s(cluster, "alltoall", ep_per, ep_dom, a2a)
        ep_layer = np.where(ep_ > 1, 4 * t_a2a, 0.0)
        ep_layer_bytes = np.where(ep_ > 1, 4 * (ep_ - 1) / ep_ * a2a, 0.0)
    else:
        ep_layer = ep_layer_bytes = np.zeros_like(tp_)

    # DualPipe runs a forward and a backward chunk at once: one's all-to-all hides behind the other's compute
    ep_layer_exposed = np.maximum(0.0, ep_layer - layer_compute) if workload.schedule == "dualpipe" else ep_layer

    # --- one micro-batch (forward + backward) on the slowest stage -----------------------------
    per_layer_total = layer_compute + tp_layer + cp_layer_exposed + ep_layer_exposed
    stage_full = most * per_layer_total
    stage_last = last * per_layer_total + out_compute
    t_micro = np.maximum(stage_full, np.where(pp_ > 1, stage_last, stage_full + out_compute))
    compute_micro = np.maximum(most * layer_compute, last * layer_compute + out_compute)

    # --- PP: activations forward, their gradients backward, at every stage boundary ------------
    # each TP rank sends its 1/t of the activation: with SP it holds only that; without, Megatron-LM's
    # scatter/gather optimisation (Narayanan et al. 2021, section 4.1) and DeepSpeed's partitioned pipeline
    # buffers (PipelineEngine.is_pipe_partitioned when TP > 1) split it and all-gather it inside the TP group
    boundary = (s / cp_) * b * h * nbytes / tp_
    t_p2p = _time_s(cluster, "sendrecv", pp_per, pp_dom, boundary)
    if not workload.sequence_parallel:
        t_p2p = t_p2p + np.where(tp_ > 1, _time_s(cluster, "all_gather", tp_per, tp_dom, boundary * tp_), 0.0)
    v = _virtual_stages(workload, most, micro, pp_, t_micro, t_p2p)
    if workload.schedule == "interleaved":
        idle_micro = (pp_ - 1) / v
        fill_sends = 2 * (pp_ * v - 1)
    elif workload.schedule == "zero-bubble":
        idle_micro = (pp_ - 1) / 3.0
        fill_sends = 2 * (pp_ - 1)
    elif workload.schedule == "dualpipe":
        idle_micro = np.maximum(pp_ / 2 - 1, 0.0) * 2 / 3
        fill_sends = 2 * (pp_ - 1)
    else:
        idle_micro = pp_ - 1.0
        fill_sends = 2 * (pp_ - 1)
    idle_micro = np.where(pp_ > 1, idle_micro, 0.0)
    pp_calls = np.where(pp_ > 1, 2 * micro * v, 0.0)
    pp_exposed = np.where(pp_ > 1, fill_sends * t_p2p, 0.0)
    if workload.pipeline_engine == "deepspeed":
        # DeepSpeed's pipeline engine sends and receives synchronously (runtime/pipe/p2p.py: no async_op), so a
        # middle stage waits for its activation in, its activation out, the gradient in and the gradient out
        # of every micro-batch, idle slots included (with two stages, each has one neighbour: two transfers)
        blocking = np.where(pp_ > 2, 4.0, 2.0)
        pp_exposed = pp_exposed + np.where(pp_ > 1, blocking * (micro + idle_micro) * t_p2p, 0.0)
    out.update(pp_bytes=pp_calls * boundary, pp_calls=pp_calls, pp_time=pp_calls * t_p2p, pp_exposed=pp_exposed,
               pp_domains=pp_dom, pp_per=pp_per, virtual=v)

    pipeline_s = (micro + idle_micro) * t_micro

    # totals per step of the communication that sits inside the micro-batches
    layers_per_step = micro * most
    out.update(tp_bytes=layers_per_step * passes * 4 * np.where(tp_ > 1, (tp_ - 1) / tp_, 0) * act,
               tp_calls=np.where(tp_ > 1, layers_per_step * calls_layer, 0.0),
               tp_time=layers_per_step * tp_layer, tp_exposed=layers_per_step * tp_layer,
               tp_domains=tp_dom, tp_per=tp_per)
    cp_volume = (passes + 1.0) * (cp_ - 1) * kv if workload.context_parallel == "all-gather" else 3 * (cp_ - 1) * kv
    out.update(cp_bytes=np.where(cp_ > 1, layers_per_step * cp_volume, 0.0),
               cp_calls=np.where(cp_ > 1, layers_per_step * cp_calls_layer, 0.0),
               cp_time=layers_per_step * cp_layer, cp_exposed=layers_per_step * cp_layer_exposed,
               cp_domains=cp_dom, cp_per=cp_per)
    out.update(ep_bytes=layers_per_step * ep_layer_bytes, ep_calls=np.where(ep_ > 1, layers_per_step * 4, 0.0),
               ep_time=layers_per_step * ep_layer, ep_exposed=layers_per_step * ep_layer_exposed,
               ep_domains=ep_dom, ep_per=ep_per)

    # --- DP: gradients (and weights under ZeRO) across replicas ---------------------------------
    grad_bytes = float(workload.grad_bytes or nbytes)  # FP32 gradients (Llama 3) move twice BF16's bytes
    grad_dense = dense_gpu * grad_bytes
    grad_expert = expert_gpu * grad_bytes
    # bucket_bytes <= 0: one reduction per transformer layer, as FSDP reduce-scatters one wrapped unit (a
    # layer) at a time (Zhao et al. 2023, PyTorch FSDP, arXiv 2304.11277, section 3)
    bucket = workload.bucket_bytes if workload.bucket_bytes > 0 else None

    def sync(name: str, total: np.ndarray, per: np.ndarray, dom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        calls = np.maximum(1, np.ceil(total / bucket)) if bucket is not None else np.maximum(1.0, layers_stage)
        return calls * _time_s(cluster, name, per, dom, total / calls), calls

    dp_time = np.zeros_like(tp_)
    dp_calls = np.zeros_like(tp_)
    dp_bytes = np.zeros_like(tp_)
    exposed_dp = np.zeros_like(tp_)
    backward_window = 2 / 3 * compute_micro  # the last micro-batch's backward on this stage
    forward_window = 1 / 3 * compute_micro   # the next step's first forward
    for grads, per, dom, degree in ((grad_dense, dp_per, dp_dom, dp_), (grad_expert, edp_per, edp_dom, edp)):
        active = (degree > 1) & (grads > 0)
        if not active.any():
            continue
        ar, ar_calls = sync("all_reduce", grads, per, dom)
        rs, rs_calls = sync("reduce_scatter", grads, per, dom)
        ag, ag_calls = sync("all_gather", grads, per, dom)
        layer_ag = _time_s(cluster, "all_gather", per, dom, grads / layers_stage)
        z3_ag = 2 * micro * layers_stage * layer_ag  # weights gathered forward and backward, every micro-batch
        t = np.where(z == 0, ar, np.where(z < 3, rs + ag, rs + z3_ag))
        calls = np.where(z == 0, ar_calls, np.where(z < 3, rs_calls + ag_calls, rs_calls + 2 * micro * layers_stage))
        share = np.where(degree > 1, (degree - 1) / degree, 0.0)
        volume = grads * share * np.where(z == 0, 2.0, np.where(z < 3, 2.0, 1.0 + 2 * micro))
        # Buckets are reduced while the last micro-batch's backward runs (2/3 of its compute); what
        # is left, and at least the last bucket, is exposed. ZeRO-1/2's weight all-gather overlaps the
        # next step's first forward; ZeRO-3's gathers are prefetched a layer ahead of the compute.
        last_bucket = np.where(z == 0, ar / ar_calls, rs / rs_calls)
        grad_part = np.where(z == 0, ar, rs)
        hidden_grad = np.maximum(last_bucket, grad_part - backward_window)
        if workload.pipeline_engine == "deepspeed" and workload.schedule != "dualpipe":
            # DeepSpeed's TrainSchedule reduces the gradients after the last micro-batch (runtime/pipe/schedule.py:
            # ReduceTiedGrads, ReduceGrads, OptimizerStep at the last step): nothing overlaps them
            hidden_grad = np.where(pp_ > 1, grad_part, hidden_grad)
        gather_exposed = np.where(z == 0, 0.0, np.where(z < 3, np.maximum(ag / ag_calls, ag - forward_window),
                                                        np.maximum(layer_ag, z3_ag - micro * compute_micro)))
        exposed = hidden_grad + gather_exposed
        dp_time += np.where(active, t, 0.0)
        dp_calls += np.where(active, calls, 0.0)
        dp_bytes += np.where(active, volume, 0.0)
        exposed_dp += np.where(active, exposed, 0.0)
    out.update(dp_bytes=dp_bytes, dp_calls=dp_calls, dp_time=dp_time, dp_exposed=exposed_dp, dp_domains=dp_dom,
               dp_per=dp_per)

    # --- optimizer: Adam reads and writes its 16 bytes per (sharded) parameter once per step ------
    shard = np.where(z >= 1, dp_, 1.0)
    optimizer_s = 2 * 16 * psi / shard / hbm

    # --- step ----------------------------------------------------------------------------------
    step = pipeline_s + out["pp_exposed"] + exposed_dp + optimizer_s
    exposed = sum(out[f"{d}_exposed"] for d in DIMENSIONS)
    model_flops = (6 * model.active_params + 12 * L * s * h) * tokens_step
    extra = {"none": 0.0, "selective": 4 * L * s * h * tokens_step,
             "full": (2 * model.active_params + 4 * L * s * h) * tokens_step}[workload.recompute]
    compute_s = micro * compute_micro
    bubble_s = idle_micro * t_micro
    out.update(compute_s=compute_s, ideal_s=model_flops / n_gpus / peak, bubble=bubble_s / step, exposed_s=exposed,
               step_s=step, mfu=model_flops / n_gpus / peak / step, micro=micro,
               tflops=model_flops / n_gpus / step, hw_tflops=(model_flops + extra) / n_gpus / step,
               optimizer_s=optimizer_s, t_micro=t_micro, idle_micro=idle_micro, stage_most=most, stage_last=last,
               gemm_share=(micro * most * gemm_fwd * 3) / step)

    # --- memory ----------------------------------------------------------------------------------
    shard_dense = np.where(dp_ > 1, dp_, 1.0)
    shard_expert = edp

    def sharded(bytes_per_param: float, stage: int) -> np.ndarray:
        on = z >= stage
        return (dense_gpu * bytes_per_param / np.where(on, shard_dense, 1.0)
                + expert_gpu * bytes_per_param / np.where(on, shard_expert, 1.0))

    copies = 2.0 if workload.schedule == "dualpipe" else 1.0  # DualPipe keeps the weights twice
    out["mem_params"] = copies * sharded(PARAM_BYTES, 3)
    out["mem_grads"] = copies * sharded(float(workload.grad_bytes or GRAD_BYTES), 2)
    out["mem_optimizer"] = sharded(OPTIMIZER_BYTES, 1)
    out["mem_activations"] = _activations(model, workload, tp_, pp_, cp_, micro, v=v, most=most)
    out["mem_total"] = out["mem_params"] + out["mem_grads"] + out["mem_optimizer"] + out["mem_activations"]
    out["mem_capacity"] = np.full_like(tp_, _memory_bytes(cluster))
    out["mem_reserved"] = RESERVED_SHARE * out["mem_capacity"]
    out["fits"] = out["mem_total"] + out["mem_reserved"] <= out["mem_capacity"]
    out["psi"] = psi
    return out


def _virtual_stages(workload: Workload, most: np.ndarray, micro: np.ndarray, pp: np.ndarray,
                    t_micro: np.ndarray, t_p2p: np.ndarray) -> np.ndarray:
    """Model chunks per GPU: 1 unless interleaved; the workload's, else the fastest the layers allow."""
    if workload.schedule != "interleaved":
        return np.ones_like(most)
    if workload.virtual_stages > 0:
        return np.minimum(float(workload.virtual_stages), np.maximum(most, 1.0))
    best_v = np.ones_like(most)
    best_t = np.full_like(most, np.inf)
    for v in range(1, min(int(np.max(most)), 64) + 1):  # beyond 64 chunks the bubble gain is below 2 % of p - 1
        ok = (v <= most) & (np.mod(most, v) == 0)  # whole layers per model chunk
        t = (micro + (pp - 1) / v) * t_micro + 2 * (pp * v - 1) * t_p2p
        better = ok & (t < best_t - 1e-12)
        best_v = np.where(better, v, best_v)
        best_t = np.where(better, t, best_t)
    return best_v


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
    mlp_params = np.maximum(per_layer - (h * (h + kv_width) + h * h), 0.0)
    mask = 1.0 if workload.dropout else 0.0
    whole = 2 * h + 2 * h + 2 * h + 2 * h + 2 * mask * h  # norm inputs, QKV and MLP inputs, dropout masks
    split = 2 * h + 2 * h + 2 * mlp_params / h           # queries, attention output, MLP intermediates
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


def _in_flight(schedule: str, pp: np.ndarray, micro: np.ndarray, v: np.ndarray | float,
               rank: int) -> np.ndarray:
    """Micro-batches whose activations pipeline rank ``rank`` holds at its fullest, in units of its layers.

    1F1B and ZB-H1: ``min(p - rank, m)`` (the warm-up forwards plus one; Narayanan et al. 2021, section
    2.2.1). Interleaved with ``v`` chunks, as Megatron-LM's interleaved schedule counts its warm-up
    (``megatron/core/pipeline_parallel/schedules.py``): ``2 (p - rank - 1) + (v - 1) p`` chunk forwards
    (micro-batch groups of p), capped at all ``m v`` of them, plus the one the steady state runs before
    its first backward; each chunk holds 1/v of the stage's layers. On rank 0 that is Korthikanti et
    al.'s ``p (1 + (p - 1)/(p v))`` (section 4.2.3). DualPipe: ``p + 1`` (its README). The group of p
    is Megatron-LM's default ``microbatch_group_size_per_vp_stage``; a smaller group (Llama 3's tunable
    N, arXiv 2407.21783, section 3.3.2) holds fewer, but no published run states it.
    """
    pp = np.asarray(pp, dtype=float)
    micro = np.asarray(micro, dtype=float)
    v = np.maximum(np.asarray(v, dtype=float), 1.0)
    later = np.maximum(pp - rank, 1.0)
    if schedule == "interleaved":
        warm = 2 * np.maximum(pp - rank - 1, 0.0) + (v - 1) * pp
        return np.minimum(warm + 1, micro * v) / v
    if schedule == "dualpipe":
        return np.minimum(pp + 1 - rank, micro)
    return np.minimum(later, micro)


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


# ------------------------------------------------------------------------------------------------
# One layout: the bill
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dimension:
    """One row of the bill. Bytes are what each GPU sends per step; times are per step, in seconds."""

    name: str
    label: str
    degree: int
    collective: str
    tier: str
    domains_spanned: int
    bytes_per_step: float
    calls_per_step: float
    time_s: float
    overlap: str
    exposed_s: float

    def as_json(self) -> dict[str, object]:
        """Return the row as JSON-ready data, each number with its unit.

        Returns
        -------
        dict of str to object
            Bytes per step in ``B``, times in ``ms``, and the row's words.

        Examples
        --------
        >>> row = Dimension("dp", "Data (DP)", 2, "all-reduce", "NVLink", 1, 2e9, 80, 0.05, "mostly", 0.001)
        >>> row.as_json()["time"], row.as_json()["bytes_per_step"]
        ({'value': 50.0, 'unit': 'ms'}, {'value': 2000000000.0, 'unit': 'B'})
        """
        return {
            "dimension": self.name, "label": self.label, "degree": self.degree, "collective": self.collective,
            "tier": self.tier, "domains_spanned": self.domains_spanned,
            "bytes_per_step": {"value": self.bytes_per_step, "unit": "B"},
            "calls_per_step": self.calls_per_step,
            "time": {"value": self.time_s * 1e3, "unit": "ms"},
            "overlap": self.overlap,
            "exposed": {"value": self.exposed_s * 1e3, "unit": "ms"},
        }


@dataclass(frozen=True)
class Memory:
    """Bytes per GPU by kind, and the GPU's memory."""

    params: float
    grads: float
    optimizer: float
    activations: float
    capacity: float
    reserved: float = 0.0

    @property
    def total(self) -> float:
        """Bytes per GPU of every counted kind together, B (the reserve not included)."""
        return self.params + self.grads + self.optimizer + self.activations

    @property
    def fits(self) -> bool:
        """Whether the total and the reserve for buffers and fragmentation fit in the GPU's memory."""
        return self.total + self.reserved <= self.capacity


@dataclass(frozen=True)
class Plan:
    """The bill of one layout on one cluster."""

    model: ModelPreset
    cluster: Cluster
    layout: Layout
    workload: Workload
    dimensions: tuple[Dimension, ...]
    memory: Memory
    compute_s: float
    step_s: float
    exposed_s: float
    bubble_fraction: float
    mfu: float
    micro_batches: int
    notes: tuple[str, ...] = field(default=())
    tflops_per_gpu: float = 0.0
    hardware_tflops_per_gpu: float = 0.0
    virtual_stages: int = 1
    stage_layers: tuple[int, int] = (0, 0)
    bubble_reason: str = ""
    efficiency_basis: str = ""

    @property
    def fits(self) -> bool:
        """Whether the layout's memory per GPU fits."""
        return self.memory.fits


_COLLECTIVES = {"tp": ("all-reduce", "all-gather + reduce-scatter"), "cp": ("send/recv ring",) * 2,
                "ep": ("all-to-all",) * 2, "pp": ("send/recv",) * 2}
_OVERLAP = {"tp": "no: the forward pass waits for it",
            "cp": "mostly: behind attention compute",
            "ep": "partly: needs a schedule such as DualPipe; counted exposed",
            "dp": "mostly: behind the backward pass",
            "pp": "yes, except filling and draining the pipeline"}


def _bubble_reason(workload: Workload, pp: int, micro: int, v: int, idle_micro: float) -> str:
    """One sentence: the bubble this schedule pays and why."""
    if pp <= 1:
        return "No pipeline: no bubble."
    if workload.schedule == "interleaved":
        return (f"Interleaved 1F1B with {v} model chunks per GPU: the pipeline idles (p − 1)/v = {pp - 1}/{v} = "
                f"{idle_micro:.2f} micro-batch times against {micro} of work, for {v}× the stage-boundary sends.")
    if workload.schedule == "dualpipe":
        return (f"DualPipe: micro-batches enter from both ends; it idles (p/2 − 1) × 2/3 = {idle_micro:.2f} "
                f"micro-batch times against {micro} of work, keeps the weights twice and hides each chunk's expert "
                "all-to-all behind the other chunk's compute.")
    if workload.schedule == "zero-bubble":
        return (f"Zero-bubble (ZB-H1): weight gradients fill most of the pipeline's idle time; it idles about "
                f"(p − 1)/3 = {idle_micro:.2f} micro-batch times against {micro} of work.")
    return (f"1F1B: filling and draining {pp} stages idles p − 1 = {pp - 1} micro-batch times against {micro} of "
            "work; more micro-batches or an interleaved schedule shrink it.")


def plan(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload | None = None) -> Plan:
    r"""Write the bill of one layout: traffic, time and exposed time per dimension; step, bubble, memory.

    Parameters
    ----------
    model : ModelPreset
        The model.
    cluster : Cluster
        The cluster; its scale-up domains and NICs set each group's tier.
    layout : Layout
        The degrees and ZeRO stage.
    workload : Workload, optional
        Batch, sequence, recomputation; ``Workload()`` by default.

    Returns
    -------
    Plan
        Per dimension: bytes per GPU per step (B), calls, tier, time and exposed time (s); the
        step time (s), the pipeline bubble and MFU (fractions) and the memory per GPU (B).

    Raises
    ------
    LayoutError
        For a layout that cannot run.

    Notes
    -----
    Compute per step is :math:`6 N_{active} D + 6 L s h D` FLOPs for :math:`D` tokens
    (``arxiv-kaplan-scaling``, section 2.1, plus causal attention), shared by the GPUs at the
    workload's share of the dense BF16 peak; the step is

    .. math:: T_{step} = T_{comp} \, \frac{m + p - 1}{m} + \sum_{d} E_d

    with the 1F1B bubble (:func:`pipeline_bubble_fraction`) and the exposed time :math:`E_d` of
    each dimension, timed by :func:`~interconnect.models.collectives.collective` on the group's own
    slice of the cluster. Traffic per dimension follows ``ultrascale-playbook`` (appendix A3) and
    Korthikanti et al. (https://arxiv.org/abs/2205.05198); which shares hide is our reading of
    those sources, stated per row in ``overlap``.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.models.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> bill = plan(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, pp=1, dp=2, zero=3),
    ...             Workload(global_batch=16))
    >>> [(d.name, d.tier) for d in bill.dimensions if d.degree > 1]
    [('tp', 'NVLink'), ('dp', 'network (NIC)')]
    >>> f"{bill.step_s:.1f} s per step, {bill.mfu:.0%} MFU"
    '7.8 s per step, 52% MFU'
    """
    workload = workload or Workload()
    check_layout(model, cluster, layout, workload)
    r = _evaluate(model, cluster, workload, *(np.array([v]) for v in (layout.tp, layout.pp, layout.dp, layout.cp,
                                                                      layout.ep, layout.zero)))
    zero_collective = {0: "all-reduce", 1: "reduce-scatter + all-gather", 2: "reduce-scatter + all-gather",
                       3: "reduce-scatter + all-gather per layer"}[layout.zero]
    rows = []
    for dim in DIMENSIONS:
        degree = getattr(layout, dim)
        spans = int(r[f"{dim}_domains"][0]) if degree > 1 else 1
        coll = zero_collective if dim == "dp" else _COLLECTIVES[dim][1 if workload.sequence_parallel else 0]
        overlap = _OVERLAP[dim]
        if dim == "cp" and workload.context_parallel == "all-gather":
            coll, overlap = "all-gather + reduce-scatter", "no: attention waits for the gathered K and V"
        rows.append(Dimension(
            name=dim, label=DIMENSION_LABELS[dim], degree=degree, collective=coll if degree > 1 else "none",
            tier=("NVLink" if spans == 1 else "network (NIC)") if degree > 1 else "none",
            domains_spanned=spans, bytes_per_step=float(r[f"{dim}_bytes"][0]),
            calls_per_step=float(r[f"{dim}_calls"][0]), time_s=float(r[f"{dim}_time"][0]),
            overlap=overlap if degree > 1 else "n/a", exposed_s=float(r[f"{dim}_exposed"][0]),
        ))
    memory = Memory(float(r["mem_params"][0]), float(r["mem_grads"][0]), float(r["mem_optimizer"][0]),
                    float(r["mem_activations"][0]), float(r["mem_capacity"][0]), float(r["mem_reserved"][0]))
    notes = []
    if model.is_moe:
        notes.append("MoE: expert weights are split over EP; activations use the dense formula.")
    v = int(r["virtual"][0])
    most, last = int(r["stage_most"][0]), int(r["stage_last"][0])
    micro = int(round(float(r["micro"][0])))
    reason = _bubble_reason(workload, layout.pp, micro, v, float(r["idle_micro"][0]))
    if layout.pp > 1 and (most != last or model.layers % layout.pp):
        notes.append(f"Uneven stages: the fullest holds {most} layers, the last {last} and the output layer; the "
                     "slowest stage sets the pace.")
    _, _, _, basis = _rates(cluster, workload)
    return Plan(model, cluster, layout, workload, tuple(rows), memory, float(r["compute_s"][0]),
                float(r["step_s"][0]), float(r["exposed_s"][0]), float(r["bubble"][0]), float(r["mfu"][0]),
                micro, tuple(notes), float(r["tflops"][0]), float(r["hw_tflops"][0]), v, (most, last), reason,
                basis)


def memory_per_gpu(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload | None = None,
                   *, recompute: str | None = None) -> Memory:
    r"""Compute the memory per GPU of a layout (no validity check beyond positive degrees).

    Parameters
    ----------
    model : ModelPreset
        The model.
    cluster : Cluster
        The cluster (the GPU's memory).
    layout : Layout
        The degrees and ZeRO stage.
    workload : Workload, optional
        Batch and sequence; ``Workload()`` by default.
    recompute : {"none", "selective", "full"}, optional
        Overrides the workload's choice (the page shows all three).

    Returns
    -------
    Memory
        Bytes per GPU of weights, gradients, optimizer state and activations, and the capacity, B.

    Notes
    -----
    Mixed-precision Adam holds :math:`2 + 2 + 12` bytes per parameter (ZeRO paper,
    https://arxiv.org/abs/1910.02054, section 3.1, K = 12); ZeRO stage 1 shards the 12, stage 2 the
    gradients too, stage 3 the weights as well, over the data-parallel degree. Per GPU, with
    :math:`\Psi = N / (t \, p)` parameters:

    .. math:: M_{states} = \Psi \left(\frac{2}{d_3} + \frac{2}{d_2} + \frac{12}{d_1}\right),
        \qquad d_k = \begin{cases} DP & \text{stage} \ge k \\ 1 & \text{otherwise} \end{cases}

    Activations per layer and micro-batch with tensor and sequence parallelism are
    :math:`s b h (34 + 5 a s / h) / t` stored, :math:`34 s b h / t` with selective and
    :math:`2 s b h / t` with full recomputation (Korthikanti et al.,
    https://arxiv.org/abs/2205.05198, Table 2), for :math:`\min(p, m)` micro-batches in flight.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.models.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    >>> m = memory_per_gpu(load_model_presets()["llama3-70b"], cluster, Layout(dp=64, zero=3), Workload())
    >>> f"{(m.params + m.grads + m.optimizer) / 1e9:.1f} GB"   # 16 x 70.6e9 / 64
    '17.6 GB'
    """
    workload = workload or Workload()
    if recompute is not None:
        workload = replace(workload, recompute=recompute)
    r = _evaluate(model, cluster, workload, *(np.array([v]) for v in (layout.tp, layout.pp, layout.dp, layout.cp,
                                                                      layout.ep, layout.zero)))
    return Memory(float(r["mem_params"][0]), float(r["mem_grads"][0]), float(r["mem_optimizer"][0]),
                  float(r["mem_activations"][0]), float(r["mem_capacity"][0]), float(r["mem_reserved"][0]))


def tp_comparison(model: ModelPreset, cluster: Cluster, layout: Layout,
                  workload: Workload | None = None) -> tuple[Plan | str, Plan | str]:
    """Compare "TP inside the scale-up domain" with "TP across it" for the same layout.

    Parameters
    ----------
    model : ModelPreset
        The model.
    cluster : Cluster
        The cluster.
    layout : Layout
        The layout to vary; DP (or PP) makes up the GPU count.
    workload : Workload, optional
        Batch and sequence.

    Returns
    -------
    inside, across : Plan or str
        The layout with TP equal to the domain size and with twice that; each a :class:`Plan` or
        the sentence saying why it cannot run.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.models.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    >>> inside, across = tp_comparison(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, dp=4))
    >>> inside.step_s < across.step_s
    True
    """
    workload = workload or Workload()
    domain = cluster.domain_size
    sides: list[Plan | str] = []
    for tp in (domain, 2 * domain):
        rest = cluster.ranks // (tp * layout.cp)
        if rest < 1 or cluster.ranks % (tp * layout.cp):
            sides.append(f"TP = {tp} needs more GPUs than the cluster has.")
            continue
        pp = layout.pp if rest % layout.pp == 0 else 1
        candidate = Layout(tp=tp, pp=pp, dp=rest // pp, cp=layout.cp, ep=1, zero=layout.zero)
        try:
            sides.append(plan(model, cluster, candidate, workload))
        except LayoutError as exc:
            sides.append(f"{candidate.label()}: {exc}")
    return sides[0], sides[1]


# ------------------------------------------------------------------------------------------------
# Search
# ------------------------------------------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(math.isqrt(n)) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


@dataclass(frozen=True)
class SearchResult:
    """The fastest valid layout that fits (None if none fits), and how many were tried."""

    best: Plan | None
    tried: int
    valid: int
    fitting: int
    layouts: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    advice: tuple[str, ...] = ()


def _candidates(model: ModelPreset, cluster: Cluster, workload: Workload, zero_stages: tuple[int, ...],
                max_cp: int) -> tuple[np.ndarray, int]:
    n = cluster.ranks
    rows = []
    tried = 0
    seq = workload.tokens(model)
    for tp in _divisors(n):
        for cp in _divisors(n // tp):
            for pp in _divisors(n // (tp * cp)):
                dp = n // (tp * cp * pp)
                eps = [e for e in _divisors(dp) if model.is_moe and model.experts % e == 0] if model.is_moe else [1]
                for ep in eps or [1]:
                    for zero in zero_stages:
                        tried += 1
                        if (model.heads % tp or pp > model.layers or seq % cp or cp > max_cp
                                or workload.global_batch % (dp * workload.micro_batch)):
                            continue
                        rows.append((tp, pp, dp, cp, ep, zero))
    return np.array(rows, dtype=int).reshape(-1, 6), tried


def _variants(workload: Workload, vary: bool) -> list[Workload]:
    """List the workload and what the search may change in it: recomputation, micro-batch, schedule."""
    if not vary:
        return [workload]
    out = []
    for recompute in ("none", "selective", "full"):
        for mb in sorted({workload.micro_batch, 1, 2}):
            for schedule in sorted({workload.schedule, "1f1b", "interleaved"}):
                out.append(replace(workload, recompute=recompute, micro_batch=mb, schedule=schedule,
                                   virtual_stages=workload.virtual_stages if schedule == workload.schedule else 0))
    return out


def search_layouts(model: ModelPreset, cluster: Cluster, workload: Workload | None = None, *,
                   zero_stages: tuple[int, ...] = (0, 1, 2, 3), max_cp: int = 1, vary: bool = True) -> SearchResult:
    """Find the fastest layout that runs and fits, trying every factorisation of the GPU count.

    Parameters
    ----------
    model : ModelPreset
        The model.
    cluster : Cluster
        The cluster.
    workload : Workload, optional
        Batch and sequence; ``Workload()`` by default.
    zero_stages : tuple of int, default (0, 1, 2, 3)
        ZeRO stages to try.
    max_cp : int, default 1
        Largest context-parallel degree to try. CP is the tool for sequences too long for one GPU's
        memory, and the model counts its traffic as hidden behind attention, which flatters it.
    vary : bool, default True
        Also try every recomputation (none, selective, full), micro-batches of 1 and 2 besides the
        workload's, and the 1F1B and interleaved schedules; the winner's workload says which.

    Returns
    -------
    SearchResult
        The best :class:`Plan` (None when nothing fits: a layout that does not fit is never
        returned), the counts tried, valid and fitting, every valid layout's step time (s) at the
        workload as given, and when nothing fits, ``advice``: what would (more GPUs, FP8, full
        recomputation, offloading the optimizer state).

    Notes
    -----
    Every TP x CP x PP x DP (x EP inside DP for MoE models, x ZeRO stage) is evaluated at once
    (numpy over layouts) with the formulas of :func:`plan`, once per workload variant. Equal step
    times go to the lower ZeRO stage and smaller TP: less communication for the same result.

    Examples
    --------
    >>> from interconnect.models.cluster import resolve_cluster
    >>> from interconnect.models.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    >>> found = search_layouts(load_model_presets()["llama3-70b"], cluster, Workload(global_batch=256))
    >>> found.best.layout.tp <= 8, found.best.fits
    (True, True)
    """
    workload = workload or Workload()
    tried = valid = fitting = 0
    best: tuple | None = None
    layouts: dict[str, np.ndarray] = {}
    for variant in _variants(workload, vary):
        rows, n_tried = _candidates(model, cluster, variant, zero_stages, max_cp)
        tried += n_tried
        if rows.size == 0:
            continue
        r = _evaluate(model, cluster, variant, *rows.T)
        fits = r["fits"]
        valid += len(rows)
        fitting += int(fits.sum())
        if variant == workload:
            layouts = {"tp": rows[:, 0], "pp": rows[:, 1], "dp": rows[:, 2], "cp": rows[:, 3], "ep": rows[:, 4],
                       "zero": rows[:, 5], "step_s": r["step_s"], "fits": fits, "mem_total": r["mem_total"]}
        if not fits.any():
            continue
        step = np.where(fits, r["step_s"], np.inf)
        # ties (equal time) go to the lower ZeRO stage and smaller TP: less communication for the same result
        order = np.lexsort((rows[:, 0], rows[:, 5], np.round(step, 12)))
        key = (round(float(step[order[0]]), 12), int(rows[order[0], 5]), int(rows[order[0], 0]))
        if best is None or key < best[0]:
            best = (key, rows[order[0]], variant)
    if best is None:
        return SearchResult(None, tried, valid, 0, layouts, tuple(_advice(model, cluster, workload, zero_stages)))
    _, row, variant = best
    layout = Layout(*(int(v) for v in row))
    return SearchResult(plan(model, cluster, layout, variant), tried, valid, fitting, layouts)


def _smallest_need(model: ModelPreset, cluster: Cluster, workload: Workload, zero_stages: tuple[int, ...],
                   *, drop_optimizer: bool = False) -> float:
    """Smallest memory per GPU (with the reserve) over every layout, minus the capacity, B."""
    rows, _ = _candidates(model, cluster, workload, zero_stages, 1)
    if rows.size == 0:
        return np.inf
    r = _evaluate(model, cluster, workload, *rows.T)
    need = r["mem_total"] + r["mem_reserved"] - (r["mem_optimizer"] if drop_optimizer else 0.0)
    return float(np.min(need - r["mem_capacity"]))


def _advice(model: ModelPreset, cluster: Cluster, workload: Workload, zero_stages: tuple[int, ...]) -> list[str]:
    """Say what would fit when nothing does: more GPUs, FP8, full recomputation, offloading."""
    out = []
    full = replace(workload, recompute="full", micro_batch=1)
    if _smallest_need(model, cluster, full, zero_stages) > 0:
        for factor in (2, 4, 8, 16):
            bigger = replace(cluster, nodes=cluster.nodes * factor)
            if _smallest_need(model, bigger, full, zero_stages) <= 0:
                out.append(f"{factor}× the GPUs ({bigger.ranks:,}) would fit, with full recomputation.")
                break
        if _smallest_need(model, cluster, replace(full, dtype_bytes=1), zero_stages) <= 0:
            out.append("FP8 weights and activations would fit on these GPUs.")
        if _smallest_need(model, cluster, full, zero_stages, drop_optimizer=True) <= 0:
            out.append("Offloading the optimizer state to CPU memory (ZeRO-Offload) would fit.")
        if not out:
            out.append("Nothing tried fits: more than 16× the GPUs, or GPUs with more memory.")
    else:
        out.append("Full recomputation with micro-batch 1 would fit; the search found no valid layout with it at "
                   "this global batch.")
    return out
