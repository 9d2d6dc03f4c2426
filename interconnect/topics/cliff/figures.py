"""Bandwidth-cliff figures: the log bar chart from HBM to the parallel cable, and the ratio by generation.

Pure functions returning ``go.Figure`` from core results (:mod:`interconnect.topics.cliff.model`). Both
figures are sized for a 1280x720 projector window: 14 px text or larger, the title above the
legend, axes labelled in real units.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from interconnect.figures.theme import (
    BANDWIDTH_UNITS,
    FORMAT_UNITS,
    LAYER_COLOURS,
    LAYER_LEGEND_NAMES,
    apply_theme,
    title_over_legend,
)
from interconnect.figures.ticks import bandwidth_ticks, log_axis
from interconnect.topics.cliff.model import CliffBar, GenerationRatio, short_gpu_name
from interconnect.units import format_bandwidth

__all__ = ["bar_text", "cliff_figure", "generation_figure", "short_gpu_name"]

BAR_PITCH_PX = 36
BAR_TEXT_PX = 15
CHASSIS_RED = "#b91c1c"
#: The category (an empty row) the edge of the chassis is drawn in.
EDGE_ROW = " "
#: The narrowest figure the charts are laid out for: a 1280 px window with the sidebar open.
NARROWEST_FIGURE_PX = 780


def bar_text(bar: CliffBar, unit_key: str, direction: str, basis: str) -> str:
    """The value printed beside a bar: its rate, the basis when it differs from the one asked for,
    and both rates of an asymmetric link (home broadband: '12.5 MB/s down, 2.5 MB/s up').

    >>> from interconnect.catalog import get_catalog
    >>> from interconnect.topics.cliff.model import cliff_bars
    >>> home = [b for b in cliff_bars(get_catalog(), "h100-sxm", direction="both_directions") if b.key == "home"][0]
    >>> bar_text(home, "Gbitps", "both_directions", "spec")
    '120 Mbit/s (100 down + 20 up)'
    """
    unit = FORMAT_UNITS[unit_key]
    text = format_bandwidth(bar.bandwidth, unit)
    figure = bar.figure
    if figure.is_asymmetric:
        if unit == "bluray/s":  # a time per disc for each direction would be a sentence: say which it is
            text += " (down + up)" if direction == "both_directions" else " (down)"
        else:
            down = format_bandwidth(figure.per_direction(), unit)
            up = format_bandwidth(figure.upstream_rate(), unit)
            if direction == "both_directions":
                (down_value, down_unit), (up_value, up_unit) = down.rsplit(" ", 1), up.rsplit(" ", 1)
                if down_unit == up_unit:  # '120 Mbit/s (100 down + 20 up)'
                    down, up = down_value, up_value
                text += f" ({down} down + {up} up)"
            else:
                text += f" down, {up} up"
    if bar.basis != basis:
        text += f" ({bar.basis})"
    return text


def cliff_figure(bars: Sequence[CliffBar], unit_key: str = "GBps", direction: str = "per_direction",
                 basis: str = "spec") -> go.Figure:
    """Horizontal bars on a log axis, inside-the-GPU at the top and a 1980s cable at the bottom.

    One trace per layer (its colour; the bar names say the layer, so there is no legend). A bar
    whose figure is not of the requested ``basis`` (a spec figure shown because no achieved one
    exists, or a one-off measurement) says which it is in its label; an asymmetric link gives both
    of its rates.
    """
    unit, _ = BANDWIDTH_UNITS[unit_key]
    keys = [bar.key for bar in bars]
    labels = [bar.label for bar in bars]
    texts = {bar.key: bar_text(bar, unit_key, direction, basis) for bar in bars}
    edge = "host" in keys and "node" in keys
    # The edge of the chassis gets a row of its own (a category with no bar), so its words touch no bar.
    rows = labels[:keys.index("node")] + [EDGE_ROW] + labels[keys.index("node"):] if edge else labels
    figure = go.Figure()
    layers = list(dict.fromkeys(bar.layer for bar in bars))
    for layer in layers:
        mine = [bar for bar in bars if bar.layer == layer]
        figure.add_trace(go.Bar(
            x=[float(bar.bandwidth.to(unit).magnitude) for bar in mine],
            y=[bar.label for bar in mine],
            orientation="h",
            marker_color=LAYER_COLOURS.get(layer, "#374151"),
            name=LAYER_LEGEND_NAMES.get(layer, layer),
            text=[texts[bar.key] for bar in mine],
            textposition="outside",
            textfont={"size": BAR_TEXT_PX},
            constraintext="none",
            cliponaxis=False,
            customdata=[[bar.basis] for bar in mine],
            hovertemplate="<b>%{y}</b><br>%{text}<br>basis: %{customdata[0]}<extra></extra>",
        ))
    direction_words = "per direction" if direction == "per_direction" else "both directions added up"
    figure.update_layout(title={"text": f"Bandwidth per link, {direction_words}"}, barmode="overlay", bargap=0.3)
    apply_theme(figure, height=150 + BAR_PITCH_PX * len(rows))
    title_over_legend(figure)
    # No legend: every bar's name already says which layer it is ("GPU to CPU", "Across a city"), and
    # at 1280 px a legend of seven layers would take four rows beside the long bar names.
    figure.update_layout(showlegend=False, margin={"b": 80, "r": 20, "t": 56})
    values = [float(bar.bandwidth.to(unit).magnitude) for bar in bars]
    low = math.log10(min(values)) - 0.3
    high = _right_edge(low, values, [texts[bar.key] for bar in bars], max(len(label) for label in labels))
    tickvals, ticktext = bandwidth_ticks(low, high, unit)
    figure.update_xaxes(**log_axis(tickvals, ticktext, low, high), tickfont={"size": 15},
                        title={"text": "log scale: each grid line is 10 times the one before", "font": {"size": 14}})
    figure.update_yaxes(categoryorder="array", categoryarray=list(reversed(rows)), automargin=True,
                        tickfont={"size": 15})
    if edge:
        y = EDGE_ROW
        figure.add_shape(type="line", xref="paper", x0=0, x1=1, y0=y, y1=y, yref="y",
                         line={"dash": "dash", "color": CHASSIS_RED, "width": 2})
        # Near the left of the plot, in words only: the right end has no room to spare at any width (the
        # value texts of the bars sit there), and the arrow glyphs it used came from a fallback font whose
        # width Plotly under-estimates, so the label was cut off at the figure's edge.
        figure.add_annotation(xref="paper", x=0.02, y=y, showarrow=False, xanchor="left", yanchor="middle",
                              bgcolor="white", borderpad=2, text="edge of the chassis: inside above, outside below",
                              font={"color": CHASSIS_RED, "size": 14})
    return figure


def _right_edge(low: float, values: Sequence[float], texts: Sequence[str], label_chars: int) -> float:
    """The right end of the log axis (log10) that leaves room for every bar's value text.

    Worked out for the narrowest chart the page is read at (a 1280 px window: 780 px of figure, less
    the bar names on the left), with text widths estimated from the 15 px font.
    """
    plot_px = NARROWEST_FIGURE_PX - 20 - 14 - label_chars * 0.56 * 15
    high = max(math.log10(v) for v in values) + 0.3
    for value, text in zip(values, texts, strict=True):
        share = (len(text) * 0.6 * BAR_TEXT_PX + 8) / plot_px  # of the plot's width the text needs
        if share < 0.9:
            high = max(high, (math.log10(value) - low * share) / (1 - share))
    return high


def generation_figure(rows: Sequence[GenerationRatio]) -> go.Figure:
    """Scale-up over network per GPU, each GPU in its own reference server, in release order (top down).

    One bar per GPU, lying down so that every name has a line of its own however many GPUs the catalog
    holds: like for like is the bar with its ratio at its end; the ratio as often quoted (both directions
    over one) is a grey mark with its number; the achieved ratio, where the catalog has both achieved
    figures, a green diamond.
    """
    names = [short_gpu_name(row.gpu.name).replace(" SXM5", "").replace(" SXM4", "").replace(" SXM2", "")
             .replace(" SXM", "") for row in rows]
    ticks = [f"{name} · {row.gpu.year}" for name, row in zip(names, rows, strict=True)]
    hover = [f"{row.gpu.name}<br>{row.nics_per_gpu:g} × {row.nic.name} per GPU" for row in rows]
    figure = go.Figure()
    figure.add_trace(go.Bar(
        y=ticks, x=[row.ratio_like_for_like for row in rows], orientation="h", name="Like for like (per direction)",
        marker_color="#0072B2", text=[f"{row.ratio_like_for_like:.3g}:1" for row in rows], textposition="outside",
        textfont={"size": 14}, constraintext="none", cliponaxis=False, customdata=hover,
        hovertemplate="%{customdata}<br>like for like %{x:.3g}:1<extra></extra>",
    ))
    figure.add_trace(go.Scatter(
        y=ticks, x=[row.ratio_as_quoted for row in rows], name="As often quoted (both directions ÷ one)",
        mode="markers+text",
        marker={"symbol": "line-ns-open", "size": 20, "color": "#6b7280", "line": {"width": 3, "color": "#6b7280"}},
        text=[f"{row.ratio_as_quoted:.3g}:1" for row in rows], textposition="middle right",
        textfont={"size": 14, "color": "#4b5563"}, cliponaxis=False, customdata=hover,
        hovertemplate="%{customdata}<br>as quoted %{x:.3g}:1<extra></extra>",
    ))
    achieved = [(tick, row.ratio_achieved, text) for tick, row, text in zip(ticks, rows, hover, strict=True)
                if row.ratio_achieved]
    if achieved:
        figure.add_trace(go.Scatter(
            y=[tick for tick, _, _ in achieved], x=[value for _, value, _ in achieved], mode="markers",
            name="Achieved (the maker's collective library)",
            marker={"symbol": "diamond", "size": 13, "color": "#009E73", "line": {"width": 1, "color": "white"}},
            customdata=[text for _, _, text in achieved],
            hovertemplate="%{customdata}<br>achieved %{x:.3g}:1<extra></extra>",
        ))
    top = max(row.ratio_as_quoted for row in rows)
    figure.update_layout(title={"text": "Scale-up ÷ network per GPU (x : 1), each GPU in its own server"},
                         bargap=0.3)
    apply_theme(figure, height=170 + 30 * len(rows))
    title_over_legend(figure)
    figure.update_layout(margin={"b": 20, "r": 10, "l": 10})
    figure.update_yaxes(categoryorder="array", categoryarray=ticks[::-1], tickfont={"size": 14}, automargin=True)
    figure.update_xaxes(range=[0, top * 1.25], tickfont={"size": 14}, gridcolor="#e5e7eb")
    return figure
