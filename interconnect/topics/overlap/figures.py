"""Plotly builders for the Overlap page: the step timeline, the sweeps and the claim chart.

Pure functions of :mod:`interconnect.topics.overlap.model` results. The timeline draws every bucket of a
step in one trace, however many there are: above ``max_segments`` buckets, neighbours closer than
the width of a screen pixel are merged into one bar (the hover names the buckets it covers), so a
405B model's 30,000 buckets cost about as much to send and draw as a few hundred.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from interconnect.figures.theme import apply_theme
from interconnect.figures.ticks import powers_of_ten
from interconnect.topics.overlap.model import MODE_LABELS, StepResult, Sweep
from interconnect.units import format_seconds

__all__ = ["MODE_COLOURS", "claim_figure", "node_sweep_figure", "timeline_figure", "token_sweep_figure"]

MODE_COLOURS = {"none": "#b91c1c", "overlap": "#1565c0", "ideal": "#2e7d32", "auto": "#111827", "ring": "#1565c0"}
_KIND_COLOURS = ("#60a5fa", "#1d4ed8", "#7c3aed")  # forward, backward, optimizer step
_BUCKET_COLOURS = ("#f59e0b", "#b45309")  # alternate so neighbouring buckets stay apart
_EXPOSED = "#fecaca"
_GRID = "#e5e7eb"
_LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.16, "xanchor": "left", "x": 0}


class _FinishedFigure(go.Figure):
    """A finished figure whose dict form is built once.

    ``st.plotly_chart`` calls ``to_dict()``, a deep copy costing 10-20 ms per figure, on every
    rerun; a figure served from a cache does not need that copy again. Nothing may change the
    figure after it is finished (the builders below finish it last).
    """

    _finished: dict

    def to_dict(self) -> dict:
        return self._finished


def _finished(figure: go.Figure) -> go.Figure:
    """Mark ``figure`` finished in place (no copy: copying a figure re-validates all of it)."""
    finished = figure.to_dict()
    figure.__class__ = _FinishedFigure
    figure._finished = finished
    return figure


def _time_unit(seconds: float) -> tuple[float, str]:
    """(multiplier, unit) to show a span of ``seconds`` in: µs below 2 ms, ms below 2 s, else s."""
    if seconds < 2e-3:
        return 1e6, "µs"
    if seconds < 2:
        return 1e3, "ms"
    return 1.0, "s"


def _duration(seconds: float) -> str:
    return format_seconds(float(seconds))


def _decade_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """Decade tick values in seconds between ``low`` and ``high`` with readable labels (1 ms, 10 s)."""
    values = powers_of_ten(max(low, 1e-9), max(high, low, 1e-9))
    return values, [_duration(v) for v in values]


def _merge_buckets(starts: np.ndarray, ends: np.ndarray, resolution_s: float,
                   max_segments: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (first, last) of drawn segments: one per bucket, or runs merged at screen resolution."""
    n = starts.size
    if n <= max_segments:
        index = np.arange(n)
        return index, index
    chunk = math.ceil(n / max_segments)
    breaks = np.zeros(n, dtype=bool)
    breaks[0] = True
    breaks[1:] = (starts[1:] - ends[:-1] > resolution_s) | (np.arange(1, n) % chunk == 0)
    first = np.flatnonzero(breaks)
    last = np.append(first[1:] - 1, n - 1)
    return first, last


def _build(data: list[dict], layout: dict, *, height: int, legend: dict | None = None,
           margin: dict | None = None) -> go.Figure:
    """One validated figure from plain trace and layout dicts, in the project's theme, finished.

    Building the spec as dicts and validating it once is several times cheaper than adding traces,
    shapes and axis updates one call at a time.
    """
    figure = go.Figure(data=data, layout=layout)
    apply_theme(figure, height=height, template=False)
    extra: dict = {}
    if legend:
        extra["legend"] = legend
    if margin:
        extra["margin"] = margin
    if extra:
        figure.update_layout(**extra)
    return _finished(figure)


#: Bucket segments the timeline draws at most. Each is an SVG bar the browser redraws on every change:
#: on the Overlap page 600 of them cost about 380 ms a redraw more than 60 in headless Chromium on 2
#: cores (1,315 against 932 ms a change); 150 keep each segment about 8 px wide on a 1,200 px chart.
TIMELINE_SEGMENTS = 150


