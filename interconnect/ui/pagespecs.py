"""URL parameters of every page: their keys are the public schema of shared links.

Kept in the core (not in the page scripts) so the CLI, tests and the browser test agree on them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from interconnect.catalog import Gpu, get_catalog
from interconnect.hardware.custom import CUSTOM_GPU_ID, DEFAULT_NAME, custom_gpu, name_problem
from interconnect.topics.seating.model import ATTENTION_KERNELS
from interconnect.ui.urlstate import (
    AutoIntParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    ParamWarning,
    QuantityParam,
    safe_echo,
)
from interconnect.units import IntegerInputError, read_int

#: Link keys every page accepts (presentation mode, the guided tour and the tour's stop).
GLOBAL_KEYS = frozenset({"present", "tour", "stop"})
#: The Across-sites page's step-time modes (its key ``step``).
STEP_MODES = ("typed", "derived")
#: Links made before the tour's stop had its own key carried it in ``step`` (``tour=1&step=3``),
#: the key the Across-sites page uses for its step-time mode. The two never share a value.
LEGACY_TOUR_STEP_KEY = "step"


def is_legacy_tour_step(query: Mapping[str, object]) -> bool:
    """True if ``query`` is an old tour link whose ``step`` is the tour's stop, not a step-time mode.

    >>> is_legacy_tour_step({"tour": "1", "step": "8"}), is_legacy_tour_step({"tour": "1", "step": "derived"})
    (True, False)
    >>> is_legacy_tour_step({"step": "8"}), is_legacy_tour_step({"tour": "1", "stop": "8", "step": "8"})
    (False, False)
    """
    if _text(query.get("tour")).strip() != "1" or "stop" in query or LEGACY_TOUR_STEP_KEY not in query:
        return False
    return _text(query.get(LEGACY_TOUR_STEP_KEY)).strip().lower() not in STEP_MODES


def page_query(query: Mapping[str, object]) -> dict[str, object]:
    """The link as a page reads its own keys: an old tour link's ``step`` belongs to the tour.

    >>> page_query({"tour": "1", "step": "8", "bw": "1 Gbit/s"})
    {'tour': '1', 'bw': '1 Gbit/s'}
    """
    if not is_legacy_tour_step(query):
        return dict(query)
    return {key: value for key, value in query.items() if key != LEGACY_TOUR_STEP_KEY}


def tour_stop(query: Mapping[str, object], stops: int) -> tuple[int, ParamWarning | None]:
    """The guided tour's stop (1-based; 0 = not on the tour) and a warning if the link's was unusable.

    Read from ``stop``, or from an old link's ``step``, with the strict whole-number reader; a stop
    that is not a number of this tour falls back to the first, with a warning naming the key.

    >>> tour_stop({"tour": "1", "stop": "3"}, 9), tour_stop({"tour": "1", "step": "3"}, 9), tour_stop({}, 9)
    ((3, None), (3, None), (0, None))
    >>> tour_stop({"tour": "1", "stop": "\u00b2"}, 9)[1].message()
    'Guided tour stop (link parameter `stop`): not a whole number (ASCII digits only) (got `²`); using `1`.'
    """
    if _text(query.get("tour")).strip() != "1":
        return 0, None
    key = "stop" if "stop" in query else LEGACY_TOUR_STEP_KEY if is_legacy_tour_step(query) else None
    if key is None:
        return 1, None
    raw = _text(query.get(key))
    try:
        return read_int(raw, minimum=1, maximum=max(stops, 1)), None
    except IntegerInputError as exc:
        reason = exc.reason if exc.nearest is None else f"not a stop of this tour (1 to {stops})"
        return 1, ParamWarning(key, safe_echo(raw), "1", reason, "Guided tour stop")


def _text(raw: object) -> str:
    if isinstance(raw, list | tuple):
        raw = raw[-1] if raw else ""
    return "" if raw is None else raw if isinstance(raw, str) else str(raw)

DIRECTIONS = {"per": "per_direction", "both": "both_directions"}
UNITS = ("GBps", "Gbitps", "bluray")
BASES = ("spec", "achieved")


@dataclass(frozen=True)
class NameParam(QuantityParam):
    """A custom GPU's name (``gpu_name=Rubin``): plain words, at most 40 characters, never markup.

    A :class:`~interconnect.ui.urlstate.QuantityParam` only so that the page warns about typed text it
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


