"""The project's one look for every chart: display units, layer colours and the Plotly theme.

Readable on a projector: large type, high-contrast colours per layer, no chart junk.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["BANDWIDTH_UNITS", "FONT_FAMILY", "FORMAT_UNITS", "LAYER_COLOURS", "LAYER_LEGEND_NAMES", "apply_theme",
           "title_over_legend"]

#: Display unit key (also the URL value) -> (pint unit, axis label)
BANDWIDTH_UNITS: dict[str, tuple[str, str]] = {
    "GBps": ("GB/s", "GB/s (gigabytes per second)"),
    "Gbitps": ("Gbit/s", "Gbit/s (gigabits per second)"),
    "bluray": ("bluray/s", "Blu-ray discs (50 GB) per second"),
}
#: Display unit key -> the unit argument of :func:`interconnect.units.format_bandwidth`.
FORMAT_UNITS = {"GBps": "B/s", "Gbitps": "bit/s", "bluray": "bluray/s"}

#: One colour per layer, from the Okabe-Ito palette where it can be (distinct for colour-blind viewers
#: and on a washed-out projector); no two layers share a hue.
LAYER_COLOURS: dict[str, str] = {
    "gpu": "#6b7280",
    "scale-up": "#009E73",
    "host": "#CC79A7",
    "scale-out": "#0072B2",
    "cable": "#E69F00",
    "long-reach": "#D55E00",
    "everyday": "#7b1fa2",
    "historical": "#4b3621",
}
#: Short layer names for legends (the full LAYER_TITLES wrap into four rows at 1280 px).
LAYER_LEGEND_NAMES: dict[str, str] = {
    "gpu": "GPU memory",
    "scale-up": "GPU to GPU",
    "host": "GPU to CPU",
    "scale-out": "Between servers",
    "cable": "Cables and optics",
    "long-reach": "Between buildings",
    "everyday": "Everyday",
    "historical": "Historical",
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
    # Tick labels as dark as the text: plotly_white's grey washes out on a projector.
    figure.update_xaxes(tickfont={"color": "#374151"}, title_font={"color": "#374151"})
    figure.update_yaxes(tickfont={"color": "#374151"}, title_font={"color": "#374151"})
    return figure


#: Pixels the title takes at the top of a figure, and one row of a 14 px legend.
TITLE_BAND_PX = 46
LEGEND_ROW_PX = 24


def title_over_legend(figure: go.Figure) -> go.Figure:
    """Title at the top left, the legend in its own band under it, the plot under both.

    Call after :func:`apply_theme`. The title is placed in pixels from the top of the figure; the
    legend hangs from the band under it (its position is in pixels too, ``yref="container"``), and
    Plotly reserves the top margin down to the legend's lower edge, so the plot starts below the
    legend however many rows it wraps into at a narrow window: title, legend and plot never touch.
    """
    height = int(figure.layout.height or 480)
    figure.update_layout(
        title={"x": 0, "xref": "container", "xanchor": "left", "pad": {"l": 10},
               "y": 1 - 8 / height, "yref": "container", "yanchor": "top"},
        legend={"orientation": "h", "xref": "paper", "x": 0, "xanchor": "left",
                "yref": "container", "y": 1 - TITLE_BAND_PX / height, "yanchor": "top", "font": {"size": 14}},
        margin={"t": TITLE_BAND_PX + LEGEND_ROW_PX + 8},
    )
    return figure
