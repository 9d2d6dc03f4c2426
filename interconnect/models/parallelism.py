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
  (Rajbhandari et al. 2019, arXiv 1910.02054, Figure 1); activations per layer
  ``s·b·h·(34 + 5·a·s/h)/t`` with TP and sequence parallelism, ``34·s·b·h/t`` with selective and
  ``2·s·b·h/t`` with full recomputation (Korthikanti et al. 2022, Table 2 and section 5);
* compute: ``6·N_active`` FLOP per token plus causal attention ``6·L·s·h`` (Kaplan et al. 2020,
  arXiv 2001.08361, section 2.1); pipeline bubble ``(p-1)/m`` of the ideal time for 1F1B
  (Narayanan et al. 2021, arXiv 2104.04473, section 2.2).
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
DIMENSION_LABELS = {"tp": "Tensor (TP)", "cp": "Context (CP)", "ep": "Expert (EP)", "dp": "Data (DP)",
                    "pp": "Pipeline (PP)"}
#: Bytes per parameter of mixed-precision Adam: BF16 weights 2, BF16 gradients 2, FP32 master weights,
#: momentum and variance 4 + 4 + 4 (ZeRO paper, arXiv 1910.02054, section 3.1, K = 12).
PARAM_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 2.0, 12.0
#: Message sizes at which each collective is tabulated (two per octave, 1 B to 1 TiB); times between
#: them are interpolated log-log, which keeps one layout's bill and the search in exact agreement.
_TABLE_SIZES = 2.0 ** np.arange(0, 40.5, 0.5)


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
    BF16); ``recompute`` ``none``, ``selective`` or ``full``; ``compute_efficiency`` the share of the
    GPU's dense BF16 peak its matrix multiplies reach (an assumption: 0.5 is typical of large runs,
    the Ultra-Scale Playbook reports MFU of roughly 30-50 %); ``bucket_bytes`` the gradient bucket of
    data parallelism (PyTorch DDP's 25 MB default, Playbook appendix A3).
    """

    micro_batch: int = 1
    global_batch: int = 256
    seq_len: int | None = None
    dtype_bytes: int = 2
    recompute: str = "selective"
    sequence_parallel: bool = True
    compute_efficiency: float = 0.5
    bucket_bytes: float = 25e6

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


def pipeline_bubble_fraction(pp: int, micro_batches: int) -> float:
    r"""Compute the share of a 1F1B pipeline step spent idle.

    Parameters
    ----------
    pp : int
        p, pipeline stages.
    micro_batches : int
        m, micro-batches per step.

    Returns
    -------
    float
        The idle share of the whole step (0 for one stage).

    Notes
    -----
    The bubble is :math:`(p-1)/m` of the ideal compute time (Narayanan et al.,
    https://arxiv.org/abs/2104.04473, section 2.2.1; ``ultrascale-playbook`` writes the same
    ratio), so of the whole step it is

    .. math:: \beta = \frac{p - 1}{m + p - 1}

    Examples
    --------
    >>> f"{pipeline_bubble_fraction(4, 12):.0%}"
    '20%'
    """
    if pp <= 1:
        return 0.0
    return (pp - 1) / (micro_batches + pp - 1)


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
    if model.layers % layout.pp:
        problems.append(f"PP = {layout.pp} does not divide the model's {model.layers} layers.")
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

    return float(get_catalog().gpu(cluster.gpu).memory.quantity.to("B").magnitude)


def _evaluate(model: ModelPreset, cluster: Cluster, workload: Workload, tp: np.ndarray, pp: np.ndarray,
              dp: np.ndarray, cp: np.ndarray, ep: np.ndarray, zero: np.ndarray) -> dict[str, np.ndarray]:
    """Everything per layout, as arrays (the layouts must be valid)."""
    f = {k: np.asarray(v, dtype=float) for k, v in dict(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, zero=zero).items()}
    tp_, pp_, dp_, cp_, ep_, z = f["tp"], f["pp"], f["dp"], f["cp"], f["ep"], f["zero"]
    domain = cluster.domain_size
    s, b, h, L = workload.tokens(model), workload.micro_batch, model.hidden, model.layers
    nbytes = workload.dtype_bytes
    eff = workload.compute_efficiency
    peak = _peak_flops(cluster)
    micro = workload.global_batch / (dp_ * b)  # micro-batches per step per pipeline
    layers_stage = L / pp_
    tokens_step = workload.global_batch * s
    n_gpus = tp_ * pp_ * dp_ * cp_

    # --- compute -----------------------------------------------------------------------------
    model_flops = 6 * model.active_params * tokens_step + 6 * L * s * h * tokens_step  # fwd + bwd
    extra = {"none": 0.0, "selective": 2 * L * s * h * tokens_step,  # attention core again
             "full": 2 * model.active_params * tokens_step + 2 * L * s * h * tokens_step}[workload.recompute]
    compute_s = (model_flops + extra) / n_gpus / (peak * eff)
    ideal_s = model_flops / n_gpus / peak
    per_micro_s = compute_s / micro
    attention_s = 6 * L * s * h * tokens_step / n_gpus / (peak * eff)

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

    # --- parameters per GPU ------------------------------------------------------------------
    dense_gpu = model.dense_params / (tp_ * pp_)
    expert_gpu = model.expert_params / (tp_ * pp_ * ep_)
    psi = dense_gpu + expert_gpu

    out: dict[str, np.ndarray] = {}

    # --- TP: 2 all-reduces per layer forward, 2 backward (or 2 AG + 2 RS each way with SP) -------
    act = (s / cp_) * b * h * nbytes
    fwd_extra = 1.0 if workload.recompute == "full" else 0.0
    passes = 2.0 + fwd_extra  # forward, backward, and the recomputed forward
    if workload.sequence_parallel:
        t_ag = _time_s(cluster, "all_gather", tp_per, tp_dom, act)
        t_rs = _time_s(cluster, "reduce_scatter", tp_per, tp_dom, act)
        tp_calls = micro * layers_stage * passes * 4
        tp_time = micro * layers_stage * passes * 2 * (t_ag + t_rs)
    else:
        t_ar = _time_s(cluster, "all_reduce", tp_per, tp_dom, act)
        tp_calls = micro * layers_stage * passes * 2
        tp_time = tp_calls * t_ar
    tp_bytes = micro * layers_stage * passes * 4 * np.where(tp_ > 1, (tp_ - 1) / tp_, 0) * act
    tp_time = np.where(tp_ > 1, tp_time, 0.0)
    tp_calls = np.where(tp_ > 1, tp_calls, 0.0)
    out.update(tp_bytes=tp_bytes, tp_calls=tp_calls, tp_time=tp_time, tp_exposed=tp_time, tp_domains=tp_dom,
               tp_per=tp_per)

    # --- CP: ring attention passes K and V around the CP group, hidden behind attention --------
    kv = 2 * (s / cp_) * b * model.kv_heads * model.head_dim * nbytes / np.where(tp_ <= model.kv_heads, tp_, 1)
    t_send = _time_s(cluster, "sendrecv", cp_per, cp_dom, kv)
    cp_steps = micro * layers_stage * 3 * (cp_ - 1)  # forward K,V; backward K,V and their gradients
    cp_time = np.where(cp_ > 1, cp_steps * t_send, 0.0)
    out.update(cp_bytes=np.where(cp_ > 1, cp_steps * kv, 0.0), cp_calls=np.where(cp_ > 1, cp_steps, 0.0),
               cp_time=cp_time, cp_exposed=np.maximum(0.0, cp_time - attention_s), cp_domains=cp_dom, cp_per=cp_per)

    # --- EP: dispatch and combine all-to-alls in every MoE layer, forward and backward ---------
    if model.is_moe:
        a2a = (s / cp_) * b / (tp_ if workload.sequence_parallel else 1) * model.top_k * h * nbytes
        t_a2a = _time_s(cluster, "alltoall", ep_per, ep_dom, a2a)
        ep_calls = micro * layers_stage * 4
        ep_time = np.where(ep_ > 1, ep_calls * t_a2a, 0.0)
        ep_bytes = np.where(ep_ > 1, ep_calls * (ep_ - 1) / ep_ * a2a, 0.0)
    else:
        ep_time = ep_bytes = ep_calls = np.zeros_like(tp_)
    out.update(ep_bytes=ep_bytes, ep_calls=np.where(ep_ > 1, ep_calls, 0.0), ep_time=ep_time, ep_exposed=ep_time,
               ep_domains=ep_dom, ep_per=ep_per)

    # --- DP: gradients (and weights under ZeRO) across replicas, overlapped with backward ------
    grad_dense = dense_gpu * nbytes
    grad_expert = expert_gpu * nbytes
    bucket = workload.bucket_bytes

    def sync(name: str, total: np.ndarray, per: np.ndarray, dom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        calls = np.maximum(1, np.ceil(total / bucket))
        return calls * _time_s(cluster, name, per, dom, total / calls), calls

    dp_time = np.zeros_like(tp_)
    dp_calls = np.zeros_like(tp_)
    dp_bytes = np.zeros_like(tp_)
    exposed_dp = np.zeros_like(tp_)
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
        # Gradient reduction overlaps the last micro-batch's backward (2/3 of its compute); the last
        # bucket cannot. ZeRO-1/2's weight all-gather waits for the optimizer; ZeRO-3's gathers are
        # prefetched one layer ahead of the compute that needs them.
        last_bucket = np.where(z == 0, ar / ar_calls, rs / rs_calls)
        grad_part = np.where(z == 0, ar, rs)
        hidden_grad = np.maximum(last_bucket, grad_part - 2 / 3 * per_micro_s)
        gather_exposed = np.where(z == 0, 0.0, np.where(z < 3, ag, np.maximum(layer_ag, z3_ag - compute_s)))
        exposed = hidden_grad + gather_exposed
        dp_time += np.where(active, t, 0.0)
        dp_calls += np.where(active, calls, 0.0)
        dp_bytes += np.where(active, volume, 0.0)
        exposed_dp += np.where(active, exposed, 0.0)
    out.update(dp_bytes=dp_bytes, dp_calls=dp_calls, dp_time=dp_time, dp_exposed=exposed_dp, dp_domains=dp_dom,
               dp_per=dp_per)

    # --- PP: activations forward, their gradients backward, at every stage boundary ------------
    boundary = (s / cp_) * b * h * nbytes / (tp_ if workload.sequence_parallel else 1)
    t_p2p = _time_s(cluster, "sendrecv", pp_per, pp_dom, boundary)
    pp_calls = np.where(pp_ > 1, 2 * micro, 0.0)
    pp_time = pp_calls * t_p2p
    out.update(pp_bytes=pp_calls * boundary, pp_calls=pp_calls, pp_time=pp_time,
               pp_exposed=np.where(pp_ > 1, 2 * (pp_ - 1) * t_p2p, 0.0), pp_domains=pp_dom, pp_per=pp_per)

    # --- step ----------------------------------------------------------------------------------
    bubble = np.where(pp_ > 1, (pp_ - 1) / (micro + pp_ - 1), 0.0)
    compute_with_bubble = compute_s * (micro + pp_ - 1) / micro
    exposed = sum(out[f"{d}_exposed"] for d in DIMENSIONS)
    step = compute_with_bubble + exposed
    out.update(compute_s=compute_s, ideal_s=ideal_s, bubble=bubble, exposed_s=exposed, step_s=step,
               mfu=ideal_s / step, micro=micro)

    # --- memory ----------------------------------------------------------------------------------
    shard_dense = np.where(dp_ > 1, dp_, 1.0)
    shard_expert = edp

    def sharded(bytes_per_param: float, stage: int) -> np.ndarray:
        on = z >= stage
        return (dense_gpu * bytes_per_param / np.where(on, shard_dense, 1.0)
                + expert_gpu * bytes_per_param / np.where(on, shard_expert, 1.0))

    out["mem_params"] = sharded(PARAM_BYTES, 3)
    out["mem_grads"] = sharded(GRAD_BYTES, 2)
    out["mem_optimizer"] = sharded(OPTIMIZER_BYTES, 1)
    out["mem_activations"] = _activations(model, workload, tp_, pp_, cp_, micro)
    out["mem_total"] = out["mem_params"] + out["mem_grads"] + out["mem_optimizer"] + out["mem_activations"]
    out["mem_capacity"] = np.full_like(tp_, _memory_bytes(cluster))
    out["fits"] = out["mem_total"] <= out["mem_capacity"]
    out["psi"] = psi
    return out


def _activations(model: ModelPreset, workload: Workload, tp: np.ndarray, pp: np.ndarray, cp: np.ndarray,
                 micro: np.ndarray, recompute: str | None = None) -> np.ndarray:
    """Activation bytes per GPU (Korthikanti et al. 2022, Table 2, with 2-byte activations).

    Per layer and micro-batch, with tensor and sequence parallelism: ``s·b·h·(34 + 5·a·s/h) / t``
    stored without recomputation, ``34·s·b·h / t`` with selective recomputation (the attention
    scores are recomputed), ``2·s·b·h / t`` (the layer input) with full recomputation; without
    sequence parallelism ``s·b·h·(10 + 24/t + 5·a·s/(h·t))``. The first pipeline stage holds
    ``min(p, m)`` micro-batches of its ``L/p`` layers under 1F1B. Plus the FP32 logits of the last
    layer, ``4·s·b·V / t``.
    """
    s = workload.tokens(model) / cp
    b, h, a = workload.micro_batch, model.hidden, model.heads
    mode = recompute or workload.recompute
    if workload.sequence_parallel:
        full = s * b * h * (34 + 5 * a * s / h) / tp
        selective = 34 * s * b * h / tp
        minimal = 2 * s * b * h / tp
    else:
        full = s * b * h * (10 + 24 / tp + 5 * a * s / (h * tp))
        selective = s * b * h * (10 + 24 / tp)
        minimal = 2 * s * b * h
    per_layer = {"none": full, "selective": selective, "full": minimal}[mode]
    in_flight = np.minimum(pp, micro)
    logits = 4 * s * b * model.vocab / tp
    return per_layer * (model.layers / pp) * in_flight + logits


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

    @property
    def total(self) -> float:
        """Bytes per GPU of every kind together, B."""
        return self.params + self.grads + self.optimizer + self.activations

    @property
    def fits(self) -> bool:
        """Whether the total fits in the GPU's memory."""
        return self.total <= self.capacity


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
    '9.6 s per step, 39% MFU'
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
        rows.append(Dimension(
            name=dim, label=DIMENSION_LABELS[dim], degree=degree, collective=coll if degree > 1 else "none",
            tier=("NVLink" if spans == 1 else "network (NIC)") if degree > 1 else "none",
            domains_spanned=spans, bytes_per_step=float(r[f"{dim}_bytes"][0]),
            calls_per_step=float(r[f"{dim}_calls"][0]), time_s=float(r[f"{dim}_time"][0]),
            overlap=_OVERLAP[dim] if degree > 1 else "n/a", exposed_s=float(r[f"{dim}_exposed"][0]),
        ))
    memory = Memory(float(r["mem_params"][0]), float(r["mem_grads"][0]), float(r["mem_optimizer"][0]),
                    float(r["mem_activations"][0]), float(r["mem_capacity"][0]))
    notes = []
    if model.is_moe:
        notes.append("MoE: expert weights are split over EP; activations use the dense formula.")
    return Plan(model, cluster, layout, workload, tuple(rows), memory, float(r["compute_s"][0]),
                float(r["step_s"][0]), float(r["exposed_s"][0]), float(r["bubble"][0]), float(r["mfu"][0]),
                int(round(float(r["micro"][0]))), tuple(notes))


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
                  float(r["mem_activations"][0]), float(r["mem_capacity"][0]))


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
                        if (model.heads % tp or model.layers % pp or seq % cp or cp > max_cp
                                or workload.global_batch % (dp * workload.micro_batch)):
                            continue
                        rows.append((tp, pp, dp, cp, ep, zero))
    return np.array(rows, dtype=int).reshape(-1, 6), tried


