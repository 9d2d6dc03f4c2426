"""Interconnect Explorer: the home page (Streamlit's entry point; the other pages live in pages/)."""

import math

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.figures.layers import layer_hops, layers_figure
from interconnect.inputs.links import HOME_VIEWS, home_specs
from interconnect.site import TOPICS
from interconnect.topics.reach.figures import reach_figure
from interconnect.topics.reach.model import reach_rows
from interconnect.ui.charts import chart
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.pages import link_to, page_exists, redirect_mistyped_page
from interconnect.ui.sources import show_entry
from interconnect.ui.state import PageState
from interconnect.ui.views import shown_views, view_picker

redirect_mistyped_page()

page_setup("Interconnect Explorer",
           "Why GPUs wait for data, and the wires that decide how long.")
home_state = PageState("home", home_specs())
home_state.show_warnings()
home_state.sync_url()  # only `view` is a setting here: a link's stray parameters are dropped from the address

#: The cards' look (a constant of ours, never user text): a tinted card and the link in body-size type.
ENTRY_STYLE = """
<style>
  [class*="st-key-explore-"] { background: #f0f6ff; }
  [class*="st-key-explore-"] [data-testid="stPageLink-NavLink"] p { font-size: 1.15rem; }
  /* Every card and every empty place of a short last row take an equal share of their row, and never get
     narrower than 10rem: a narrow window (800 px with the sidebar open) puts two to a line instead of four. */
  [data-testid="stLayoutWrapper"]:has(> [class*="st-key-explore-"]),
  [data-testid="stLayoutWrapper"]:has(> [class*="st-key-cardgap-"]) { flex: 1 1 10rem !important; min-width: 10rem; }
  /* A long title wraps between words (never inside one, never into an ellipsis). */
  [class*="st-key-explore-"] * { overflow-wrap: normal !important; word-break: normal !important; }
  [class*="st-key-explore-"] [data-testid="stPageLink-NavLink"] * { white-space: normal !important;
    overflow: visible !important; text-overflow: clip !important; }
</style>
"""
st.markdown(ENTRY_STYLE, unsafe_allow_html=True)  # a constant of ours, never user input
# A card for every topic with one, in the sidebar's order (interconnect/site.py), right under the title (above the
# fold at 1280x720), at most four to a row.
entries = [(topic.name, None, topic.card, topic.line) for topic in TOPICS if topic.card and page_exists(topic.name)]
per_row = math.ceil(len(entries) / math.ceil(len(entries) / 4)) if entries else 1  # 5 -> 3 + 2, 7 -> 4 + 3
for start in range(0, len(entries), per_row):
    row = entries[start:start + per_row]
    # One horizontal container per row (one block, where columns took one more per card); a short last row
    # is filled with empty places that share the row like a card (the style above), so its cards keep the width
    # of the others.
    cards = st.container(horizontal=True, wrap=True)
    for name, icon, title, text in row:
        with cards.container(border=True, key=f"explore-{name}"):
            link_to(name, f"**{title}** →", icon=icon, width="stretch")
            if text:
                st.caption(text)
    for gap in range(per_row - len(row)):
        cards.container(border=False, key=f"cardgap-{start}-{gap}").markdown("&nbsp;")  # an empty one collapses

st.markdown(
    "Training a large model is a fight against idle GPUs. Most of the waiting happens on the wires "
    "between them, and *interconnect* is not one wire but several layers, each with its own physics:"
)


@st.cache_resource(show_spinner=False)
def home_layers():
    """The layers picture is the same for every visitor: built once per server process."""
    catalog = get_catalog()
    return layers_figure(layer_hops(catalog), catalog.gpu("h100-sxm").name), layer_hops(catalog)


layers_picture, hops = home_layers()
chart(layers_picture, key="layers-chart")
note, sources = st.columns([5, 1], vertical_alignment="center")
note.caption("One H100 SXM in an HGX server, on the way out: each line is as thick as its rate per GPU, one "
             "direction. NVLink is the kitchen and InfiniBand or RoCE the motorway: a cluster uses both, all the "
             "time. Leaf to spine assumes a non-blocking fat tree; a wide-area link to another building is shared "
             "by all of a site's GPUs. Other makers' scale-up plays NVLink's part: AMD's Infinity Fabric, "
             "Gaudi's on-chip Ethernet.")
# The pop-over's text is drawn only while it is open (opening or closing it reruns the page): a first look does
# not send it.
layer_sources = sources.popover("Sources", key="home-sources", on_change="rerun")
if layer_sources.open:
    with layer_sources:
        for entry in [part for hop in hops for part in (hop.link, hop.medium) if part is not None]:
            st.markdown(f"**{escape_markdown(entry.name)}** · id `{entry.id}`")
            show_entry(entry, get_catalog())


@st.cache_resource(show_spinner=False)
def home_map():
    """The reach map is the same for every visitor: built once per server process (placing its labels
    takes a few hundred milliseconds)."""
    return reach_figure(reach_rows(catalog=get_catalog()))


# The reach map is a second Plotly chart: drawn only when asked for (view=reach), as every page's further
# charts are, so that a new visitor's first chart, the layers picture, is not held back by it.
view_picker(home_state, HOME_VIEWS)
if "reach" in shown_views(home_state, HOME_VIEWS):
    chart(home_map(), key="reach-chart")
    st.caption("Each point is a medium (copper, optics, NVLink's own copper) at the fastest protocol it carries, "
               "or an older cable or long-haul link from the catalog; only sourced reaches are drawn. Points are "
               "named beside them where a label fits and in the legend where it does not; hover for every name. "
               "Copper that carries hundreds of GB/s stops at a few metres; optics trade rate for kilometres; a "
               "1980s parallel cable was slow and short.")
st.markdown(
    "Every view is a link: the address bar always holds the page's settings, so you can paste it "
    "into a chat or a slide and it reopens exactly what you saw."
)
footer()
