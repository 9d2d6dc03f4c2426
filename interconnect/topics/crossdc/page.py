"""The Streamlit glue of the Across sites page: its cached view and figures, and its explorer.

Kept out of ``pages/6_Across_sites.py`` so the cached functions are defined once per process (a cache
decorator in a page script is rebuilt on every run) and the page reads as a list of sections. The explorer
is two fragments, one nested in the other (:func:`explorer`, :func:`_run_view`), so a change of the site
count, the size, the GPU or the bandwidth reruns only what depends on it. The sections below it (what the
papers report, the Table 4 check, the limits) are in :mod:`interconnect.topics.crossdc.page_papers`.
The arithmetic is in :mod:`interconnect.topics.crossdc.model` and :mod:`interconnect.topics.crossdc.view`; the
figures in :mod:`interconnect.topics.crossdc.figures`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import streamlit as st

from interconnect.catalog import Catalog, get_catalog
from interconnect.inputs.cluster import CUSTOM_GPU_KEYS
from interconnect.topics.crossdc.accuracy import band_rows, crossdc_band, published_reading
from interconnect.topics.crossdc.figures import bytes_figure, required_bandwidth_figure, utilization_figure
from interconnect.topics.crossdc.inputs import (
    CROSSDC_VIEWS,
    PIPELINE_KEYS,
    WEIGHT_SYNC_KEYS,
    crossdc_inputs,
    crossdc_specs,
)
from interconnect.topics.crossdc.model import EXCHANGES, METHODS, get_crossdc_data
from interconnect.topics.crossdc.page_live import live_bandwidth, live_caption
from interconnect.topics.crossdc.page_papers import limits_section, quoted_section, reported_section, table4_section
from interconnect.topics.crossdc.page_pipeline import pipeline_section
from interconnect.topics.crossdc.page_weight_sync import weight_sync_section
from interconnect.topics.crossdc.view import (
    BANDWIDTH_GRID_BYTES_PER_S,
    PARAMS_GRID,
    CrossDCView,
    PageInputs,
    crossdc_view,
    time_to_target_markdown,
)
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.error_band import show_error_band
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.more import KEEP_HIDDEN as _KEEP
from interconnect.ui.more import lazy_expander
from interconnect.ui.pickers import custom_gpu_controls, gpu_picker
from interconnect.ui.state import PageState, bounds
from interconnect.ui.views import shown_views, view_picker
from interconnect.units import Q_, format_bandwidth, format_duration, format_quantity

TOPOLOGY_LABELS = {"auto": "The method's", "ring": "Flat ring (every GPU)", "hierarchical": "Hierarchical",
                   "allgather": "All-gather"}


# Shared, never copied: the view is a frozen result only read here. Keyed by the inputs' repr (one string).
@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs={PageInputs: repr})
def cached_view(inputs: PageInputs):
    return crossdc_view(inputs)


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs={PageInputs: repr})
def cached_figures(inputs: PageInputs):
    view = cached_view(inputs)
    chosen = inputs.method
    markers = [(net.name.split(",")[0], net.bandwidth_bytes_per_s) for net in get_crossdc_data().networks.values()]
    utilization = utilization_figure(BANDWIDTH_GRID_BYTES_PER_S, view.utilization_curves, view.labels, chosen,
                                     inputs.wan_bytes_per_s, inputs.target_utilization, markers)
    results = [view.results[m] for m in METHODS]
    sizes = bytes_figure([view.labels[m] for m in METHODS], [r.payload_bytes for r in results],
                         [r.bytes_per_step for r in results], METHODS.index(chosen))
    required = required_bandwidth_figure(PARAMS_GRID, view.required_curves, view.labels, chosen, inputs.params,
                                         inputs.target_utilization)
    return utilization, sizes, required


def _time(seconds: float) -> str:
    return format_duration(Q_(seconds, "s")) if seconds > 0 else "0 s"


def _use_network(state: PageState, network_id: str) -> None:
    network = get_crossdc_data().networks[network_id]
    st.session_state[state.key("bw")] = format_bandwidth(Q_(network.bandwidth_bytes_per_s, "B/s"), "bit/s")
    st.session_state[state.key("rtt")] = format_duration(Q_(network.rtt_s, "s"))


class _Slots(NamedTuple):
    """Places the outer fragment :func:`explorer` keeps, in reading order, for the nested one (:func:`_run_view`)
    to fill on every run of its own (its own body, where it is called, holds the link's and the view's warnings
    and the live chart)."""

    params: Any  # the columns of the main row that hold the nested fragment's controls
    sites: Any
    gpu: Any
    bw: Any
    custom_gpu: Any  # the custom GPU's own fields (only while gpu=custom)
    results: Any  # the step-time note, the five metrics, the sentence under them and the time-to-target table
    charts: Any  # the further chart (view=), drawn or not by what reruns the outer fragment, never by a change here


#: The label of the collapsed "More settings" expander; its key (not a link key) holds whether it is open.
MORE_LABEL = "More settings: GPUs per site, round trip, the method's knobs, target, overlap, step time"
MORE_KEY = "crossdc-more"


@st.fragment
def explorer(state: PageState, catalog: Catalog) -> None:
    """The page's controls in one box, the live chart, the network classes, the metrics and the further chart.

    The box has a main row (model size, sites, GPU, method, WAN bandwidth) and a collapsed "More settings"
    expander with the rest, so the live chart fits above the fold at 1440 x 900. This fragment draws the box,
    the method, the expander, the network classes and the chart picker, the parts that no change of the sites,
    the size, the GPU or the bandwidth alters; those four and everything they drive are the nested fragment
    :func:`_run_view`, drawn into places kept here (:class:`_Slots`), so a change of one reruns only that.

    "More settings" is drawn only while open (opening or closing it reruns this fragment); its widgets keep
    their values while hidden (``persist_state="page"``), so the link and the model still have them. It starts
    open when the session opened with any of its settings away from the default (a link that sets them shows
    them).
    """
    methods = get_crossdc_data().methods
    with st.container(border=True):
        st.markdown("**The run and the link between sites**")
        c1, c2, c3, c4, c5 = st.columns([2, 1.6, 3, 2.6, 2.6])
        # The method stays here: the knobs in "More settings" are the method's own.
        c4.selectbox("Method", list(METHODS), key=state.key("method"), format_func=lambda m: methods[m].name)
        custom_gpu = st.container()
        more = lazy_expander(state, MORE_LABEL, key=MORE_KEY,
                             keys=[spec.key for spec in state.specs
                                   if spec.key not in MAIN_KEYS and spec.key not in WEIGHT_SYNC_KEYS
                                   and spec.key not in PIPELINE_KEYS])
        if more is not None:
            with more:
                more_controls(state)
    body = st.container()  # the nested fragment's own place, at the same position on every run
    live_caption()
    network_buttons(state)
    view_picker(state, CROSSDC_VIEWS)  # the one further chart drawn below (view=)
    results = st.container()
    # How to read the time-to-target table: no control changes it, so it is drawn here, not on every change.
    time_to_target_caption()
    charts = st.container()
    with body:
        _run_view(state, catalog, _Slots(c1, c2, c3, c5, custom_gpu, results, charts))


@st.fragment
def _run_view(state: PageState, catalog: Catalog, slots: _Slots) -> None:
    """The model size, the sites, the GPU and the WAN bandwidth, the link, the live chart where it is called,
    and the rest of the results in their place (:class:`_Slots`)."""
    slots.params.text_input("Model parameters", key=state.key("params"), help="1e9, 7B, 70e9, 1.5T")
    slots.sites.number_input("Sites", **bounds(state, "sites"), step=1, key=state.key("sites"),
                             help="Data centres, each with a full replica of the model.")
    gpu_picker(state, catalog=catalog, container=slots.gpu)
    slots.bw.text_input("WAN bandwidth per site", key=state.key("bw"), help="Each direction, e.g. '10 Gbit/s'.")
    custom_gpu_controls(state, catalog, container=slots.custom_gpu)
    state.sync_url()  # a typed value that could not be used is reported here, under the controls
    inputs = crossdc_inputs(state.values())
    view = cached_view(inputs)
    for warning in view.warnings:
        st.warning(escape_markdown(warning))
    live_bandwidth(state, inputs, view)  # the main chart, first under the controls
    with slots.results:
        show_results(state, inputs, view)
    with slots.charts:
        show_charts(state, inputs)


def more_controls(state: PageState) -> None:
    """What "More settings" holds: GPUs per site, the round trip, the method's knobs and the step time."""
    l1, l2, _ = st.columns([1, 1, 2])
    l1.number_input("GPUs per site", **bounds(state, "gpus"), step=1, key=state.key("gpus"), **_KEEP)
    l2.text_input("Round-trip time", key=state.key("rtt"), help="e.g. '20 ms' or '100 us'.", **_KEEP)
    method_controls(state)
    step_time_controls(state)


