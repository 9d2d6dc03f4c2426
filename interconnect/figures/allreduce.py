"""Plotly builders for the All-reduce page: pure functions of core results, one look for all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from interconnect.figures.theme import apply_theme
from interconnect.models.allreduce_view import AllreduceView, NodeCurve, PublishedCurve
from interconnect.models.collectives import ALGORITHM_LABELS
from interconnect.units import Q_, format_size

__all__ = ["ALGORITHM_COLOURS", "Overlay", "busbw_figure", "node_count_figure", "time_figure", "traffic_figure"]

ALGORITHM_COLOURS = {
    "flat_ring": "#9ca3af",
    "ring": "#1565c0",
    "tree": "#2e7d32",
    "hierarchical": "#ef6c00",
    "nvls": "#7b1fa2",
    "nvls_tree": "#c2185b",
    "collnet": "#00838f",
}
_SIZE_TICKS = [2**p for p in range(3, 35, 3)]
_LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0}


def _finish(figure: go.Figure, height: int) -> go.Figure:
    """The shared theme, with the legend under the plot (these charts have many traces)."""
    apply_theme(figure, height=height)
    figure.update_layout(legend=_LEGEND_BELOW, margin={"b": 190})
    return figure


class Overlay:
    """Measured points to draw over the model: sizes, times and busbw, with a label."""

    def __init__(self, label: str, size_bytes: np.ndarray, time_us: np.ndarray, busbw_gbps: np.ndarray) -> None:
        self.label = label
        self.size_bytes = np.asarray(size_bytes, dtype=float)
        self.time_us = np.asarray(time_us, dtype=float)
        self.busbw_gbps = np.asarray(busbw_gbps, dtype=float)


def _size_axis(figure: go.Figure) -> None:
    figure.update_xaxes(type="log", title="message size per GPU", tickvals=_SIZE_TICKS,
                        ticktext=[format_size(Q_(v, "B")) for v in _SIZE_TICKS], gridcolor="#e5e7eb")


def _label(name: str) -> str:
    return ALGORITHM_LABELS.get(name, name)


def _overlay_traces(figure: go.Figure, overlays: Sequence[Overlay], field: str) -> None:
    symbols = ["circle-open", "diamond-open", "square-open", "x"]
    for i, overlay in enumerate(overlays):
        figure.add_trace(go.Scatter(
            x=overlay.size_bytes, y=getattr(overlay, field), mode="markers", name=overlay.label,
            marker={"symbol": symbols[i % len(symbols)], "size": 11, "color": "#111827", "line": {"width": 2}},
            hovertemplate="%{x:.3s} B<br>%{y:.4g}<extra>" + overlay.label + "</extra>",
        ))


def time_figure(view: AllreduceView, overlays: Sequence[Overlay] = ()) -> go.Figure:
    """All-reduce time against message size for every algorithm; the chosen one drawn thick."""
    figure = go.Figure()
    size = view.size_bytes
    if np.isfinite(view.crossover_bytes):
        figure.add_vrect(x0=size[0], x1=view.crossover_bytes, fillcolor="#fef3c7", opacity=0.5, line_width=0)
        figure.add_vrect(x0=view.crossover_bytes, x1=size[-1], fillcolor="#e0f2fe", opacity=0.4, line_width=0)
        # Placed by axis-domain fraction: data coordinates on a log axis would need log10 values, and
        # Plotly hides a data-anchored annotation that rounds to just outside the range.
        figure.add_annotation(x=0.01, xref="x domain", xanchor="left", y=1, yref="y domain", yanchor="top",
                              text="latency-bound", showarrow=False, font={"color": "#92400e"})
        figure.add_annotation(x=0.99, xref="x domain", xanchor="right", y=1, yref="y domain", yanchor="top",
                              text="bandwidth-bound", showarrow=False, font={"color": "#075985"})
    for name, times in view.time_us_by_algorithm.items():
        if not np.isfinite(times).any():
            continue
        figure.add_trace(go.Scatter(
            x=size, y=np.where(np.isfinite(times), times, None), mode="lines", name=_label(name),
            line={"color": ALGORITHM_COLOURS.get(name, "#374151"), "width": 2, "dash": "dot"},
            hovertemplate="%{x:.3s} B: %{y:.4g} µs<extra>" + _label(name) + "</extra>",
        ))
    figure.add_trace(go.Scatter(
        x=size, y=view.chosen.time_us, mode="lines", name="NCCL-like choice",
        line={"color": "#111827", "width": 5}, opacity=0.35,
        customdata=np.stack([view.chosen.algorithm, view.chosen.protocol], axis=-1),
        hovertemplate="%{x:.3s} B: %{y:.4g} µs<br>%{customdata[0]} / %{customdata[1]}<extra>chosen</extra>",
    ))
    _overlay_traces(figure, overlays, "time_us")
    figure.update_layout(title={"text": "All-reduce time against message size"})
    _size_axis(figure)
    figure.update_yaxes(type="log", title="time (µs)", gridcolor="#e5e7eb")
    return _finish(figure, 700)


def busbw_figure(view: AllreduceView, overlays: Sequence[Overlay] = ()) -> go.Figure:
    """algbw and busbw of the chosen algorithm, busbw per algorithm, and the wire rate it can beat."""
    figure = go.Figure()
    size = view.size_bytes
    for name, busbw in view.busbw_by_algorithm().items():
        if not np.isfinite(busbw).any():
            continue
        figure.add_trace(go.Scatter(
            x=size, y=np.where(np.isfinite(busbw), busbw, None), mode="lines", name=f"busbw, {_label(name)}",
            line={"color": ALGORITHM_COLOURS.get(name, "#374151"), "width": 2, "dash": "dot"},
            visible="legendonly" if name == "flat_ring" else True,
        ))
    figure.add_trace(go.Scatter(x=size, y=view.chosen.busbw_gbps, mode="lines", name="busbw, NCCL-like choice",
                                line={"color": "#111827", "width": 4}))
    figure.add_trace(go.Scatter(x=size, y=view.chosen.algbw_gbps, mode="lines", name="algbw, NCCL-like choice",
                                line={"color": "#111827", "width": 2, "dash": "dash"}))
    figure.add_trace(go.Scatter(x=[size[0], size[-1]], y=[view.wire_gbps, view.wire_gbps], mode="lines",
                                name=f"{view.wire_label}: {view.wire_gbps:.4g} GB/s",
                                line={"color": "#b91c1c", "dash": "dash", "width": 2}))
    above = view.busbw_above_wire
    if above.any():
        figure.add_trace(go.Scatter(
            x=size[above], y=view.chosen.busbw_gbps[above], mode="markers", name="busbw above the wire rate",
            marker={"symbol": "triangle-up", "size": 10, "color": "#b91c1c"},
        ))
    _overlay_traces(figure, overlays, "busbw_gbps")
    figure.update_layout(title={"text": "Bandwidth as nccl-tests reports it"})
    _size_axis(figure)
    figure.update_yaxes(type="log", title="GB/s", gridcolor="#e5e7eb")
    return _finish(figure, 700)


def node_count_figure(curve: NodeCurve, published: PublishedCurve | None = None) -> go.Figure:
    """busbw at one size against the number of nodes, per algorithm and chosen, with a published curve."""
    figure = go.Figure()
    for name, busbw in curve.busbw_by_algorithm.items():
        if not np.isfinite(busbw).any():
            continue
        figure.add_trace(go.Scatter(
            x=curve.node_counts, y=np.where(np.isfinite(busbw), busbw, None), mode="lines+markers",
            name=_label(name), line={"color": ALGORITHM_COLOURS.get(name, "#374151"), "dash": "dot"},
            visible="legendonly" if name == "flat_ring" else True,
        ))
    figure.add_trace(go.Scatter(x=curve.node_counts, y=curve.busbw_chosen, mode="lines+markers",
                                name="NCCL-like choice", line={"color": "#111827", "width": 4}))
    if published is not None:
        figure.add_trace(go.Scatter(
            x=published.x, y=published.busbw_gbps, mode="markers+lines", name=published.label,
            marker={"symbol": "diamond", "size": 12, "color": "#ef6c00"}, line={"color": "#ef6c00", "width": 1},
        ))
    figure.update_layout(title={"text": f"busbw at {format_size(Q_(curve.size_bytes, 'B'))} against cluster size"})
    figure.update_xaxes(type="log", title="nodes", tickvals=list(curve.node_counts), gridcolor="#e5e7eb")
    figure.update_yaxes(type="log", title="busbw (GB/s)", gridcolor="#e5e7eb")
    return _finish(figure, 640)


def traffic_figure(traffic: Mapping[str, float], size_bytes: int) -> go.Figure:
    """Bytes per GPU that leave the node for each algorithm, as a share of the message."""
    names = list(traffic)
    values = [traffic[name] / size_bytes for name in names]
    figure = go.Figure(go.Bar(
        x=[_label(name).split(" (")[0] for name in names], y=values,
        hovertext=[_label(name) for name in names],
        marker_color=[ALGORITHM_COLOURS.get(name, "#374151") for name in names],
        text=[f"{v:.3g} × S" for v in values], textposition="outside", cliponaxis=False,
    ))
    figure.update_layout(title={"text": "Bytes per GPU that leave the node, per all-reduce of S bytes"},
                         showlegend=False)
    figure.update_yaxes(title="× message size S", rangemode="tozero")
    return apply_theme(figure, height=440)
