"""The Seating chart's live chart: TFLOP/s per GPU against the global batch, as the node count is dragged."""

from __future__ import annotations

import math

import numpy as np

from interconnect.figures.live import LiveAxis, LiveMarker, LiveSeries, live_spec, log_axis_ticks
from interconnect.topics.seating.sweep import SeatingFamily
from interconnect.units import format_seconds

__all__ = ["seating_family_spec"]

_THIS = "#1565c0"
_COMPUTE = "#6b7280"


def _linear_ticks(high: float) -> tuple[tuple[float, str], ...]:
    step = 10.0 ** math.floor(math.log10(max(high, 1.0) / 2))
    step *= 2 if high / step > 10 else 1
    return tuple((v, f"{v:,.0f}") for v in np.arange(0.0, high + step / 2, step))


def seating_family_spec(family: SeatingFamily, current_nodes: int, page_batch: int, gpus_per_node: int,
                        schedule_name: str, *, present: bool = False) -> dict:
    """The live chart of :func:`~interconnect.topics.seating.sweep.seating_family`.

    Two lines per node count: TFLOP/s per GPU as the model bills the step (thick) and compute alone
    (dotted: no bubble, nothing exposed), against the global batch; the gap is what the pipeline and
    the network cost. The sentence beside the slider gives the layout and the figures at the page's
    own global batch.

    >>> from interconnect.hardware.cluster import resolve_cluster
    >>> from interconnect.topics.seating.model import Layout, Workload
    >>> from interconnect.workloads.presets import load_model_presets
    >>> from interconnect.topics.seating.sweep import seating_family
    >>> cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    >>> family = seating_family(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, pp=4, zero=1),
    ...                         Workload(), [8, 64], [64, 256, 4096])
    >>> spec = seating_family_spec(family, 8, 256, 8, "1F1B")
    >>> spec["slider"]["labels"], spec["slider"]["index"]
    (['8 nodes', '64 nodes'], 0)
    >>> spec["readouts"][0].split(":")[0]
    '8 nodes, 64 GPUs'
    """
    counts = list(family.node_counts)
    index = counts.index(int(current_nodes)) if int(current_nodes) in counts else 0
    batches = family.batches
    column = int(np.argmin(np.abs(batches - page_batch)))
    series = [
        LiveSeries("compute alone (no bubble, nothing exposed)", _COMPUTE, family.compute_tflops_per_gpu, width=2.0,
                   dash="dot"),
        LiveSeries(f"the step as billed ({schedule_name})", _THIS, family.tflops_per_gpu, width=4.0),
    ]
    finite = np.concatenate([s.y_by_position[np.isfinite(s.y_by_position)] for s in series])
    high = float(finite.max()) * 1.1 if finite.size else 1.0
    y_axis = LiveAxis("TFLOP/s per GPU (model FLOPs)", False, 0.0, high, _linear_ticks(high))
    low_x, high_x, x_ticks = log_axis_ticks(batches, lambda v: f"{v:,.0f}")
    x_axis = LiveAxis("global batch (sequences per step)", True, low_x, high_x, x_ticks)
    readouts = []
    for i, n in enumerate(counts):
        layout, change = family.layouts[i], family.changes[i]
        head = f"{n:,} node{'s' if n != 1 else ''}, {n * gpus_per_node:,} GPUs: {layout.label()}"
        tflops = family.tflops_per_gpu[i, column]
        if not math.isfinite(tflops):
            body = (f"a global batch of {page_batch:,} leaves each of the {layout.dp:,} pipelines less than one "
                    f"micro-batch.")
        else:
            memory = f" Memory {family.memory[i][column]}." if family.memory else ""
            body = (f"at a global batch of {page_batch:,}, {tflops:,.0f} TFLOP/s per GPU ({family.mfu[i, column]:.0%} "
                    f"MFU), pipeline bubble {family.bubble[i, column]:.1%}, a step of "
                    f"{format_seconds(float(family.step_s[i, column]))}.{memory}")
        readouts.append(f"{head}; {body}" + (f" {change}" if change else ""))
    return live_spec(title="TFLOP/s per GPU against the global batch, as the node count changes and the layout "
                           "follows", slider_label="Nodes", slider_values=counts,
                     slider_labels=[f"{n:,} node{'s' if n != 1 else ''}" for n in counts], index=index,
                     x_axis=x_axis, x_values=batches, y_axis=y_axis, series=series, readouts=readouts,
                     present=present, height_px=340,
                     markers=[LiveMarker(float(batches[column]), f"this page: {page_batch:,}")])