def timeline_figure(step: StepResult, *, max_segments: int = TIMELINE_SEGMENTS) -> go.Figure:
    """One training step on two lanes: compute (forward, backward, optimizer) and communication (buckets).

    The all-reduce still running after the backward pass is shaded red; its label gives the exposed
    communication in all (the step minus compute) where launches, contention or the wait add to it. All buckets
    are one Bar trace; above ``max_segments`` they are merged at screen resolution.
    """
    events = step.events
    span = float(events.end_s.max()) if len(events) else 0.0
    scale, unit = _time_unit(span)

    compute = events.lane == 0
    starts, ends = events.start_s[compute], events.end_s[compute]
    names = ["forward", "backward", "optimizer step"]
    lag = step.wait_s / (step.forward_s + step.backward_s) if step.wait_s > 0 else 0.0

    def waited(seconds: float) -> str:
        return f", +{_duration(seconds * lag)} waiting for the slowest GPU" if lag > 0 else ""

    details = [
        f"{2 * step.workload.matmul_params * step.tokens_per_gpu:.3g} FLOP" + waited(step.forward_s),
        f"{4 * step.workload.matmul_params * step.tokens_per_gpu:.3g} FLOP" + waited(step.backward_s)
        + (f", +{_duration(step.launch_s)} bucket launches" if step.launch_s > 0 else "")
        + (f", +{_duration(step.contention_s)} SM contention" if step.contention_s > 0 else ""),
        "Adam, memory-bound (estimate)",
    ]
    data: list[dict] = [{
        "type": "bar", "y": ["compute"] * 3, "base": starts * scale, "x": (ends - starts) * scale,
        "orientation": "h", "name": "compute", "marker": {"color": list(_KIND_COLOURS), "line": {"width": 0}},
        "customdata": [[name, _duration(e - s), d] for name, s, e, d in zip(names, starts, ends, details, strict=True)],
        "hovertemplate": "%{customdata[0]}: %{customdata[1]}<br>%{customdata[2]}<extra></extra>",
        "text": names, "textposition": "inside", "insidetextanchor": "middle", "textangle": 0,
        "textfont": {"size": 14, "color": "white"},
    }]
    bucket_starts, bucket_ends = events.buckets()
    if bucket_starts.size and step.comm_s > 0:
        first, last = _merge_buckets(bucket_starts, bucket_ends, span / 1500, max_segments)
        seg_start, seg_end = bucket_starts[first], bucket_ends[last]
        label = "bucket %{customdata[0]}" if first.size == bucket_starts.size else \
            "buckets %{customdata[0]:,}–%{customdata[1]:,}"
        data.append({
            "type": "bar", "y": ["communication"] * first.size, "base": seg_start * scale,
            "x": (seg_end - seg_start) * scale, "orientation": "h", "name": "all-reduce buckets",
            # shades as numbers on a two-colour scale: validating colour names costs 30x more
            "marker": {"color": np.arange(first.size) % 2, "cmin": 0, "cmax": 1, "line": {"width": 0},
                       "colorscale": [[0, _BUCKET_COLOURS[0]], [1, _BUCKET_COLOURS[1]]]},
            "customdata": np.stack([first + 1, last + 1, (seg_end - seg_start) * scale], axis=-1),
            "hovertemplate": label + ": %{customdata[2]:.4g} " + unit + "<extra>all-reduce</extra>",
        })
    shapes, annotations = [], []
    backward_end = step.backward_end_s
    if step.tail_s > 0:
        # The shaded part is the tail, the all-reduce after the backward pass; the label gives the exposed
        # communication in all (the step minus compute), which also counts the wait, launches and contention.
        shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": backward_end * scale,
                       "x1": (backward_end + step.tail_s) * scale, "y0": 0, "y1": 1, "fillcolor": _EXPOSED,
                       "opacity": 0.6, "line": {"width": 0}, "layer": "below"})
        text = (f"exposed {_duration(step.exposed_comm_s)}" if step.exposed_comm_s - step.tail_s < 1e-12 else
                f"after backward {_duration(step.tail_s)} (exposed in all {_duration(step.exposed_comm_s)})")
        # Ends at the tail's right end when the tail is in the step's second half (it always is unless the step
        # is mostly communication), starts at its left end otherwise: never past the chart's edge.
        late = backward_end + step.tail_s / 2 > span / 2
        annotations.append({"x": (backward_end + (step.tail_s if late else 0.0)) * scale, "y": 1.0,
                            "yref": "y domain", "xanchor": "right" if late else "left",
                            "yanchor": "bottom", "text": text,
                            "showarrow": False, "font": {"color": "#991b1b", "size": 15}})
    layout = {
        "title": {"text": f"{MODE_LABELS[step.mode]}: one step takes {_duration(step.step_s)} "
                          f"({step.buckets.count:,} buckets)", "y": 0.97},
        "showlegend": False, "barmode": "overlay", "bargap": 0.35,
        "uniformtext": {"minsize": 13, "mode": "hide"},  # a phase too short for its name shows none
        "xaxis": {"title": {"text": f"time into the step ({unit})"}, "range": [0, span * scale * 1.01],
                  "gridcolor": _GRID, "zeroline": False},
        "yaxis": {"categoryorder": "array", "categoryarray": ["communication", "compute"], "tickfont": {"size": 16}},
        "shapes": shapes, "annotations": annotations,
    }
    return _build(data, layout, height=300, margin={"t": 70, "b": 50, "l": 10, "r": 30})


