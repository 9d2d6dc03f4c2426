"""The fastest layout that fits, found by trying every factorization of the GPU count.

Recomputation, ZeRO stage and micro-batch are varied too, vectorised over layouts; when nothing fits,
the search says what would (more GPUs, FP8, full recomputation, offload).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from interconnect.hardware.cluster import Cluster
from interconnect.topics.seating.model.bill import Plan, plan
from interconnect.topics.seating.model.layout import Layout, Workload, _divisors
from interconnect.topics.seating.model.step import evaluate_layouts
from interconnect.workloads.presets import ModelPreset

__all__ = [
    "SearchResult",
    "search_layouts",
]


@dataclass(frozen=True)
class SearchResult:
    """The fastest valid layout that fits (None if none fits), and how many were tried."""

    best: Plan | None
    tried: int
    valid: int
    fitting: int
    layouts: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    advice: tuple[str, ...] = ()
    rejected: dict[str, int] = field(default_factory=dict)

    def headline(self, gpus: int, model_name: str = "this model") -> str:
        """Why nothing was found, in one sentence ("" when a layout was): none can run, or none fits in memory.

        >>> SearchResult(None, 10, 0, 0).headline(8)
        'No layout of 8 GPUs can run this model: none of the 10 tried is valid.'
        """
        if self.best is not None:
            return ""
        if self.valid == 0:
            return f"No layout of {gpus:,} GPUs can run {model_name}: none of the {self.tried:,} tried is valid."
        return (f"No layout of {gpus:,} GPUs fits {model_name} in memory ({self.valid:,} valid layouts tried, with "
                "every ZeRO stage, recomputation, micro-batch 1 or 2 and both schedules).")


#: Why a factorization cannot run, by key of :attr:`SearchResult.rejected`: the model's shape, the global batch, or a
#: ZeRO stage the engines do not run under a pipeline (:func:`_engine_runs`).
REJECTIONS = ("shape", "batch", "engine")


def _candidates(model: ModelPreset, cluster: Cluster, workload: Workload, zero_stages: tuple[int, ...],
                max_cp: int, rejected: dict | None = None) -> tuple[np.ndarray, int]:
    """The valid layouts as rows (tp, pp, dp, cp, ep, zero) and how many were tried.

    ``rejected``, when given, counts why the others cannot run: ``"shape"`` the layouts the model's
    shape rules out (TP not dividing the attention heads, more stages than layers, CP not dividing the
    sequence), ``"batch"`` those the shape allows but the global batch does not (DP x micro-batch must
    divide it), with the smallest DP among them (``"batch_min_dp"``), ``"engine"`` the ZeRO stages the pipeline
    engine cannot run with that pipeline (:func:`_engine_runs`). CP degrees above ``max_cp`` are not searched and
    not counted as rejected.
    """
    n = cluster.ranks
    rows = []
    tried = 0
    seq = workload.tokens(model)
    for tp in _divisors(n):
        for cp in _divisors(n // tp):
            for pp in _divisors(n // (tp * cp)):
                dp = n // (tp * cp * pp)
                eps = ([e for e in _divisors(tp * cp * dp) if model.experts % e == 0] if model.is_moe else [1])
                shape = bool(model.heads % tp or pp > model.layers or seq % cp)
                batch = bool(workload.global_batch % (dp * workload.micro_batch))
                count = len(eps or [1]) * len(zero_stages)
                tried += count
                if cp > max_cp:
                    continue
                if shape or batch:
                    if rejected is not None:
                        key = "shape" if shape else "batch"
                        rejected[key] = rejected.get(key, 0) + count
                        if key == "batch":
                            rejected["batch_min_dp"] = min(rejected.get("batch_min_dp", dp), dp)
                    continue
                stages = [z for z in zero_stages if _engine_runs(pp, z)]
                if rejected is not None and len(stages) < len(zero_stages):
                    rejected["engine"] = rejected.get("engine", 0) + len(eps or [1]) * (len(zero_stages) - len(stages))
                rows.extend((tp, pp, dp, cp, ep, zero) for ep in eps or [1] for zero in stages)
    return np.array(rows, dtype=int).reshape(-1, 6), tried


def _engine_runs(pp: int, zero: int) -> bool:
    """Whether the engines (Megatron-Core's, DeepSpeed's) can run this ZeRO stage with this many pipeline stages.

    Neither engine shards gradients under its own pipeline: DeepSpeed's PipelineEngine refuses ZeRO-2 and ZeRO-3
    ("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism", the assertion in deepspeed/runtime/pipe/
    engine.py's constructor), and Megatron-Core runs ZeRO-2 and ZeRO-3 only as Megatron-FSDP ("optim_grads",
    "optim_grads_params"), which composes with TP, CP and EP but not with its pipeline schedules (NVIDIA/Megatron-LM
    issue 1455, open: the Megatron-FSDP guide lists TP, EP and CP; examples/multimodal_dev/scripts/run_qwen35_vl.sh
    turns FSDP off when PP > 1, "FSDP and PP are mutually exclusive in Megatron's standard path"). Without a
    pipeline every stage runs: ZeRO-1 as Megatron-Core's distributed optimizer, ZeRO-2/3 as Megatron-FSDP or
    DeepSpeed's ZeRO.

    >>> _engine_runs(4, 2), _engine_runs(4, 3), _engine_runs(4, 1), _engine_runs(1, 3)
    (False, False, True, True)
    """
    return not (pp > 1 and zero >= 2)


def _rejection_advice(model: ModelPreset, workload: Workload, rejected: dict) -> list[str]:
    """Say why no layout can run: the model's shape, or the global batch that the layouts it allows cannot split."""
    shape = (f"TP must divide the model's {model.heads} attention heads, PP be at most its {model.layers} layers "
             f"and CP divide the sequence of {workload.tokens(model):,} tokens")
    if rejected.get("batch"):
        return [f"Every layout the model's shape allows ({shape}: {rejected['batch']:,} of them) is ruled out by the "
                f"global batch: {workload.global_batch:,} sequences do not split into whole micro-batches over "
                f"{rejected['batch_min_dp']:,} or more data-parallel replicas (DP × micro-batch must divide the "
                "batch). A larger global batch, or fewer GPUs, would let it run."]
    if rejected.get("shape"):
        return [f"No factorization of the GPU count suits the model's shape: {shape}."]
    if rejected.get("engine"):
        return ["Every layout the model's shape and batch allow needs a pipeline with ZeRO-2 or 3, which neither "
                "Megatron-Core (Megatron-FSDP does not run under its pipeline) nor DeepSpeed's pipeline engine runs; "
                "with ZeRO-0 or 1 allowed, more would."]
    return []


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
    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.workloads.presets import load_model_presets
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    >>> found = search_layouts(load_model_presets()["llama3-70b"], cluster, Workload(global_batch=256))
    >>> found.best.layout.tp <= 8, found.best.fits
    (True, True)
    """
    workload = workload or Workload()
    tried = valid = fitting = 0
    best: tuple | None = None
    layouts: dict[str, np.ndarray] = {}
    rejected: dict[str, int] = {}
    for variant in _variants(workload, vary):
        rows, n_tried = _candidates(model, cluster, variant, zero_stages, max_cp, rejected)
        tried += n_tried
        if rows.size == 0:
            continue
        r = evaluate_layouts(model, cluster, variant, *rows.T)
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
        advice = (_rejection_advice(model, workload, rejected) if valid == 0
                  else _advice(model, cluster, workload, zero_stages))
        return SearchResult(None, tried, valid, 0, layouts, tuple(advice), rejected)
    _, row, variant = best
    layout = Layout(*(int(v) for v in row))
    return SearchResult(plan(model, cluster, layout, variant), tried, valid, fitting, layouts, rejected=rejected)


def _smallest_need(model: ModelPreset, cluster: Cluster, workload: Workload, zero_stages: tuple[int, ...],
                   *, drop_optimizer: bool = False) -> float:
    """Smallest memory per GPU (with the reserve) over every layout, minus the capacity, B."""
    rows, _ = _candidates(model, cluster, workload, zero_stages, 1)
    if rows.size == 0:
        return np.inf
    r = evaluate_layouts(model, cluster, workload, *rows.T)
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