def cliff_specs() -> list:
    catalog = get_catalog()
    return [
        gpu_spec(),
        *custom_gpu_specs(),
        # "auto": the GPU's own reference server (Gaudi 3: 24 on-chip 200 GbE ports); an explicit
        # nic=ib-ndr&nics=8 (every link written before "auto" existed) keeps meaning exactly that.
        ChoiceParam("nic", "auto", "Network card", choices=("auto", *catalog.nics(), "custom")),
        nic_bw_spec(when=("nic", "custom")),  # the cluster pages have always written nic_bw; this page only in use
        AutoIntParam("nics", None, "NICs per server", minimum=1, maximum=144),
        ChoiceParam("dir", "per", "Direction", choices=tuple(DIRECTIONS)),
        ChoiceParam("unit", "GBps", "Unit", choices=UNITS),
        ChoiceParam("basis", "spec", "Spec or achieved", choices=BASES),
        view_spec(CLIFF_VIEWS),
    ]


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


# --- The secondary chart a page draws under its main one (``view=``)

#: The link key that picks it. Every page with more than one chart reads it; on each page it means
#: the same thing (which further chart), and no page uses it for anything else.
VIEW_KEY = "view"
#: ``auto`` (the default, never written to a link): no secondary chart, unless the page's values set
#: something only a secondary chart shows (a published measurement overlaid on All-reduce, a
#: direction or unit on the cliff), then that chart. ``none``: the main chart alone.
VIEW_AUTO, VIEW_NONE = "auto", "none"


@dataclass(frozen=True)
class PageViews:
    """The secondary charts of one page: their link values and labels (in page order), the chart
    keys each draws, and the parameters that, when not at their default, make ``auto`` show it."""

    labels: Mapping[str, str]
    charts: Mapping[str, tuple[str, ...]]
    needs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def view_for_chart(self, chart_key: str) -> str | None:
        """The view that draws ``chart_key`` (a tour step's chart), or None."""
        return next((view for view, keys in self.charts.items() if chart_key in keys), None)


CLIFF_VIEWS = PageViews({"bars": "The cliff in bars", "generations": "Across GPU generations"},
                        {"bars": ("cliff-chart",), "generations": ("generation-chart",)},
                        {"bars": ("dir", "unit", "basis")})
ALLREDUCE_VIEWS = PageViews({"time": "Time by message size", "busbw": "busbw by message size",
                             "nodes": "By cluster size", "traffic": "Bytes that leave the node"},
                            {"time": ("allreduce-time",), "busbw": ("allreduce-busbw",),
                             "nodes": ("allreduce-nodes",), "traffic": ("allreduce-traffic",)},
                            {"time": ("coll", "overlay")})
OVERLAP_VIEWS = PageViews({"timeline": "One step's timeline", "tokens": "When does it hide?",
                           "nodes": "More nodes", "claim": "The 85 % claim"},
                          {"timeline": ("overlap-timeline",), "tokens": ("overlap-tokens",),
                           "nodes": ("overlap-nodes",), "claim": ("overlap-claim",)})
CROSSDC_VIEWS = PageViews({"utilization": "Utilisation by bandwidth", "bytes": "Bytes per sync",
                           "required": "Bandwidth needed by model size"},
                          {"utilization": ("crossdc-utilization",), "bytes": ("crossdc-bytes",),
                           "required": ("crossdc-required",)})
REACH_VIEWS = PageViews({"leash": "Rate against reach", "training": "Training across the gap", "timeouts": "Timeouts"},
                        {"leash": ("reach-leash",), "training": ("reach-training",), "timeouts": ("reach-timeouts",)},
                        {"training": ("size", "h", "medium", *CLUSTER_KEYS)})
FABRIC_VIEWS = PageViews({"playbook": "The Playbook's falling curve"}, {"playbook": ("fabric-playbook",)})
HOME_VIEWS = PageViews({"reach": "Rate against reach"}, {"reach": ("reach-chart",)})
SEATING_VIEWS = PageViews({"bill": "The bill as a chart", "memory": "Memory by ZeRO stage"},
                          {"bill": ("seating-bill",), "memory": ("seating-memory",)})
#: The pages that read ``view``, by their name in :data:`interconnect.ui.pages.PAGES`.
PAGE_VIEWS = {"home": HOME_VIEWS, "cliff": CLIFF_VIEWS, "allreduce": ALLREDUCE_VIEWS, "overlap": OVERLAP_VIEWS,
              "reach": REACH_VIEWS, "crossdc": CROSSDC_VIEWS, "fabric": FABRIC_VIEWS, "seating": SEATING_VIEWS}


