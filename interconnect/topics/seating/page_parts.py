"""The Seating chart page's cached core calls: pure functions of hashable inputs, computed once per view.

Kept out of the page and of :mod:`interconnect.topics.seating.page` (which draws it), so both only call these.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from interconnect.hardware.accuracy import expected_text, seconds_in_unit_of
from interconnect.hardware.cluster import Cluster
from interconnect.topics.seating.accuracy import (
    band_rows,
    case_band,
    layout_runs_text,
    plan_expected,
    published_layout_runs,
)
from interconnect.topics.seating.figures import bill_figure, gpu_grid_figure, memory_figure
from interconnect.topics.seating.inputs import DTYPE_BYTES, RECOMPUTE_MODULE_KEYS
from interconnect.topics.seating.model import (
    Layout,
    Plan,
    Workload,
    fit_layout,
    memory_per_gpu,
    plan,
    search_layouts,
    stack_workload,
    tp_comparison,
    tp_overlap_note,
)
from interconnect.ui.cluster import CLUSTER_HASH
from interconnect.ui.error_band import show_error_band
from interconnect.ui.heavy import run_heavy
from interconnect.ui.markdown import escape_markdown, markdown_table
from interconnect.ui.state import PageState
from interconnect.units import Q_, format_quantity, format_seconds
from interconnect.workloads.presets import ModelPreset, custom_model, load_model_presets

# --- cached core calls (pure functions of hashable inputs) ----------------------------------------
# Shared, never copied (cache_resource): the results are frozen dataclasses and figures that are only
# read. Keys are the inputs' reprs (every field, one string) rather than Streamlit's field-by-field walk.
HASH = {**CLUSTER_HASH, ModelPreset: repr, Layout: repr, Workload: repr}


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH)
def cached_plan(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload):
    return plan(model, cluster, layout, workload)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH)
def memory_by_stage(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload):
    stages = {z: memory_per_gpu(model, cluster, replace(layout, zero=z), workload) for z in range(4)}
    modes = {m: memory_per_gpu(model, cluster, layout, workload, recompute=m).activations
             for m in ("none", "selective", "full")}
    return stages, modes


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def grid_figure(layout: Layout, domain: int, colour: str, label: str):
    # figures are cached as objects (no pickling); Streamlit only reads them
    return gpu_grid_figure(layout, domain, colour, domain_label=label)


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def bill_view(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload):
    """The bill's chart and its table as Markdown (static, so it grows with a projector's text)."""
    bill = plan(model, cluster, layout, workload)
    rows = [d for d in bill.dimensions if d.degree > 1]
    table = pd.DataFrame({
        "dimension": [d.label for d in rows],
        "degree": [d.degree for d in rows],
        "collective": [d.collective for d in rows],
        "tier": [d.tier for d in rows],
        "sent per step per GPU": [format_quantity(Q_(d.bytes_per_step, "B")) for d in rows],
        "calls per step": [f"{int(d.calls_per_step):,}" for d in rows],
        "time on the tier": [format_seconds(d.time_s) for d in rows],
        "can it overlap?": [d.overlap for d in rows],
        "exposed": [format_seconds(d.exposed_s) for d in rows],
    })
    return bill_figure(bill), markdown_table(table)


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def memory_view(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload):
    stages, modes = memory_by_stage(model, cluster, layout, workload)
    return memory_figure(stages, layout.zero, recompute=workload.recompute), modes


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def cached_search(model: ModelPreset, cluster: Cluster, workload: Workload):
    return run_heavy(search_layouts, model, cluster, workload)  # in the server's one heavy-work slot


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def tp_pair(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload):
    return tp_comparison(model, cluster, layout, workload)


#: The smallest compute-efficiency override the page and ``plan --efficiency`` take (a share of the BF16 peak).
MIN_EFFICIENCY = 0.01


#: Why the model misses a published run, by the start of the run's id (our reading of the evidence).
MISS_REASONS = {
    "mtnlg": "2021 software: DeepSpeed's pipeline engine with Megatron-LM's tensor slicing, no sequence "
             "parallelism. The model already charges what that engine is known to do (blocking stage-to-stage "
             "sends, gradients reduced only after the last micro-batch: {engine:.0%} of the step here, as its "
             "activations are split across the TP group before they are sent). NVIDIA's 2022 measurement of the "
             "same 530B model on 2,240 A100 with full recomputation, 42.1 % MFU (Korthikanti et al. 2022, "
             "abstract), is about 175 TFLOP/s counted this way; the model, at 159, is 9 % below it. The paper's "
             "own step times (60.1 s at 2,240 GPUs) confirm its 126. The same 530B shape run with Megatron-LM's own "
             "pipeline on 2,520 A100 of the same kind of machine reached 163 (Narayanan et al. 2021, Table 1), and "
             "the model gives that run 1.02 of it: the rest of the gap is the older software, with no published "
             "breakdown.",
    "bloom": "2022 Megatron-DeepSpeed (DeepSpeed's pipeline engine, charged as for MT-NLG) without sequence "
             "parallelism, on Omni-Path. The gap is not the pipeline or the network: BigScience's own check of "
             "the most the same software reached on one 8-GPU node (a 6-layer slice of a 14,336-wide model, TP 8, "
             "no pipeline, no network; the tr11-176B-ml chronicles, February 2022) measured 143.5 and 157.0 "
             "TFLOP/s in two runs of one configuration, where the model, with the kernel figures that put "
             "NVIDIA's own Megatron-LM runs of those years at 0.94-1.11 of their measurements, gives 193. The "
             "spread of those two measurements, 9 %, is itself most of the band this check allows.",
    "llama3-405b-128k": "attention is over half the work at 131,072 tokens. The model charges flash attention's "
                        "backward at 2.5 times its forward, at FlashAttention-2's rate (35 % of an H100's peak, "
                        "from the FlashAttention-3 paper: Llama 3 was pretrained before FlashAttention-3 appeared "
                        "in July 2024), and Meta's all-gathered K and V as exposed. How Meta counts attention FLOPs "
                        "under its document masks is not published: had it counted only the unmasked half of a "
                        "causal attention (6 l h s per token instead of PaLM's 12), the paper's 380 would be 532 "
                        "counted as here, and the model would be 0.89. Memory: the 8K runs' activations per GPU "
                        "(CP leaves 8,192 tokens per GPU) with less sharding over DP 8, 81 GB against 77 usable "
                        "(85.5 GB less the 10 % allowance): tight, inside the allowance; it fits with it if Meta's "
                        "tunable N is 12 or less (see the 8K runs). Recomputation at 128K is not stated; assumed off.",
    "llama3-405b-8k": "at 8,192 GPUs the model is 18 % above the paper (14 % at 16,384, inside the band). Its kernel "
                      "rates are the sourced H100 ones: sustained GEMM 699 TFLOP/s (no lower sustained H100 figure "
                      "was found) and FlashAttention-2's 35 % of peak. Memory: counted tensor by tensor for this "
                      "layer (8 KV heads, SwiGLU MLP, no dropout) times the micro-batches Megatron-LM's interleaved "
                      "schedule keeps on the fullest stage (17.6 at 32 micro-batches per step), the activations "
                      "are 76 GB and the total 83 GB, against 77 GB usable: the driver-reported 85.5 GB of an "
                      "'80 GB' H100 less the 10 % allowance, so tight: it fits only inside the allowance. The "
                      "paper made the number of micro-batches run back to back per model chunk (N) tunable to save "
                      "memory and frees stage inputs and outputs early; "
                      "the warm-up holds 2(p - 1) + (v - 1)N chunk forwards (Megatron-LM's "
                      "microbatch_group_size_per_vp_stage), so with N of 14 or less instead of p = 16 it fits. Meta "
                      "does not publish its N.",
}


@st.cache_resource(max_entries=1, show_spinner=False)
def reference_view() -> tuple[str, list[str], str]:
    """The published runs with model / paper as a Markdown table, the runs missed by over 15 %, the sources."""
    from interconnect.topics.seating.reference_runs import load_reference_runs, predict, reference_sources

    sources = reference_sources()
    rows, misses = [], []
    for run in load_reference_runs():
        p = predict(run)
        b = p.bill
        schedule = {"1f1b": "1F1B", "interleaved": f"interleaved (v = {b.virtual_stages})",
                    "zero-bubble": "zero-bubble", "dualpipe": "DualPipe"}[run.schedule]
        rows.append({
            "run": run.name,
            "layout": f"TP{run.tp} × CP{run.cp} × PP{run.pp} × DP{run.dp}",
            "schedule, recomputation": f"{schedule}, {run.recompute}"
                                       + "".join(f" + {m}" for m in run.recompute_modules),
            "paper TFLOP/s per GPU": f"{run.achieved_tflops:g}",
            "model": f"{p.tflops:.0f}",
            "model / paper": f"{p.ratio:.2f}",
            "memory": b.memory.verdict if b.fits else f"{b.memory.verdict} ({b.memory.total / 1e9:.0f} of "
                                                        f"{b.memory.capacity / 1e9:.0f} GB)",
            "source": f"{run.source}: {run.table}",
        })
        if not 0.85 <= p.ratio <= 1.15 or not b.fits:
            reason = next((text for key, text in MISS_REASONS.items() if run.id.startswith(key)), "not explained yet.")
            exposed = {d.name: d.exposed_s for d in b.dimensions}
            reason = reason.format(engine=(exposed["pp"] + exposed["dp"]) / b.step_s)
            memory = "" if b.fits else f", memory {b.memory.verdict}"
            misses.append(f"**{run.name}**, model / paper {p.ratio:.2f}{memory}: {reason}")
    links = "\n".join(f"- {key}: [{s['title']}]({s['url']})" for key, s in sources.items())
    return markdown_table(pd.DataFrame(rows)), misses, links


@dataclass(frozen=True)
class SeatingInputs:
    """What the page's values describe: the model, the workload and the layout, with the notes to show."""

    model: ModelPreset
    workload: Workload
    layout: Layout
    model_notes: tuple[str, ...]
    layout_change: str  # "" unless the layout was fitted to the cluster (DP left at 0)
    stack_note: str = ""  # "" unless TP-communication overlap was asked for and cannot act


