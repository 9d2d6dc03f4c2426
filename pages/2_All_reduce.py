"""Page: what the bandwidth cliff costs an all-reduce, by algorithm, message size and cluster size.

The cluster box reruns the whole page; everything below it is one fragment
(:func:`interconnect.ui.allreduce.analysis`), so its controls rerun only that part.
"""

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.ui.allreduce import analysis, page_cluster
from interconnect.ui.allreduce_live import live_nodes
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import cluster_controls, show_cluster_sources
from interconnect.ui.markdown import escape_markdown
from interconnect.ui.pagespecs import ALLREDUCE_VIEWS, CLUSTER_KEYS, allreduce_specs
from interconnect.ui.state import PageState
from interconnect.ui.views import view_picker

page_setup("All-reduce: what the cliff costs",
           "Time, bandwidth and network traffic of an all-reduce, by algorithm, message size and cluster size.")
catalog = get_catalog()
state = PageState("allreduce", allreduce_specs(), shared=CLUSTER_KEYS)
state.show_warnings()
cluster_controls(state, catalog)
cluster, cluster_warnings = page_cluster(state.values())
for warning in cluster_warnings:
    st.warning(escape_markdown(warning))
live_nodes(state, cluster)  # the main chart, under the cluster box and above the fold
view_picker(state, ALLREDUCE_VIEWS)  # the one further chart drawn below (view=), chosen here or in the link
show_cluster_sources(cluster, catalog)
analysis(state)
footer()