#: The keys of the main row (and the custom GPU's own box) and the chart picker; every other key is in "More
#: settings".
MAIN_KEYS = ("params", "sites", "gpu", "method", "bw", "gpu_name", "gpu_bw", "gpu_base", "view")


def network_buttons(state: PageState) -> None:
    """One click sets the WAN bandwidth and round trip of one of CrossPipe's network classes."""
    networks = get_crossdc_data().networks
    st.caption("Or pick a network class (CrossPipe, arXiv 2507.00217 §2.3); it sets the bandwidth and the round trip. "
               "Campus figures are per port: a site with many ports has that many times the bandwidth.")
    for column, network in zip(st.columns(len(networks)), networks.values(), strict=True):
        column.button(network.name.split(",")[0], key=f"crossdc.net.{network.id}", on_click=_use_network,
                      args=(state, network.id), help=f"Published: {network.published}", width="stretch")


def method_controls(state: PageState) -> None:
    """The method's knobs (each defaulting to what its paper ran), layers, target and overlap."""
    methods = get_crossdc_data().methods
    st.markdown("**The method**")
    method = state["method"]
    defaults = methods[method]
    m2, m3, m4 = st.columns(3)
    m2.number_input(f"Inner steps H (0 = {defaults.inner_steps})", **bounds(state, "h"), step=1,
                    key=state.key("h"), help="Inner steps between synchronisations; 0 takes the paper's.", **_KEEP)
    m3.selectbox("Bits per value", ["auto", "32", "16", "8", "4", "2", "1"], key=state.key("bits"),
                 format_func=lambda b: f"auto ({defaults.bits})" if b == "auto" else b, **_KEEP)
    m4.selectbox("Exchange", ["auto", *EXCHANGES], key=state.key("topo"),
                 format_func=lambda t: f"auto ({defaults.topology})" if t == "auto" else TOPOLOGY_LABELS[t], **_KEEP)
    if method in ("streaming-diloco", "cocodc", "sparseloco", "crosspipe"):
        k1, k2, k3 = st.columns(3)
        if method == "crosspipe":
            k1.number_input("Micro-batches per step", **bounds(state, "nmb"), step=1, key=state.key("nmb"),
                            help="The global batch (sites × tokens per step) in this many pieces; each crosses "
                            "the WAN as activations forward and gradients back.", **_KEEP)
            if state["step"] == "typed":
                k2.text_input("Tokens per step per site", key=state.key("tokens"),
                              help="Sizes the activations that cross, e.g. '1M'.", **_KEEP)
        elif method in ("streaming-diloco", "cocodc"):
            k1.number_input("Fragments (0 = one per 3 layers)", **bounds(state, "frag"), step=1,
                            key=state.key("frag"), **_KEEP)
            k2.number_input("Overlap steps tau", **bounds(state, "tau"), step=1, key=state.key("tau"),
                            help="Inner steps a fragment's exchange may run behind before the worker waits.", **_KEEP)
        else:
            k1.number_input("Chunk (values)", **bounds(state, "chunk"), step=1, key=state.key("chunk"), **_KEEP)
            k2.number_input("Kept per chunk (top-k)", **bounds(state, "topk"), step=1,
                            key=state.key("topk"), **_KEEP)
            k3.number_input("Index bits", **bounds(state, "ibits"), step=1, key=state.key("ibits"), **_KEEP)
    o1, o2, o3 = st.columns(3)
    o1.number_input("Layers (0 = from the size)", **bounds(state, "layers"), step=1, key=state.key("layers"),
                    **_KEEP)
    o2.number_input("Target utilisation (%)", **bounds(state, "target"), step=0.5, key=state.key("target"), **_KEEP)
    o3.toggle("Overlap", key=state.key("overlap"),
              help="Hide the exchange behind the backward pass (and tau steps for Streaming DiLoCo).", **_KEEP)


