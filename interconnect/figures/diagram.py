"""Diagrams without Plotly: a picture figure turned into a plain scene that the browser draws as SVG.

The seating grid and the fabric's picture are diagrams, not plots: their axes are hidden and every
mark sits where the builder put it. Plotly draws them well but only once its code (4.7 MB) has
loaded, which keeps a page's first picture waiting. :func:`diagram_scene` reads such a figure (the
one the builder made, so exports and tests keep one source) and writes the few things a diagram
holds, in data coordinates: polylines, square, open-square and round markers with their fill
colours and hover texts, text labels, the title and the legend. The component in
:mod:`interconnect.ui.diagram` maps them to pixels and draws them.

Anything outside that subset (a bar, a visible axis, an arrow) raises :class:`UnsupportedFigure`,
and the page draws the figure with Plotly instead, so the two pictures never disagree silently.
"""

from __future__ import annotations

import base64
import math
import re
from typing import Any

import numpy as np
import plotly.graph_objects as go

__all__ = ["UnsupportedFigure", "diagram_scene"]

_SYMBOLS = {"square", "square-open", "circle"}
_DASHES = {None: "solid", "solid": "solid", "dash": "dash", "dot": "dot"}
_BOLD = re.compile(r"^<b>([^<>]*)</b>$")


class UnsupportedFigure(ValueError):
    """The figure holds something a diagram does not draw; draw it with Plotly instead."""


def _plain(values: Any) -> Any:
    """A figure read back from JSON holds numeric arrays as Plotly's typed arrays (base64 and a dtype): decoded."""
    if isinstance(values, dict) and "bdata" in values and "dtype" in values:
        data = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        shape = values.get("shape")
        if isinstance(shape, str):
            shape = [int(part) for part in shape.split(",")]
        return data.reshape(shape) if shape else data
    return values


def _coords(values: Any) -> list[float | None]:
    """Rounded data coordinates; None (a gap in a line) for None or non-finite values."""
    values = _plain(values)
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiu":
        rounded = np.round(values.astype(float), 4)
        return [v if math.isfinite(v) else None for v in rounded.tolist()]
    out: list[float | None] = []
    for value in values:
        if value is None:
            out.append(None)
            continue
        number = float(value)
        out.append(round(number, 4) if math.isfinite(number) else None)
    return out


def _hex(colour: str) -> tuple[int, int, int]:
    text = colour.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    if len(text) != 6:
        raise UnsupportedFigure(f"colour {colour!r} is not #rrggbb")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def _scale_colours(values: np.ndarray, scale: Any, cmin: float, cmax: float) -> list[str]:
    """Numbers to colours on a Plotly colour scale given as [edge, '#rrggbb'] pairs (linear between stops)."""
    if not scale or isinstance(scale, str):
        raise UnsupportedFigure("a named colour scale")
    edges = np.array([float(edge) for edge, _ in scale])
    rgb = np.array([_hex(colour) for _, colour in scale], dtype=float)
    span = (cmax - cmin) or 1.0
    t = np.clip((np.asarray(values, dtype=float) - cmin) / span, 0.0, 1.0)
    channels = np.stack([np.interp(t, edges, rgb[:, k]) for k in range(3)], axis=-1)
    return ["#{:02x}{:02x}{:02x}".format(*(int(round(c)) for c in row)) for row in channels]


def _fills(marker: Any, count: int) -> tuple[list[str], list[int]]:
    """The markers' fill colours as a palette and one index per marker (5,000 GPUs share a dozen colours)."""
    colour = _plain(marker.color)
    if colour is None or isinstance(colour, str):
        return [colour or "#1f77b4"], [0] * count
    values = list(colour)
    if len(values) != count:
        raise UnsupportedFigure("one colour per marker expected")
    if values and all(isinstance(v, str) for v in values):
        palette, index = np.unique(np.asarray(values), return_inverse=True)
        return [str(c) for c in palette], index.tolist()
    numbers = np.asarray(values, dtype=float)
    low = float(marker.cmin) if marker.cmin is not None else float(np.nanmin(numbers))
    high = float(marker.cmax) if marker.cmax is not None else float(np.nanmax(numbers))
    levels, level_of = np.unique(numbers, return_inverse=True)  # a dozen group numbers, not 5,000 colours
    palette, colour_of = np.unique(np.asarray(_scale_colours(levels, marker.colorscale, low, high)),
                                   return_inverse=True)
    return [str(c) for c in palette], colour_of[level_of].tolist()


def _hover(trace: Any, count: int) -> list[str] | None:
    """One hover text per marker, as the builder gave them (the seating grid gives none above 600 GPUs)."""
    if trace.hoverinfo == "skip":
        return None
    texts = trace.hovertext if trace.hovertext is not None else trace.text if trace.hoverinfo == "text" else None
    if texts is None or isinstance(texts, str):
        return None if texts is None else [texts] * count
    texts = [str(t) for t in texts]
    return texts if len(texts) == count else None


def _line_layer(trace: Any, xs: list, ys: list) -> dict:
    line = trace.line
    if line.dash not in _DASHES:
        raise UnsupportedFigure(f"line dash {line.dash!r}")
    return {"kind": "line", "x": xs, "y": ys, "color": line.color or "#1f77b4", "width": float(line.width or 2),
            "dash": _DASHES[line.dash], "opacity": float(trace.opacity if trace.opacity is not None else 1)}


