"""URL parameters of every page: their keys are the public schema of shared links.

Kept in the core (not in the page scripts) so the CLI, tests and the browser test agree on them.
"""

from __future__ import annotations

from interconnect.catalog import get_catalog
from interconnect.ui.urlstate import ChoiceParam, IntParam

DIRECTIONS = {"per": "per_direction", "both": "both_directions"}
UNITS = ("GBps", "Gbitps", "bluray")
BASES = ("spec", "achieved")


def cliff_specs() -> list:
    catalog = get_catalog()
    return [
        ChoiceParam("gpu", "h100-sxm", "GPU", choices=tuple(catalog.gpus)),
        ChoiceParam("nic", "ib-ndr", "Network card", choices=tuple(catalog.nics())),
        IntParam("nics", 8, "NICs per server", minimum=1, maximum=144),
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


# --- Reach page
import functools as _functools  # noqa: E402  (this page's section only)
from dataclasses import fields as _fields  # noqa: E402

from interconnect.ui.urlstate import QuantityParam as _QuantityParam  # noqa: E402


class _RememberedQuantityParam(_QuantityParam):
    """A :class:`QuantityParam` that remembers what each text parsed to.

    Reading a quantity costs pint a fraction of a millisecond, and a page reads its typed values
    several times per rerun (the link, the widgets, the URL sync): the Reach page rereads the same
    few texts on every drag of its distance. Parsing is a pure function of the text.
    """

    def parse(self, raw: str) -> tuple[str, str | None]:
        return _remembered_parse(self, raw)


@_functools.lru_cache(maxsize=512)
def _remembered_parse(spec: _QuantityParam, raw: str) -> tuple[str, str | None]:
    return _QuantityParam.parse(spec, raw)


class DistanceParam(_RememberedQuantityParam):
    """A typed distance (``d=11 m``): any length, clamped to 10 cm .. 20,000 km with a warning.

    Unlike a plain :class:`QuantityParam` an out-of-scale value is clamped (``d=-5 m`` opens at
    10 cm and says so) rather than replaced by the default.
    """

    def parse(self, raw: str) -> tuple[str, str | None]:
        return _remembered_distance(self, raw)


@_functools.lru_cache(maxsize=512)
def _remembered_distance(spec: DistanceParam, raw: str) -> tuple[str, str | None]:
    from interconnect.models.reach import read_distance
    from interconnect.units import QuantityInputError

    try:
        reading = read_distance(raw)
    except QuantityInputError as exc:
        return spec.default, str(exc)
    # The warning says what was used; the link warning adds that itself.
    return reading.text, reading.warning.rsplit("; using ", 1)[0] or None


def _remembered(spec):
    """The same parameter, with remembered parsing when it is a typed quantity."""
    if type(spec) is _QuantityParam:
        return _RememberedQuantityParam(**{field.name: getattr(spec, field.name) for field in _fields(spec)})
    return spec


def reach_specs() -> list:
    """The Reach page: distance, message size, sync interval, the gap's medium, and the shared cluster."""
    from interconnect.models.reach import DEFAULT_DISTANCE, GAP_MEDIA

    return [
        DistanceParam("d", DEFAULT_DISTANCE, "Distance", dimension="length"),
        _RememberedQuantityParam("size", "1 GiB", "Message size", dimension="size", minimum="1 KiB",
                                 maximum="1 TiB"),
        IntParam("h", 100, "Synchronise every H steps", minimum=1, maximum=100_000),
        ChoiceParam("medium", "fibre", "Between the sites", choices=tuple(GAP_MEDIA)),
        *[_remembered(spec) for spec in cluster_specs()],
    ]
