"""Page: Fabric. From GPUs to switches, optics and watts, and what the topology does to collectives.

The arithmetic is in :mod:`interconnect.hardware.fabric`, the pictures in :mod:`interconnect.topics.fabric.figures`
and the sections in :mod:`interconnect.topics.fabric.page`.
"""

import streamlit as st

from interconnect.topics.fabric.inputs import FABRIC_VIEWS, fabric_specs
from interconnect.topics.fabric.page import (
    INTRO,
    collectives_section,
    controls,
    designs_section,
    fabric_from_values,
    hypothesis_section,
    more_settings,
    picture_section,
    summary_section,
)
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.state import PageState
from interconnect.ui.views import shown_views, view_picker

page_setup("Fabric: from GPUs to switches and optics",
           "Tiers, rails and oversubscription: the switches, links and watts of a GPU cluster's network, "
           "and what they do to collectives.")
state = PageState("fabric", fabric_specs())
state.show_warnings()
controls(state)
values = state.values()
fabric, problems = fabric_from_values(values)
for problem in problems:
    st.warning(escape_markdown(problem))
if fabric is not None:
    picture_section(state, fabric)  # the main chart, under the main controls and above the fold
more_settings(state)  # tapers, tiers, rails, cable runs: under the picture (their values are already in use above)
view_picker(state, FABRIC_VIEWS)  # the one further chart drawn below (view=)
st.markdown(INTRO)
if fabric is not None:
    summary_section(fabric)
    st.subheader("What the topology does to collectives")
    collectives_section(values, fabric)
st.subheader("Checked against published designs")
designs_section()
st.subheader("The Playbook's falling curve: a hypothesis")
hypothesis_section("playbook" in shown_views(state, FABRIC_VIEWS))
state.sync_url()
footer()