def module_blocked(module: str, is_mla: bool, is_moe: bool) -> str:
    """Why recomputing ``module`` changes nothing for this model, in a few words ("" when it acts): mla_up_proj needs
    latent attention, moe_act experts; the model refuses them otherwise.

    >>> module_blocked("mla_up_proj", False, True), module_blocked("moe_act", False, True)
    ('latent attention only', '')
    """
    return {"mla_up_proj": "" if is_mla else "latent attention only",
            "moe_act": "" if is_moe else "experts only"}.get(module, "")


def a2a_overlap_blocked(is_moe: bool, ep: int, recompute: str) -> str:
    """Why overlapping the expert all-to-alls cannot act, in a few words ("" when it can): it needs experts spread
    over EP > 1, and not full recomputation (Megatron-Core refuses that pair).

    >>> a2a_overlap_blocked(True, 8, "selective"), a2a_overlap_blocked(True, 1, "none")
    ('', 'EP > 1 only')
    """
    if not is_moe:
        return "experts only"
    if ep <= 1:
        return "EP > 1 only"
    return "not with full recomputation" if recompute == "full" else ""


def seating_inputs(values: dict, cluster: Cluster) -> SeatingInputs:
    """Read the page's values into the model, workload and layout the seating model takes.

    A custom model is built from its shape; with DP at 0, DP takes the rest of the GPUs and, when
    TP x PP x CP does not fit the cluster, TP is kept and PP shrinks (:func:`fit_layout`).
    """
    notes: tuple[str, ...] = ()
    if values["model"] == "custom":
        model, model_notes = custom_model(values["params"] * 1e9, values["layers"], values["hidden"],
                                          values["heads"], experts=values["experts"], top_k=values["topk"],
                                          active_params=values["active"] * 1e9 or None,
                                          kv_heads=values["kv"] or None, ffn_hidden=values["ffn"] or None,
                                          vocab=values["vocab"] or None, seq_len=values["seq"] or 8192)
        notes = tuple(model_notes)
    else:
        model = load_model_presets()[values["model"]]
    efficiency = values["eff"] or None
    if efficiency is not None and efficiency < MIN_EFFICIENCY:  # as `plan --efficiency` refuses below 0.01
        notes += (f"A compute efficiency override of {efficiency:g} is no training run; used {MIN_EFFICIENCY:g} "
                  "(0 means the sourced kernel figures).",)
        efficiency = MIN_EFFICIENCY
    workload = Workload(micro_batch=values["mb"], global_batch=values["gb"], seq_len=values["seq"] or None,
                        dtype_bytes=DTYPE_BYTES[values["dtype"]], recompute=values["recompute"],
                        sequence_parallel=values["sp"], compute_efficiency=efficiency,
                        schedule=values["sched"], virtual_stages=values["vs"], lighter_ends=values["ends"],
                        attention=values["attn"])
    workload = stack_workload(workload, values["stack"], values["tpov"])
    change = ""
    if values["dp"]:
        layout = Layout(tp=values["tp"], pp=values["pp"], dp=values["dp"], cp=values["cp"], ep=values["ep"],
                        zero=values["zero"])
    else:
        layout, change = fit_layout(model, cluster.ranks, values["tp"], values["pp"], values["cp"], values["ep"],
                                    values["zero"])
    # the recompute modules and the all-to-all overlap as plan takes them, each only where it can act (its switch is
    # disabled, with the reason, where it cannot; the link keeps the value)
    modules = tuple(m for m, key in RECOMPUTE_MODULE_KEYS.items()
                    if values[key] and not module_blocked(m, model.is_mla, model.is_moe))
    overlap = values["a2a"] and not a2a_overlap_blocked(model.is_moe, layout.ep, workload.recompute)
    if values["a2a"] and not overlap and not a2a_overlap_blocked(model.is_moe, values["ep"], workload.recompute):
        change += " With EP 1 the expert all-to-all overlap has nothing to hide and is left out."
    workload = replace(workload, recompute_modules=modules, ep_a2a_overlap=overlap)
    stack_note = tp_overlap_note(workload, layout.tp, values["stack"], values["tpov"])
    return SeatingInputs(model, workload, layout, notes, change or "", stack_note)


