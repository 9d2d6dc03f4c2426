"""Page: the bandwidth cliff at the edge of the server chassis."""

import pandas as pd
import streamlit as st

from interconnect.catalog import DIRECTION_WORDS, LAYER_TITLES, get_catalog
from interconnect.figures.cliff import cliff_figure, generation_figure
from interconnect.figures.theme import FORMAT_UNITS
from interconnect.models.cliff import cliff_bars, cliff_summary, generation_ratios, quoted_claims, transfer_time
from interconnect.ui.page import (
    PageState,
    escape_markdown,
    figure_sources,
    footer,
    gpu_picker,
    nic_picker,
    page_setup,
    source_popover,
)
from interconnect.ui.pagespecs import DIRECTIONS, cliff_specs
from interconnect.units import format_bandwidth, format_duration

PHYSICAL_LAYERS = ("scale-up", "host", "scale-out", "long-reach")
page_setup("The bandwidth cliff",
           "How much a GPU can send to its neighbour in the same server, against what it can send anywhere else.")
catalog = get_catalog()
state = PageState("cliff", cliff_specs(), shared=("gpu",))
state.show_warnings()

left, middle, right = st.columns([2, 2, 1])
gpu = gpu_picker(state, catalog=catalog, container=left)
nic = nic_picker(state, catalog=catalog, container=middle)
right.number_input("NICs per server", min_value=1, max_value=144, step=1, key=state.key("nics"))
a, b, c = st.columns(3)
a.radio("Direction", list(DIRECTIONS), key=state.key("dir"), horizontal=True,
        format_func=lambda d: "Per direction" if d == "per" else "Both directions summed")
b.radio("Unit", ["GBps", "Gbitps", "bluray"], key=state.key("unit"), horizontal=True,
        format_func={"GBps": "GB/s", "Gbitps": "Gbit/s", "bluray": "Blu-rays/s"}.get)
c.radio("Figures", ["spec", "achieved"], key=state.key("basis"), horizontal=True,
        format_func={"spec": "Spec sheet", "achieved": "What NCCL achieves"}.get)
state.sync_url()

direction = DIRECTIONS[state["dir"]]
unit_key = state["unit"]
fmt_unit = FORMAT_UNITS[unit_key]
summary = cliff_summary(catalog, gpu.id, nic.id, nics_per_node=state["nics"])

st.subheader("The headline ratio, two ways")
m1, m2, m3, m4 = st.columns(4)
m1.metric("Like for like (per direction)", f"{summary.ratio_like_for_like:.3g} : 1",
          help="Scale-up per direction ÷ NIC per direction.")
m2.metric("As often quoted", f"{summary.ratio_as_quoted:.3g} : 1",
          help="NVLink both directions summed ÷ NIC one direction: mixes two conventions.")
achieved = summary.ratio_achieved
m3.metric("What NCCL achieves", f"{achieved:.3g} : 1" if achieved else "n/a",
          help="NCCL's per-link planning figure ÷ the per-NIC rate NVIDIA engineers quote for NCCL.")
m4.metric("Whole server out, per direction", format_bandwidth(summary.node_egress_per_direction, fmt_unit),
          help="All NICs of the server together, per direction.")

with st.container(border=True):
    up_pd = format_bandwidth(summary.scaleup_per_direction)
    up_both = format_bandwidth(summary.scaleup_both_directions)
    nic_pd = format_bandwidth(summary.nic_per_direction)
    nic_bits = format_bandwidth(summary.nic_per_direction, "bit/s")
    st.markdown(
        f"**Often quoted:** {gpu.name} has {up_both} of NVLink against {nic_pd} for the network, "
        f"so the cliff is {summary.ratio_as_quoted:.3g} to 1.\n\n"
        f"**Corrected:** {up_both} is both directions added up; the network card's {nic_pd} "
        f"({nic_bits}) is one direction. Like for like it is {up_pd} against {nic_pd}: "
        f"**{summary.ratio_like_for_like:.3g} to 1**.\n\n"
        f"**And the server is not one NIC:** each GPU usually has its own card, so the server sends "
        f"{format_bandwidth(summary.node_egress_per_direction)} per direction through "
        f"{summary.nics_per_node} of them, against {format_bandwidth(summary.node_scaleup_per_direction)} "
        f"of NVLink among its GPUs."
    )
    if gpu.id in ("h100-sxm", "h200") and nic.id == "ib-ndr":
        st.caption("The 18:1 that is often quoted for H100 is the honest ratio for B200 (NVLink 5, "
                   "900 GB/s per direction) against the same 400 Gbit/s card.")

