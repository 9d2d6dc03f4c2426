"""The bandwidth-against-reach map: every catalog link as a point, fast links at short reach.

A pure function returning ``go.Figure`` from catalog links.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from interconnect.catalog import Link
from interconnect.figures.theme import (
    LAYER_COLOURS,
    LAYER_LEGEND_NAMES,
    LEGEND_ROW_PX,
    TITLE_BAND_PX,
    apply_theme,
    title_over_legend,
)
from interconnect.figures.ticks import bandwidth_ticks, length_ticks, log_axis
from interconnect.units import Q_, format_bandwidth, format_quantity

__all__ = ["reach_figure"]


def _short_link_name(name: str) -> str:
    short = name.split(" (")[0]
    return short if len(short) <= 22 else short[:21] + "…"


#: Home map geometry: the plot is drawn in these pixels whatever the window, except its width.
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


def _map_label_name(links: Sequence[Link]) -> str:
    """The label of the links at one spot: the first one's short name (the hover box lists them all)."""
    return _MAP_LABELS.get(links[0].id, links[0].name.split(" (")[0])


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


def reach_figure(links: Sequence[Link]) -> go.Figure:
    """Bandwidth per direction against reach, log-log, one point per link with a known reach.

    The shape of the field in one picture: the fastest links are the shortest (copper inside a
    rack), optics trade a little rate for kilometres, and old parallel cables were slow *and* short.
    Links of one layer at the same spot share a point. Points are named where a label fits without
    touching another label or marker at every width of :data:`_MAP_WIDTHS_PX` (the story's links
    first, in the order of :data:`_MAP_LABELS`); every point names its links on hover. Axes read in
    bytes per second and in centimetres, metres and kilometres.
    """
    spots: dict[tuple[str, float, float], list[Link]] = {}
    for link in links:
        if link.reach is not None:
            where = (link.layer, float(link.reach.quantity.to("m").magnitude),
                     float(link.bandwidth.per_direction().to("GB/s").magnitude))
            spots.setdefault(where, []).append(link)
    rank = {link_id: index for index, link_id in enumerate(_MAP_LABELS)}
    order = sorted(spots, key=lambda key: min(rank.get(link.id, len(rank)) for link in spots[key]))
    texts = {key: _map_label_name(spots[key]) for key in spots}
    placed = _map_place_labels([(x, y, texts[(layer, x, y)]) for layer, x, y in order])
    layers = [layer for layer in LAYER_COLOURS if any(key[0] == layer for key in spots)]
    layers += [layer for layer in dict.fromkeys(key[0] for key in spots) if layer not in LAYER_COLOURS]
    figure = go.Figure()
    for layer in layers:
        keys = [key for key in spots if key[0] == layer]
        figure.add_trace(go.Scatter(
            x=[x for _, x, _ in keys], y=[y for _, _, y in keys],
            mode="markers",
            marker={"size": _MAP_MARKER_PX, "color": LAYER_COLOURS.get(layer, "#455a64"),
                    "line": {"width": 1, "color": "white"}},
            name=LAYER_LEGEND_NAMES.get(layer, layer),
            customdata=[[" / ".join(link.name for link in spots[key]), format_quantity(Q_(key[1], "m")),
                         format_bandwidth(Q_(key[2], "GB/s"))] for key in keys],
            hovertemplate="<b>%{customdata[0]}</b><br>reach %{customdata[1]}<br>%{customdata[2]} per direction"
                          "<extra></extra>",
        ))
    for (_, x, y), position in zip(order, placed, strict=True):
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
