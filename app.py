"""Interconnect Explorer: the home page (Streamlit's entry point; the other pages live in pages/)."""

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.figures.reach import reach_figure
from interconnect.ui.page import PageState, footer, link_to, page_exists, page_setup, redirect_mistyped_page

redirect_mistyped_page()

page_setup("Interconnect Explorer",
           "Why GPUs wait for data, and the wires that decide how long.")
home_state = PageState("home", [])
home_state.show_warnings()
home_state.sync_url()  # the home page has no settings: a link's stray parameters are dropped from the address

st.markdown(
    "Training a large model is a fight against idle GPUs. Most of the waiting happens on the wires "
    "between them, and *interconnect* is not one wire but several layers, each with its own physics:"
)
layers = st.columns(3)
layers[0].markdown(
    "#### Inside the server\n**NVLink and NVSwitch.** Short copper links from every GPU to switch chips "
    "on the same board or rack. Hundreds of GB/s per GPU; the switch can even add numbers up as they pass."
)
layers[1].markdown(
    "#### Between servers\n**InfiniBand, RoCE, Ethernet.** One network card per GPU, through switches, "
    "over copper for a few metres and optics beyond. Tens of GB/s per GPU."
)
layers[2].markdown(
    "#### Between buildings\n**Wide-area links.** Coherent optics and leased fibre over kilometres to "
    "thousands of kilometres. Light in glass needs about 5 µs per km, each way."
)
st.info("Choosing *NVLink or InfiniBand* is like choosing *a kitchen or a motorway*: a cluster uses both, "
        "at different layers, all the time.")

st.plotly_chart(reach_figure(list(get_catalog().links.values())), width="stretch", key="reach-chart")
st.caption("Only links whose reach the catalog can source are drawn. Copper that carries hundreds of GB/s "
           "stops at a few metres; optics trade rate for kilometres; a 1980s parallel cable was slow and short.")

st.subheader("Explore")
DESCRIPTIONS = {
    "cliff": "The bandwidth cliff: inside the server against outside it, in honest units",
    "allreduce": "All-reduce: what the cliff costs, by algorithm, message size and cluster",
    "overlap": "Overlap: hide the all-reduce behind the backward pass, and see what stays exposed",
    "reach": "Reach: fast links are on a short leash; what distance does to links, latency and training",
    "catalog": "Catalog and sources: every figure with its direction and source",
}
for name, text in DESCRIPTIONS.items():
    if page_exists(name):
        link_to(name, text)
st.markdown(
    "Every view is a link: the address bar always holds the page's settings, so you can paste it "
    "into a chat or a slide and it reopens exactly what you saw."
)
footer()
