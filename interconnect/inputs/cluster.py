"""The cluster's inputs, shared by every page that times a collective: the GPU (or a custom one), the
node, the NICs, the fabric, the calibration from a measurement and the fabric topology, with their link keys.

Each is declared once here; the link, the widgets and the model's keyword arguments come from these records.
"""

from __future__ import annotations

from dataclasses import dataclass

from interconnect.catalog import Gpu, get_catalog
from interconnect.hardware.cluster import MAX_NODES
from interconnect.hardware.custom import CUSTOM_GPU_ID, DEFAULT_NAME, custom_gpu, name_problem
from interconnect.inputs.params import (
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    QuantityParam,
)


@dataclass(frozen=True)
class NameParam(QuantityParam):
    """A custom GPU's name (``gpu_name=Rubin``): plain words, at most 40 characters, never markup.

    A :class:`~interconnect.inputs.params.QuantityParam` only so that the page warns about typed text it
    could not use; it reads no quantity. See :func:`interconnect.hardware.custom.name_problem`.

    >>> NameParam("gpu_name", "Custom GPU").parse("<script>")[0]
    'Custom GPU'
    """

    def parse(self, raw: str) -> tuple[object, str | None]:
        name = " ".join(raw.split())
        if not name:
            return self.default, None
        problem = name_problem(name)
        return (self.default, problem) if problem else (name, None)


#: URL keys of a custom GPU (``gpu=custom``): the catalog GPU it is built on, its scale-up
#: bandwidth per direction, and its name. Shared between pages like the other cluster keys.
CUSTOM_GPU_KEYS = ("gpu_base", "gpu_bw", "gpu_name")


def custom_gpu_specs() -> list:
    """The parameters of a custom GPU; they matter only when ``gpu=custom``."""
    custom = ("gpu", CUSTOM_GPU_ID)
    return [
        ChoiceParam("gpu_base", "h100-sxm", "Custom GPU: compute, memory and server of",
                    choices=tuple(get_catalog().gpus), when=custom),
        QuantityParam("gpu_bw", "900 GB/s", "Custom GPU: scale-up per direction", dimension="bandwidth",
                      minimum="1 GB/s", maximum="100 TB/s", when=custom),
        NameParam("gpu_name", DEFAULT_NAME, "Custom GPU: name", when=custom),
    ]


def gpu_spec() -> ChoiceParam:
    """The GPU picker's parameter: a catalog id or ``custom``."""
    return ChoiceParam("gpu", "h100-sxm", "GPU", choices=(*get_catalog().gpus, CUSTOM_GPU_ID))


def nic_bw_spec(when: tuple[str, str] | None = None) -> QuantityParam:
    """A custom NIC's rate per direction (``nic=custom&nic_bw=800 Gbit/s``)."""
    return QuantityParam("nic_bw", "200 Gbit/s", "Custom NIC rate", dimension="bandwidth", minimum="1 Gbit/s",
                         maximum="12800 Gbit/s", when=when)


def page_gpu(values: dict) -> Gpu:
    """The GPU a page's values name: a catalog entry, or for ``gpu=custom`` the custom GPU they describe.

    >>> page_gpu({"gpu": "custom", "gpu_base": "b200", "gpu_bw": "3.6 TB/s", "gpu_name": "Next"}).name
    'Next'
    """
    from interconnect.hardware.custom import read_scaleup

    catalog = get_catalog()
    if values["gpu"] != CUSTOM_GPU_ID:
        return catalog.gpu(values["gpu"])
    base = catalog.gpu(values.get("gpu_base") or "h100-sxm")
    default = float(base.scaleup_bandwidth.per_direction().to("GB/s").magnitude)
    return custom_gpu(base, read_scaleup(values.get("gpu_bw"), default, []), values.get("gpu_name") or DEFAULT_NAME)


FABRIC_CHOICES = ("auto", "infiniband", "roce", "ethernet", "efa")


#: The URL keys that describe a cluster. Every page that times a collective uses these same keys,
#: so a cluster travels between pages (in the session) and between people (in the link).
CLUSTER_KEYS = ("gpu", "gpu_base", "gpu_bw", "gpu_name", "gpn", "nodes", "nic", "nic_bw", "nics", "fabric", "domain",
                "sharp", "lat", "cal", "net_eff", "up_eff", "xlat", "procs", *("topo", "switch", "osub", "shared"))


