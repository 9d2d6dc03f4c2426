"""Page: Reach. Fast links are on a short leash: what distance takes away, and what it costs.

The distance and everything it drives are fragments in :mod:`interconnect.topics.reach.page`, so dragging
the distance reruns only them, with the one further chart chosen (``view=``) and the timeout story.
The arithmetic is in :mod:`interconnect.topics.reach.model`.
"""

import streamlit as st

from interconnect.inputs.cluster import CLUSTER_KEYS
from interconnect.topics.reach.inputs import reach_specs
from interconnect.topics.reach.page import INTRO, distance_section
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.state import PageState

page_setup("Reach: fast links are on a short leash",
           "Speed and reach are two different numbers. Move two GPUs apart and watch links drop out, "
           "latency grow and collectives slow down.")
state = PageState("reach", reach_specs(), shared=CLUSTER_KEYS)
state.show_warnings()
st.markdown(INTRO)
distance_section(state)
footer()
