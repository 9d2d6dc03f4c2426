"""The seating page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.inputs.cluster import cluster_specs
from interconnect.inputs.links import PageViews, view_spec
from interconnect.inputs.params import (
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
)
from interconnect.topics.seating.model import (
    ATTENTION_KERNELS,
    DEFAULT_STACK,
    PLAN_DEFAULTS,
    RECOMPUTE_MODULES,
    STACKS,
    TP_OVERLAP_CHOICES,
)

SEATING_VIEWS = PageViews({"bill": "The bill as a chart", "memory": "Memory by ZeRO stage"},
                          {"bill": ("seating-bill",), "memory": ("seating-memory",)})


#: Data types a custom run can train in, with their bytes per element on the wire and in activations.
DTYPE_BYTES = {"bf16": 2, "fp8": 1, "fp32": 4}


#: What the GPU grid can be coloured by.
SEATING_COLOURS = {"tp": "TP group", "pp": "PP stage", "dp": "DP replica", "cp": "CP group", "ep": "EP group"}


#: Pipeline schedules the page offers (the model's SCHEDULES, named for people).
SEATING_SCHEDULES = {"1f1b": "1F1B", "interleaved": "Interleaved 1F1B", "zero-bubble": "Zero-bubble (ZB-H1)",
                     "dualpipe": "DualPipe"}


#: Megatron-Core's output-discarding recomputation modules (plan's ``--recompute-module`` choices), one on/off link
#: key each (all off by default, as the CLI).
RECOMPUTE_MODULE_KEYS = {"mla_up_proj": "rcmla", "layernorm": "rcln", "moe_act": "rcact"}
RECOMPUTE_MODULE_LABELS = {"mla_up_proj": "Recompute the latent-attention up-projections (mla_up_proj)",
                           "layernorm": "Recompute the layer norms (layernorm)",
                           "moe_act": "Recompute the experts' activation (moe_act)"}
assert tuple(RECOMPUTE_MODULE_KEYS) == RECOMPUTE_MODULES  # the page offers exactly what plan accepts


#: The page's one-click comparisons.
SEATING_COMPARISONS = {"none": "None", "tp": "TP inside vs across the node", "search": "Fastest layout that fits"}


def seating_specs() -> list:
    """URL parameters of the Seating Chart page (the cluster's keys are shared with the other pages)."""
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
        *(BoolParam(key, False, RECOMPUTE_MODULE_LABELS[module]) for module, key in RECOMPUTE_MODULE_KEYS.items()),
        BoolParam("a2a", False, "Overlap the expert all-to-alls with another micro-batch"),
        BoolParam("sp", True, "Sequence parallelism"),
        FloatParam("eff", 0.0, "Compute efficiency override (share of BF16 peak, 0 = sourced kernel figures)",
                   minimum=0.0, maximum=1.0),
        ChoiceParam("sched", "1f1b", "Pipeline schedule", choices=tuple(SEATING_SCHEDULES)),
        IntParam("vs", 0, "Virtual stages per GPU (interleaved, 0 = fastest)", minimum=0, maximum=128),
        BoolParam("ends", False, "First and last stage one layer lighter"),
        ChoiceParam("attn", "flash", "Attention kernel", choices=ATTENTION_KERNELS),
        ChoiceParam("stack", DEFAULT_STACK, "Training stack", choices=tuple(STACKS)),
        ChoiceParam("tpov", PLAN_DEFAULTS["tp_overlap"], "TP-communication overlap", choices=tuple(TP_OVERLAP_CHOICES)),
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