#: The fabric topology keys of a cluster (default: no topology; left out of a link until set).
TOPOLOGY_KEYS = ("topo", "switch", "osub", "shared")


FABRIC_LABELS = {"auto": "From the NIC", "infiniband": "InfiniBand", "roce": "RoCE", "ethernet": "Ethernet (TCP)",
                 "efa": "AWS EFA"}


#: Short algorithm names that fit a metric tile and a legend.
ALGORITHM_SHORT_NAMES = {"flat_ring": "Flat ring", "ring": "Ring", "tree": "Tree", "hierarchical": "Hier.",
                         "nvls": "NVLS", "nvls_tree": "NVLSTree", "collnet": "SHARP", "none": "none"}


def cluster_specs(*, nodes: int = 4) -> list:
    """The parameters of a cluster description (GPU, node shape, NICs, fabric), with their URL keys."""

    catalog = get_catalog()
    return [
        gpu_spec(),
        *custom_gpu_specs(),
        IntParam("gpn", 8, "GPUs per node", minimum=1, maximum=1024),
        IntParam("nodes", nodes, "Nodes", minimum=1, maximum=MAX_NODES),
        ChoiceParam("nic", "auto", "NIC", choices=("auto", *catalog.nics(), "custom")),
        nic_bw_spec(),
        IntParam("nics", 0, "NICs per node (0 = one per GPU)", minimum=0, maximum=4096),
        ChoiceParam("fabric", "auto", "Fabric", choices=FABRIC_CHOICES),
        IntParam("domain", 0, "NVLink domain (0 = the GPU's usual)", minimum=0, maximum=576),
        BoolParam("sharp", False, "SHARP in the InfiniBand switches"),
        QuantityParam("lat", "", "Extra latency per network hop", dimension="time", minimum="0 us",
                      maximum="100 ms", optional=True, allow_zero=True),
        *calibration_specs(),
        *topology_specs(),
    ]


#: How a benchmark drives the GPUs (``procs=``): the keys of the models' LAUNCH_OVERHEAD_US.
LAUNCH_CHOICES = ("process-per-gpu", "single-process", "pytorch")


LAUNCH_LABELS = {"process-per-gpu": "One process per GPU",
                 "single-process": "One process, all GPUs (-g)",
                 "pytorch": "Timed in PyTorch"}


def calibration_specs() -> list:
    """A calibration from the viewer's own log (``cal=1&net_eff=87&xlat=5``) and the benchmark's launch mode.

    ``net_eff`` and ``up_eff`` are shares of the line rate in percent (0: the model's own), ``xlat`` the µs
    added to every collective call; they appear in a link only with ``cal=1``.
    """
    from interconnect.inputs.params import FloatParam

    return [
        BoolParam("cal", False, "Calibrate the model with my measurement"),
        FloatParam("net_eff", 0.0, "Network: % of each NIC's line rate reached (0 = the model's)", minimum=0.0,
                   maximum=100.0, when=("cal", True)),
        FloatParam("up_eff", 0.0, "Scale-up: % of the GPU's line rate reached (0 = the model's)", minimum=0.0,
                   maximum=100.0, when=("cal", True)),
        FloatParam("xlat", 0.0, "Extra latency per collective call (µs)", minimum=-1000.0, maximum=100_000.0,
                   when=("cal", True)),
        ChoiceParam("procs", "process-per-gpu", "How the benchmark drives the GPUs", choices=LAUNCH_CHOICES),
    ]


def calibration_inputs(values: dict) -> dict:
    """The page's calibration values as keyword arguments of ``apply_calibration`` (models.collectives).

    >>> calibration_inputs({"cal": True, "net_eff": 87.0, "up_eff": 0.0, "xlat": 5.0, "procs": "single-process"})
    {'network_efficiency': 0.87, 'scaleup_efficiency': None, 'extra_latency_us': 5.0, 'launch': 'single-process'}
    """
    def share(percent: object) -> float | None:
        value = float(percent or 0.0)
        return None if value <= 0 else min(max(value, 5.0), 100.0) / 100.0

    on = bool(values.get("cal"))
    return {
        "network_efficiency": share(values.get("net_eff")) if on else None,
        "scaleup_efficiency": share(values.get("up_eff")) if on else None,
        "extra_latency_us": float(values.get("xlat") or 0.0) if on else 0.0,
        "launch": values.get("procs", "process-per-gpu"),
    }


