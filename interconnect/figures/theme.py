"""The project's one look for every chart: display units, layer colours and the Plotly theme.

Readable on a projector: large type, high-contrast colours per layer, no chart junk.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["BANDWIDTH_UNITS", "FONT_FAMILY", "FORMAT_UNITS", "LAYER_COLOURS", "apply_theme"]

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


def apply_theme(figure: go.Figure, *, height: int = 480, template: bool = True) -> go.Figure:
    """The project's look: white background, 16 px type, generous margins, legend on top.

    ``template=False`` leaves out Plotly's ``plotly_white`` template: ``st.plotly_chart``'s default
    Streamlit theme replaces it in the browser anyway (the same chart renders identically with and
    without it), and setting it costs a validated copy of the template per figure (about a quarter
    of building a small figure) and 8-10 kB of JSON per chart.
    """
    figure.update_layout(
        height=height,
        font={"family": FONT_FAMILY, "size": 16, "color": "#111827"},
        margin={"l": 10, "r": 30, "t": 60, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        hoverlabel={"font_size": 15},
    )
    if template:
        figure.update_layout(template="plotly_white")
    return figure