def _sweep_layout(title: str, x_title: str, x_ticks: list[float], exposed: np.ndarray) -> dict:
    """Two panels sharing one log x axis: exposed time (log, decade ticks) above, compute share below."""
    positive = exposed[np.isfinite(exposed) & (exposed > 0)]
    low, high = (float(positive.min()), float(positive.max())) if positive.size else (1e-3, 1.0)
    values, texts = _decade_ticks(low, high)
    return {
        "title": {"text": title, "y": 0.98},
        "xaxis": {"type": "log", "anchor": "y2", "tickvals": x_ticks, "ticktext": [f"{t:,}" for t in x_ticks],
                  "gridcolor": _GRID, "title": {"text": x_title}},
        "yaxis": {"type": "log", "domain": [0.44, 1.0], "title": {"text": "exposed"}, "tickvals": values,
                  "ticktext": texts, "gridcolor": _GRID},
        "yaxis2": {"domain": [0.0, 0.36], "title": {"text": "compute share"}, "tickformat": ".0%",
                   "range": [0, 1.05], "gridcolor": _GRID},
        "shapes": [], "annotations": [],
    }


def _vline(layout: dict, x: float, colour: str, dash: str, width: int = 2, text: str = "",
           position: str = "right") -> None:
    """A vertical line through both panels, labelled above them (annotations on a log axis take log10)."""
    layout["shapes"].append({"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
                             "line": {"color": colour, "dash": dash, "width": width}})
    if text:
        layout["annotations"].append({"x": math.log10(x), "y": 1.0, "xref": "x", "yref": "paper", "text": text,
                                      "showarrow": False, "xanchor": position, "yanchor": "bottom",
                                      "font": {"color": colour, "size": 14}})


def _sweep_traces(sweep: Sweep, name: str, index: int, colour: str, dash: str, mode: str, hover_x: str,
                  customdata: np.ndarray | None = None) -> list[dict]:
    exposed = np.where(sweep.exposed_s[index] > 0, sweep.exposed_s[index], np.nan)
    common = {"type": "scatter", "x": sweep.x, "mode": mode, "legendgroup": sweep.series[index],
              "line": {"color": colour, "width": 3, "dash": dash}}
    if customdata is not None:
        common["customdata"] = customdata
    return [
        {**common, "y": exposed, "name": name, "hovertemplate": hover_x + ": %{y:.3s}s exposed<extra></extra>"},
        {**common, "y": sweep.utilization[index], "yaxis": "y2", "showlegend": False,
         "hovertemplate": hover_x + ": %{y:.0%} compute<extra></extra>"},
    ]


def token_sweep_figure(sweep: Sweep, *, current_tokens: float, hide_threshold_tokens: float,
                       roofline_tokens: float) -> go.Figure:
    """Exposed communication and compute share against tokens per GPU, one line per mode.

    Vertical lines: this step's tokens, the model's hide threshold (backward as long as every
    all-reduce), and the Scaling Book's C / W roofline for this cluster.
    """
    data = []
    for i, mode in enumerate(sweep.series):
        data += _sweep_traces(sweep, MODE_LABELS.get(mode, mode), i, MODE_COLOURS.get(mode, "#374151"), "solid",
                              "lines", "%{x:,.0f} tokens")
    ticks = [2**p for p in range(int(math.log2(sweep.x.min())), int(math.log2(sweep.x.max())) + 1, 2)]
    layout = _sweep_layout("More tokens per GPU give the all-reduce more backward pass to hide behind",
                           "tokens per GPU per step", ticks, sweep.exposed_s)
    x_low, x_high = float(sweep.x.min()), float(sweep.x.max())
    if x_low <= roofline_tokens <= x_high:
        _vline(layout, roofline_tokens, "#ef6c00", "dash", text=f"Scaling Book C/W {roofline_tokens:,.0f}")
    if x_low <= hide_threshold_tokens <= x_high:
        _vline(layout, hide_threshold_tokens, "#2e7d32", "dot", text=f"hides from {hide_threshold_tokens:,.0f}",
               position="left")
    if x_low <= current_tokens <= x_high:
        _vline(layout, current_tokens, "#111827", "dot", width=1)
    return _build(data, layout, height=560, legend=_LEGEND_BELOW, margin={"t": 90, "b": 110})


