"""Page: the seating chart. Seat each kind of parallelism on the wire it can afford, and see the bill.

The node count and everything the cluster drives (the seating grid, the bill, the live chart, the
comparisons) are one fragment (:func:`interconnect.topics.seating.page.cluster_view`), drawn into the
places the page keeps for it, so a change of the node count reruns that, not the page's frame, the
other controls or the text that no control changes.
"""

from interconnect.catalog import get_catalog
from interconnect.inputs.cluster import CLUSTER_KEYS
from interconnect.topics.seating.inputs import seating_specs
from interconnect.topics.seating.page import claim_box, cluster_view, reference_section, run_controls, sources_section
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.cluster import cluster_controls
from interconnect.ui.state import PageState

page_setup("The seating chart",
           "Which kind of parallelism sits on which wire, what it sends per step, and what that costs.")
catalog = get_catalog()
state = PageState("seating", seating_specs(), shared=CLUSTER_KEYS)
state.show_warnings()
nodes_column = cluster_controls(state, catalog, nodes_later=True, lazy_more=True)
chart_column = run_controls(state)  # the model, the run and the layout beside the seating chart's column
cluster_view(state, catalog, nodes_column, chart_column)  # the node count, the grid, the bill, the comparisons
claim_box()
reference_section()
sources_section(state)
footer()
