"""Plotly figure builders shared by the pages: pure functions returning ``go.Figure``.

They take core results (quantities with units) and a display unit, and apply one look that stays
readable on a projector: large type, high-contrast colours per layer, no chart junk.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import plotly.graph_objects as go

from interconnect.catalog import LAYER_TITLES, Link
from interconnect.cliff import CliffBar, GenerationRatio
from interconnect.units import format_bandwidth

__all__ = ["BANDWIDTH_UNITS", "FORMAT_UNITS", "LAYER_COLOURS", "apply_theme", "cliff_figure", "generation_figure",
           "reach_figure"]

#: Display unit key (also the URL value) -> (pint unit, axis label)
BANDWIDTH_UNITS: dict[str, tuple[str, str]] = {
    "GBps": ("GB/s", "GB/s (gigabytes per second)"),
    "Gbitps": ("Gbit/s", "Gbit/s (gigabits per second)"),
    "bluray": ("bluray/s", "Blu-ray discs (50 GB) per second"),
}
#: Display unit key -> the unit argument of :func:`interconnect.units.format_bandwidth`.
FORMAT_UNITS = {"GBps": "B/s", "Gbitps": "bit/s", "bluray": "bluray/s"}

LAYER_COLOURS: dict[str, str] = {
    "gpu": "#6b7280",
    "scale-up": "#2e7d32",
    "host": "#8d6e63",
    "scale-out": "#1565c0",
    "long-reach": "#ef6c00",
    "everyday": "#7b1fa2",
    "historical": "#795548",
}
FONT_FAMILY = "Inter, Helvetica, Arial, sans-serif"


def apply_theme(figure: go.Figure, *, height: int = 480) -> go.Figure:
    """The project's look: white background, 16 px type, generous margins, legend on top."""
    figure.update_layout(
        template="plotly_white",
        height=height,
        font={"family": FONT_FAMILY, "size": 16, "color": "#111827"},
        margin={"l": 10, "r": 30, "t": 60, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        hoverlabel={"font_size": 15},
    )
    return figure


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


def _short_link_name(name: str) -> str:
    short = name.split(" (")[0]
    return short if len(short) <= 22 else short[:21] + "…"


def reach_figure(links: Sequence[Link]) -> go.Figure:
    """Bandwidth per direction against reach, log-log, one labelled point per link with a known reach.

    The shape of the field in one picture: the fastest links are the shortest (copper inside a
    rack), optics trade a little rate for kilometres, and old parallel cables were slow *and* short.
    """
    figure = go.Figure()
    for layer in LAYER_COLOURS:
        points: dict[tuple[float, float], list[str]] = {}
        for link in links:
            if link.layer == layer and link.reach is not None:
                where = (float(link.reach.quantity.to("m").magnitude),
                         float(link.bandwidth.per_direction().to("GB/s").magnitude))
                points.setdefault(where, []).append(_short_link_name(link.name))
        if not points:
            continue
        figure.add_trace(go.Scatter(
            x=[x for x, _ in points], y=[y for _, y in points],
            mode="markers+text",
            text=[" / ".join(names) for names in points.values()],
            textposition=[("bottom center" if i % 2 else "top center") if layer == "long-reach" else "middle right"
                          for i, _ in enumerate(points)],
            marker={"size": 14, "color": LAYER_COLOURS[layer], "line": {"width": 1, "color": "white"}},
            textfont={"size": 13},
            name=LAYER_TITLES.get(layer, layer),
            hovertemplate="<b>%{text}</b><br>reach %{x:.3g} m<br>%{y:.3g} GB/s per direction<extra></extra>",
        ))
    figure.update_layout(title={"text": "How fast, how far: bandwidth per direction against reach"})
    figure.update_xaxes(type="log", title="reach (metres)", gridcolor="#e5e7eb", range=[-0.3, 6.3])
    figure.update_yaxes(type="log", title="GB/s per direction", gridcolor="#e5e7eb")
    return apply_theme(figure, height=520)
