"""Reach figures: the Home page's bandwidth-against-reach map and the Reach page's charts.

* :func:`reach_figure`: every catalog link as a point, fast links at short reach (Home page).
* :func:`leash_figure`: the same field with a chosen distance drawn in, the links that still reach
  it in colour and the "leash" (the fastest rate still available at each distance) as a step line.
* :func:`timeout_figure`: round trip against distance per medium, with handshake timeouts drawn in.
* :func:`training_figure`: all-reduce time per training step between two sites against distance.

Pure functions of core results returning ``go.Figure``; no Streamlit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from interconnect.catalog import Link
from interconnect.figures.theme import (
    LAYER_COLOURS,
    LAYER_LEGEND_NAMES,
    LEGEND_ROW_PX,
    PROJECTOR_LABELS,
    TITLE_BAND_PX,
    apply_theme,
    title_over_legend,
)
from interconnect.figures.ticks import bandwidth_ticks, length_ticks, log_axis
from interconnect.topics.reach.model import (
    MAX_DISTANCE_M,
    MIN_DISTANCE_M,
    LinkReach,
    Propagation,
    TimeoutCase,
    TwoSiteAllreduce,
    distance_text,
    leash_steps,
)
from interconnect.units import Q_, format_bandwidth, format_duration, format_quantity

__all__ = ["leash_figure", "reach_figure", "timeout_figure", "training_figure"]

#: Colour for a layer the theme does not know yet (a catalog edit may add one).
_OTHER_COLOUR = "#455a64"
_GREY = "#b0b7c3"
_DISTANCE_COLOUR = "#c62828"
_LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0}
#: The distance axis: 10 cm .. 20,000 km, ticks in metres and kilometres.
_DISTANCE_TICKS = [0.1, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7]
_DISTANCE_RANGE = [math.log10(MIN_DISTANCE_M) - 0.1, math.log10(MAX_DISTANCE_M) + 0.1]


#: The parts of the theme's template that 2-D line and scatter charts use. The full plotly_white
#: template also carries defaults for every 3-D, polar, geo and ternary chart, and is sent with every
#: chart: dropping those parts halves the chart JSON and the time Streamlit takes to send it
#: (measured: 19 ms to 7 ms per chart), and changes nothing on screen.
_TEMPLATE_KEYS = ("annotationdefaults", "autotypenumbers", "colorway", "font", "hoverlabel", "hovermode",
                  "paper_bgcolor", "plot_bgcolor", "shapedefaults", "title", "xaxis", "yaxis")


def _lean(figure: go.Figure) -> go.Figure:
    """Keep only the template parts a 2-D chart uses (see :data:`_TEMPLATE_KEYS`)."""
    layout = figure.layout.template.layout.to_plotly_json()
    figure.layout.template = go.layout.Template(layout={key: layout[key] for key in _TEMPLATE_KEYS if key in layout})
    return figure


def _short_link_name(name: str, limit: int = 22, *, whole_words: bool = False) -> str:
    """The name before any parenthesis, cut to ``limit`` characters (at a space with ``whole_words``)."""
    short = name.split(" (")[0]
    if len(short) <= limit:
        return short
    cut = short[:limit - 1]
    if whole_words and short[len(cut)] != " " and " " in cut:  # the cut falls inside a word
        cut = cut.rsplit(" ", 1)[0]
    return cut + "…"


#: Label geometry at 14 px text, and the plot area of a chart in the page's main column at 1280 px.
_CHAR_PX, _LINE_PX, _GAP_PX = 8.8, 18.0, 9.0  # a 14 px font, with room for wide glyphs
#: The leash chart's plot area as presentation mode draws it first on a 1280 x 720 screen (450 px tall
#: less 80 px above and 120 px below the plot, measured 265 x 1000 px), and its text scale (14 px to 20 px).
_PROJECTOR_PLOT_PX, _PROJECTOR_SCALE = (1000.0, 265.0), 20 / 14


def _label_positions(points: Sequence[tuple[float, float]], texts: Sequence[str], x_range: Sequence[float],
                     y_range: Sequence[float], *, width_px: float = 600.0, height_px: float = 330.0,
                     marker_px: Sequence[float] | None = None, scale: float = 1.0) -> list[str | None]:
    """Text positions that keep labels off each other and off the markers on a log-log chart.

    Greedy, in the order given (most important first): each label takes the first of right, above,
    below, left and the four corners whose box (estimated from the 14 px font) stays inside the
    plot and overlaps no label placed before it and no marker. A label with no free place gets
    ``None``: it is left off (its point keeps its hover text), rather than drawn over another.
    ``scale`` enlarges text, gaps and markers (presentation mode's 20 px text: ``20 / 14``).
    """
    px_x = width_px / (x_range[1] - x_range[0])
    px_y = height_px / (y_range[1] - y_range[0])
    centres = [((math.log10(x) - x_range[0]) * px_x, (math.log10(y) - y_range[0]) * px_y) for x, y in points]
    radii = marker_px if marker_px is not None else [8.0] * len(points)
    boxes = [(cx - r * scale, cy - r * scale, cx + r * scale, cy + r * scale)  # the markers
             for (cx, cy), r in zip(centres, radii, strict=True)]
    line, gap = _LINE_PX * scale, _GAP_PX * scale
    positions = []
    for index, ((cx, cy), text) in enumerate(zip(centres, texts, strict=True)):
        width = len(text) * _CHAR_PX * scale
        options = {
            "middle right": (cx + gap, cy - line / 2, cx + gap + width, cy + line / 2),
            "top center": (cx - width / 2, cy + gap, cx + width / 2, cy + gap + line),
            "bottom center": (cx - width / 2, cy - gap - line, cx + width / 2, cy - gap),
            "middle left": (cx - gap - width, cy - line / 2, cx - gap, cy + line / 2),
            "bottom right": (cx + 2, cy - gap - line, cx + 2 + width, cy - gap),
            "top right": (cx + 2, cy + gap, cx + 2 + width, cy + gap + line),
            "bottom left": (cx - 2 - width, cy - gap - line, cx - 2, cy - gap),
            "top left": (cx - 2 - width, cy + gap, cx - 2, cy + gap + line),
        }
        chosen = None
        for name, (x0, y0, x1, y1) in options.items():
            inside = x0 >= 4 and x1 <= width_px - 4 and y0 >= 0 and y1 <= height_px
            free = all(x1 <= a0 or x0 >= a1 or y1 <= b0 or y0 >= b1  # Plotly keeps a label off its own marker
                       for other, (a0, b0, a1, b1) in enumerate(boxes) if other != index)
            if inside and free:
                chosen = name
                boxes.append(options[name])
                break
        positions.append(chosen)
    return positions


# --- the Home page map ----------------------------------------------------------------------------

_MAP_HEIGHT_PX = 580
_MAP_MARGIN_PX = {"l": 96, "r": 24, "b": 64}
#: Figure widths the Home map is laid out for: a 1280 px window with the sidebar open (about 820 px
#: of chart) up to a 1440 px window with it closed. A label is drawn only if it is clear at all of them.
_MAP_WIDTHS_PX = (780, 820, 980, 1240)
_MAP_X_RANGE = (-0.75, 6.95)  # 18 cm .. 8,900 km
_MAP_Y_RANGE = (-6.3, 3.5)  # 0.5 kB/s .. 3 TB/s
_MAP_FONT_PX = 14
_MAP_CHAR_PX = 0.6 * _MAP_FONT_PX  # wider than the average glyph of the theme's sans-serif
_MAP_LINE_PX = 1.4 * _MAP_FONT_PX
_MAP_MARKER_PX = 14
#: Short names for the map's labels (the hover box gives the catalog's full name); the order is the
#: order labels are placed in: the story first (copper inside the box, optics outwards, old cables).
_MAP_LABELS = {
    "nvlink-spine": "NVLink copper spine", "board": "Baseboard NVLink", "dac-100g-pam4": "Copper DAC",
    "acc-100g-pam4": "Active copper", "sr8-800g": "SR8 multimode", "sr4-400g": "SR4 multimode",
    "dr8-800g": "DR8 single-mode", "fr4-2km": "2xFR4, 2 km", "lr8-10km": "LR8, 10 km", "400gbase-sr8": "400GBASE-SR8",
    "dr4-400g": "DR4, 100 m", "dr4-xdr": "XDR DR4",
    "nvlink5": "NVLink 5", "nvlink4": "NVLink 4", "pcie5-x16": "PCIe 5.0 x16", "ib-ndr": "InfiniBand NDR",
    "dac-400g-passive": "Copper DAC", "aoc-200g": "Active optical cable", "400g-dr4": "DR4 optics",
    "400g-lr8": "LR8 optics", "400zr": "400ZR", "800zr": "800ZR", "metrox": "MetroX",
    "wan-100g-wave": "Long-haul wavelength", "laplink-parallel": "LapLink cable", "rs232": "RS-232 serial",
    "ieee1284-ecp": "ECP parallel port", "ieee1284-compat": "Printer port", "campus-400g-fr4": "FR4, 2 km",
    "ib-hdr": "InfiniBand HDR", "400g-sr8": "SR8 optics", "ethernet-400g": "400 GbE",
    "400g-sr4-multimode": "SR4 optics", "acc-400g": "Active copper",
}
#: Where a label may go, as the offset of its centre from the marker in pixels (x right, y up), nearest
#: first; offsets beyond the marker's neighbourhood get a thin leader line.
_MAP_NEAR = ("right", "left", "above", "below")
_MAP_FAR = ((0, 46), (0, -46), (60, 40), (-60, 40), (60, -40), (-60, -40), (0, 72), (0, -72), (90, 66),
            (-90, 66), (90, -66), (-90, -66), (130, 30), (130, -30))


def _map_label_name(links: Sequence) -> str:
    """The label of the links at one spot: the short name of the one that comes first in :data:`_MAP_LABELS`
    (the hover box lists them all)."""
    rank = list(_MAP_LABELS)
    first = min(links, key=lambda link: rank.index(link.id) if link.id in _MAP_LABELS else len(rank))
    return _MAP_LABELS.get(first.id, first.name.split(" (")[0])


def _map_point(item: Link | LinkReach) -> tuple[str, float, float] | None:
    """(layer, reach m, rate GB/s per direction) of a catalog link with a reach or a Reach page row."""
    if isinstance(item, LinkReach):
        return item.layer, item.reach_m, item.rate_gbps
    if item.reach is None:
        return None
    return (item.layer, float(item.reach.quantity.to("m").magnitude),
            float(item.bandwidth.per_direction().to("GB/s").magnitude))


def _map_top_px() -> int:
    return TITLE_BAND_PX + 2 * LEGEND_ROW_PX + 14


def _map_plot_px(width_px: float) -> tuple[float, float]:
    return (width_px - _MAP_MARGIN_PX["l"] - _MAP_MARGIN_PX["r"],
            _MAP_HEIGHT_PX - _MAP_MARGIN_PX["b"] - _map_top_px())


def _map_point_px(x_m: float, y_gbps: float, width_px: float) -> tuple[float, float]:
    plot_w, plot_h = _map_plot_px(width_px)
    return ((math.log10(x_m) - _MAP_X_RANGE[0]) / (_MAP_X_RANGE[1] - _MAP_X_RANGE[0]) * plot_w,
            (math.log10(y_gbps) - _MAP_Y_RANGE[0]) / (_MAP_Y_RANGE[1] - _MAP_Y_RANGE[0]) * plot_h)


def _map_offset(position: str | tuple[int, int], text: str) -> tuple[float, float]:
    """The offset of a label's centre from its marker, in pixels (x right, y up)."""
    if not isinstance(position, str):
        return position
    half_w, gap = len(text) * _MAP_CHAR_PX / 2, _MAP_MARKER_PX / 2 + 4
    return {"right": (gap + half_w, 0.0), "left": (-gap - half_w, 0.0), "above": (0.0, gap + _MAP_LINE_PX / 2),
            "below": (0.0, -gap - _MAP_LINE_PX / 2)}[position]


def _map_box(centre: tuple[float, float], text: str) -> tuple[float, float, float, float]:
    half_w, half_h = len(text) * _MAP_CHAR_PX / 2, _MAP_LINE_PX / 2
    return centre[0] - half_w, centre[1] - half_h, centre[0] + half_w, centre[1] + half_h


def _map_overlaps(box: tuple, other: tuple, pad: float = 3.0) -> bool:
    return not (box[2] + pad <= other[0] or box[0] - pad >= other[2] or box[3] + pad <= other[1]
                or box[1] - pad >= other[3])


def _map_place_labels(spots: Sequence[tuple[float, float, str]]) -> list[str | tuple[int, int] | None]:
    """Greedy label placement for the Home map.

    Each spot, in order, takes the first position (next to its marker, then further out with a
    leader line) whose label box stays inside the plot and clears every marker, every label placed
    before it and every leader line, at every width of :data:`_MAP_WIDTHS_PX`. A spot with no such
    position gets ``None``: it is named in its hover box only.
    """
    labels: dict[float, list[tuple]] = {width: [] for width in _MAP_WIDTHS_PX}
    lines: dict[float, list[tuple]] = {width: [] for width in _MAP_WIDTHS_PX}
    points = {width: [_map_point_px(x, y, width) for x, y, _ in spots] for width in _MAP_WIDTHS_PX}
    radius = _MAP_MARKER_PX / 2
    markers = {width: [(x - radius, y - radius, x + radius, y + radius) for x, y in points[width]]
               for width in _MAP_WIDTHS_PX}

    def crosses(start: tuple, end: tuple, box: tuple) -> bool:
        return any(box[0] <= start[0] + (end[0] - start[0]) * t / 12 <= box[2]
                   and box[1] <= start[1] + (end[1] - start[1]) * t / 12 <= box[3] for t in range(1, 12))

    positions: list[str | tuple[int, int] | None] = []
    for index, (_, _, text) in enumerate(spots):
        chosen = None
        for position in (*_MAP_NEAR, *_MAP_FAR):
            far = not isinstance(position, str)
            fits = True
            for width in _MAP_WIDTHS_PX:
                px, py = points[width][index]
                dx, dy = _map_offset(position, text)
                box = _map_box((px + dx, py + dy), text)
                plot_w, plot_h = _map_plot_px(width)
                others = labels[width] + markers[width][:index] + markers[width][index + 1:]
                if (box[0] < 0 or box[2] > plot_w or box[1] < 0 or box[3] > plot_h
                        or any(_map_overlaps(box, other) for other in others)
                        or any(crosses(a, b, box) for a, b in lines[width])
                        or (far and any(crosses((px, py), (px + dx, py + dy), other)
                                        for other in labels[width] + markers[width][:index]
                                        + markers[width][index + 1:]))):
                    fits = False
                    break
            if fits:
                chosen = position
                break
        if chosen is not None:
            for width in _MAP_WIDTHS_PX:
                px, py = points[width][index]
                dx, dy = _map_offset(chosen, text)
                labels[width].append(_map_box((px + dx, py + dy), text))
                if not isinstance(chosen, str):
                    lines[width].append(((px, py), (px + dx, py + dy)))
        positions.append(chosen)
    return positions


def reach_figure(links: Sequence[Link | LinkReach]) -> go.Figure:
    """Bandwidth per direction against reach, log-log, one point per link or medium with a known reach.

    ``links`` are catalog links (those without a reach are left out) or the Reach page's rows
    (:func:`~interconnect.topics.reach.model.reach_rows`: every medium of ``wires.toml`` at the fastest
    protocol it carries, then the catalog's other links). The shape of the field in one picture: the
    fastest links are the shortest (copper inside a rack), optics trade a little rate for
    kilometres, and old parallel cables were slow *and* short. Links of one layer at the same spot
    share a point. Points are named where a label fits without touching another label or marker at
    every width of :data:`_MAP_WIDTHS_PX` (the story's links first, in the order of
    :data:`_MAP_LABELS`); a point left without a label gets its own legend entry, and every point
    names its links on hover. Axes read in bytes per second and in centimetres, metres and kilometres.
    """
    spots: dict[tuple[str, float, float], list] = {}
    for link in links:
        if (where := _map_point(link)) is not None:
            spots.setdefault(where, []).append(link)
    rank = {link_id: index for index, link_id in enumerate(_MAP_LABELS)}
    order = sorted(spots, key=lambda key: min(rank.get(link.id, len(rank)) for link in spots[key]))
    texts = {key: _map_label_name(spots[key]) for key in spots}
    placed = dict(zip(order, _map_place_labels([(x, y, texts[(layer, x, y)]) for layer, x, y in order]),
                      strict=True))
    layers = [layer for layer in LAYER_COLOURS if any(key[0] == layer for key in spots)]
    layers += [layer for layer in dict.fromkeys(key[0] for key in spots) if layer not in LAYER_COLOURS]
    figure = go.Figure()

    def hover(keys: list) -> list:
        return [[" / ".join(link.name for link in spots[key]), format_quantity(Q_(key[1], "m")),
                 format_bandwidth(Q_(key[2], "GB/s"))] for key in keys]

    template = "<b>%{customdata[0]}</b><br>reach %{customdata[1]}<br>%{customdata[2]} per direction<extra></extra>"
    for layer in layers:
        keys = [key for key in spots if key[0] == layer and placed[key] is not None]
        if not keys:
            continue
        figure.add_trace(go.Scatter(
            x=[x for _, x, _ in keys], y=[y for _, _, y in keys], mode="markers",
            marker={"size": _MAP_MARKER_PX, "color": LAYER_COLOURS.get(layer, _OTHER_COLOUR),
                    "line": {"width": 1, "color": "white"}},
            name=LAYER_LEGEND_NAMES.get(layer, layer), legendgroup=layer,
            customdata=hover(keys), hovertemplate=template,
        ))
    # A point with no room for its label is named in the legend instead (its marker and its name).
    symbols = ("diamond", "square", "triangle-up", "cross", "star", "hexagon", "triangle-down", "x")
    for index, key in enumerate(key for key in order if placed[key] is None):
        figure.add_trace(go.Scatter(
            x=[key[1]], y=[key[2]], mode="markers",
            marker={"size": _MAP_MARKER_PX, "color": LAYER_COLOURS.get(key[0], _OTHER_COLOUR),
                    "symbol": symbols[index % len(symbols)], "line": {"width": 1, "color": "white"}},
            name=texts[key], legendgroup=key[0], customdata=hover([key]), hovertemplate=template,
        ))
    for (_, x, y), position in placed.items():
        if position is None:
            continue
        text = texts[(_, x, y)]
        dx, dy = _map_offset(position, text)
        figure.add_annotation(x=math.log10(x), y=math.log10(y), text=text, font={"size": _MAP_FONT_PX},
                              showarrow=True, arrowhead=0, arrowwidth=1, ax=dx, ay=-dy, standoff=_MAP_MARKER_PX / 2 + 1,
                              # next to its marker a label needs no leader line
                              arrowcolor="rgba(0,0,0,0)" if isinstance(position, str) else "#9ca3af")
    figure.update_layout(title={"text": "How fast, how far: bandwidth per direction against reach"})
    apply_theme(figure, height=_MAP_HEIGHT_PX)
    title_over_legend(figure)
    figure.update_layout(margin={**_MAP_MARGIN_PX, "t": _map_top_px()})
    x_ticks = length_ticks(*_MAP_X_RANGE)
    y_ticks = bandwidth_ticks(*_MAP_Y_RANGE, "GB/s")
    figure.update_xaxes(**log_axis(*x_ticks, *_MAP_X_RANGE), title={"text": "reach of one link", "font": {"size": 15}},
                        automargin=False, tickfont={"size": 15})
    figure.update_yaxes(**log_axis(*y_ticks, *_MAP_Y_RANGE), title={"text": "per direction", "font": {"size": 15}},
                        automargin=False, tickfont={"size": 15})
    return figure


# --- the Reach page ---------------------------------------------------------------------------------

def _base_layout() -> dict:
    """The project theme (:func:`apply_theme`) as a layout dict, with the lean template."""
    return _lean(apply_theme(go.Figure())).layout.to_plotly_json()


def _figure(traces: list[dict], layout: dict, *, height: int) -> go.Figure:
    base = _base_layout()
    merged = {**base, **layout, "height": height, "legend": _LEGEND_BELOW,
              "margin": {**base.get("margin", {}), **layout.get("margin", {})}}
    return go.Figure(data=traces, layout=merged)


def _distance_axis(title: str) -> dict:
    return {"type": "log", "title": {"text": title}, "range": _DISTANCE_RANGE, "tickvals": _DISTANCE_TICKS,
            "ticktext": [distance_text(v) for v in _DISTANCE_TICKS], "gridcolor": "#e5e7eb",
            "minor": {"showgrid": False}, "zeroline": False}


def _distance_marker(distance_m: float, *, label_at_bottom: bool = False) -> tuple[dict, dict]:
    """A vertical line at the chosen distance (shape), labelled above the plot or inside it at the bottom."""
    shape = {"type": "line", "xref": "x", "yref": "paper", "x0": distance_m, "x1": distance_m, "y0": 0, "y1": 1,
             "line": {"color": _DISTANCE_COLOUR, "width": 2, "dash": "dash"}}
    label = {"x": math.log10(distance_m), "xref": "x", "y": 0.01 if label_at_bottom else 1.0, "yref": "paper",
             "yanchor": "bottom", "xanchor": "left" if label_at_bottom else "center",
             "text": f"<b>{distance_text(distance_m)}</b>", "showarrow": False,
             "font": {"color": _DISTANCE_COLOUR, "size": 15}}
    return shape, label


def _log_ticks(low: float, high: float, formatter) -> tuple[list[float], list[str]]:
    """Decade ticks from ``low`` to ``high`` (positive), labelled in readable units."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    values = [10.0**p for p in range(first, last + 1)]
    return values, [formatter(v) for v in values]


@functools.lru_cache(maxsize=256)
def _rate_text(rate_gbps: float) -> str:
    return format_bandwidth(Q_(rate_gbps, "GB/s"))


@functools.lru_cache(maxsize=1024)
def _time_text(seconds: float) -> str:
    return format_duration(Q_(seconds, "s"))


def _step_line(steps: Sequence) -> dict | None:
    """The leash as one line: flat to each step's reach, then down to the next level."""
    if not steps:
        return None
    level_x: list[float] = []
    level_y: list[float] = []
    start = MIN_DISTANCE_M
    for index, step in enumerate(steps):
        level_x += [start, step.reach_m]
        level_y += [step.link.rate_gbps, step.link.rate_gbps]
        if index + 1 < len(steps):
            level_x.append(step.reach_m)
            level_y.append(steps[index + 1].link.rate_gbps)
        start = step.reach_m
    return {"type": "scatter", "x": level_x, "y": level_y, "mode": "lines",
            "name": "The leash: fastest rate that still reaches", "line": {"color": "#374151", "width": 2},
            "hoverinfo": "skip"}


def leash_figure(media: Sequence[LinkReach], distance_m: float) -> go.Figure:
    """Rate per direction against reach, log-log, with the chosen distance as a line.

    Links whose reach covers the distance are drawn in their layer's colour, the others as grey
    rings; the fastest one that still reaches is ringed in red. The step line is the leash: the
    fastest rate available at each distance, which falls in steps going outwards.
    """
    traces = [line] if (line := _step_line(leash_steps(media))) else []
    points: dict[tuple[float, float, bool], list[LinkReach]] = {}
    for row in media:
        points.setdefault((row.reach_m, row.rate_gbps, row.reaches(distance_m)), []).append(row)
    rates = [row.rate_gbps for row in media] or [1.0]
    y_range = [math.log10(min(rates) / 3), math.log10(max(rates) * 3)]
    labels = {key: " / ".join(_MAP_LABELS.get(row.id) or _short_link_name(
        row.name.removeprefix("OIF ").removeprefix("NVIDIA "), 24, whole_words=True) for row in rows)
              for key, rows in points.items()}
    # The fastest that reaches; among equally fast ones the one that only just reaches (as fastest_reaching).
    best_point = max((key for key in points if key[2]), key=lambda key: (key[1], -key[0]), default=None)
    on_leash = {(step.reach_m, step.link.rate_gbps) for step in leash_steps(media)}
    # Labels in order of importance: the fastest that reaches, the leash's steps, then reaching and fast first.
    keys = sorted(points, key=lambda key: (key != best_point, key[:2] not in on_leash, not key[2], -key[1], key[0]))
    spots, texts = [key[:2] for key in keys], [labels[key] for key in keys]
    radii = [14.0 if key == best_point else 8.0 for key in keys]
    positions = dict(zip(keys, _label_positions(spots, texts, _DISTANCE_RANGE, y_range, marker_px=radii), strict=True))
    # Presentation mode draws the chart shorter with larger text: its own labels, placed for that (see
    # PROJECTOR_LABELS in figures.theme), so none lands on another there either.
    width_px, height_px = _PROJECTOR_PLOT_PX
    projector = dict(zip(keys, _label_positions(spots, texts, _DISTANCE_RANGE, y_range, width_px=width_px,
                                                height_px=height_px, marker_px=radii, scale=_PROJECTOR_SCALE),
                         strict=True))
    here = distance_text(distance_m)
    for reaches in (True, False):
        group = [(key, rows) for key, rows in points.items() if key[2] is reaches]
        if not group:
            continue
        traces.append({
            "type": "scatter", "x": [key[0] for key, _ in group], "y": [key[1] for key, _ in group],
            "mode": "markers+text",
            "text": [labels[key] if positions[key] else "" for key, _ in group],
            "textposition": [positions[key] or "middle right" for key, _ in group],
            "hovertext": [labels[key] for key, _ in group],
            "meta": {PROJECTOR_LABELS: {"text": [labels[key] if projector[key] else "" for key, _ in group],
                                        "textposition": [projector[key] or "middle right" for key, _ in group]}},
            "textfont": {"size": 14, "color": "#111827" if reaches else "#6b7280"},
            "marker": {"size": 15 if reaches else 13,
                       "color": [LAYER_COLOURS.get(rows[0].layer, _OTHER_COLOUR) for _, rows in group]
                       if reaches else "rgba(0,0,0,0)",
                       "line": {"width": 1 if reaches else 2, "color": "white" if reaches else _GREY}},
            "name": f"Reaches {here}" if reaches else f"Cannot reach {here}",
            "customdata": [[distance_text(key[0]), _rate_text(key[1])] for key, _ in group],
            "hovertemplate": "<b>%{hovertext}</b><br>reach %{customdata[0]}<br>%{customdata[1]} per direction"
                             "<extra></extra>",
        })
    if best_point is not None:
        traces.append({"type": "scatter", "x": [best_point[0]], "y": [best_point[1]], "mode": "markers",
                       "name": "Fastest that still reaches", "hoverinfo": "skip",
                       "marker": {"size": 26, "color": "rgba(0,0,0,0)",
                                  "line": {"width": 3, "color": _DISTANCE_COLOUR}}})
    shape, label = _distance_marker(distance_m)
    tickvals, ticktext = _log_ticks(min(rates) / 3, max(rates) * 3, _rate_text)
    return _figure(traces, {
        "title": {"text": "Fast links are on a short leash: rate against reach"},
        "xaxis": _distance_axis("reach"),
        "yaxis": {"type": "log", "title": {"text": "rate per direction"}, "tickvals": tickvals, "ticktext": ticktext,
                  "gridcolor": "#e5e7eb", "range": y_range},
        "shapes": [shape], "annotations": [label], "margin": {"t": 80, "b": 120},
    }, height=560)


def timeout_figure(
    distance_m: float | None,
    propagations: Sequence[Propagation],
    timeouts: Sequence[TimeoutCase],
) -> go.Figure:
    """Round trip against distance for each medium (straight lines on log-log), timeouts as levels.

    Where a medium's line crosses a timeout is the distance at which propagation alone would make
    a handshake wait longer than it is allowed to: kilometres for a parallel port, farther than
    the Moon for InfiniBand's default. With a ``distance_m`` the round trips there are marked; with
    None the chart does not depend on a distance (the Reach page draws it once).
    """
    span = [MIN_DISTANCE_M, MAX_DISTANCE_M]
    colours = {"fibre": "#ef6c00", "copper-twinax": "#1565c0", "copper-cable": "#795548", "vacuum": "#6b7280"}
    traces = [{
        "type": "scatter", "x": span, "y": [2 * x * medium.delay_s_per_m for x in span], "mode": "lines",
        "name": f"{medium.name}: {medium.delay_s_per_m * 1e9:.3g} ns/m", "hoverinfo": "skip",
        "line": {"color": colours.get(medium.id, _OTHER_COLOUR), "width": 3,
                 "dash": {"vacuum": "dot", "copper-cable": "dash"}.get(medium.id, "solid")},
    } for medium in propagations]
    if distance_m is not None:
        here = [2 * distance_m * medium.delay_s_per_m for medium in propagations]
        traces.append({
            "type": "scatter", "x": [distance_m] * len(propagations), "y": here, "mode": "markers",
            "name": f"Round trip at {distance_text(distance_m)}",
            "marker": {"size": 12, "color": _DISTANCE_COLOUR, "line": {"width": 1, "color": "white"}},
            "text": [f"{medium.name}: {_time_text(rtt)}" for medium, rtt in zip(propagations, here, strict=True)],
            "hovertemplate": "%{text}<extra></extra>",
        })
    shapes = [{"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": case.timeout_s,
               "y1": case.timeout_s, "line": {"color": "#374151", "width": 1.5, "dash": "dash"}} for case in timeouts]
    annotations = [{"x": 0.01, "xref": "paper", "y": math.log10(case.timeout_s), "yref": "y", "yanchor": "bottom",
                    "xanchor": "left", "showarrow": False, "font": {"size": 14, "color": "#374151"},
                    "text": f"{case.label}: {_time_text(case.timeout_s)}"} for case in timeouts]
    if distance_m is not None:
        shape, label = _distance_marker(distance_m, label_at_bottom=True)  # the timeout labels run along the top
        shapes.append(shape)
        annotations.append(label)
    low = 2 * MIN_DISTANCE_M * min(medium.delay_s_per_m for medium in propagations) if propagations else 1e-9
    high = max([case.timeout_s for case in timeouts if math.isfinite(case.timeout_s)] + [1e-3]) * 3
    tickvals, ticktext = _log_ticks(low, high, _time_text)
    return _figure(traces, {
        "title": {"text": "Round trip against handshake timeouts"},
        "xaxis": _distance_axis("distance between the two ends"),
        "yaxis": {"type": "log", "title": {"text": "round trip"}, "tickvals": tickvals, "ticktext": ticktext,
                  "gridcolor": "#e5e7eb", "range": [math.log10(low) - 0.2, math.log10(high)]},
        "shapes": shapes, "annotations": annotations, "margin": {"t": 80, "b": 150},
    }, height=540)


def training_figure(result: TwoSiteAllreduce, distance_m: float) -> go.Figure:
    """All-reduce time per training step against the distance between the two sites.

    Lines: a ring across both sites (every step waits for the gap), hierarchical (the gap twice),
    and, when H > 1, hierarchical once every H steps.
    """
    x = np.asarray(result.distance_m, dtype=float)
    lines = [
        (result.ring_us, f"Ring across both sites ({result.ring_gap_steps} steps wait for the gap)", "#1565c0"),
        (result.hierarchical_us, f"Hierarchical ({result.hierarchical_gap_steps} steps cross the gap)", "#ef6c00"),
    ]
    if result.sync_every > 1:
        lines.append((result.periodic_us, f"Hierarchical, once every {result.sync_every} steps (per step)",
                      "#2e7d32"))
    traces, marker_y = [], []
    for values, label, colour in lines:
        seconds = np.asarray(values, dtype=float) * 1e-6
        # Hover in SI prefixes by Plotly itself (".3s" gives 6.32m for 6.32 ms): no per-point formatting here.
        traces.append({"type": "scatter", "x": x.tolist(), "y": seconds.tolist(), "mode": "lines", "name": label,
                       "line": {"color": colour, "width": 3}, "hovertemplate": "%{y:.3s}s<extra></extra>"})
        marker_y.append(float(np.interp(math.log10(distance_m), np.log10(x), seconds)))
    traces.append({
        "type": "scatter", "x": [distance_m] * len(marker_y), "y": marker_y, "mode": "markers", "showlegend": False,
        "marker": {"size": 12, "color": [colour for *_, colour in lines], "line": {"width": 2, "color": "white"}},
        "text": [f"{label}: {_time_text(y)}" for (_, label, _), y in zip(lines, marker_y, strict=True)],
        "hovertemplate": "%{text}<extra></extra>",
    })
    shape, label = _distance_marker(distance_m)
    everything = np.concatenate([np.asarray(values, dtype=float) * 1e-6 for values, _, _ in lines])
    positive = everything[np.isfinite(everything) & (everything > 0)]
    low, high = (float(positive.min()), float(positive.max())) if positive.size else (1e-6, 1.0)
    tickvals, ticktext = _log_ticks(low / 1.5, high * 1.5, _time_text)
    return _figure(traces, {
        "title": {"text": "All-reduce per training step, two sites moving apart"},
        "xaxis": _distance_axis("distance between the two sites"),
        "yaxis": {"type": "log", "title": {"text": "time per step"}, "tickvals": tickvals, "ticktext": ticktext,
                  "gridcolor": "#e5e7eb", "range": [math.log10(low / 1.5), math.log10(high * 1.5)]},
        "shapes": [shape], "annotations": [label], "margin": {"t": 80, "b": 150},
    }, height=520)
