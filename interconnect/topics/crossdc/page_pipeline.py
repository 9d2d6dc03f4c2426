"""The Across sites page's pipeline section: the model's stages split across sites, activations on the WAN.

Drawn below the weight-sync section, behind its own toggle, and only while open (link key ``pp``); its
inputs are declared in :mod:`interconnect.topics.crossdc.inputs` (keys starting ``pp``), its arithmetic is
:mod:`interconnect.topics.crossdc.model.pipeline` and CrossPipe's published cases are
``crossdc_pipeline.toml``. Nothing typed is rendered as HTML: text goes through :func:`escape_markdown` or a
dataframe.
"""

from __future__ import annotations

import math

import streamlit as st

from interconnect.hardware.accuracy import seconds_in_unit_of
from interconnect.topics.crossdc.accuracy import band_rows, pipeline_section_band, published_reading
from interconnect.topics.crossdc.data import get_crossdc_data, get_pipeline_cases
from interconnect.topics.crossdc.inputs import (
    PIPELINE_KEYS,
    PIPELINE_PRECISIONS,
    PIPELINE_SCHEDULES,
    catalog_gpu_id,
    pipeline_scenario,
)
from interconnect.topics.crossdc.model.pipeline import SCHEDULES
from interconnect.topics.crossdc.model.pipeline_compare import compare
from interconnect.topics.crossdc.model.timing import site_allreduce_algbw
from interconnect.topics.crossdc.page_section import open_section, short_time
from interconnect.ui.error_band import show_error_band
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.more import KEEP_HIDDEN as _KEEP
from interconnect.ui.state import PageState, bounds
from interconnect.units import Q_, format_bandwidth, format_quantity

LABEL = "Pipeline across sites: split the layers, send the activations"
COMPARED = ("dp", "diloco", "streaming-diloco")


_SCHEDULE_NAMES = {"1f1b": "1F1B", "interleaved": "Interleaved 1F1B", "zb-h1": "ZB-H1", "zb-h2": "ZB-H2",
                   "zbv": "ZBV"}


def _schedule_name(schedule_id: str) -> str:
    return _SCHEDULE_NAMES.get(schedule_id, schedule_id)