def show_bill_metrics(bill: Plan | None, cluster_line: str = "") -> None:
    """The step's headline figures (step time, exposed communication, TFLOP/s, bubble, memory), under the chart,
    and their caption, which ends with ``cluster_line`` (Markdown; one element where two captions took two)."""
    if bill is None:
        if cluster_line:
            st.caption(cluster_line)
        return
    # One row of five (a horizontal container: six elements a change, where five columns took eleven).
    row = st.container(horizontal=True)
    row.metric("Step time", format_seconds(bill.step_s))
    row.metric("Exposed communication", format_seconds(bill.exposed_s),
               help="Communication nothing hides: the part of the step spent waiting on the wire.")
    row.metric("TFLOP/s per GPU", f"{bill.tflops_per_gpu / 1e12:.0f}", delta=f"{bill.mfu:.0%} MFU", delta_color="off",
               help=f"Model FLOPs per second per GPU, and their share of the dense peak (MFU): the BF16 peak, or "
                    f"the FP8 one for an FP8 run on a GPU that has it; "
                    f"{bill.hardware_tflops_per_gpu / 1e12:.0f} TFLOP/s with recomputation counted (as Megatron-LM's "
                    f"tables count them). Kernels: {bill.efficiency_basis}.")
    row.metric("Pipeline bubble", f"{bill.bubble_fraction:.1%}", help=bill.bubble_reason)
    row.metric("Memory per GPU", f"{bill.memory.total / 1e9:.0f} / {bill.memory.capacity / 1e9:.3g} GB",
               delta=bill.memory.verdict,
               delta_color={"fits": "normal", "tight": "off"}.get(bill.memory.verdict, "inverse"),
               help="Weights, gradients, optimizer state and activations, against the memory the GPU's driver "
                    "reports (an '80 GB' H100 reports 81,559 MiB = 85.5 GB), less a 10 % allowance for "
                    "buffers and fragmentation.")
    # The band's caption goes on with the bubble's reason, the notes and the cluster line: one element, not three.
    show_plan_band(bill, key="seating.band", after="\n\n".join(filter(None, (
        escape_markdown(" ".join((bill.bubble_reason, *bill.notes))), cluster_line))))
    if bill.memory.verdict == "tight":
        st.warning(f"**Tight:** {bill.memory.total / 1e9:.0f} GB per GPU fits in {bill.memory.capacity / 1e9:.0f} GB "
                   f"only if buffers and fragmentation take less than the {bill.memory.reserved / 1e9:.0f} GB allowed "
                   "for them. Runs this close to the edge do run, tuned by hand (two of Llama 3 405B's published runs "
                   "count as tight here); more ZeRO, TP or PP, recomputation or a smaller micro-batch leaves room.")
    elif not bill.fits:
        st.error(f"**Does not fit:** {bill.memory.total / 1e9:.0f} GB per GPU, plus "
                 f"{bill.memory.reserved / 1e9:.0f} GB kept for buffers and fragmentation, against "
                 f"{bill.memory.capacity / 1e9:.0f} GB. Raise the ZeRO stage, TP or PP, recompute activations, "
                 "or shrink the micro-batch.")


