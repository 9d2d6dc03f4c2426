"""The crossdc page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from dataclasses import dataclass as _dataclass

from interconnect.hardware.custom import CUSTOM_GPU_ID
from interconnect.inputs.cluster import custom_gpu_specs, gpu_spec
from interconnect.inputs.links import STEP_MODES, PageViews, view_spec
from interconnect.inputs.params import (
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    QuantityParam,
)
from interconnect.inputs.params import QuantityParam as _QuantityParam

CROSSDC_VIEWS = PageViews({"utilization": "Utilisation by bandwidth", "bytes": "Bytes per sync",
                           "required": "Bandwidth needed by model size"},
                          {"utilization": ("crossdc-utilization",), "bytes": ("crossdc-bytes",),
                           "required": ("crossdc-required",)})


@_dataclass(frozen=True)
class CountParam(_QuantityParam):
    """A count typed as text (``params=7B``), read by :func:`interconnect.topics.crossdc.model.parse_count`.

    A :class:`~interconnect.inputs.params.QuantityParam`, so the page warns about typed text it could not use.
    """

    low: float = 1.0
    high: float = 1e13

    def parse(self, raw: str) -> tuple[object, str | None]:
        from interconnect.topics.crossdc.model import CrossDCError, parse_count

        try:
            parse_count(raw, self.label or self.key, self.low, self.high)
        except CrossDCError as exc:
            # the warning shows the typed text once, inside a code span (ParamWarning.message); the reason keeps
            # only the rule, without the label the message already starts with or the text itself
            rule = str(exc).split(", got ", 1)[0]
            prefix = f"{self.label or self.key}"
            rule = rule.removeprefix(prefix).lstrip(": ").strip() or "not a count"
            return self.default, rule
        return " ".join(raw.split()), None


def catalog_gpu_id(values: dict) -> str:
    """The catalog GPU behind the page's choice: a custom GPU's base, else the GPU chosen."""
    gpu = values.get("gpu", "h100-sxm")
    return (values.get("gpu_base") or "h100-sxm") if gpu == CUSTOM_GPU_ID else gpu


def crossdc_specs() -> list:
    """The Across-sites page's parameters. 0 (or ``auto``) for a method knob means its paper's value."""
    from interconnect.topics.crossdc.model import EXCHANGES, METHODS, PARAMS_RANGE
    from interconnect.topics.crossdc.model import get_crossdc_data as data

    streaming, sparse = data().methods["streaming-diloco"], data().methods["sparseloco"]
    pipeline = data().methods["crosspipe"]
    return [
        CountParam("params", "1e9", "Model parameters", low=PARAMS_RANGE[0], high=PARAMS_RANGE[1]),
        IntParam("sites", 2, "Sites", minimum=2, maximum=10_000),
        IntParam("gpus", 8, "GPUs per site", minimum=1, maximum=1_000_000),
        gpu_spec(),
        *custom_gpu_specs(),
        ChoiceParam("method", "diloco", "Method", choices=METHODS),
        IntParam("h", 0, "Inner steps H (0 = the paper's)", minimum=0, maximum=1_000_000),
        ChoiceParam("bits", "auto", "Bits per value", choices=("auto", "32", "16", "8", "4", "2", "1")),
        ChoiceParam("topo", "auto", "Exchange", choices=("auto", *EXCHANGES)),
        IntParam("frag", 0, "Fragments (0 = one per 3 layers)", minimum=0, maximum=100_000),
        IntParam("tau", streaming.overlap_steps, "Overlap steps tau", minimum=0, maximum=1_000_000),
        IntParam("layers", 0, "Layers (0 = from the size)", minimum=0, maximum=100_000),
        IntParam("chunk", sparse.chunk, "Chunk (values)", minimum=2, maximum=1 << 24),
        IntParam("topk", sparse.topk, "Kept per chunk", minimum=1, maximum=1 << 24),
        IntParam("ibits", sparse.index_bits, "Index bits", minimum=1, maximum=32),
        IntParam("nmb", pipeline.micro_batches, "Micro-batches per step", minimum=1, maximum=1 << 20),
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
        *weight_sync_specs(),
        *pipeline_specs(),
    ]


#: The weight-sync section's link keys (all start with ``ws``, so none clashes with the explorer's).
WEIGHT_SYNC_KEYS = ("ws", "wsparams", "wsprec", "wsmode", "wsfrac", "wsibits", "wsroute", "wsrecv", "wstopo", "wsbw",
                    "wsrtt", "wsstage", "wsgen", "wspause", "wsswap")


def weight_sync_specs() -> list:
    """The weight-sync section's parameters (the RL trainer handing its weights to the generators).
    ``ws`` says whether the section is open; ``wsstage`` 0 means the wire alone sets the pace."""
    from interconnect.topics.crossdc.model.weight_sync import BYTES_PER_VALUE, DELIVERIES, MODES, ROUTES

    return [
        BoolParam("ws", False, "Show RL weight sync"),
        CountParam("wsparams", "70e9", "Weight sync: model parameters", low=1e6, high=1e13),
        ChoiceParam("wsprec", "bf16", "Weight sync: precision", choices=tuple(BYTES_PER_VALUE)),
        ChoiceParam("wsmode", "full", "Weight sync: what is sent", choices=MODES),
        FloatParam("wsfrac", 2.0, "Weight sync: share sent (%)", minimum=0.001, maximum=100.0),
        IntParam("wsibits", 32, "Weight sync: index bits", minimum=0, maximum=64),
        ChoiceParam("wsroute", "site", "Weight sync: where the generators are", choices=ROUTES),
        IntParam("wsrecv", 8, "Weight sync: receivers", minimum=1, maximum=1_000_000),
        ChoiceParam("wstopo", "tree", "Weight sync: tree or fan-out", choices=DELIVERIES),
        QuantityParam("wsbw", "100 Gbit/s", "Weight sync: WAN bandwidth", dimension="bandwidth", minimum="1 kbit/s",
                      maximum="1000 Tbit/s"),
        QuantityParam("wsrtt", "20 ms", "Weight sync: WAN round trip", dimension="time", minimum="1 us",
                      maximum="10 s"),
        FloatParam("wsstage", 0.0, "Weight sync: staging rate (GB/s, 0 = the wire)", minimum=0.0, maximum=100_000.0),
        QuantityParam("wsgen", "60 s", "Weight sync: generation per step", dimension="time", minimum="10 ms",
                      maximum="1 d"),
        BoolParam("wspause", False, "Weight sync: pause generation"),
        QuantityParam("wsswap", "0 s", "Weight sync: swap pause", dimension="time", minimum="0 s", maximum="1 h",
                      allow_zero=True),
    ]


def weight_sync_scenario(values: dict, gpu: str):
    """The section's link values as a :class:`~interconnect.topics.crossdc.model.weight_sync.WeightSyncScenario`,
    with NVLink and the site's NICs from the cluster model for ``gpu``."""
    import math

    from interconnect.topics.crossdc.model import parse_count
    from interconnect.topics.crossdc.model.weight_sync import BYTES_PER_VALUE, WeightSyncScenario, site_link
    from interconnect.units import read_quantity

    def si(text: str, dimension: str, unit: str) -> float:
        return float(read_quantity(text, dimension, allow_zero=True).to(unit).magnitude)

    nvlink, egress, hop = site_link(gpu)
    return WeightSyncScenario(
        parse_count(values["wsparams"]), BYTES_PER_VALUE[values["wsprec"]], values["wsmode"], values["wsfrac"] / 100,
        values["wsibits"], route=values["wsroute"], receivers=values["wsrecv"], topology=values["wstopo"],
        nvlink_bytes_per_s=nvlink, site_bytes_per_s=egress, site_latency_s=hop,
        wan_bytes_per_s=si(values["wsbw"], "bandwidth", "B/s"), wan_rtt_s=si(values["wsrtt"], "time", "s"),
        staging_bytes_per_s=values["wsstage"] * 1e9 if values["wsstage"] > 0 else math.inf,
        generation_s=si(values["wsgen"], "time", "s"), background=not values["wspause"],
        swap_s=si(values["wsswap"], "time", "s"))


