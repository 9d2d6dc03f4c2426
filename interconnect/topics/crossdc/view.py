"""What the Across-sites page shows, computed in one place (the page itself holds no arithmetic).

:class:`PageInputs` holds the page's values as plain, hashable numbers with units in their names,
so a view can be cached by its inputs; :func:`crossdc_view` turns them into the scenario, its
result, one scenario per method for the comparison curves, and the curves themselves. A knob that
does not fit the chosen method (2-bit values for dense DiLoCo) is dropped with a warning, never an
exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from interconnect.catalog import get_catalog
from interconnect.topics.crossdc.data import STREAMING_METHODS
from interconnect.topics.crossdc.model import (
    METHODS,
    PARAMS_RANGE,
    CrossDCError,
    CrossDCResult,
    Scenario,
    TimeToTarget,
    evaluate,
    get_crossdc_data,
    make_method,
    method_scenarios,
    required_bandwidth_curve,
    site_allreduce_algbw,
    step_time_s,
    time_to_target,
    utilization_curve,
)
from interconnect.units import Q_, format_duration

__all__ = ["BANDWIDTH_GRID_BYTES_PER_S", "PARAMS_GRID", "CrossDCView", "PageInputs", "Table4Check", "crossdc_view",
           "setting_words", "table4_check", "time_to_target_markdown"]

#: 10 Mbit/s to 10 Tbit/s (bytes/s), 64 points: the utilisation chart's x axis.
BANDWIDTH_GRID_BYTES_PER_S: np.ndarray = np.geomspace(10e6, 10e12, 64) / 8
#: 100M to 10T parameters, 64 points: the required-bandwidth chart's x axis.
PARAMS_GRID: np.ndarray = np.geomspace(1e8, PARAMS_RANGE[1], 64)


@dataclass(frozen=True)
class PageInputs:
    """The page's values. 0 (or ``"auto"``) for a knob means the method's published default."""

    params: float
    sites: int
    gpus_per_site: int
    gpu: str
    method: str
    wan_bytes_per_s: float
    rtt_s: float
    step_mode: str = "typed"  # "typed" or "derived"
    step_s: float = 1.0
    tokens_per_step: float = 1e6
    mfu: float = 0.4
    inner_steps: int = 0
    bits: int = 0
    topology: str = "auto"
    fragments: int = 0
    overlap_steps: int = 1
    layers: int = 0
    chunk: int = 4096
    topk: int = 64
    index_bits: int = 12
    #: CrossPipe's micro-batches per step of the global batch.
    micro_batches: int = 32
    overlap: bool = True
    target_utilization: float = 0.95
    #: A custom GPU's scale-up per direction (``"3.6 TB/s"``), built on ``gpu``; "" for the catalog GPU.
    scaleup_bandwidth: str = ""


@dataclass(frozen=True, eq=False)
class CrossDCView:
    """Everything the page draws for one :class:`PageInputs`."""

    inputs: PageInputs
    scenario: Scenario
    result: CrossDCResult
    step_note: str
    warnings: tuple[str, ...]
    labels: dict[str, str]
    results: dict[str, CrossDCResult]
    utilization_curves: dict[str, np.ndarray]
    required_curves: dict[str, np.ndarray]
    #: Each method's steps and time to data parallel's loss on this link (:func:`time_to_target`).
    time_to_target: tuple[TimeToTarget, ...] = ()


def _knobs(inputs: PageInputs) -> list[tuple[str, str, object]]:
    """(keyword, label, value) of the knobs that apply to the chosen method; defaults left out."""
    knobs: list[tuple[str, str, object]] = []
    if inputs.inner_steps:
        knobs.append(("inner_steps", "Inner steps H", inputs.inner_steps))
    if inputs.bits:
        knobs.append(("bits", "Bits per value", inputs.bits))
    if inputs.topology != "auto":
        knobs.append(("topology", "Exchange", inputs.topology))
    if inputs.method in STREAMING_METHODS:
        if inputs.fragments:
            knobs.append(("fragments", "Fragments", inputs.fragments))
        knobs.append(("overlap_steps", "Overlap steps tau", inputs.overlap_steps))
    if inputs.method == "sparseloco":
        knobs += [("chunk", "Chunk", inputs.chunk), ("topk", "Top-k per chunk", inputs.topk),
                  ("index_bits", "Index bits", inputs.index_bits)]
    if inputs.method == "crosspipe":
        knobs.append(("micro_batches", "Micro-batches", inputs.micro_batches))
    return knobs


def crossdc_view(inputs: PageInputs) -> CrossDCView:
    """Compute the scenario, its result and the comparison curves for the page's values.

    Parameters
    ----------
    inputs : PageInputs
        The page's values (units in the names: ``wan_bytes_per_s``, ``rtt_s``, ``step_s``).

    Returns
    -------
    CrossDCView
        The scenario and its :class:`~interconnect.topics.crossdc.model.CrossDCResult`, one result per
        method, utilisation curves over :data:`BANDWIDTH_GRID_BYTES_PER_S` (B/s) and
        required-bandwidth curves (B/s) over :data:`PARAMS_GRID`. A knob that does not fit the
        method is dropped with a warning.

    Notes
    -----
    With ``step_mode="derived"`` the step time is
    :func:`~interconnect.topics.crossdc.model.step_time_s` of the GPU's dense BF16 peak from the catalog.

    Examples
    --------
    >>> view = crossdc_view(PageInputs(1e9, 2, 1, "h100-sxm", "diloco", wan_bytes_per_s=1.25e9, rtt_s=0.02))
    >>> f"{view.result.payload_bytes / 1e9:g} GB per sync", len(view.utilization_curves["dp"])
    ('2 GB per sync', 64)
    """
    data = get_crossdc_data()
    warnings: list[str] = []
    accepted: dict[str, object] = {}
    for keyword, label, value in _knobs(inputs):
        try:
            make_method(inputs.method, **accepted, **{keyword: value})
            accepted[keyword] = value
        except CrossDCError as exc:
            warnings.append(f"{label}: {exc}; using the method's default.")
    method = make_method(inputs.method, **accepted)

    step_note = "typed"
    step = inputs.step_s
    if inputs.step_mode == "derived":
        gpu = get_catalog().gpu(inputs.gpu)
        peak = float(gpu.bf16_dense.quantity.to("FLOP/s").magnitude)
        try:
            step = step_time_s(inputs.params, inputs.tokens_per_step, inputs.gpus_per_site, peak, inputs.mfu,
                               data.compute.flops_per_param_per_token)
            step_note = (f"6 × {inputs.params:.3g} parameters × {inputs.tokens_per_step:.3g} tokens ÷ "
                         f"({inputs.gpus_per_site} × {gpu.bf16_dense.text()} × {inputs.mfu:.0%} MFU) = "
                         f"{format_duration(Q_(step, 's'))}")
        except CrossDCError as exc:
            warnings.append(f"Step time: {exc}; using the typed step time.")
    site_rate = site_allreduce_algbw(inputs.gpu, inputs.gpus_per_site, inputs.scaleup_bandwidth)
    scenario = Scenario(inputs.params, inputs.sites, step, inputs.wan_bytes_per_s, inputs.rtt_s, method,
                        gpus_per_site=inputs.gpus_per_site, layers=inputs.layers, overlap=inputs.overlap,
                        target_utilization=inputs.target_utilization, site_algbw_bytes_per_s=site_rate,
                        backward_fraction=data.compute.backward_fraction, tokens_per_step=inputs.tokens_per_step)
    scenarios = method_scenarios(scenario, data)
    results = {method_id: evaluate(s) for method_id, s in scenarios.items()}
    return CrossDCView(
        inputs=inputs, scenario=scenario, result=results[method.id], step_note=step_note, warnings=tuple(warnings),
        labels={method_id: data.methods[method_id].name for method_id in METHODS}, results=results,
        utilization_curves={k: utilization_curve(s, BANDWIDTH_GRID_BYTES_PER_S) for k, s in scenarios.items()},
        required_curves={k: required_bandwidth_curve(s, PARAMS_GRID) for k, s in scenarios.items()},
        time_to_target=time_to_target(results, data),
    )


def _size(params: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if params >= scale:
            return f"{params / scale:.3g}{suffix}"
    return f"{params:.3g}"


def setting_words(t: TimeToTarget) -> str:
    """Where a step ratio was measured against the page's case, in words ("measured at ... / extrapolated").

    Examples
    --------
    >>> view = crossdc_view(PageInputs(1e9, 2, 1, "h100-sxm", "diloco", wan_bytes_per_s=1.25e9, rtt_s=0.0))
    >>> setting_words(view.time_to_target[2])
    'extrapolated from a measurement at 150M, 8 replicas, H = 500; this case: 1B (6.67× larger), 2 sites, H = 100'
    >>> setting_words(view.time_to_target[3])
    'measured at 1B, 2 replicas, H = 100: this case'
    """
    row = t.row
    if row.id == "dp":
        return "the reference"
    if t.law_note:
        return f"scaling law, {t.law_note}"
    if row.basis == "exact":
        return "exact: the same updates as data parallel"
    at = [_size(row.params) if row.params else "size not stated",
          f"{row.replicas} replicas" if row.replicas else "replicas not stated",
          f"H = {row.inner_steps}" if row.inner_steps else "H not stated"]
    if not (row.params or row.replicas or row.inner_steps):
        head = row.basis + " (its settings not read)"
    else:
        head = ("measured at " if row.basis == "measured" else "extrapolated from a measurement at ") + ", ".join(at)
    if t.same_setting:
        return head + ": this case"
    factor = t.params_factor
    size = _size(t.params) + (f" ({factor:.3g}× {'larger' if factor >= 1 else 'smaller'})"
                              if math.isfinite(factor) and not math.isclose(factor, 1) else "")
    here = f"{size}, {t.sites} sites" + (f", H = {t.inner_steps}" if row.timing else "")
    return f"{head}; this case: {here}"


def time_to_target_markdown(view: CrossDCView) -> str:
    """The time-to-target table of the page: one row per method, beside its utilisation (Markdown)."""
    lines = ["| method | utilisation | time per step | steps to DP's loss | time to DP's loss, vs DP | basis |",
             "|---|---|---|---|---|---|"]
    names = {t.row.id: t.row.name for t in view.time_to_target}
    for t in view.time_to_target:
        row = t.row
        if row.timing:
            used = f"{t.utilization:.1%}"
            per_step = format_duration(Q_(t.step_wall_s, "s"))
            relative = f"**{t.relative_time:.2f}×**"
            if row.time_ratio:
                relative += f" ({row.time_ratio:.2f}× on its own network)"
        else:
            used = per_step = "not modelled"
            relative = (f"{row.time_ratio:.2f}× on its own network" if row.time_ratio else "not published")
        steps = f"{t.steps_ratio:.2f}×"
        if row.relative_to not in ("dp", row.id):
            steps += f" ({row.steps_ratio:.2f}× of {names[row.relative_to]}'s)"
        lines.append(f"| {row.name} | {used} | {per_step} | {steps} | {relative} | {setting_words(t)} |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Table4Check:
    """One cell of Streaming DiLoCo's Table 4 against this model."""

    model: str
    variant: str
    utilization: float
    paper_gbit_per_s: float
    model_gbit_per_s: float

    @property
    def ratio(self) -> float:
        """The model's bandwidth over the paper's (dimensionless; 1 is exact agreement)."""
        return self.model_gbit_per_s / self.paper_gbit_per_s