def view_spec(views: PageViews) -> ChoiceParam:
    """The page's ``view`` parameter: ``auto``, one of its secondary charts, or ``none``.

    Quiet: left out of a link while ``auto``, so every link written before it existed keeps its form.

    >>> view_spec(REACH_VIEWS).choices
    ('auto', 'leash', 'training', 'timeouts', 'none')
    """
    return ChoiceParam(VIEW_KEY, VIEW_AUTO, "More charts", choices=(VIEW_AUTO, *views.labels, VIEW_NONE), quiet=True)


def resolve_view(view: str, views: PageViews, specs: list, values: Mapping[str, object], *,
                 wanted: str | None = None) -> str:
    """The secondary chart drawn: ``view`` itself unless it is ``auto``; then the first chart whose
    parameters are off their defaults (or ``wanted``, a chart the page needs for its own reasons,
    such as a pasted log), else ``none``.

    >>> specs = allreduce_specs()
    >>> defaults = {spec.key: spec.default for spec in specs}
    >>> resolve_view("auto", ALLREDUCE_VIEWS, specs, defaults)
    'none'
    >>> resolve_view("auto", ALLREDUCE_VIEWS, specs, {**defaults, "coll": "all_gather"})
    'time'
    >>> resolve_view("nodes", ALLREDUCE_VIEWS, specs, {**defaults, "coll": "all_gather"})
    'nodes'
    """
    if view != VIEW_AUTO:
        return view if view in views.labels or view == VIEW_NONE else VIEW_NONE
    defaults = {spec.key: spec.default for spec in specs}
    for name, keys in dict(views.needs).items():
        if any(key in defaults and values.get(key, defaults[key]) != defaults[key] for key in keys):
            return name
    return wanted if wanted in views.labels else VIEW_NONE



