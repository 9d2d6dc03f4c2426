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
from interconnect.units import format_seconds

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


def _gigabytes(size_bytes: float) -> str:
    """Bytes as GB for the bill's table: three significant figures, thousands separated (2,405; 4.42; 0.0113)."""
    value = size_bytes / 1e9
    if 0 < value < 0.001:
        return "< 0.001"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def bill_view(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload):
    bill = plan(model, cluster, layout, workload)
    rows = [d for d in bill.dimensions if d.degree > 1]
    table = pd.DataFrame({
        "dimension": [d.label for d in rows],
        "degree": [d.degree for d in rows],
        "collective": [d.collective for d in rows],
        "tier": [d.tier for d in rows],
        "GB per step per GPU": [_gigabytes(d.bytes_per_step) for d in rows],
        "calls per step": [f"{int(d.calls_per_step):,}" for d in rows],
        "time on the tier": [format_seconds(d.time_s) for d in rows],
        "can it overlap?": [d.overlap for d in rows],
        "exposed": [format_seconds(d.exposed_s) for d in rows],
    })
    return bill_figure(bill), table


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