#: The pipeline section's link keys (all start with ``pp``, so none clashes with the explorer's or ``ws``).
PIPELINE_KEYS = ("pp", "ppparams", "pphidden", "ppseq", "ppmb", "ppm", "ppstages", "ppgps", "pplines", "ppsites",
                 "ppprec", "ppmfu", "ppstage", "ppbw", "pplat", "ppsched")
#: The pipeline schedules, ids of :data:`interconnect.topics.crossdc.model.pipeline.SCHEDULES` (kept equal by a test).
PIPELINE_SCHEDULES = ("1f1b", "interleaved", "zb-h1", "zb-h2", "zbv")
#: Bytes per activation value the pipeline section offers.
PIPELINE_PRECISIONS = {"bf16": 2.0, "fp8": 1.0, "fp32": 4.0}


def pipeline_specs() -> list:
    """The pipeline-across-sites section's parameters. ``pp`` says whether the section is open; ``ppstage`` 0 ms
    derives the stage time from the model size and the page's GPU."""
    return [
        BoolParam("pp", False, "Show the pipeline across sites"),
        CountParam("ppparams", "70e9", "Pipeline: model parameters", low=1e6, high=1e13),
        IntParam("pphidden", 8192, "Pipeline: hidden size", minimum=1, maximum=1 << 20),
        IntParam("ppseq", 4096, "Pipeline: tokens per sequence", minimum=1, maximum=1 << 24),
        IntParam("ppmb", 1, "Pipeline: sequences per micro-batch", minimum=1, maximum=1 << 20),
        IntParam("ppm", 32, "Pipeline: micro-batches per step", minimum=1, maximum=1 << 20),
        IntParam("ppstages", 8, "Pipeline: stages", minimum=1, maximum=100_000),
        IntParam("ppgps", 8, "Pipeline: GPUs per stage", minimum=1, maximum=1 << 20),
        IntParam("pplines", 1, "Pipeline: pipelines sharing the WAN", minimum=1, maximum=1 << 20),
        IntParam("ppsites", 2, "Pipeline: sites", minimum=2, maximum=10_000),
        ChoiceParam("ppprec", "bf16", "Pipeline: activation precision", choices=tuple(PIPELINE_PRECISIONS)),
        FloatParam("ppmfu", 40.0, "Pipeline: MFU (%)", minimum=1.0, maximum=100.0),
        QuantityParam("ppstage", "0 ms", "Pipeline: stage time (0 = derived)", dimension="time", minimum="0 s",
                      maximum="1 h", allow_zero=True),
        QuantityParam("ppbw", "100 Gbit/s", "Pipeline: WAN bandwidth", dimension="bandwidth", minimum="1 kbit/s",
                      maximum="1000 Tbit/s"),
        QuantityParam("pplat", "10 ms", "Pipeline: one-way latency", dimension="time", minimum="0 s", maximum="10 s",
                      allow_zero=True),
        ChoiceParam("ppsched", "1f1b", "Pipeline: schedule", choices=PIPELINE_SCHEDULES),
    ]


