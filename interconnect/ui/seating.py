"""The Seating chart page's cached core calls: pure functions of hashable inputs, computed once per view.

Kept out of ``pages/4_Seating_chart.py`` so the page only reads its inputs, calls these and draws.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from interconnect.figures.seating import bill_figure, gpu_grid_figure, memory_figure
from interconnect.models.cluster import Cluster
from interconnect.models.parallelism import Layout, Workload, memory_per_gpu, plan, search_layouts, tp_comparison
from interconnect.models.presets import ModelPreset
from interconnect.ui.cluster import CLUSTER_HASH
from interconnect.ui.page import markdown_table
from interconnect.units import Q_, format_quantity, format_seconds

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
    return search_layouts(model, cluster, workload)


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def tp_pair(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload):
    return tp_comparison(model, cluster, layout, workload)


#: Why the model misses a published run, by the start of the run's id (our reading of the evidence).
MISS_REASONS = {
    "mtnlg": "2021 software (DeepSpeed's pipeline engine with Megatron-LM, no sequence parallelism). NVIDIA's 2022 "
             "measurement of the same 530B model on 2,240 A100 with full recomputation, 42.1 % MFU (Korthikanti et "
             "al. 2022, abstract), is about 175 TFLOP/s counted this way, within 8 % of the model: the gap is the "
             "older software, which the model does not know.",
    "bloom": "2022 Megatron-DeepSpeed without sequence parallelism on Omni-Path; like MT-NLG, the model does not know "
             "the older software's overheads.",
    "llama3-405b-128k": "attention is over half the work at 131,072 tokens; Meta's all-gather context parallelism and "
                        "whether its FLOP count halves causal attention are not published in enough detail.",
    "llama3-405b-8k": "the memory model says it does not fit: with no recomputation, Korthikanti's count (about 34 "
                      "bytes per token and hidden unit per layer, divided by TP) times the micro-batches the first "
                      "stage holds under interleaved 1F1B is over 75 GB, where the paper reports it ran; what Meta "
                      "changed to hold fewer is not published. Its throughput is 17-22 % above the paper's.",
}


@st.cache_resource(max_entries=1, show_spinner=False)
def reference_view() -> tuple[str, list[str], str]:
    """The published runs with model / paper as a Markdown table, the runs missed by over 15 %, the sources."""
    from interconnect.models.reference_runs import load_reference_runs, predict, reference_sources

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
            "schedule, recomputation": f"{schedule}, {run.recompute}",
            "paper TFLOP/s per GPU": f"{run.achieved_tflops:g}",
            "model": f"{p.tflops:.0f}",
            "model / paper": f"{p.ratio:.2f}",
            "memory": "fits" if b.fits else f"does not fit ({(b.memory.total + b.memory.reserved) / 1e9:.0f} GB)",
            "source": f"{run.source}: {run.table}",
        })
        if not 0.85 <= p.ratio <= 1.15 or not b.fits:
            reason = next((text for key, text in MISS_REASONS.items() if run.id.startswith(key)), "not explained yet.")
            misses.append(f"**{run.name}**, model / paper {p.ratio:.2f}" + ("" if b.fits else ", does not fit")
                          + f": {reason}")
    links = "\n".join(f"- {key}: [{s['title']}]({s['url']})" for key, s in sources.items())
    return markdown_table(pd.DataFrame(rows)), misses, links
