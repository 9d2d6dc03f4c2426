"""The Across sites page's RL weight-sync section: the trainer handing new weights to the generators.

Drawn below the page's other sections, in its own expander, and only while open (link key ``ws``); its
inputs are declared in :mod:`interconnect.topics.crossdc.inputs` (keys starting ``ws``), its arithmetic is
:mod:`interconnect.topics.crossdc.model.weight_sync` and its reference rows are ``weight_sync.toml``. Nothing
typed is rendered as HTML: text goes through :func:`escape_markdown` or a dataframe.
"""

from __future__ import annotations

import streamlit as st

from interconnect.topics.crossdc.accuracy import band_rows, weight_sync_bands
from interconnect.topics.crossdc.data import get_weight_sync_data, get_weight_sync_ratios
from interconnect.topics.crossdc.figures import weight_sync_figure
from interconnect.topics.crossdc.inputs import WEIGHT_SYNC_KEYS, catalog_gpu_id, weight_sync_scenario
from interconnect.topics.crossdc.model.weight_sync import (
    DELIVERIES,
    MODES,
    ROUTE_LINKS,
    ROUTES,
    evaluate_weight_sync,
    sync_time_sweep,
)
from interconnect.topics.crossdc.page_section import open_section, short_time
from interconnect.ui.charts import chart
from interconnect.ui.error_band import show_error_band
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.more import KEEP_HIDDEN as _KEEP
from interconnect.ui.state import PageState, bounds
from interconnect.units import Q_, format_bandwidth, format_quantity

LABEL = "RL weight sync: trainer to generators, inside a site and across sites"
ROUTE_LABELS = {"node": "Same node (NVLink)", "site": "Same site (the NICs)", "wan": "Another site (WAN)"}


@st.fragment
def weight_sync_section(state: PageState) -> None:
    """The section's toggle; its widgets and results are drawn only while it is open."""
    help_text = "Post-training is where wide-area training starts: the weights go one way, every step."
    with open_section(state, "ws", LABEL, help_text, _controls) as values:
        if values is None:
            return
        try:
            scenario = weight_sync_scenario(values, catalog_gpu_id(values))
        except ValueError as exc:
            st.warning(escape_markdown(str(exc)))
            return
        _results(evaluate_weight_sync(scenario))
        _sync_chart(scenario)
    _measurements()


def _controls(state: PageState) -> None:
    c1, c2, c3, c4 = st.columns(4)
    c1.text_input("Model parameters", key=state.key("wsparams"), help="70e9, 7B, 1T", **_KEEP)
    c2.selectbox("Precision", ["bf16", "fp8", "fp32"], key=state.key("wsprec"), **_KEEP)
    c3.selectbox("What is sent", list(MODES), key=state.key("wsmode"), **_KEEP,
                 format_func={"full": "Every value", "delta": "Changed values (delta)", "topk": "Top-k"}.get)
    c4.number_input("Share sent (%)", **bounds(state, "wsfrac"), key=state.key("wsfrac"), **_KEEP,
                    help="Delta: the bytes that changed since the last sync (about 1-3 % in bf16 RL runs).")
    r1, r2, r3, r4 = st.columns(4)
    r1.selectbox("Generators", list(ROUTES), key=state.key("wsroute"), format_func=ROUTE_LABELS.get, **_KEEP)
    r2.number_input("Receivers (GPUs on a node, else nodes)", **bounds(state, "wsrecv"), step=1,
                    key=state.key("wsrecv"), **_KEEP)
    r3.selectbox("Delivery", list(DELIVERIES), key=state.key("wstopo"), **_KEEP,
                 format_func={"tree": "Broadcast tree (pipelined)", "fanout": "Fan-out from the trainer"}.get)
    r4.number_input("Index bits", **bounds(state, "wsibits"), step=1, key=state.key("wsibits"), **_KEEP)
    w1, w2, w3, w4 = st.columns(4)
    w1.text_input("WAN bandwidth", key=state.key("wsbw"), **_KEEP)
    w2.text_input("WAN round trip", key=state.key("wsrtt"), **_KEEP)
    w3.number_input("Staging rate (GB/s, 0 = the wire)", **bounds(state, "wsstage"), key=state.key("wsstage"),
                    help="Gather, cast and reload run in a pipeline with the wire; inside a site they are usually "
                         "the limit. Measured overall (bytes over time, not a published stage rate): "
                         "checkpoint-engine 59-76 GB/s per GPU; verl's full broadcast 2.6-5.1 GB/s.", **_KEEP)
    w4.text_input("Generation per step", key=state.key("wsgen"), **_KEEP)
    p1, p2, _ = st.columns([1, 1, 2])
    p1.toggle("Pause generation while syncing", key=state.key("wspause"), **_KEEP)
    p2.text_input("Swap pause (background)", key=state.key("wsswap"), **_KEEP)


