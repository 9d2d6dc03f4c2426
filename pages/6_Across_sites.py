"""Page: training across data centres: what crosses the WAN, and how busy the GPUs stay.

The controls, the live chart, the metrics and the further chart are one fragment
(:func:`interconnect.topics.crossdc.page.explorer`) with the site count, the size, the GPU and the WAN bandwidth
nested in it, so a change of one of those reruns only what depends on it, not the page's frame, the
other controls or the sections below, which no control changes.
"""

from interconnect.catalog import get_catalog
from interconnect.inputs.cluster import CUSTOM_GPU_KEYS
from interconnect.topics.crossdc.inputs import crossdc_specs
from interconnect.topics.crossdc.page import explorer
from interconnect.topics.crossdc.page_papers import limits_section, quoted_section, reported_section, table4_section
from interconnect.topics.crossdc.page_pipeline import pipeline_section
from interconnect.topics.crossdc.page_weight_sync import weight_sync_section
from interconnect.ui.chrome import footer, page_setup
from interconnect.ui.state import PageState

page_setup("Across sites: training between data centres",
           "When training spans buildings or regions, the algorithm bends to the wire: synchronise rarely, "
           "and send less. How much WAN bandwidth keeps the GPUs busy, per method.")
catalog = get_catalog()
state = PageState("crossdc", crossdc_specs(), shared=("gpu", *CUSTOM_GPU_KEYS))
state.show_warnings()
explorer(state, catalog)  # the controls, the live chart, the network classes, the metrics, the further chart
reported_section(catalog)
table4_section()
quoted_section(catalog)
limits_section(catalog)
weight_sync_section(state)  # drawn only when asked for (link key ws)
pipeline_section(state)  # drawn only when asked for (link key pp)
footer()
