"""The Seating chart's live chart: drag the node count, the layout follows, and TFLOP/s per GPU against the
global batch follows at once.

The family over every offered node count is computed in one vectorized call of the seating model
(cached, shared between sessions); the browser redraws from it while the slider moves. When the
movement ends, the chosen count becomes the page's ``nodes`` value and DP goes back to "the rest",
so the seating chart, the bill and the link follow what the slider showed.
"""

from __future__ import annotations

import streamlit as st

from interconnect.hardware.cluster import MAX_NODES, Cluster
from interconnect.topics.seating.live_figure import seating_family_spec
from interconnect.topics.seating.model import SCHEDULES, Layout, Workload
from interconnect.topics.seating.page_parts import HASH
from interconnect.topics.seating.sweep import BATCHES, live_seating_nodes, seating_family
from interconnect.ui.live_control import LiveControl, presenting
from interconnect.ui.state import PageState
from interconnect.workloads.presets import ModelPreset

__all__ = ["LIVE_NODES", "live_seating"]

NODES_MAXIMUM = MAX_NODES

#: DP goes back to 0 ("the rest") with the node count, as the chart's layouts take it.
LIVE_NODES = LiveControl(
    "seating.live_nodes", "nodes", also=(("dp", 0),),
    reading="DP then takes the rest of the GPUs. Thick: TFLOP/s per GPU as the bill counts the step; dotted: "
            "compute alone. At the same global batch, more GPUs give each pipeline fewer micro-batches, so the "
            "bubble and the exposed gradient traffic grow: a bigger cluster needs a bigger batch to stay busy.")


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH)
def _spec(model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload, present: bool) -> dict:
    page_batch = int(workload.global_batch)
    batches = sorted({*BATCHES, page_batch})
    family = seating_family(model, cluster, layout, workload, live_seating_nodes(cluster.nodes, NODES_MAXIMUM),
                            batches)
    return seating_family_spec(family, cluster.nodes, page_batch, cluster.gpus_per_node,
                               SCHEDULES[workload.schedule], present=present)


def live_seating(state: PageState, model: ModelPreset, cluster: Cluster, layout: Layout, workload: Workload) -> None:
    """The live chart of the page's layout over node counts; its slider sets the page's node count. Its caption
    (``LIVE_NODES.caption()``) depends on nothing the slider changes: the page draws it once, outside the node
    count's fragment."""
    LIVE_NODES.show(_spec(model, cluster, layout, workload, presenting()), state)
