"""The All-reduce page's live chart: drag the node count and busbw against message size follows.

The family of curves over every offered node count is computed once per cluster and view (cached,
shared between sessions); the browser redraws from it while the slider moves. When the movement
ends, the chosen count becomes the page's ``nodes`` value, so the cluster box, the other charts and
the link all follow.
"""

from __future__ import annotations

import streamlit as st

from interconnect.hardware.cluster import MAX_NODES, Cluster
from interconnect.hardware.vendor import vendor_words
from interconnect.topics.allreduce.figures import choice_label
from interconnect.topics.allreduce.live_figure import node_family_spec
from interconnect.topics.allreduce.sweep import live_node_counts, node_family
from interconnect.ui.cluster import CLUSTER_HASH
from interconnect.ui.live_control import LiveControl, presenting
from interconnect.ui.state import PageState
from interconnect.units import InterconnectError, read_quantity

__all__ = ["LIVE_NODES", "live_caption", "live_nodes"]

NODES_MAXIMUM = MAX_NODES

LIVE_NODES = LiveControl(
    "allreduce.live_nodes", "nodes",
    lead="All-reduce busbw, whichever collective the charts below show.",
    reading="Dotted: each all-reduce algorithm on its own; thick: the one the page's all-reduce summary uses.")


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=CLUSTER_HASH)
def _spec(cluster: Cluster, algorithm: str, protocol: str, size_bytes: float, present: bool) -> dict:
    family = node_family(cluster, live_node_counts(cluster.nodes, NODES_MAXIMUM), algorithm, protocol)
    label = choice_label(algorithm, protocol, vendor_words(cluster).library)
    return node_family_spec(family, cluster.nodes, size_bytes, label, present=present)


def live_nodes(state: PageState, cluster: Cluster) -> None:
    """The live chart under the cluster box; its slider sets the page's node count."""
    values = state.values()
    try:
        size_bytes = float(read_quantity(values["size"], "size").to("B").magnitude)
    except InterconnectError:  # the size box reports its own error; the chart reads 256 MiB meanwhile
        size_bytes = float(2**28)
    LIVE_NODES.show(_spec(cluster, values["algo"], values["proto"], size_bytes, presenting()), state)


def live_caption() -> None:
    """How to use the live chart, drawn under it (it depends on nothing the slider changes)."""
    LIVE_NODES.caption()
