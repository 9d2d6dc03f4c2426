"""Page: what the bandwidth cliff costs an all-reduce, by algorithm, message size and cluster size.

The cluster box reruns the whole page, except its node count. Everything below the box is one
fragment (:func:`interconnect.topics.allreduce.page.cluster_view`) with the view controls; the node count and
everything the cluster drives are another, nested in it, so a node count change reruns only what
depends on the cluster and a view control reruns both.
"""

from interconnect.catalog import get_catalog
from interconnect.inputs.cluster import CLUSTER_KEYS
from interconnect.topics.allreduce.inputs import allreduce_specs
from interconnect.topics.allreduce.page import cluster_view
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import cluster_controls
from interconnect.ui.state import PageState

page_setup("All-reduce: what the cliff costs",
           "Time, bandwidth and network traffic of an all-reduce, by algorithm, message size and cluster size.")
catalog = get_catalog()
state = PageState("allreduce", allreduce_specs(), shared=CLUSTER_KEYS)
state.show_warnings()
nodes_column = cluster_controls(state, catalog, nodes_later=True, lazy_more=True)
cluster_view(state, nodes_column)  # the node count, the live chart, the sources and the analysis
footer()