def show_plan_band(bill: Plan, *, key: str, after: str = "") -> None:
    """How right this plan's step time, TFLOP/s and MFU are: the model's error on the published runs like it, and
    the published runs of this very layout where there are any (``after``: Markdown that goes on in the same
    caption)."""
    ran = layout_runs_text(published_layout_runs(bill.model, bill.cluster, bill.layout), bill.workload.dtype_bytes)
    after = "\n\n".join(filter(None, (escape_markdown(ran), after)))
    band = case_band(bill.model, bill.cluster, bill.workload, bill.layout)
    readings = plan_expected(band, bill) or {}
    expected = expected_text((readings.get("mfu"), lambda x: f"{x:.0%}", "MFU"),
                             (readings.get("step_time"), seconds_in_unit_of(format_seconds, bill.step_s), "per step"))
    show_error_band(band, band_rows(band), "TFLOP/s and MFU, model / published; the step time reads the inverse",
                    key=key, after=after, expected=expected)


def section_choice(state: PageState, title: str, label: str, key: str, choices: dict[str, str]) -> None:
    """A section's heading and its horizontal choice (``key`` of the page's state), then the link written again:
    the top of each of the page's fragments that a radio redraws."""
    st.subheader(title)
    st.radio(label, list(choices), key=state.key(key), horizontal=True, format_func=choices.get)
    state.sync_url()
