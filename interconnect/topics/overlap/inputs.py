"""The overlap page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.inputs.cluster import cluster_specs
from interconnect.inputs.links import PageViews, view_spec
from interconnect.inputs.params import (
    ChoiceParam,
    FloatParam,
    IntParam,
    QuantityParam,
)

OVERLAP_VIEWS = PageViews({"timeline": "One step's timeline", "tokens": "When does it hide?",
                           "nodes": "More nodes", "claim": "The 85 % claim"},
                          {"timeline": ("overlap-timeline",), "tokens": ("overlap-tokens",),
                           "nodes": ("overlap-nodes",), "claim": ("overlap-claim",)})


def overlap_specs() -> list:
    """The Overlap page: the cluster (shared keys), the model, the step and how it overlaps."""
    from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS
    from interconnect.topics.overlap.model import GRADIENT_BYTES, MODES, load_bucket_costs
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