def pipeline_scenario(values: dict, gpu: str):
    """The section's link values as a :class:`~interconnect.topics.crossdc.model.pipeline.PipelineScenario`,
    with the peak FLOP/s of ``gpu`` from the catalog."""
    from interconnect.catalog import get_catalog
    from interconnect.topics.crossdc.model import parse_count
    from interconnect.topics.crossdc.model.pipeline import PipelineScenario
    from interconnect.units import read_quantity

    def si(text: str, dimension: str, unit: str) -> float:
        return float(read_quantity(text, dimension, allow_zero=True).to(unit).magnitude)

    peak = float(get_catalog().gpu(gpu).bf16_dense.quantity.to("FLOP/s").magnitude)
    return PipelineScenario(
        parse_count(values["ppparams"]), values["pphidden"], seq_len=values["ppseq"], micro_batch=values["ppmb"],
        micro_batches=values["ppm"], stages=values["ppstages"], gpus_per_stage=values["ppgps"],
        pipelines=values["pplines"], sites=values["ppsites"], bytes_per_value=PIPELINE_PRECISIONS[values["ppprec"]],
        wan_bytes_per_s=si(values["ppbw"], "bandwidth", "B/s"), latency_s=si(values["pplat"], "time", "s"),
        peak_flops_per_s=peak, mfu=values["ppmfu"] / 100, stage_s=si(values["ppstage"], "time", "s"),
        schedule=values["ppsched"])


def crossdc_inputs(values: dict):
    """The page's URL values as :class:`interconnect.topics.crossdc.view.PageInputs`."""
    from interconnect.topics.crossdc.model import parse_count
    from interconnect.topics.crossdc.view import PageInputs
    from interconnect.units import read_quantity

    def seconds(text: str) -> float:
        return float(read_quantity(text, "time").to("s").magnitude)

    return PageInputs(
        params=parse_count(values["params"]),
        sites=values["sites"],
        gpus_per_site=values["gpus"],
        gpu=catalog_gpu_id(values),
        method=values["method"],
        wan_bytes_per_s=float(read_quantity(values["bw"], "bandwidth").to("B/s").magnitude),
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
        micro_batches=values["nmb"],
        overlap=values["overlap"],
        target_utilization=values["target"] / 100,
        scaleup_bandwidth=values.get("gpu_bw", "") if values["gpu"] == CUSTOM_GPU_ID else "",
    )