def topology_specs() -> list:
    """The cluster's optional fabric topology: ``topo=none`` (the default) models no fabric at all."""
    from interconnect.hardware.fabric import FABRIC_TOPOLOGIES, MAX_OVERSUBSCRIPTION, get_fabric_data

    return [
        ChoiceParam("topo", "none", "Fabric topology", choices=("none", *FABRIC_TOPOLOGIES), quiet=True),
        ChoiceParam("switch", "quantum-2-qm9700", "Switch", choices=tuple(get_fabric_data().switches), quiet=True),
        FloatParam("osub", 1.0, "Leaf oversubscription (down : up)", minimum=1.0, maximum=MAX_OVERSUBSCRIPTION,
                   quiet=True),
        FloatParam("shared", 0.0, "Spine capacity taken by other traffic (%)", minimum=0.0, maximum=90.0, quiet=True),
    ]


def topology_input(values: dict):
    """The :class:`~interconnect.hardware.fabric.TopologySpec` a page's values name, or None (``topo=none``)."""
    from interconnect.hardware.fabric import TopologySpec

    if values.get("topo", "none") == "none":
        return None
    return TopologySpec(values["topo"], values.get("switch", "quantum-2-qm9700"), float(values.get("osub", 1.0)),
                        float(values.get("shared", 0.0)) / 100.0)


def cluster_widget_values(inputs: dict, nic_ids: tuple[str, ...] | list[str]) -> dict:
    """Widget values (URL keys) for a cluster given as ``resolve_cluster`` keyword arguments.

    Used by "set the cluster to this system": a published measurement stores its cluster as CLI-style
    inputs (``{"gpu": "h100-sxm", "nic": "100 Gbit/s", ...}``); the page's controls need URL values.

    >>> cluster_widget_values({"gpu": "a100-sxm", "nodes": 2, "nic": "100 Gbit/s"}, ["ib-ndr"])["nic"]
    'custom'
    """
    nic = str(inputs.get("nic", "auto"))
    custom = {"gpu_base": inputs.get("gpu_base"), "gpu_bw": inputs.get("scaleup_bandwidth"),
              "gpu_name": inputs.get("gpu_name")}
    values = {
        **{key: str(value) for key, value in custom.items() if value is not None and inputs["gpu"] == CUSTOM_GPU_ID},
        "gpu": inputs["gpu"],
        "gpn": int(inputs.get("gpus_per_node", 8)),
        "nodes": int(inputs.get("nodes", 1)),
        "nics": int(inputs.get("nics_per_node", 0)),
        "fabric": str(inputs.get("fabric", "auto")),
        "domain": int(inputs.get("scaleup_domain", 0)),
        "sharp": bool(inputs.get("in_network_reduction", False)),
        "lat": str(inputs.get("hop_latency", "") or ""),
        "cal": False,  # a calibration belongs to the system it was measured on
    }
    if nic in nic_ids or nic == "auto":
        values["nic"] = nic
    else:
        values["nic"] = "custom"
        values["nic_bw"] = nic
    return values


def cluster_inputs(values: dict) -> dict:
    """The page's URL values as keyword arguments of :func:`interconnect.hardware.cluster.resolve_cluster`."""
    nic = values["nic"]
    custom = {}
    if values["gpu"] == CUSTOM_GPU_ID:
        custom = {"gpu_base": values.get("gpu_base"), "scaleup_bandwidth": values.get("gpu_bw"),
                  "gpu_name": values.get("gpu_name")}
    return {
        **custom,
        "gpus_per_node": values["gpn"],
        "nodes": values["nodes"],
        "nic": None if nic == "auto" else values["nic_bw"] if nic == "custom" else nic,
        "nics_per_node": values["nics"] or None,
        "fabric": None if values["fabric"] == "auto" else values["fabric"],
        "scaleup_domain": values["domain"] or None,
        "in_network_reduction": values["sharp"],
        "hop_latency": values.get("lat") or None,
        **({"topology": topology} if (topology := topology_input(values)) is not None else {}),
    }