def node_sweep_figure(sweep: Sweep, *, gpus_per_node: int, current_nodes: int,
                      labels: dict[str, str] | None = None) -> go.Figure:
    """Exposed communication and compute share against the node count, one line per algorithm.

    A dashed line marks 512 GPUs, where the Ultra-Scale Playbook warns ring latency stops DP hiding.
    """
    labels = labels or {}
    gpus = (sweep.x * gpus_per_node)[:, None]
    data = []
    for i, name in enumerate(sweep.series):
        data += _sweep_traces(sweep, labels.get(name, name), i, MODE_COLOURS.get(name, "#374151"),
                              "solid" if name == "auto" else "dash", "lines+markers",
                              "%{x} nodes (%{customdata[0]:,} GPUs)", gpus)
    layout = _sweep_layout("More GPUs: each bucket's all-reduce pays more latency", f"nodes of {gpus_per_node} GPUs",
                           [int(x) for x in sweep.x], sweep.exposed_s)
    warning_nodes = 512 / gpus_per_node
    if sweep.x.min() <= warning_nodes <= sweep.x.max():
        _vline(layout, warning_nodes, "#b91c1c", "dash", text="512 GPUs (Playbook)")
    if sweep.x.min() <= current_nodes <= sweep.x.max():
        _vline(layout, current_nodes, "#111827", "dot", width=1)
    return _build(data, layout, height=560, legend=_LEGEND_BELOW, margin={"t": 90, "b": 110})


def claim_figure(*, claimed_fraction: float, claimed_saving: float, step_fraction: float, step_share: float,
                 step_saving: float, shares: Sequence[float] | None = None) -> go.Figure:
    """Time saved against communication's share of the serialized step, saved = f x share.

    One line for the claimed f (85 %), one for this step's f; the claim and this step as points.
    """
    grid = np.linspace(0, 1, 101) if shares is None else np.asarray(shares, dtype=float)
    needed = claimed_saving / claimed_fraction
    data = [
        {"type": "scatter", "x": grid, "y": claimed_fraction * grid, "mode": "lines",
         "name": f"f = {claimed_fraction:.0%} (the claim)", "line": {"color": "#ef6c00", "width": 3, "dash": "dash"}},
        {"type": "scatter", "x": grid, "y": step_fraction * grid, "mode": "lines",
         "name": f"f = {step_fraction:.0%} (this step)", "line": {"color": "#1565c0", "width": 3}},
        {"type": "scatter", "x": [needed], "y": [claimed_saving], "mode": "markers+text", "name": "the claim",
         "marker": {"size": 14, "color": "#ef6c00", "symbol": "diamond"},
         "text": [f"needs {needed:.1%} communication"], "textposition": "top left", "textfont": {"size": 14}},
        {"type": "scatter", "x": [step_share], "y": [step_saving], "mode": "markers+text", "name": "this step",
         "marker": {"size": 14, "color": "#1565c0"}, "text": [f"this step saves {step_saving:.1%}"],
         "textposition": "bottom right", "textfont": {"size": 14}},
    ]
    layout = {
        "title": {"text": "Saved = f × communication share", "y": 0.97},
        "xaxis": {"title": {"text": "communication's share of the step without overlap"}, "tickformat": ".0%",
                  "range": [0, 1], "gridcolor": _GRID},
        "yaxis": {"title": {"text": "time saved by overlap"}, "tickformat": ".0%", "range": [0, 1],
                  "gridcolor": _GRID},
    }
    return _build(data, layout, height=460, legend={**_LEGEND_BELOW, "y": -0.26}, margin={"t": 60, "b": 140})