def step_time_controls(state: PageState) -> None:
    """The step time of one site: typed, or derived from the tokens per step and the MFU."""
    st.markdown("**The step time of one site**")
    t1, t2, t3 = st.columns(3)
    t1.radio("Step time", ["typed", "derived"], key=state.key("step"), horizontal=True,
             format_func={"typed": "Typed", "derived": "From FLOPs"}.get, **_KEEP)
    if state["step"] == "typed":
        t2.text_input("Step time", key=state.key("t"), help="One inner step of one site, e.g. '1 s'.", **_KEEP)
    else:
        t2.text_input("Tokens per step per site", key=state.key("tokens"), help="e.g. '1M' or '4e6'.", **_KEEP)
        t3.number_input("MFU (%)", **bounds(state, "mfu"), step=1.0, key=state.key("mfu"), **_KEEP)


def show_results(state: PageState, inputs: PageInputs, view: CrossDCView) -> None:
    """The step time's note, the five headline metrics, the sentence under them and the time-to-target table."""
    result, scenario = view.result, view.scenario
    if inputs.step_mode == "derived":
        st.caption("Step time: " + escape_markdown(view.step_note))
    target = f"{inputs.target_utilization * 100:.3g} %"
    # One row of five (a horizontal container: six elements a change, where five columns took eleven).
    row = st.container(horizontal=True)
    per = f" It sends one of {result.fragments} fragments at a time." if result.fragments > 1 else ""
    pipeline = scenario.method.pipeline
    row.metric("Payload per sync", format_quantity(Q_(result.payload_bytes, "B")),
               help=("One micro-batch's activations at the cut between sites, sent forward, and their gradients "
                     "sent back the same size." if pipeline else "What one site contributes to one synchronisation."
                     + per))
    row.metric("WAN time per sync", _time(result.sync_s))
    inner = result.scenario.method.inner_steps
    row.metric("Exposed per step" if inner == 1 else f"Exposed per {inner:,} steps", _time(result.exposed_s),
               help=f"With overlap: {_time(result.exposed_overlap_s)}; without: {_time(result.exposed_no_overlap_s)}; "
                    f"compute per round: {_time(result.compute_s)}.")
    row.metric("Compute utilisation", f"{result.utilization:.1%}",
               help=f"With overlap {result.utilization_overlap:.1%}, without {result.utilization_no_overlap:.1%}.")
    needed = result.required_bytes_per_s
    row.metric(f"WAN needed for {target}",
               format_bandwidth(Q_(needed, "B/s"), "bit/s") if needed < float("inf") else "out of reach",
               help="Per site, each direction. 'Out of reach' when the round trips alone exceed the time allowed.")
    if pipeline:
        m = scenario.method.micro_batches
        st.caption(
            f"{scenario.sites} sites, one pipeline stage each (hidden size {scenario.resolved_hidden:,}): each cut "
            f"carries {format_quantity(Q_(result.payload_bytes, 'B'))} per micro-batch each way, {m} micro-batches a "
            f"step, a bubble of {(scenario.sites - 1) / m:.1%}. A static schedule paying the round trip on every "
            f"micro-batch keeps the GPUs busy {result.utilization_no_overlap:.1%} of the time; with the round trip "
            f"hidden in the steady state (CrossPipe's schedules) {result.utilization_overlap:.1%}.")
    else:
        st.caption(
            f"{scenario.sites} sites × {scenario.gpus_per_site} GPUs, {scenario.method.topology} exchange: each site "
            f"sends and receives {format_quantity(Q_(result.wan_bytes_per_sync, 'B'))} per sync. Without overlap the "
            f"GPUs would be busy {result.utilization_no_overlap:.1%} of the time and need "
            + (format_bandwidth(Q_(result.required_no_overlap_bytes_per_s, "B/s"), "bit/s")
               if result.required_no_overlap_bytes_per_s < float("inf") else "an unreachable bandwidth")
            + f"; with overlap {result.utilization_overlap:.1%}."
        )
    how_right(view)
    time_to_target_table(view)