def _marker_layer(trace: Any, xs: list, ys: list) -> dict:
    marker = trace.marker
    symbol = marker.symbol or "circle"
    if not isinstance(symbol, str) or symbol not in _SYMBOLS:
        raise UnsupportedFigure(f"marker symbol {symbol!r}")
    size = marker.size if marker.size is not None else 6
    if not isinstance(size, int | float):
        raise UnsupportedFigure("one marker size per point")
    palette, index = _fills(marker, len(xs))
    outline = marker.line
    return {"kind": "markers", "x": xs, "y": ys, "symbol": symbol, "size": float(size),
            "palette": palette, "index": index,
            "stroke": outline.color if isinstance(outline.color, str) else None,
            "stroke_width": float(outline.width or 0) if isinstance(outline.width, int | float) else 0.0,
            "titles": _hover(trace, len(xs)),
            "opacity": float(trace.opacity if trace.opacity is not None else 1)}


def _legend_entry(trace: Any, layers: list[dict]) -> dict:
    line = next((layer for layer in layers if layer["kind"] == "line"), None)
    markers = next((layer for layer in layers if layer["kind"] == "markers"), None)
    entry: dict = {"name": str(trace.name)}
    if line is not None:
        entry.update(color=line["color"], dash=line["dash"])
    if markers is not None:
        first = markers["palette"][markers["index"][0]] if markers["index"] else "#9ca3af"  # as Plotly's legend
        entry.update(symbol=markers["symbol"], fill=first, stroke=markers["stroke"] or first)
    return entry


def _texts(figure: go.Figure, font_px: float) -> list[dict]:
    out = []
    for note in figure.layout.annotations or ():
        if note.showarrow is not False or (note.xref not in (None, "x")) or (note.yref not in (None, "y")):
            raise UnsupportedFigure("an annotation with an arrow or outside the data's coordinates")
        text = str(note.text or "")
        bold = _BOLD.match(text)
        if bold:
            text = bold.group(1)
        if "<" in text:
            raise UnsupportedFigure("an annotation with markup")
        anchor = {"left": "start", "right": "end"}.get(note.xanchor, "middle")
        out.append({"x": float(note.x), "y": float(note.y), "text": text, "bold": bool(bold), "anchor": anchor,
                    "color": note.font.color or None, "size": float(note.font.size or font_px)})
    return out


def _range(axis: Any, values: list[float | None]) -> list[float]:
    if axis.range is not None:
        low, high = (float(v) for v in axis.range)
        return [low, high]
    finite = [v for v in values if v is not None]
    if not finite:
        return [0.0, 1.0]
    low, high = min(finite), max(finite)
    pad = 0.02 * (high - low) or 0.5
    return [low - pad, high + pad]


def diagram_scene(figure: go.Figure) -> dict:
    """The figure's marks as a JSON-ready scene in data coordinates.

    Raises
    ------
    UnsupportedFigure
        When the figure holds anything but scatter lines and markers, plain or bold text labels,
        hidden axes, a title and a legend.

    Examples
    --------
    >>> fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 2], mode="markers", marker={"symbol": "square", "color": "#ff0000"}))
    >>> _ = fig.update_xaxes(visible=False).update_yaxes(visible=False)
    >>> scene = diagram_scene(fig)
    >>> scene["layers"][0]["palette"], scene["layers"][0]["index"], scene["y_range"]
    (['#ff0000'], [0, 0], [-0.04, 2.04])
    """
    layout = figure.layout
    for axis in (layout.xaxis, layout.yaxis):
        if axis.visible is not False:
            raise UnsupportedFigure("a visible axis")
    if layout.shapes or layout.images:
        raise UnsupportedFigure("shapes or images")
    font_px = float(layout.font.size or 14)
    layers: list[dict] = []
    legend: list[dict] = []
    all_x: list[float | None] = []
    all_y: list[float | None] = []
    for trace in figure.data:
        if trace.type != "scatter" or trace.visible is False:
            raise UnsupportedFigure(f"a {trace.type} trace")
        mode = trace.mode or "lines+markers"
        parts = set(mode.split("+"))
        if parts - {"lines", "markers"}:
            raise UnsupportedFigure(f"scatter mode {mode!r}")
        xs, ys = _coords(trace.x if trace.x is not None else ()), _coords(trace.y if trace.y is not None else ())
        if len(xs) != len(ys):
            raise UnsupportedFigure("x and y of different lengths")
        all_x += xs
        all_y += ys
        own = []
        if "lines" in parts:
            own.append(_line_layer(trace, xs, ys))
        if "markers" in parts:
            if None in xs or None in ys:
                raise UnsupportedFigure("a marker without a position")
            own.append(_marker_layer(trace, xs, ys))
        layers += own
        if trace.showlegend is not False and trace.name and layout.showlegend is not False:
            legend.append(_legend_entry(trace, own))
    if len(legend) < 2 and layout.showlegend is not True:
        legend = []  # Plotly shows a legend for two or more named traces unless told otherwise
    margin = layout.margin
    title = layout.title
    x_range, y_range = _range(layout.xaxis, all_x), _range(layout.yaxis, all_y)
    return {
        "title": str(title.text or ""),
        "title_size": float(title.font.size or font_px * 1.2),
        "font_size": font_px,
        "legend_size": float(layout.legend.font.size or font_px),
        "height": int(layout.height or 450),
        "margin": {side: float(getattr(margin, side) if getattr(margin, side) is not None else default)
                   for side, default in (("l", 80), ("r", 80), ("t", 100), ("b", 80))},
        "x_range": x_range,
        "y_range": y_range,
        "equal": layout.xaxis.scaleanchor == "y",
        "layers": layers,
        "texts": _texts(figure, font_px),
        "legend": legend,
    }