def _results(r) -> None:
    s = r.scenario
    row = st.container(horizontal=True)
    row.metric("Payload per replica", format_quantity(Q_(r.payload_bytes, "B")),
               help=f"Every value: {format_quantity(Q_(r.full_bytes, 'B'))}.")
    row.metric("Sync time", short_time(r.sync_s),
               help=f"Tree {short_time(r.tree_sync_s)}, fan-out {short_time(r.fanout_sync_s)}.")
    row.metric("Lost per step", short_time(r.hiding.exposed_s))
    row.metric("Weights behind by", f"{r.hiding.staleness_steps} step(s)")
    row.metric("Generating", f"{r.hiding.generation_share:.1%}")
    pace = "the wire" if r.wire_bound else "the staging (software) path"
    need = format_bandwidth(Q_(r.required_bytes_per_s, "B/s"), "bit/s") if r.required_bytes_per_s < float("inf") \
        else "out of reach (the latency alone exceeds the generation time)"
    st.caption(f"The slowest stage is {pace} at {format_bandwidth(Q_(r.bottleneck_bytes_per_s, 'B/s'), 'bit/s')}. "
               f"The sync {'hides behind' if r.hiding.hidden else 'outlasts'} {short_time(s.generation_s)} of "
               "generation; "
               f"it would hide at {need}. "
               + ("Generation pauses for the whole sync and the weights stay on-policy." if not s.background else
                  "Syncing in the background costs only the leftover and the swap, and the generators run on "
                  "weights one step old or more."))
    band, _, note = weight_sync_bands(s)
    show_error_band(band, band_rows(band), "how the sync time scales", key="crossdc-ws-band",
                    after=escape_markdown(note))


#: The chart's key (the guided tour's post-training step shows it first) and the words for each route's link.
CHART_KEY = "crossdc-weight-sync"
_LINK_WORDS = {"wan": "WAN bandwidth", "site": "the site's NICs (per node)", "node": "NVLink (per GPU)"}


def _sync_chart(scenario) -> None:
    """The sync's time against the route's link rate, from a hundredth to a hundred times the page's, per mode."""
    current = getattr(scenario, ROUTE_LINKS[scenario.route])
    rates = [current * 10 ** (k / 10) for k in range(-20, 21)]
    # delta and top-k send the same bytes (a share of the values with their positions): one line for both
    times = sync_time_sweep(scenario, rates, ("full", "topk"))
    chosen = "full" if scenario.mode == "full" else "topk"
    figure = weight_sync_figure(rates, times, chosen, current, scenario.generation_s, _LINK_WORDS[scenario.route],
                                scenario.fraction)
    chart(figure, key=CHART_KEY)


def _measurements() -> None:
    rows = get_weight_sync_data()
    st.caption("Published measurements the model is held to (within 20 %) or, where the inputs do not allow it, "
               "why not. Inputs marked inferred are ours; the rules are in weight_sync.toml.")
    st.dataframe([{"Measurement": m.id, "System": m.system, "Measured": _measured(m),
                   "Compared": "yes" if m.compared else "no", "Why not": m.pending} for m in rows], hide_index=True)
    st.caption("Inside a site the software path (gather, cast, bucketing, reload) sets the time and no source "
               "gives its rate, so each time above is compared through a ratio: two times of one system where only "
               "the model or the number of receivers changed. The path's rate cancels; what is left is whether "
               "the time follows the bytes and whether a broadcast tree ignores the receivers.")
    st.dataframe([{"Ratio": r.id, "Of": r.of.id, "Against": r.against.id, "Measured": f"{r.measured:.3f}x",
                   "Compared": "yes" if r.compared else "no", "Why not": r.pending}
                  for r in get_weight_sync_ratios()], hide_index=True)


def _measured(m) -> str:
    return short_time(m.measured) if m.quantity == "sync_time" else format_quantity(Q_(m.measured, "B"))


__all__ = ["LABEL", "WEIGHT_SYNC_KEYS", "weight_sync_section"]