bars = cliff_bars(catalog, gpu.id, nic.id, direction=direction, basis=state["basis"], nics_per_node=state["nics"])
st.plotly_chart(cliff_figure(bars, unit_key, direction, state["basis"]), width="stretch", key="cliff-chart")
if state["basis"] == "achieved":
    fallback = [bar.label for bar in bars if bar.basis != "achieved"]
    if fallback:
        st.caption("No achieved figure in the catalog for: " + "; ".join(fallback) + ". Their spec or measured "
                   "figure is shown, marked on its bar.")
s1, s2, s3 = st.columns(3)
source_popover(gpu, f"Sources: {gpu.name}", catalog, container=s1)
source_popover(nic, f"Sources: {nic.name}", catalog, container=s2)
source_popover(catalog.link(gpu.scaleup_link), f"Sources: {catalog.link(gpu.scaleup_link).name}", catalog,
               container=s3)

with st.expander("Where every bar comes from"):
    for bar in bars:
        direction = DIRECTION_WORDS[bar.figure.direction]
        st.markdown(f"**{escape_markdown(bar.label)}**: {bar.figure.text()} as published, {direction}, "
                    f"{bar.basis} · catalog id `{bar.entry_id}`")
        if bar.figure.note:
            st.caption(bar.figure.note)
        st.markdown(figure_sources(catalog, bar.figure))

claims = quoted_claims(catalog, bars)
if claims:
    st.subheader("Popular figures, checked")
    for link_name, claim in claims:
        with st.container(border=True):
            st.markdown(f"**Often quoted** ({claim['by']}, on {link_name}): {claim['claim']}")
            st.markdown(f"**What the sources say:** {claim['correction']}")

st.subheader("In human terms: how long to move one Blu-ray disc (50 GB)?")
st.dataframe(pd.DataFrame({
    "Link": [bar.label for bar in bars],
    "Bandwidth": [format_bandwidth(bar.bandwidth, fmt_unit) for bar in bars],
    "One Blu-ray takes": [format_duration(transfer_time(bar.bandwidth)) for bar in bars],
    "Basis": [bar.basis for bar in bars],
}), hide_index=True, width="stretch")

st.subheader("The cliff across GPU generations")
st.caption("Each GPU against the network its reference server ships with, per GPU.")
st.plotly_chart(generation_figure(generation_ratios(catalog)), width="stretch", key="generation-chart")

st.subheader("What each link physically is")
st.markdown("These are layers of one system, not rival products: a real cluster uses all of them at once.")
tabs = st.tabs([LAYER_TITLES[layer] for layer in PHYSICAL_LAYERS])
for tab, layer in zip(tabs, PHYSICAL_LAYERS, strict=True):
    tab.dataframe(pd.DataFrame([{
        "Link": link.name, "What it is": link.summary, "Medium": link.medium,
        "Reach": link.reach.text() if link.reach else "—",
        "Switched": "yes" if link.switched else "no",
        "Routable": {True: "yes", False: "no", None: "—"}[link.routable],
        "In-network reduction": "yes" if link.in_network_reduction else "no",
        "Made by": link.vendor,
    } for link in catalog.layer(layer).values()]), hide_index=True, width="stretch")
st.caption("NVLink and NVSwitch are NVIDIA's; so, since NVIDIA bought Mellanox (closed April 2020), is most "
           "InfiniBand. RoCE v2 carries the same RDMA verbs over routable UDP/IP Ethernet.")
footer()
