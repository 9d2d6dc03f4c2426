"""Bandwidth-cliff figures: the log bar chart from HBM to the parallel cable, and the ratio by generation.

Pure functions returning ``go.Figure`` from core results (:mod:`interconnect.models.cliff`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import plotly.graph_objects as go

from interconnect.catalog import LAYER_TITLES
from interconnect.figures.theme import BANDWIDTH_UNITS, FORMAT_UNITS, LAYER_COLOURS, apply_theme
from interconnect.models.cliff import CliffBar, GenerationRatio
from interconnect.units import format_bandwidth

__all__ = ["cliff_figure", "generation_figure", "short_gpu_name"]


def cliff_figure(bars: Sequence[CliffBar], unit_key: str = "GBps", direction: str = "per_direction",
                 basis: str = "spec") -> go.Figure:
    """Horizontal bars on a log axis, inside-the-GPU at the top and a 1980s cable at the bottom.

    A bar whose figure is not of the requested ``basis`` (a spec figure shown because no achieved
    one exists, or a one-off measurement) says which it is in its label.
    """
    unit, axis_label = BANDWIDTH_UNITS[unit_key]
    figure = go.Figure()
    labels = [bar.label for bar in bars]
    shown_layers: set[str] = set()
    for bar in bars:
        value = float(bar.bandwidth.to(unit).magnitude)
        basis_note = "" if bar.basis == basis else f" ({bar.basis})"
        figure.add_trace(go.Bar(
            x=[value],
            y=[bar.label],
            orientation="h",
            marker_color=LAYER_COLOURS.get(bar.layer, "#374151"),
            name=LAYER_TITLES.get(bar.layer, "Inside the GPU"),
            legendgroup=bar.layer,
            showlegend=bar.layer not in shown_layers,
            text=[format_bandwidth(bar.bandwidth, FORMAT_UNITS[unit_key]) + basis_note],
            textposition="outside",
            cliponaxis=False,
            hovertemplate=f"<b>{bar.label}</b><br>%{{x:.4g}} {unit}<br>basis: {bar.basis}<extra></extra>",
        ))
        shown_layers.add(bar.layer)
    direction_words = "per direction" if direction == "per_direction" else "both directions added up"
    figure.update_layout(
        title={"text": f"Bandwidth per link, {direction_words}"},
        barmode="overlay",
        bargap=0.25,
    )
    apply_theme(figure, height=150 + 52 * len(bars))
    figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.12, "xanchor": "left", "x": 0},
                         margin={"b": 120})
    values = [float(bar.bandwidth.to(unit).magnitude) for bar in bars]
    low, high = math.log10(min(values)) - 0.3, math.log10(max(values)) + 1.9  # room for the labels
    figure.update_xaxes(type="log", title=axis_label, showgrid=True, gridcolor="#e5e7eb", range=[low, high])
    figure.update_yaxes(categoryorder="array", categoryarray=list(reversed(labels)), automargin=True)
    keys = [bar.key for bar in bars]
    if "host" in keys and "node" in keys:
        # A line between the last in-server bar and the first bar that leaves the chassis.
        edge = len(labels) - 1 - keys.index("node") + 0.5
        figure.add_hline(y=edge, line_dash="dash", line_color="#b91c1c", line_width=2)
        figure.add_annotation(xref="paper", x=1.0, y=edge, showarrow=False, xanchor="right", bgcolor="white",
                              text="▲ inside the server · edge of the chassis · outside ▼",
                              font={"color": "#b91c1c", "size": 14})
    return figure


def short_gpu_name(name: str) -> str:
    """'NVIDIA H100 SXM5 80GB' -> 'H100 SXM5': vendor words and memory sizes dropped, for axis labels."""
    words = name.split(" (")[0].split()
    drop = {"NVIDIA", "AMD", "Instinct", "Intel", "Tesla", "Habana"}
    kept = [w for w in words if w not in drop and not re.fullmatch(r"\d+GB", w)]
    return " ".join(kept) or name


def generation_figure(rows: Sequence[GenerationRatio]) -> go.Figure:
    """Scale-up over scale-out per GPU generation: like for like, as quoted, and achieved."""
    names = [short_gpu_name(row.gpu.name) for row in rows]
    figure = go.Figure()
    figure.add_trace(go.Bar(
        x=names, y=[row.ratio_like_for_like for row in rows], name="Like for like (per direction)",
        marker_color="#1565c0", text=[f"{row.ratio_like_for_like:.3g}:1" for row in rows], textposition="outside",
        hovertemplate="%{x}<br>like for like %{y:.3g}:1<extra></extra>",
    ))
    figure.add_trace(go.Bar(
        x=names, y=[row.ratio_as_quoted for row in rows], name="As often quoted (both directions ÷ one)",
        marker_color="#d1d5db", marker_line_color="#6b7280", marker_line_width=1,
        text=[f"{row.ratio_as_quoted:.3g}:1" for row in rows], textposition="outside",
        hovertemplate="%{x}<br>as quoted %{y:.3g}:1<extra></extra>",
    ))
    achieved = [(name, row.ratio_achieved) for name, row in zip(names, rows, strict=True) if row.ratio_achieved]
    if achieved:
        figure.add_trace(go.Scatter(
            x=[name for name, _ in achieved], y=[value for _, value in achieved], mode="markers",
            name="Achieved (NCCL figures)", marker={"symbol": "diamond", "size": 13, "color": "#2e7d32"},
            hovertemplate="%{x}<br>achieved %{y:.3g}:1<extra></extra>",
        ))
    figure.update_layout(title={"text": "Inside-the-server bandwidth ÷ network bandwidth, per GPU"}, barmode="group")
    figure.update_yaxes(title="ratio (x : 1)", rangemode="tozero")
    return apply_theme(figure, height=460)
