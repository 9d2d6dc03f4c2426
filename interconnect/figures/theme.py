"""The project's one look for every chart: display units, layer colours and the Plotly theme.

Readable on a projector: large type, high-contrast colours per layer, no chart junk.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["BANDWIDTH_UNITS", "FONT_FAMILY", "FORMAT_UNITS", "LAYER_COLOURS", "LAYER_LEGEND_NAMES", "apply_theme",
           "presentation_figure", "readable_figure",
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


#: Presentation mode: the smallest chart text (px) and how much thicker lines and markers get.
PRESENT_MIN_FONT_PX = 20
PRESENT_LINE_SCALE = 1.6
PRESENT_MARKER_SCALE = 1.4
#: The key, in a trace's ``meta``, of labels placed for presentation mode's shorter chart and larger
#: text (``{"text": [...], "textposition": [...]}``); :func:`presentation_figure` puts them in place.
PROJECTOR_LABELS = "projector_labels"


def _raise_text(figure: go.Figure, minimum_px: int, title_px: int) -> go.Figure:
    """Every text of ``figure`` at least ``minimum_px`` (titles ``title_px``), in place."""
    layout = figure.layout
    layout.font.size = max(minimum_px, layout.font.size or 0)
    # Bar labels that would have to shrink below the minimum to fit are hidden (their hover remains).
    layout.uniformtext = {"minsize": minimum_px, "mode": "hide"}
    if layout.title and layout.title.text:
        layout.title.font.size = max(title_px, layout.title.font.size or 0)
    layout.legend.font.size = max(minimum_px, layout.legend.font.size or 0)
    for annotation in layout.annotations or ():
        annotation.font.size = max(minimum_px, annotation.font.size or 0)
    for axis_name in [name for name in layout.to_plotly_json() if name.startswith(("xaxis", "yaxis"))]:
        axis = layout[axis_name]
        axis.tickfont.size = max(minimum_px, axis.tickfont.size or 0)
        axis.title.font.size = max(minimum_px, axis.title.font.size or 0)
    for trace in figure.data:
        if getattr(trace, "textfont", None) is not None and trace.textfont.size:
            trace.textfont.size = max(minimum_px, trace.textfont.size)
    return figure


#: The smallest chart text that reads from the back of a room (the projector budget).
READABLE_MIN_FONT_PX = 14


def readable_figure(figure: go.Figure) -> go.Figure:
    """``figure`` with no text under 14 px (ticks, legends, annotations, bar labels), in place.

    Every chart the app draws goes through this, so a builder that forgets a font size still
    meets the projector budget.

    >>> fig = go.Figure(go.Bar(x=["a"], y=[1]), layout={"font": {"size": 11}, "xaxis": {"tickfont": {"size": 10}}})
    >>> fig = readable_figure(fig)
    >>> fig.layout.font.size, fig.layout.xaxis.tickfont.size
    (14, 14)
    """
    return _raise_text(figure, READABLE_MIN_FONT_PX, READABLE_MIN_FONT_PX + 2)


def presentation_figure(figure: go.Figure) -> go.Figure:
    """A copy of ``figure`` for a projector: every text at least 20 px, thicker lines, bigger markers.

    >>> fig = apply_theme(go.Figure(go.Scatter(x=[1, 2], y=[3, 4], line={"width": 2})))
    >>> big = presentation_figure(fig)
    >>> big.layout.font.size, big.data[0].line.width
    (20, 3.2)
    """
    big = _raise_text(go.Figure(figure), PRESENT_MIN_FONT_PX, PRESENT_MIN_FONT_PX + 4)
    for trace in big.data:
        line = getattr(trace, "line", None)
        if line is not None and getattr(line, "width", None):
            line.width = line.width * PRESENT_LINE_SCALE
        marker = getattr(trace, "marker", None)
        if marker is not None and isinstance(getattr(marker, "size", None), int | float):
            marker.size = marker.size * PRESENT_MARKER_SCALE
        labels = trace.meta.get(PROJECTOR_LABELS) if isinstance(getattr(trace, "meta", None), dict) else None
        if labels:
            trace.update(text=labels["text"], textposition=labels["textposition"])
    _legend_clear_of_axis(big, 2 * (PRESENT_MIN_FONT_PX - READABLE_MIN_FONT_PX))
    return big


def _legend_clear_of_axis(figure: go.Figure, grown_px: int) -> None:
    """Keep a legend below the plot clear of the x axis when the tick labels and the axis title under it grew by
    ``grown_px`` in all: the legend moves down by as much, and the bottom margin grows by twice that, for the
    legend's own larger rows (a projector's tick labels ran into a legend placed for the page's sizes).

    >>> fig = go.Figure(layout={"height": 500, "margin": {"t": 50, "b": 100}, "legend": {"y": -0.2}})
    >>> _legend_clear_of_axis(fig, 12)
    >>> round(fig.layout.legend.y * (500 - 50 - 124), 1), fig.layout.margin.b   # 82 px below the plot, was 70
    (-82.0, 124)
    """
    legend, margin = figure.layout.legend, figure.layout.margin
    if legend.y is None or legend.y >= 0 or getattr(legend, "yref", None) not in (None, "paper"):
        return
    height, top, bottom = figure.layout.height or 450, margin.t or 0, margin.b or 0
    plot, new_plot = height - top - bottom, height - top - bottom - 2 * grown_px
    if new_plot <= 50:
        return
    legend.y = -(-legend.y * plot + grown_px) / new_plot
    margin.b = bottom + 2 * grown_px
