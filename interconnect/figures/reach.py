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

from interconnect.catalog import LAYER_TITLES, Link
from interconnect.figures.theme import LAYER_COLOURS, apply_theme
from interconnect.models.reach import (
    MAX_DISTANCE_M,
    MIN_DISTANCE_M,
    LinkReach,
    Propagation,
    TimeoutCase,
    TwoSiteAllreduce,
    distance_text,
    leash_steps,
)
from interconnect.units import Q_, format_bandwidth, format_duration

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
_CHAR_PX, _LINE_PX, _GAP_PX = 8.0, 17.0, 9.0


def _label_positions(points: Sequence[tuple[float, float]], texts: Sequence[str], x_range: Sequence[float],
                     y_range: Sequence[float], *, width_px: float = 660.0, height_px: float = 330.0,
                     marker_px: Sequence[float] | None = None) -> list[str | None]:
    """Text positions that keep labels off each other and off the markers on a log-log chart.

    Greedy, in the order given (most important first): each label takes the first of right, above,
    below, left and the four corners whose box (estimated from the 14 px font) stays inside the
    plot and overlaps no label placed before it and no marker. A label with no free place gets
    ``None``: it is left off (its point keeps its hover text), rather than drawn over another.
    """
    px_x = width_px / (x_range[1] - x_range[0])
    px_y = height_px / (y_range[1] - y_range[0])
    centres = [((math.log10(x) - x_range[0]) * px_x, (math.log10(y) - y_range[0]) * px_y) for x, y in points]
    radii = marker_px if marker_px is not None else [8.0] * len(points)
    boxes = [(cx - r, cy - r, cx + r, cy + r) for (cx, cy), r in zip(centres, radii, strict=True)]  # the markers
    positions = []
    for index, ((cx, cy), text) in enumerate(zip(centres, texts, strict=True)):
        width = len(text) * _CHAR_PX
        options = {
            "middle right": (cx + _GAP_PX, cy - _LINE_PX / 2, cx + _GAP_PX + width, cy + _LINE_PX / 2),
            "top center": (cx - width / 2, cy + _GAP_PX, cx + width / 2, cy + _GAP_PX + _LINE_PX),
            "bottom center": (cx - width / 2, cy - _GAP_PX - _LINE_PX, cx + width / 2, cy - _GAP_PX),
            "middle left": (cx - _GAP_PX - width, cy - _LINE_PX / 2, cx - _GAP_PX, cy + _LINE_PX / 2),
            "bottom right": (cx + 2, cy - _GAP_PX - _LINE_PX, cx + 2 + width, cy - _GAP_PX),
            "top right": (cx + 2, cy + _GAP_PX, cx + 2 + width, cy + _GAP_PX + _LINE_PX),
            "bottom left": (cx - 2 - width, cy - _GAP_PX - _LINE_PX, cx - 2, cy - _GAP_PX),
            "top left": (cx - 2 - width, cy + _GAP_PX, cx - 2, cy + _GAP_PX + _LINE_PX),
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


def _layers_in_order(layers: Sequence[str]) -> list[str]:
    """The theme's layer order, then any layer it does not know, in first-seen order."""
    known = [layer for layer in LAYER_COLOURS if layer in layers]
    return known + [layer for layer in dict.fromkeys(layers) if layer not in LAYER_COLOURS]


def reach_figure(links: Sequence[Link]) -> go.Figure:
    """Bandwidth per direction against reach, log-log, one labelled point per link with a known reach.

    The shape of the field in one picture: the fastest links are the shortest (copper inside a
    rack), optics trade a little rate for kilometres, and old parallel cables were slow *and* short.
    """
    figure = go.Figure()
    for layer in _layers_in_order([link.layer for link in links]):
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
            marker={"size": 14, "color": LAYER_COLOURS.get(layer, _OTHER_COLOUR),
                    "line": {"width": 1, "color": "white"}},
            textfont={"size": 13},
            name=LAYER_TITLES.get(layer, layer),
            hovertemplate="<b>%{text}</b><br>reach %{x:.3g} m<br>%{y:.3g} GB/s per direction<extra></extra>",
        ))
    figure.update_layout(title={"text": "How fast, how far: bandwidth per direction against reach"})
    figure.update_xaxes(type="log", title="reach (metres)", gridcolor="#e5e7eb", range=[-0.3, 6.3])
    figure.update_yaxes(type="log", title="GB/s per direction", gridcolor="#e5e7eb")
    return _lean(apply_theme(figure, height=520))


# --- the Reach page ------------------------------------------------------------------------------
#
# These charts are rebuilt whenever the distance moves, so they are assembled as plain dicts and
# validated once, in one ``go.Figure(...)`` call, on top of the theme's layout computed once per
# process: building a figure trace by trace, and applying the full theme each time, took several
# times longer.


@functools.lru_cache(maxsize=1)
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
    labels = {key: " / ".join(_short_link_name(row.name.removeprefix("OIF ").removeprefix("NVIDIA "), 24,
                                               whole_words=True) for row in rows)
              for key, rows in points.items()}
    best_point = max((key for key in points if key[2]), key=lambda key: (key[1], key[0]), default=None)
    on_leash = {(step.reach_m, step.link.rate_gbps) for step in leash_steps(media)}
    # Labels in order of importance: the fastest that reaches, the leash's steps, then reaching and fast first.
    keys = sorted(points, key=lambda key: (key != best_point, key[:2] not in on_leash, not key[2], -key[1], key[0]))
    positions = dict(zip(keys, _label_positions([key[:2] for key in keys], [labels[key] for key in keys],
                                                _DISTANCE_RANGE, y_range,
                                                marker_px=[14.0 if key == best_point else 8.0 for key in keys]),
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
