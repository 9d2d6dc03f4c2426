"""Live charts: every curve a slider can show, computed once, for the browser to pick from.

A live chart is a family of curves over one control's range (for example all-reduce busbw against
message size, one set of curves per node count). The Python models compute the whole family in one
vectorized pass; the browser component (:mod:`interconnect.ui.live`) then redraws within a frame
while the slider moves, picking among these numbers without computing any of them. This module
builds the plain, JSON-ready description of such a family: axes with their ticks already written in
readable units, the series, the slider's values and labels, and one sentence per slider position.

It holds no Streamlit code, so it is tested like every other figure builder.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["LiveAxis", "LiveMarker", "LiveSeries", "live_spec", "log_axis_ticks"]


@dataclass(frozen=True)
class LiveAxis:
    """One axis: its title, log or linear, its range and its labelled ticks (in data units)."""

    title: str
    log: bool
    low: float
    high: float
    ticks: tuple[tuple[float, str], ...]

    def as_dict(self, values: Sequence[float] | None = None) -> dict:
        """The axis as the browser reads it (the range in log10 for a log axis)."""
        low, high = (math.log10(self.low), math.log10(self.high)) if self.log else (self.low, self.high)
        out = {"title": self.title, "log": self.log, "range": [low, high],
               "ticks": [{"value": float(v), "text": text} for v, text in self.ticks]}
        if values is not None:
            out["values"] = [_finite_or_none(v) for v in values]
        return out


@dataclass(frozen=True)
class LiveSeries:
    """One named line, drawn for every slider position: ``y_by_position[i]`` has one value per x."""

    name: str
    colour: str
    y_by_position: np.ndarray
    width: float = 2.0
    dash: str = "solid"  # "solid", "dot" or "dash"


@dataclass(frozen=True)
class LiveMarker:
    """A vertical line at one x, the same at every slider position (the page's own bucket size, say)."""

    x: float
    text: str
    colour: str = "#111827"
    dash: str = "dash"  # "solid", "dot" or "dash"


def _finite_or_none(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def log_axis_ticks(values: np.ndarray, formatter: Callable[[float], str], *, pad_decades: float = 0.05,
                   floor: float | None = None) -> tuple[float, float, tuple[tuple[float, str], ...]]:
    """Range and decade ticks of a log axis that holds every finite, positive value of ``values``.

    The range stays the same for every slider position (the axes must not jump while the hand
    moves). ``floor`` cuts off values far below the interesting part (a busbw of a few kB/s at 8 B).

    >>> low, high, ticks = log_axis_ticks(np.array([3.0, 40.0, 700.0]), lambda v: f"{v:g} x")
    >>> [text for _, text in ticks]
    ['10 x', '100 x']
    >>> round(math.log10(low), 2), round(math.log10(high), 2)
    (0.43, 2.9)
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite) & (finite > 0)]
    if floor is not None:
        finite = finite[finite >= floor]
    if finite.size == 0:
        return 0.1, 10.0, ((1.0, formatter(1.0)),)
    low_log = math.log10(float(finite.min())) - pad_decades
    high_log = math.log10(float(finite.max())) + pad_decades
    if high_log - low_log < 1:
        middle = (low_log + high_log) / 2
        low_log, high_log = middle - 0.5, middle + 0.5
    step = 1 if high_log - low_log <= 7 else 2
    decades = [d for d in range(math.ceil(low_log), math.floor(high_log) + 1) if d % step == 0]
    ticks = tuple((10.0 ** d, formatter(10.0 ** d)) for d in decades)
    return 10.0 ** low_log, 10.0 ** high_log, ticks


def live_spec(*, title: str, slider_label: str, slider_values: Sequence[float], slider_labels: Sequence[str],
              index: int, x_axis: LiveAxis, x_values: Sequence[float], y_axis: LiveAxis,
              series: Sequence[LiveSeries], readouts: Sequence[str], present: bool = False,
              height_px: int = 420, markers: Sequence[LiveMarker] = (), margin_left: int = 96) -> dict:
    """The JSON-ready description of a live chart, checked for shape.

    Parameters
    ----------
    title : str
        What the chart shows (its accessible name).
    slider_label, slider_values, slider_labels : str, sequence, sequence of str
        The control: its name, the value at each position (sent back to the server when the
        movement ends) and how each position reads.
    index : int
        The position the page shows now.
    x_axis, x_values, y_axis : LiveAxis, sequence of float, LiveAxis
        The axes and the x of every point.
    series : sequence of LiveSeries
        The lines; each holds one row of y values per slider position.
    readouts : sequence of str
        One sentence per slider position, shown beside the slider and announced by screen readers.
    present : bool
        Presentation mode: larger text and lines.
    height_px : int
        The chart's height at a 1000-unit width.
    markers : sequence of LiveMarker
        Vertical lines with a label at the top, fixed while the slider moves; one outside the
        x axis's range is left out.
    margin_left : int
        Room left of the plot for the y ticks, at a 1000-unit width (wider for rows named in words).

    Returns
    -------
    dict
        Plain lists, strings and numbers; non-finite values become ``None`` (gaps in a line).

    Raises
    ------
    ValueError
        When the shapes disagree (a builder's bug, never a visitor's input).

    Examples
    --------
    >>> axis = LiveAxis("x", False, 0.0, 2.0, ((1.0, "1"),))
    >>> spec = live_spec(title="t", slider_label="n", slider_values=[1, 2], slider_labels=["1", "2"], index=1,
    ...                  x_axis=axis, x_values=[0.0, 2.0], y_axis=axis,
    ...                  series=[LiveSeries("a", "#000", np.array([[0.0, 1.0], [1.0, float("inf")]]))],
    ...                  readouts=["one", "two"])
    >>> spec["series"][0]["y"]
    [[0.0, 1.0], [1.0, None]]
    """
    positions = len(slider_values)
    if not (positions == len(slider_labels) == len(readouts)) or not 0 <= index < positions:
        raise ValueError("slider values, labels and readouts must have one entry per position")
    rows = []
    for line in series:
        y = np.asarray(line.y_by_position, dtype=float)
        if y.shape != (positions, len(x_values)):
            raise ValueError(f"series {line.name!r} has shape {y.shape}, expected {(positions, len(x_values))}")
        rows.append({"name": line.name, "color": line.colour, "width": line.width, "dash": line.dash,
                     "y": [[_finite_or_none(v) for v in row] for row in y]})
    return {
        "title": title,
        "slider": {"label": slider_label, "values": [float(v) for v in slider_values],
                   "labels": list(slider_labels), "index": int(index)},
        "x": x_axis.as_dict(x_values),
        "y": y_axis.as_dict(),
        "series": rows,
        "readouts": list(readouts),
        "markers": [{"x": float(m.x), "text": m.text, "color": m.colour, "dash": m.dash} for m in markers
                    if math.isfinite(m.x) and min(x_axis.low, x_axis.high) <= m.x <= max(x_axis.low, x_axis.high)],
        "font_scale": 1.35 if present else 1.0,
        "height": int(height_px),
        "margin_left": int(margin_left),
    }
