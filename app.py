"""Interconnect Explorer: the home page (Streamlit's entry point; the other pages live in pages/)."""

import math

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.figures.reach import reach_figure
from interconnect.models.reach import reach_rows
from interconnect.ui.page import (
    PAGES,
    PageState,
    chart,
    footer,
    link_to,
    page_exists,
    page_setup,
    redirect_mistyped_page,
)

redirect_mistyped_page()

page_setup("Interconnect Explorer",
           "Why GPUs wait for data, and the wires that decide how long.")
home_state = PageState("home", [])
home_state.show_warnings()
home_state.sync_url()  # the home page has no settings: a link's stray parameters are dropped from the address

#: The way into each page, shown as cards right under the title (above the fold at 1280x720), at most
#: four to a row: (page, icon, title, one line on what it shows).
ENTRY_POINTS = (
    ("cliff", None, "The bandwidth cliff",
     "Inside the server against outside it, like for like, for every GPU in its own server."),
    ("allreduce", None, "All-reduce",
     "What the cliff costs a training step: time by algorithm, message size and cluster."),
    ("overlap", None, "Overlap",
     "Hide the gradient all-reduce behind the backward pass, and see what stays exposed."),
    ("seating", None, "Seating chart",
     "Seat tensor, pipeline and data parallelism on the wires they can afford."),
    ("reach", None, "Reach",
     "Fast links are on a short leash: what distance does to links, latency and training."),
    ("crossdc", None, "Across sites",
     "DiLoCo, Streaming DiLoCo and SparseLoCo: the WAN bandwidth that keeps GPUs busy."),
    ("claims", None, "Claims checked",
     "Popular figures beside what the sources say, and why they differ."),
    ("units", None, "Unit traps",
     "Per direction or both, Gbit or GB, busbw or algbw: and a converter."),
    ("catalog", None, "Catalog and sources",
     "Every figure with its unit, its direction and where it comes from."),
    ("fabric", None, "Fabric",
     "From GPUs to switches, optics and watts: tiers, rails, oversubscription and what they cost."),
)
#: The cards' look (a constant of ours, never user text): a tinted card and the link in body-size type.
ENTRY_STYLE = """
<style>
  [class*="st-key-explore-"] { background: #f0f6ff; }
  [class*="st-key-explore-"] [data-testid="stPageLink-NavLink"] p { font-size: 1.15rem; }
</style>
"""
st.markdown(ENTRY_STYLE, unsafe_allow_html=True)  # a constant of ours, never user input
described = {entry[0]: entry for entry in ENTRY_POINTS}
# Every page gets a card, in the sidebar's order; a page without a description here still gets its title.
entries = [described.get(name, (name, None, label, ""))
           for name, (_, label) in PAGES.items() if name != "home" and page_exists(name)]
per_row = math.ceil(len(entries) / math.ceil(len(entries) / 4)) if entries else 1  # 5 -> 3 + 2, 7 -> 4 + 3
for start in range(0, len(entries), per_row):
    row = entries[start:start + per_row]
    for column, (name, icon, title, text) in zip(st.columns(per_row), row, strict=False):
        with column.container(border=True, key=f"explore-{name}"):
            link_to(name, f"**{title}** →", icon=icon, width="stretch")
            if text:
                st.caption(text)

st.markdown(
    "Training a large model is a fight against idle GPUs. Most of the waiting happens on the wires "
    "between them, and *interconnect* is not one wire but several layers, each with its own physics:"
)
layers = st.columns(3)
layers[0].markdown(
    "#### Inside the server\n**NVLink, Infinity Fabric, Gaudi's on-chip Ethernet.** Short copper links from "
    "every GPU to switch chips, or straight to every other GPU, on the same board or rack. Hundreds of GB/s "
    "per GPU; NVIDIA's switches can even add numbers up as they pass."
)
layers[1].markdown(
    "#### Between servers\n**InfiniBand, RoCE, Ethernet.** Usually one network card per GPU, through "
    "switches, over copper for a few metres and optics beyond. Tens of GB/s per GPU."
)
layers[2].markdown(
    "#### Between buildings\n**Wide-area links.** Coherent optics and leased fibre over kilometres to "
    "thousands of kilometres. Light in glass needs about 5 µs per km, each way."
)
st.info("Choosing *NVLink or InfiniBand* is like choosing *a kitchen or a motorway*: a cluster uses both, "
        "at different layers, all the time.")



@st.cache_resource(show_spinner=False)
def home_map():
    """The reach map is the same for every visitor: built once per server process (placing its labels
    takes a few hundred milliseconds)."""
    return reach_figure(reach_rows(catalog=get_catalog()))


chart(home_map(), key="reach-chart")
st.caption("Each point is a medium (copper, optics, NVLink's own copper) at the fastest protocol it carries, or an "
           "older cable or long-haul link from the catalog; only sourced reaches are drawn. Points are named "
           "beside them where a label fits and in the legend where it does not; hover for every name. Copper that "
           "carries hundreds of GB/s stops at a few metres; optics trade rate for kilometres; a 1980s parallel "
           "cable was slow and short.")
st.markdown(
    "Every view is a link: the address bar always holds the page's settings, so you can paste it "
    "into a chat or a slide and it reopens exactly what you saw."
)
footer()
