"""The fabric page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.catalog import get_catalog
from interconnect.inputs.links import PageViews, view_spec
from interconnect.inputs.params import (
    ChoiceParam,
    FloatParam,
    IntParam,
)

FABRIC_VIEWS = PageViews({"playbook": "The Playbook's falling curve"}, {"playbook": ("fabric-playbook",)})


#: Where the picture's path runs (URL values); see :data:`interconnect.topics.fabric.figures.PATHS`.
FABRIC_PATHS = ("same_rail", "cross_rail", "cross_group", "cross_pod")


def fabric_specs() -> list:
    """The Fabric page: GPUs, server, switch, topology, tapers, distance classes and the drawn path."""
    from interconnect.hardware.fabric import (
        DISTANCE_IDS,
        FABRIC_TOPOLOGIES,
        MAX_GPUS,
        MAX_OVERSUBSCRIPTION,
        get_fabric_data,
    )

    distances = ("auto", *DISTANCE_IDS)
    return [
        IntParam("gpus", 1024, "GPUs", minimum=1, maximum=MAX_GPUS),
        ChoiceParam("server", "dgx-h100", "Server", choices=tuple(get_catalog().nodes)),
        ChoiceParam("switch", "quantum-2-qm9700", "Switch", choices=tuple(get_fabric_data().switches)),
        ChoiceParam("topo", "rail-leaf-spine", "Topology", choices=FABRIC_TOPOLOGIES),
        FloatParam("osub", 1.0, "Leaf oversubscription (down : up)", minimum=1.0, maximum=MAX_OVERSUBSCRIPTION),
        FloatParam("sosub", 1.0, "Spine oversubscription (three tiers)", minimum=1.0, maximum=MAX_OVERSUBSCRIPTION),
        ChoiceParam("tiers", "auto", "Tiers", choices=("auto", "2", "3")),
        IntParam("rails", 0, "Rails (0 = automatic)", minimum=0, maximum=1024),
        ChoiceParam("d1", "auto", "Servers to leaves", choices=distances),
        ChoiceParam("d2", "auto", "Leaves to spines", choices=distances),
        ChoiceParam("d3", "auto", "Spines to cores", choices=distances),
        ChoiceParam("path", "cross_rail", "Path drawn", choices=FABRIC_PATHS),
        view_spec(FABRIC_VIEWS),
    ]
