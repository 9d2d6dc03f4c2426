"""URL parameters of every page: their keys are the public schema of shared links.

Kept in the core (not in the page scripts) so the CLI, tests and the browser test agree on them.
"""

from __future__ import annotations

import functools

from interconnect.catalog import get_catalog
from interconnect.ui.urlstate import AutoIntParam, ChoiceParam, IntParam

#: Link keys every page accepts (presentation mode and the guided tour).
GLOBAL_KEYS = frozenset({"present", "tour", "step"})

DIRECTIONS = {"per": "per_direction", "both": "both_directions"}
UNITS = ("GBps", "Gbitps", "bluray")
BASES = ("spec", "achieved")


def cliff_specs() -> list:
    catalog = get_catalog()
    return [
        ChoiceParam("gpu", "h100-sxm", "GPU", choices=tuple(catalog.gpus)),
        # "auto": the GPU's own reference server (Gaudi 3: 24 on-chip 200 GbE ports); an explicit
        # nic=ib-ndr&nics=8 (every link written before "auto" existed) keeps meaning exactly that.
        ChoiceParam("nic", "auto", "Network card", choices=("auto", *catalog.nics())),
        AutoIntParam("nics", None, "NICs per server", minimum=1, maximum=144),
        ChoiceParam("dir", "per", "Direction", choices=tuple(DIRECTIONS)),
        ChoiceParam("unit", "GBps", "Unit", choices=UNITS),
        ChoiceParam("basis", "spec", "Spec or achieved", choices=BASES),
    ]


FABRIC_CHOICES = ("auto", "infiniband", "roce", "ethernet", "efa")


#: The URL keys that describe a cluster. Every page that times a collective uses these same keys,
#: so a cluster travels between pages (in the session) and between people (in the link).
CLUSTER_KEYS = ("gpu", "gpn", "nodes", "nic", "nic_bw", "nics", "fabric", "domain", "sharp")

FABRIC_LABELS = {"auto": "From the NIC", "infiniband": "InfiniBand", "roce": "RoCE", "ethernet": "Ethernet (TCP)",
                 "efa": "AWS EFA"}

#: Short algorithm names that fit a metric tile and a legend.
ALGORITHM_SHORT_NAMES = {"flat_ring": "Flat ring", "ring": "Ring", "tree": "Tree", "hierarchical": "Hier.",
                         "nvls": "NVLS", "nvls_tree": "NVLSTree", "collnet": "SHARP", "none": "none"}


def cluster_specs(*, nodes: int = 4) -> list:
    """The parameters of a cluster description (GPU, node shape, NICs, fabric), with their URL keys."""
    from interconnect.ui.urlstate import BoolParam, QuantityParam

    catalog = get_catalog()
    return [
        ChoiceParam("gpu", "h100-sxm", "GPU", choices=tuple(catalog.gpus)),
        IntParam("gpn", 8, "GPUs per node", minimum=1, maximum=1024),
        IntParam("nodes", nodes, "Nodes", minimum=1, maximum=100_000),
        ChoiceParam("nic", "auto", "NIC", choices=("auto", *catalog.nics(), "custom")),
        QuantityParam("nic_bw", "200 Gbit/s", "Custom NIC rate", dimension="bandwidth", minimum="1 Gbit/s",
                      maximum="12800 Gbit/s"),
        IntParam("nics", 0, "NICs per node (0 = one per GPU)", minimum=0, maximum=4096),
        ChoiceParam("fabric", "auto", "Fabric", choices=FABRIC_CHOICES),
        IntParam("domain", 0, "NVLink domain (0 = the GPU's usual)", minimum=0, maximum=576),
        BoolParam("sharp", False, "SHARP in the InfiniBand switches"),
    ]


def allreduce_specs() -> list:
    from interconnect.models.collectives import ALLREDUCE_ALGORITHMS, load_measurements
    from interconnect.ui.urlstate import QuantityParam

    return [
        *cluster_specs(),
        QuantityParam("size", "256 MiB", "Message size", dimension="size", minimum="8 B", maximum="16 GiB"),
        ChoiceParam("algo", "auto", "Algorithm", choices=("auto", *ALLREDUCE_ALGORITHMS)),
        ChoiceParam("overlay", "none", "Published measurement", choices=("none", *[m.id for m in load_measurements()])),
    ]


def cluster_widget_values(inputs: dict, nic_ids: tuple[str, ...] | list[str]) -> dict:
    """Widget values (URL keys) for a cluster given as ``resolve_cluster`` keyword arguments.

    Used by "set the cluster to this system": a published measurement stores its cluster as CLI-style
    inputs (``{"gpu": "h100-sxm", "nic": "100 Gbit/s", ...}``); the page's controls need URL values.

    >>> cluster_widget_values({"gpu": "a100-sxm", "nodes": 2, "nic": "100 Gbit/s"}, ["ib-ndr"])["nic"]
    'custom'
    """
    nic = str(inputs.get("nic", "auto"))
    values = {
        "gpu": inputs["gpu"],
        "gpn": int(inputs.get("gpus_per_node", 8)),
        "nodes": int(inputs.get("nodes", 1)),
        "nics": int(inputs.get("nics_per_node", 0)),
        "fabric": str(inputs.get("fabric", "auto")),
        "domain": int(inputs.get("scaleup_domain", 0)),
        "sharp": bool(inputs.get("in_network_reduction", False)),
    }
    if nic in nic_ids or nic == "auto":
        values["nic"] = nic
    else:
        values["nic"] = "custom"
        values["nic_bw"] = nic
    return values


def cluster_inputs(values: dict) -> dict:
    """The page's URL values as keyword arguments of :func:`interconnect.models.cluster.resolve_cluster`."""
    nic = values["nic"]
    return {
        "gpus_per_node": values["gpn"],
        "nodes": values["nodes"],
        "nic": None if nic == "auto" else values["nic_bw"] if nic == "custom" else nic,
        "nics_per_node": values["nics"] or None,
        "fabric": None if values["fabric"] == "auto" else values["fabric"],
        "scaleup_domain": values["domain"] or None,
        "in_network_reduction": values["sharp"],
    }


def catalog_specs() -> list:
    from interconnect.catalog import LAYERS

    catalog = get_catalog()
    return [ChoiceParam("kind", "gpu", "Kind", choices=("gpu", *LAYERS, "node")),
            ChoiceParam("entry", "", "Entry", choices=("", *[e.id for e in catalog.entries()]))]


@functools.cache
def known_link_keys() -> frozenset[str]:
    """Every URL key some page of the app uses (so a key from another page is not called unknown).

    Every ``*_specs()`` function of this module counts: a new page's specs join by being defined here.
    """
    import inspect

    keys = set(GLOBAL_KEYS)
    for name, function in globals().items():
        if name.endswith("_specs") and callable(function) and not inspect.signature(function).parameters:
            keys.update(spec.key for spec in function())
    keys.update(CLUSTER_KEYS)
    return frozenset(keys)