def cluster_specs(*, nodes: int = 4) -> list:
    """The parameters of a cluster description (GPU, node shape, NICs, fabric), with their URL keys."""
    from interconnect.ui.urlstate import BoolParam

    catalog = get_catalog()
    return [
        gpu_spec(),
        *custom_gpu_specs(),
        IntParam("gpn", 8, "GPUs per node", minimum=1, maximum=1024),
        IntParam("nodes", nodes, "Nodes", minimum=1, maximum=100_000),
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
    from interconnect.ui.urlstate import BoolParam, FloatParam

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
    from interconnect.hardware.fabric import MAX_OVERSUBSCRIPTION, TOPOLOGIES, get_fabric_data

    return [
        ChoiceParam("topo", "none", "Fabric topology", choices=("none", *TOPOLOGIES), quiet=True),
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


def allreduce_specs() -> list:
    from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS, OTHER_COLLECTIVES, load_measurements
    from interconnect.ui.urlstate import QuantityParam

    return [
        *cluster_specs(),
        QuantityParam("size", "256 MiB", "Message size", dimension="size", minimum="8 B", maximum="16 GiB"),
        ChoiceParam("algo", "auto", "Algorithm", choices=("auto", *ALLREDUCE_ALGORITHMS)),
        ChoiceParam("proto", "auto", "Protocol", choices=PROTOCOL_CHOICES),
        ChoiceParam("overlay", "none", "Published measurement", choices=("none", *[m.id for m in load_measurements()])),
        ChoiceParam("coll", "all_reduce", "Collective", choices=("all_reduce", *OTHER_COLLECTIVES)),
        view_spec(ALLREDUCE_VIEWS),
    ]


#: NCCL's protocols as the page and the URL name them (``proto=ll128`` works too: choices match in any case).
PROTOCOL_CHOICES = ("auto", "LL", "LL128", "Simple")


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


def catalog_specs() -> list:
    from interconnect.catalog import LAYERS
    from interconnect.hardware.fabric import get_fabric_data

    catalog = get_catalog()
    switches = tuple(get_fabric_data().switches)  # the Fabric page's switches, listed as kind=switch
    return [ChoiceParam("kind", "gpu", "Kind", choices=("gpu", *LAYERS, "node", "switch")),
            ChoiceParam("entry", "", "Entry", choices=("", *[e.id for e in catalog.entries()], *switches))]


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


def home_specs() -> list:
    """The home page: only which further chart it draws under the layers picture."""
    return [view_spec(HOME_VIEWS)]


def claims_specs() -> list:
    from interconnect.catalog import VERDICTS

    return [ChoiceParam("verdict", "all", "Verdict", choices=("all", *VERDICTS))]


def units_specs() -> list:
    from interconnect.ui.urlstate import QuantityParam

    return [QuantityParam("q", "900 GB/s", "A figure to convert", dimension="bandwidth"),
            ChoiceParam("qdir", "both", "Quoted as", choices=("both", "per"))]


# --- Seating page


#: Data types a custom run can train in, with their bytes per element on the wire and in activations.
DTYPE_BYTES = {"bf16": 2, "fp8": 1, "fp32": 4}
#: What the GPU grid can be coloured by.
SEATING_COLOURS = {"tp": "TP group", "pp": "PP stage", "dp": "DP replica", "cp": "CP group", "ep": "EP group"}
#: Pipeline schedules the page offers (the model's SCHEDULES, named for people).
SEATING_SCHEDULES = {"1f1b": "1F1B", "interleaved": "Interleaved 1F1B", "zero-bubble": "Zero-bubble (ZB-H1)",
                     "dualpipe": "DualPipe"}
#: The page's one-click comparisons.
SEATING_COMPARISONS = {"none": "None", "tp": "TP inside vs across the node", "search": "Fastest layout that fits"}


def seating_specs() -> list:
    """URL parameters of the Seating Chart page (the cluster's keys are shared with the other pages)."""
    from interconnect.ui.urlstate import BoolParam, FloatParam
    from interconnect.workloads.presets import load_model_presets

    return [
        *cluster_specs(nodes=8),
        ChoiceParam("model", "llama3-70b", "Model", choices=(*load_model_presets(), "custom")),
        FloatParam("params", 70.0, "Parameters (billions, custom)", minimum=0.01, maximum=10_000.0),
        FloatParam("active", 0.0, "Active parameters (billions, 0 = all)", minimum=0.0, maximum=10_000.0),
        IntParam("layers", 80, "Layers (custom)", minimum=1, maximum=1000),
        IntParam("hidden", 8192, "Hidden size (custom)", minimum=64, maximum=131_072),
        IntParam("heads", 64, "Attention heads (custom)", minimum=1, maximum=1024),
        IntParam("experts", 0, "Experts (custom, 0 = dense)", minimum=0, maximum=1024),
        IntParam("topk", 0, "Experts per token (custom)", minimum=0, maximum=64),
        IntParam("kv", 0, "KV heads (custom, 0 = heads)", minimum=0, maximum=1024),
        IntParam("ffn", 0, "MLP width (custom, 0 = 4 x hidden)", minimum=0, maximum=1_048_576),
        IntParam("vocab", 0, "Vocabulary (custom, 0 = 128,256)", minimum=0, maximum=1_048_576),
        IntParam("seq", 0, "Sequence length (0 = the model's)", minimum=0, maximum=1_048_576),
        IntParam("mb", 1, "Micro-batch (sequences)", minimum=1, maximum=1024),
        IntParam("gb", 256, "Global batch (sequences)", minimum=1, maximum=1_000_000),
        ChoiceParam("dtype", "bf16", "Data type", choices=tuple(DTYPE_BYTES)),
        ChoiceParam("recompute", "selective", "Activation recomputation", choices=("none", "selective", "full")),
        BoolParam("sp", True, "Sequence parallelism"),
        FloatParam("eff", 0.0, "Compute efficiency override (share of BF16 peak, 0 = sourced kernel figures)",
                   minimum=0.0, maximum=1.0),
        ChoiceParam("sched", "1f1b", "Pipeline schedule", choices=tuple(SEATING_SCHEDULES)),
        IntParam("vs", 0, "Virtual stages per GPU (interleaved, 0 = fastest)", minimum=0, maximum=128),
        BoolParam("ends", False, "First and last stage one layer lighter"),
        ChoiceParam("attn", "flash", "Attention kernel", choices=ATTENTION_KERNELS),
        IntParam("tp", 8, "TP", minimum=1, maximum=1024),
        IntParam("pp", 4, "PP", minimum=1, maximum=1024),
        IntParam("dp", 0, "DP (0 = the rest)", minimum=0, maximum=1_000_000),
        IntParam("cp", 1, "CP", minimum=1, maximum=1024),
        IntParam("ep", 1, "EP", minimum=1, maximum=1024),
        IntParam("zero", 1, "ZeRO stage", minimum=0, maximum=3),
        ChoiceParam("colour", "tp", "Colour the GPUs by", choices=tuple(SEATING_COLOURS)),
        ChoiceParam("cmp", "none", "Compare with", choices=tuple(SEATING_COMPARISONS)),
        view_spec(SEATING_VIEWS),
    ]

# --- Across sites page

from dataclasses import dataclass as _dataclass  # noqa: E402  (kept with the section that uses it)

from interconnect.ui.urlstate import QuantityParam as _QuantityParam  # noqa: E402


@_dataclass(frozen=True)
class CountParam(_QuantityParam):
    """A count typed as text (``params=7B``), read by :func:`interconnect.topics.crossdc.model.parse_count`.

    A :class:`~interconnect.ui.urlstate.QuantityParam`, so the page warns about typed text it could not use.
    """

    low: float = 1.0
    high: float = 1e13

    def parse(self, raw: str) -> tuple[object, str | None]:
        from interconnect.topics.crossdc.model import CrossDCError, parse_count

        try:
            parse_count(raw, self.label or self.key, self.low, self.high)
        except CrossDCError as exc:
            return self.default, str(exc)
        return " ".join(raw.split()), None


def crossdc_specs() -> list:
    """The Across-sites page's parameters. 0 (or ``auto``) for a method knob means its paper's value."""
    from interconnect.topics.crossdc.model import METHODS, PARAMS_RANGE, TOPOLOGIES
    from interconnect.topics.crossdc.model import get_crossdc_data as data
    from interconnect.ui.urlstate import BoolParam, FloatParam, QuantityParam

    streaming, sparse = data().methods["streaming-diloco"], data().methods["sparseloco"]
    return [
        CountParam("params", "1e9", "Model parameters", low=PARAMS_RANGE[0], high=PARAMS_RANGE[1]),
        IntParam("sites", 2, "Sites", minimum=2, maximum=10_000),
        IntParam("gpus", 8, "GPUs per site", minimum=1, maximum=1_000_000),
        gpu_spec(),
        *custom_gpu_specs(),
        ChoiceParam("method", "diloco", "Method", choices=METHODS),
        IntParam("h", 0, "Inner steps H (0 = the paper's)", minimum=0, maximum=1_000_000),
        ChoiceParam("bits", "auto", "Bits per value", choices=("auto", "32", "16", "8", "4", "2", "1")),
        ChoiceParam("topo", "auto", "Exchange", choices=("auto", *TOPOLOGIES)),
        IntParam("frag", 0, "Fragments (0 = one per 3 layers)", minimum=0, maximum=100_000),
        IntParam("tau", streaming.overlap_steps, "Overlap steps tau", minimum=0, maximum=1_000_000),
        IntParam("layers", 0, "Layers (0 = from the size)", minimum=0, maximum=100_000),
        IntParam("chunk", sparse.chunk, "Chunk (values)", minimum=2, maximum=1 << 24),
        IntParam("topk", sparse.topk, "Kept per chunk", minimum=1, maximum=1 << 24),
        IntParam("ibits", sparse.index_bits, "Index bits", minimum=1, maximum=32),
        BoolParam("overlap", True, "Overlap with compute"),
        FloatParam("target", 95.0, "Target utilisation (%)", minimum=1.0, maximum=99.9),
        ChoiceParam("step", "typed", "Step time", choices=STEP_MODES),
        QuantityParam("t", "1 s", "Step time", dimension="time", minimum="1 ms", maximum="1 h"),
        CountParam("tokens", "1M", "Tokens per step per site", low=1.0, high=1e12),
        FloatParam("mfu", 40.0, "MFU (%)", minimum=1.0, maximum=100.0),
        QuantityParam("bw", "10 Gbit/s", "WAN bandwidth per site", dimension="bandwidth", minimum="1 kbit/s",
                      maximum="1000 Tbit/s"),
        QuantityParam("rtt", "20 ms", "Round-trip time", dimension="time", minimum="1 us", maximum="10 s"),
        view_spec(CROSSDC_VIEWS),
    ]


def crossdc_inputs(values: dict):
    """The page's URL values as :class:`interconnect.topics.crossdc.view.PageInputs`."""
    from interconnect.topics.crossdc.model import parse_count
    from interconnect.topics.crossdc.view import PageInputs
    from interconnect.units import parse_quantity

    def seconds(text: str) -> float:
        return float(parse_quantity(text, "time").quantity.to("s").magnitude)

    return PageInputs(
        params=parse_count(values["params"]),
        sites=values["sites"],
        gpus_per_site=values["gpus"],
        gpu=values.get("gpu_base", "h100-sxm") if values["gpu"] == CUSTOM_GPU_ID else values["gpu"],
        method=values["method"],
        wan_bytes_per_s=float(parse_quantity(values["bw"], "bandwidth").quantity.to("B/s").magnitude),
        rtt_s=seconds(values["rtt"]),
        step_mode=values["step"],
        step_s=seconds(values["t"]),
        tokens_per_step=parse_count(values["tokens"], "tokens per step", 1.0, 1e12),
        mfu=values["mfu"] / 100,
        inner_steps=values["h"],
        bits=0 if values["bits"] == "auto" else int(values["bits"]),
        topology=values["topo"],
        fragments=values["frag"],
        overlap_steps=values["tau"],
        layers=values["layers"],
        chunk=values["chunk"],
        topk=values["topk"],
        index_bits=values["ibits"],
        overlap=values["overlap"],
        target_utilization=values["target"] / 100,
        scaleup_bandwidth=values.get("gpu_bw", "") if values["gpu"] == CUSTOM_GPU_ID else "",
    )


# --- Overlap page


def overlap_specs() -> list:
    """The Overlap page: the cluster (shared keys), the model, the step and how it overlaps."""
    from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS
    from interconnect.topics.overlap.model import GRADIENT_BYTES, MODES, load_bucket_costs
    from interconnect.ui.urlstate import QuantityParam
    from interconnect.workloads.presets import load_model_presets

    costs = load_bucket_costs()  # what a bucket costs besides its bytes: sourced defaults
    return [
        *cluster_specs(),
        ChoiceParam("model", "llama3-8b", "Model", choices=(*load_model_presets(), "custom")),
        FloatParam("params", 8.0, "Parameters (billions, custom)", minimum=0.001, maximum=100_000.0),
        IntParam("layers", 32, "Layers (custom)", minimum=1, maximum=10_000),
        IntParam("tokens", 4096, "Tokens per GPU per step", minimum=1, maximum=100_000_000),
        QuantityParam("bucket", "25 MiB", "Bucket size", dimension="size", minimum="1 KiB", maximum="1 TiB"),
        ChoiceParam("dtype", "bf16", "Gradient type", choices=tuple(GRADIENT_BYTES)),
        FloatParam("sm", costs.contention, "SM contention", minimum=0.0, maximum=0.9),
        FloatParam("launch", round(costs.launch_s * 1e6, 6), "Launch per bucket (µs)", minimum=0.0, maximum=10_000.0),
        FloatParam("spread", round(costs.spread * 100, 6), "GPU speed spread (%)", minimum=0.0, maximum=50.0),
        FloatParam("eff", 1.0, "Share of peak FLOP/s", minimum=0.05, maximum=1.0),
        ChoiceParam("mode", "overlap", "Overlap", choices=MODES),
        ChoiceParam("algo", "auto", "Bucket all-reduce algorithm", choices=("auto", *ALLREDUCE_ALGORITHMS)),
        view_spec(OVERLAP_VIEWS),
    ]


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
    from interconnect.topics.reach.model import read_distance
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
    from interconnect.topics.reach.model import DEFAULT_DISTANCE, GAP_MEDIA

    return [
        DistanceParam("d", DEFAULT_DISTANCE, "Distance", dimension="length"),
        _RememberedQuantityParam("size", "1 GiB", "Message size", dimension="size", minimum="1 KiB",
                                 maximum="1 TiB"),
        IntParam("h", 100, "Synchronise every H steps", minimum=1, maximum=100_000),
        ChoiceParam("medium", "fibre", "Between the sites", choices=tuple(GAP_MEDIA)),
        *[_remembered(spec) for spec in cluster_specs()],
        view_spec(REACH_VIEWS),
    ]


# --- Fabric page

#: Where the picture's path runs (URL values); see :data:`interconnect.topics.fabric.figures.PATHS`.
FABRIC_PATHS = ("same_rail", "cross_rail", "cross_group", "cross_pod")


def fabric_specs() -> list:
    """The Fabric page: GPUs, server, switch, topology, tapers, distance classes and the drawn path."""
    from interconnect.hardware.fabric import DISTANCE_IDS, MAX_GPUS, MAX_OVERSUBSCRIPTION, TOPOLOGIES, get_fabric_data

    distances = ("auto", *DISTANCE_IDS)
    return [
        IntParam("gpus", 1024, "GPUs", minimum=1, maximum=MAX_GPUS),
        ChoiceParam("server", "dgx-h100", "Server", choices=tuple(get_catalog().nodes)),
        ChoiceParam("switch", "quantum-2-qm9700", "Switch", choices=tuple(get_fabric_data().switches)),
        ChoiceParam("topo", "rail-leaf-spine", "Topology", choices=TOPOLOGIES),
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