def search_layouts(model: ModelPreset, cluster: Cluster, workload: Workload | None = None, *,
                   zero_stages: tuple[int, ...] = (0, 1, 2, 3), max_cp: int = 1) -> SearchResult:
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

    Returns
    -------
    SearchResult
        The best :class:`Plan` (None when nothing fits: a layout that does not fit is never
        returned), the counts tried, valid and fitting, and every valid layout's step time (s).

    Notes
    -----
    Every TP x CP x PP x DP (x EP inside DP for MoE models, x ZeRO stage) is evaluated at once
    (numpy over layouts) with the formulas of :func:`plan`. Equal step times go to the lower ZeRO
    stage and smaller TP: less communication for the same result.

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
    rows, tried = _candidates(model, cluster, workload, zero_stages, max_cp)
    if rows.size == 0:
        return SearchResult(None, tried, 0, 0)
    r = _evaluate(model, cluster, workload, *rows.T)
    fits = r["fits"]
    layouts = {"tp": rows[:, 0], "pp": rows[:, 1], "dp": rows[:, 2], "cp": rows[:, 3], "ep": rows[:, 4],
               "zero": rows[:, 5], "step_s": r["step_s"], "fits": fits, "mem_total": r["mem_total"]}
    if not fits.any():
        return SearchResult(None, tried, len(rows), 0, layouts)
    step = np.where(fits, r["step_s"], np.inf)
    # ties (equal time) go to the lower ZeRO stage and smaller TP: less communication for the same result
    order = np.lexsort((rows[:, 0], rows[:, 5], np.round(step, 12)))
    best = rows[order[0]]
    layout = Layout(*(int(v) for v in best))
    return SearchResult(plan(model, cluster, layout, workload), tried, len(rows), int(fits.sum()), layouts)