#: Table 4's variants as methods of this model (arXiv 2501.18512 §3: H = 100, 3-layer fragments, tau = 1
#: for the overlapped rows, 4-bit outer gradients for the FP4 row, 16-bit otherwise).
TABLE4_VARIANTS: dict[str, tuple[str, str, dict[str, int]]] = {
    "data-parallel": ("Data parallel", "dp", {}),
    "vanilla-diloco": ("DiLoCo", "diloco", {"inner_steps": 100, "bits": 16}),
    "streaming": ("Streaming DiLoCo", "streaming-diloco", {"bits": 16, "overlap_steps": 0}),
    "streaming-overlap": ("+ overlap", "streaming-diloco", {"bits": 16, "overlap_steps": 1}),
    "streaming-overlap-fp4": ("+ overlap, FP4", "streaming-diloco", {"bits": 4, "overlap_steps": 1}),
}


def table4_check() -> list[Table4Check]:
    """Set every cell of Streaming DiLoCo's Table 4 beside this model's answer (two sites, no latency).

    Returns
    -------
    list of Table4Check
        Model, variant, target utilisation, and WAN bandwidth in Gbit/s from the paper
        (``arxiv-streaming-diloco``, Table 4) and from :func:`~interconnect.topics.crossdc.model.evaluate`.

    Examples
    --------
    >>> cells = [c for c in table4_check() if c.utilization <= 0.95]
    >>> f"{len(cells)} cells up to 95 % utilisation, the farthest {max(abs(c.ratio - 1) for c in cells):.0%} off"
    '60 cells up to 95 % utilisation, the farthest 20% off'
    """
    data = get_crossdc_data()
    table = data.table4
    cells = []
    for row in table.rows:
        label, method_id, knobs = TABLE4_VARIANTS[row.variant]
        base = Scenario(row.params, table.sites, row.step_s, wan_bytes_per_s=1e9, rtt_s=0.0,
                        method=make_method(method_id, **knobs), layers=row.layers,
                        backward_fraction=data.compute.backward_fraction)
        for target, paper in zip(table.utilization, row.required_gbit_per_s, strict=True):
            needed = evaluate(replace(base, target_utilization=target)).required_bytes_per_s * 8 / 1e9
            cells.append(Table4Check(row.model, label, target, paper, needed if math.isfinite(needed) else math.inf))
    return cells