_BIT_UNITS = {"bit/s": 1e-9, "kbit/s": 1e-6, "Mbit/s": 1e-3, "Gbit/s": 1.0, "Tbit/s": 1e3, "Pbit/s": 1e6}


def _gbit_writer(reference_bytes_per_s: float):
    """A writer of Gbit/s values in the unit the metric shows ``reference_bytes_per_s`` in ("594 Mbit/s"), so the
    band's reading and the metric share it; three significant figures."""
    text = format_bandwidth(Q_(reference_bytes_per_s, "B/s"), "bit/s") if reference_bytes_per_s < float("inf") else ""
    unit = text.rsplit(" ", 1)[-1] if text else "Gbit/s"
    factor = _BIT_UNITS.get(unit, 1.0)
    if unit not in _BIT_UNITS:
        unit = "Gbit/s"
    return lambda gbit: f"{gbit / factor:.3g} {unit}"


def how_right(view: CrossDCView) -> None:
    """The headline metrics' band: a replica method's WAN needed against Streaming DiLoCo's Table 4, or the
    pipeline's step against CrossPipe's figures, and what is arithmetic
    (:func:`interconnect.topics.crossdc.accuracy.crossdc_band`)."""
    band, expected, note = crossdc_band(view.scenario, view.result)
    if view.scenario.method.pipeline:
        what, reading = "the pipeline's step", published_reading(expected, lambda x: f"{x:.0f}%", "utilisation")
    else:
        what = "the WAN needed, against Streaming DiLoCo's simulated Table 4"
        reading = published_reading(expected, _gbit_writer(view.result.required_bytes_per_s), "needed")
    show_error_band(band, band_rows(band), what, key="crossdc-band", expected=reading, after=escape_markdown(note))