@st.fragment
def pipeline_section(state: PageState) -> None:
    """The section's toggle; its widgets and results are drawn only while it is open."""
    help_text = ("CrossPipe's alternative to a replica per site: only the cut between sites crosses the WAN, once "
                 "per micro-batch each way.")
    with open_section(state, "pp", LABEL, help_text, _controls) as values:
        if values is None:
            return
        gpu = catalog_gpu_id(values)
        try:
            scenario = pipeline_scenario(values, gpu)
            algbw = site_allreduce_algbw(gpu, max(1, scenario.gpus // scenario.sites))
            result, alternatives = compare(scenario, COMPARED, algbw)
        except ValueError as exc:
            st.warning(escape_markdown(str(exc)))
            return
        _results(result, alternatives)
    _cases()


def _controls(state: PageState) -> None:
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.text_input("Model parameters", key=state.key("ppparams"), help="70e9, 405B", **_KEEP)
    c2.number_input("Hidden size", **bounds(state, "pphidden"), step=1, key=state.key("pphidden"), **_KEEP)
    c3.number_input("Tokens per sequence", **bounds(state, "ppseq"), step=1, key=state.key("ppseq"), **_KEEP)
    c4.number_input("Sequences per micro-batch", **bounds(state, "ppmb"), step=1, key=state.key("ppmb"),
                    **_KEEP)
    c5.number_input("Micro-batches per step (m)", **bounds(state, "ppm"), step=1, key=state.key("ppm"), **_KEEP)
    r1, r2, r3, r4, r5 = st.columns(5)
    r1.number_input("Stages (p)", **bounds(state, "ppstages"), step=1, key=state.key("ppstages"), **_KEEP,
                    help="Split evenly over the sites.")
    r2.number_input("GPUs per stage", **bounds(state, "ppgps"), step=1, key=state.key("ppgps"), **_KEEP)
    r3.number_input("Pipelines sharing the WAN", **bounds(state, "pplines"), step=1, key=state.key("pplines"),
                    **_KEEP, help="Data-parallel copies of the pipeline; each one's cut crosses the same link.")
    r4.number_input("Sites", **bounds(state, "ppsites"), step=1, key=state.key("ppsites"), **_KEEP)
    r5.selectbox("Activations in", list(PIPELINE_PRECISIONS), key=state.key("ppprec"), **_KEEP)
    w1, w2, w3, w4, w5 = st.columns(5)
    w1.text_input("WAN bandwidth", key=state.key("ppbw"), **_KEEP)
    w2.text_input("One-way latency", key=state.key("pplat"), **_KEEP)
    w3.number_input("MFU (%)", **bounds(state, "ppmfu"), key=state.key("ppmfu"), **_KEEP)
    w5.selectbox("Schedule", list(PIPELINE_SCHEDULES), key=state.key("ppsched"), format_func=_schedule_name,
                 **_KEEP, help="1F1B; interleaved (2 chunks per stage); zero bubble ZB-H1 (1F1B's memory), ZB-H2 "
                               "(twice it) or ZBV (a V of 2 chunks: 1F1B's memory, two messages per micro-batch "
                               "over each cut). The backward is split evenly into input and weight gradients.")
    w4.text_input("Stage time (0 = derived)", key=state.key("ppstage"), **_KEEP,
                  help="Forward and backward of one micro-batch on one stage; 0 derives it from 6 x parameters x "
                       "tokens over the stage's GPUs (the page's GPU) at this MFU.")


def _results(r, alternatives) -> None:
    s = r.scenario
    row = st.container(horizontal=True)
    row.metric("Step", short_time(r.step_s), help=f"In one site: {short_time(r.one_site_step_s)}.")
    row.metric("Against one site", f"x{r.slowdown:.3f}")
    row.metric("Message per micro-batch", format_quantity(Q_(r.message_bytes, "B")),
               help=f"Each way; {short_time(r.transfer_s)} on the WAN.")
    row.metric("Stage time", short_time(r.stage_s), help=f"Forward (CrossPipe's T_F): {short_time(r.forward_s)}.")
    row.metric("Bubble", f"{r.bubble_fraction:.1%}",
               help=f"Peak activations of the first stage: {r.activation_memory:g} micro-batches of a whole stage.")
    pace = "the WAN sets the pace" if r.wan_bound else "compute sets the pace, the WAN keeps up"
    times = "once" if r.crossings == 1 else f"{r.crossings} times"
    st.caption(escape_markdown(
        f"Schedule: {SCHEDULES[s.schedule]}. Each micro-batch crosses each cut {times} each way with "
        f"{format_quantity(Q_(r.message_bytes, 'B'))}, over "
        f"{format_bandwidth(Q_(s.wan_bytes_per_s, 'B/s'), 'bit/s')}: {pace}; peak activations "
        f"{r.activation_memory:g} micro-batches of a stage; {r.slowdown_vs_ideal:.2f}x the step in one site with "
        f"no bubble. Hiding the round trip takes "
        f"{r.in_flight_extra} extra micro-batch(es) in flight before each cut; a static 1F1B without them pays "
        f"the latency on every micro-batch (CrossPipe §3)."))
    band, expected, note, _ = pipeline_section_band(s, r)
    reading = published_reading(expected, seconds_in_unit_of(short_time, r.step_s), "per step")
    show_error_band(band, band_rows(band), "the step", key="crossdc-pp-band", expected=reading,
                    after=escape_markdown(note))
    names = get_crossdc_data().methods
    st.dataframe([{"Same GPUs as": names[a.id].name, "Wall-clock per step": short_time(a.step_s),
                   "Against the pipeline": f"x{a.vs_pipeline:.2f}" if math.isfinite(a.vs_pipeline) else "never"}
                  for a in alternatives], hide_index=True)
    st.caption("One replica per site on its share of the same global batch, with no bubble (each replica's own "
               "pipeline on ZBV, as CrossPipe runs its data-parallel baseline), "
               "plus the exchange over the same WAN. DiLoCo-style methods need more steps to reach data "
               "parallel's loss: see the time-to-target table above.")


def _cases() -> None:
    st.caption("CrossPipe's published figures the model is held to (within 20 %) or, where the inputs do not "
               "allow it, why not. Inputs marked inferred are ours; the rules are in crossdc_pipeline.toml.")
    st.dataframe([{"Case": c.id, "System": c.system, "Published": f"{c.published:g}",
                   "Compared": "yes" if c.compared else "no", "Why not": c.pending} for c in get_pipeline_cases()],
                 hide_index=True)


__all__ = ["LABEL", "PIPELINE_KEYS", "pipeline_section"]
