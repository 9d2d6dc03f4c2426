"""The GPU cluster the collective models read, one kind of thing per module.

* :mod:`.limits`: the bounds each input is clamped to (``MAX_NODES``, ...).
* :mod:`.transports`: model constants per scale-out fabric and GPU family (``FABRICS``, ``fabric_model``).
* :mod:`.value`: the frozen :class:`Cluster` and what follows from its numbers (ranks, domains, bandwidths).
* :mod:`.resolve`: :func:`resolve_cluster`, the one clamp from what people type to a :class:`Cluster`.
* :mod:`.present`: the cluster in one line of words and as JSON-ready data.

Import from here (``from interconnect.hardware.cluster import Cluster, resolve_cluster``); the
modules import one another only downward (limits and transports, then present, value, resolve).
"""

from interconnect.hardware.cluster.limits import (
    MAX_GPUS_PER_NODE,
    MAX_HOP_LATENCY_US,
    MAX_NIC_GBIT_S,
    MAX_NICS_PER_NODE,
    MAX_NODES,
    MAX_RANKS,
    MIN_NIC_GBIT_S,
)
from interconnect.hardware.cluster.resolve import RACK_SCALE_DOMAIN, SCALEUP_ACHIEVED_FALLBACK, resolve_cluster
from interconnect.hardware.cluster.transports import (
    EFA_PLUGIN_LATENCY_US,
    FABRIC_BY_GENERATION,
    FABRICS,
    NVLS_MIN_GPUS,
    FabricModel,
    fabric_from_family,
    fabric_model,
)
from interconnect.hardware.cluster.value import Cluster

__all__ = [
    "EFA_PLUGIN_LATENCY_US",
    "FABRICS",
    "FABRIC_BY_GENERATION",
    "MAX_GPUS_PER_NODE",
    "MAX_HOP_LATENCY_US",
    "MAX_NICS_PER_NODE",
    "MAX_NIC_GBIT_S",
    "MAX_NODES",
    "MAX_RANKS",
    "MIN_NIC_GBIT_S",
    "NVLS_MIN_GPUS",
    "RACK_SCALE_DOMAIN",
    "SCALEUP_ACHIEVED_FALLBACK",
    "Cluster",
    "FabricModel",
    "fabric_from_family",
    "fabric_model",
    "resolve_cluster",
]