def show_charts(state: PageState, inputs: PageInputs) -> None:
    """The one further chart asked for (view=), and its caption."""
    shown = shown_views(state, CROSSDC_VIEWS)
    if not shown:
        return
    utilization, sizes, required = cached_figures(inputs)
    if "utilization" in shown:
        chart(utilization, key="crossdc-utilization")
        others = ", ".join(f"{m.name} H = {m.inner_steps}, {m.bits}-bit" for m in get_crossdc_data().methods.values()
                           if m.id != inputs.method)
        st.caption(f"Thick: the method as set above. Dotted: the others as their papers ran them ({others}). Dashed "
                   "line: your WAN bandwidth. Dotted grey lines: CrossPipe's network classes.")
    if "bytes" in shown:
        chart(sizes, key="crossdc-bytes")
    if "required" in shown:
        chart(required, key="crossdc-required")
        st.caption("The step time grows in proportion to the model (same tokens per step, same GPUs), so payload and "
                   "compute grow together and data parallel and DiLoCo need the same bandwidth at every size. "
                   "Streaming DiLoCo needs less: a bigger model has more layers, so more and smaller fragments, each "
                   "hidden behind its own overlap window.")


def time_to_target_table(view: CrossDCView) -> None:
    """Each method's time to data parallel's loss beside its utilisation: the bandwidth saved against the steps lost."""
    # The title and the table as one element (one render in the browser on every change, not two).
    st.markdown("**Time to data parallel's loss, on this link**\n\n" + time_to_target_markdown(view))


def time_to_target_caption() -> None:
    """How the time-to-target table is read, under it (the same for every view)."""
    st.caption("Steps to reach the loss fully synchronous data parallel reaches (published ratios, same global batch "
               "per step) times the wall-clock per step (the step time over the utilisation), against data parallel "
               "on the same link. Below 1× the method gets there first. The others are at their papers' settings; "
               "'measured at' says where each ratio was measured, 'extrapolated' that it was carried over, is a "
               "bound or lies outside the measured points (and how far); DiLoCo's follows its scaling law at this "
               "size, these sites and H = 30; a pipeline's is exact (the same updates). Sources: DiLoCo (arXiv "
               "2311.08105, 2503.09799), Streaming DiLoCo (2501.18512), SparseLoCo (2508.15706), CoCoDC "
               "(2504.17672), MT-DAO (2510.05361), CrossPipe (2507.00217).")


def render() -> None:
    """Draw the page: training across data centres: what crosses the WAN, and how busy the GPUs stay.

    The controls, the live chart, the metrics and the further chart are one fragment
    (:func:`interconnect.topics.crossdc.page.explorer`) with the site count, the size, the GPU and the WAN bandwidth
    nested in it, so a change of one of those reruns only what depends on it, not the page's frame, the
    other controls or the sections below, which no control changes.
    """
    page_setup("Across sites: training between data centres",
               "When training spans buildings or regions, the algorithm bends to the wire: synchronise rarely, "
               "and send less. How much WAN bandwidth keeps the GPUs busy, per method.")
    catalog = get_catalog()
    state = PageState("crossdc", crossdc_specs(), shared=("gpu", *CUSTOM_GPU_KEYS))
    state.show_warnings()
    explorer(state, catalog)  # the controls, the live chart, the network classes, the metrics, the further chart
    reported_section(catalog)
    table4_section()
    quoted_section(catalog)
    limits_section(catalog)
    weight_sync_section(state)  # drawn only when asked for (link key ws)
    pipeline_section(state)  # drawn only when asked for (link key pp)
    footer()
