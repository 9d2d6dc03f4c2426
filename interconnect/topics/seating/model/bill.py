"""One layout's bill: per dimension the bytes, calls, tier, time and exposed time.

Also the step time, MFU, TFLOP/s per GPU and memory of the layout, and the TP-inside versus
TP-across-the-cliff comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.topics.seating.model.compute import _rates
from interconnect.topics.seating.model.data_parallel import gradient_reductions
from interconnect.topics.seating.model.layout import (
    DIMENSION_LABELS,
    DIMENSIONS,
    Layout,
    LayoutError,
    Workload,
    check_layout,
)
from interconnect.topics.seating.model.memory import memory_summary, memory_verdict
from interconnect.topics.seating.model.schedules import _bubble_reason
from interconnect.topics.seating.model.step import evaluate_layouts
from interconnect.workloads.presets import ModelPreset

__all__ = [
    "Dimension",
    "Memory",
    "Plan",
    "memory_per_gpu",
    "plan",
    "tp_comparison",
]


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

    @property
    def verdict(self) -> str:
        """What the memory says: ``"fits"``, ``"tight"`` or ``"does not fit"`` (:func:`memory_verdict`)."""
        return memory_verdict(self.total, self.reserved, self.capacity)

    @property
    def summary(self) -> str:
        """``"82 / 85.5 GB per GPU, tight"``: the bytes against the GPU's and the verdict (:func:`memory_summary`)."""
        return memory_summary(self.total, self.reserved, self.capacity)


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
    each dimension, timed by :func:`~interconnect.hardware.collectives.collective` on the group's own
    slice of the cluster. Traffic per dimension follows ``ultrascale-playbook`` (appendix A3) and
    Korthikanti et al. (https://arxiv.org/abs/2205.05198); which shares hide is our reading of
    those sources, stated per row in ``overlap``.

    Examples
    --------
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.workloads.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    >>> bill = plan(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, pp=1, dp=2, zero=3),
    ...             Workload(global_batch=16))
    >>> [(d.name, d.tier) for d in bill.dimensions if d.degree > 1]
    [('tp', 'NVLink'), ('dp', 'network (NIC)')]
    >>> f"{bill.step_s:.1f} s per step, {bill.mfu:.0%} MFU"
    '9.2 s per step, 44% MFU'
    """
    workload = workload or Workload()
    check_layout(model, cluster, layout, workload)
    r = evaluate_layouts(model, cluster, workload, *(np.array([v]) for v in (layout.tp, layout.pp, layout.dp, layout.cp,
                                                                      layout.ep, layout.zero)))
    zero_collective = {0: "all-reduce", 1: "reduce-scatter + all-gather", 2: "reduce-scatter + all-gather",
                       3: "reduce-scatter + all-gather per layer"}[layout.zero]
    rows = []
    for dim in DIMENSIONS:
        degree = getattr(layout, dim)
        # the gradients (and ZeRO's shards) go over every rank holding the same weights: DP x CP
        group = degree * layout.cp if dim == "dp" else degree
        spans = int(r[f"{dim}_domains"][0]) if group > 1 else 1
        coll = zero_collective if dim == "dp" else _COLLECTIVES[dim][1 if workload.sequence_parallel else 0]
        if dim == "dp" and layout.cp > 1:
            coll += f" over DP x CP ({group})"
        overlap = _OVERLAP[dim]
        if dim == "cp" and workload.context_parallel == "all-gather":
            coll, overlap = "all-gather + reduce-scatter", "no: attention waits for the gathered K and V"
        if dim == "cp" and workload.context_parallel == "pytorch":
            coll = "all-gather (K, V) + send/recv (their FP32 gradients)"
            overlap = ("no: compiled, each gather and gradient pass is waited for where it is issued"
                       if workload.cp_waits_at_issue else
                       "mostly: each gather behind the first step's attention, each gradient behind the next step's")
        if dim == "tp" and workload.tp_userbuffers:
            overlap = "inside the GEMMs (userbuffers); exposed is what the chunked GEMMs and the rest add"
        if (dim == "pp" and workload.p2p_blocking and workload.schedule == "1f1b"
                and workload.pipeline_engine == "megatron"):
            overlap = "no: 1F1B without interleaving waits for every exchange before its next forward or backward"
        if (dim == "pp" and workload.interleaved_p2p == "blocking" and workload.schedule == "interleaved"
                and workload.pipeline_engine == "megatron"):
            overlap = "no: Megatron-LM 2021 waits for each batched exchange with both neighbours after every chunk pair"
        if dim == "dp" and layout.zero >= 2 and float(gradient_reductions(layout.zero, r["micro"], layout.pp,
                                                                           workload.pipeline_fsdp_unsharded)[0]) > 1:
            # sharded gradients under accumulation: a reduce-scatter in every micro-batch's backward
            overlap = "mostly: the gradients reduce-scattered in every micro-batch, behind its compute"
        rows.append(Dimension(
            name=dim, label=DIMENSION_LABELS[dim], degree=degree, collective=coll if group > 1 else "none",
            tier=("NVLink" if spans == 1 else "network (NIC)") if group > 1 else "none",
            domains_spanned=spans, bytes_per_step=float(r[f"{dim}_bytes"][0]),
            calls_per_step=float(r[f"{dim}_calls"][0]), time_s=float(r[f"{dim}_time"][0]),
            overlap=overlap if group > 1 else "n/a", exposed_s=float(r[f"{dim}_exposed"][0]),
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
    if workload.mtp_layers:
        depth = workload.mtp_layers
        notes.append(f"Multi-token prediction: {depth} more layer{'s' if depth > 1 else ''} after the model's, on the "
                     f"last stage, each with a 2h to h projection, its norms and the output layer and loss once more; "
                     f"its weights are extra to the model's {model.params / 1e9:,.0f}B.")
    _, _, _, basis = _rates(cluster, workload, gpus=layout.gpus)
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
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.workloads.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    >>> m = memory_per_gpu(load_model_presets()["llama3-70b"], cluster, Layout(dp=64, zero=3), Workload())
    >>> f"{(m.params + m.grads + m.optimizer) / 1e9:.1f} GB"   # 16 x 70.6e9 / 64
    '17.6 GB'
    """
    workload = workload or Workload()
    if recompute is not None:
        workload = replace(workload, recompute=recompute)
    r = evaluate_layouts(model, cluster, workload, *(np.array([v]) for v in (layout.tp, layout.pp, layout.dp, layout.cp,
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
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.workloads.presets import load_model_presets
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
