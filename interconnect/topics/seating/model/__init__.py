"""The seating chart: where each kind of parallelism talks, how much, on which wire, and what it costs.

A training step of a transformer split TP x CP x DP x PP ways (tensor, context, data, pipeline
parallelism; expert parallelism EP inside DP for mixture-of-experts models) on a
:class:`~interconnect.hardware.cluster.Cluster`. For every dimension this module computes the bytes
each GPU sends per step, how many collective calls carry them, which tier they use (NVLink inside a
scale-up domain, the NICs across domains), the time on that tier from the collective models of
:mod:`interconnect.hardware.collectives`, how much of it can hide behind compute, and the exposed rest;
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
  GEMM shapes (:mod:`interconnect.topics.seating.kernels`) plus the HBM traffic of the stored activations;
  the slowest pipeline stage sets the pace; the bubble by schedule (:data:`SCHEDULES`: 1F1B,
  interleaved, zero-bubble, DualPipe; Narayanan et al. 2021, arXiv 2104.04473, section 2.2).
"""

from __future__ import annotations

from interconnect.topics.seating.model.bill import Dimension, Memory, Plan, memory_per_gpu, plan, tp_comparison
from interconnect.topics.seating.model.compute import layer_params
from interconnect.topics.seating.model.layout import (
    ATTENTION_KERNELS,
    DIMENSION_LABELS,
    DIMENSIONS,
    GRAD_ACCUMULATIONS,
    PLAN_DEFAULTS,
    RECOMPUTE_MODULES,
    RECOMPUTE_WORDS,
    SCHEDULES,
    Layout,
    LayoutError,
    Workload,
    check_layout,
    fit_layout,
    layout_problems,
)
from interconnect.topics.seating.model.memory import MEMORY_VERDICTS, RESERVED_SHARE, memory_summary, memory_verdict
from interconnect.topics.seating.model.placement import group_domains, groups_of, rank_grid, seat_map
from interconnect.topics.seating.model.schedules import pipeline_bubble_fraction, stage_layers
from interconnect.topics.seating.model.search import REJECTIONS, SearchResult, search_layouts
from interconnect.topics.seating.model.stack_defaults import (
    DEFAULT_STACK,
    STACKS,
    TP_OVERLAP_CHOICES,
    Stack,
    stack_for_run,
    stack_workload,
    tp_overlap_note,
)
from interconnect.topics.seating.model.traffic import dp_traffic_bytes, tp_bytes_per_layer

__all__ = [
    "ATTENTION_KERNELS",
    "DEFAULT_STACK",
    "DIMENSIONS",
    "GRAD_ACCUMULATIONS",
    "DIMENSION_LABELS",
    "Dimension",
    "Layout",
    "LayoutError",
    "MEMORY_VERDICTS",
    "Memory",
    "PLAN_DEFAULTS",
    "Plan",
    "RECOMPUTE_MODULES",
    "RECOMPUTE_WORDS",
    "REJECTIONS",
    "RESERVED_SHARE",
    "SCHEDULES",
    "STACKS",
    "SearchResult",
    "Stack",
    "TP_OVERLAP_CHOICES",
    "Workload",
    "check_layout",
    "dp_traffic_bytes",
    "fit_layout",
    "group_domains",
    "groups_of",
    "layer_params",
    "layout_problems",
    "memory_per_gpu",
    "memory_summary",
    "memory_verdict",
    "pipeline_bubble_fraction",
    "plan",
    "rank_grid",
    "search_layouts",
    "seat_map",
    "stack_for_run",
    "stack_workload",
    "stage_layers",
    "tp_bytes_per_layer",
    "tp_comparison",
    "tp_overlap_note",
]
