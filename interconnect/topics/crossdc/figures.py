"""Figures of the Across-sites page: bytes per method, utilisation against WAN bandwidth, bandwidth against size.

Pure functions of plain arrays from :mod:`interconnect.topics.crossdc.model`, one trace per method (never
one per point), ticks in readable units (Mbit/s, Gbit/s; MB, GB; 1B, 100B parameters).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from interconnect.figures.theme import apply_theme
from interconnect.figures.ticks import powers_of_ten
from interconnect.units import Q_, format_bandwidth, format_quantity

__all__ = ["METHOD_COLOURS", "WEIGHT_SYNC_MODES", "bytes_figure", "required_bandwidth_figure", "utilization_figure",
           "weight_sync_figure"]

METHOD_COLOURS = {
    "dp": "#6b7280",
    "diloco": "#1565c0",
    "diloco-int8": "#00838f",
    "streaming-diloco": "#2e7d32",
    "sparseloco": "#ef6c00",
}
_LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.22, "xanchor": "left", "x": 0}


def _bit_ticks(low_bits: float, high_bits: float) -> tuple[list[float], list[str]]:
    """Decade ticks in bit/s between two rates, labelled '1 Mbit/s', '10 Gbit/s'."""
    values = powers_of_ten(low_bits, high_bits)
    return values, [format_bandwidth(Q_(v, "bit/s"), "bit/s") for v in values]


def _size_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    values = powers_of_ten(low, high)
    return values, [format_quantity(Q_(v, "B")) for v in values]


def _count_label(count: float) -> str:
    for factor, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if count >= factor:
            return f"{count / factor:g}{suffix}"
    return f"{count:g}"


def _rounded(values: np.ndarray, digits: int = 4) -> np.ndarray:
    """Values to ``digits`` significant figures: the eye cannot tell, and the chart's JSON is shorter."""
    values = np.asarray(values, dtype=float)
    safe = np.where(np.isfinite(values) & (values != 0), values, 1.0)
    scale = 10.0 ** (digits - 1 - np.floor(np.log10(np.abs(safe))))
    return np.where(np.isfinite(values), np.round(safe * scale) / scale * (values != 0), values)


def _finite(values: np.ndarray) -> list[float | None]:
    return [float(v) if math.isfinite(v) else None for v in _rounded(values)]


def bytes_figure(labels: Sequence[str], per_sync_bytes: Sequence[float], per_step_bytes: Sequence[float],
                 chosen: int = -1) -> go.Figure:
    """Two horizontal bars per method on a log axis: bytes one site sends per synchronisation and per inner step.

    ``chosen`` is the index of the method the page is set to (its name is drawn in bold).
    """
    names = [f"<b>{label}</b>" if i == chosen else label for i, label in enumerate(labels)]
    sync = np.asarray(per_sync_bytes, dtype=float)
    step = np.asarray(per_step_bytes, dtype=float)
    figure = go.Figure([
        go.Bar(y=names, x=values, orientation="h", name=name, marker_color=colour,
               text=[format_quantity(Q_(v, "B")) for v in values], textposition="outside", cliponaxis=False,
               hovertemplate="%{y}: %{text} " + name + "<extra></extra>")
        for name, values, colour in (("per synchronisation", sync, "#1565c0"),
                                     ("per inner step (average)", step, "#ef6c00"))
    ])
    figure.update_layout(title={"text": "What one site sends, per sync and per step"}, barmode="group", bargap=0.3)
    apply_theme(figure, height=420)
    figure.update_layout(legend=_LEGEND_BELOW, margin={"b": 100, "t": 70})
    positive = np.concatenate([sync[sync > 0], step[step > 0]])
    low, high = float(positive.min()), float(positive.max())
    ticks, text = _size_ticks(low, high)
    figure.update_xaxes(type="log", title="bytes per site", tickvals=ticks, ticktext=text, gridcolor="#e5e7eb",
                        range=[math.log10(low) - 0.3, math.log10(high) + 0.6])
    figure.update_yaxes(autorange="reversed", automargin=True)
    return figure


def utilization_figure(wan_bytes_per_s: np.ndarray, curves: Mapping[str, np.ndarray], labels: Mapping[str, str],
                       chosen: str, current_bytes_per_s: float, target_utilization: float,
                       markers: Sequence[tuple[str, float]] = ()) -> go.Figure:
    """Compute utilisation against WAN bandwidth, one curve per method; the chosen one thick.

    A dashed vertical line marks the page's bandwidth, a dotted horizontal line the target, and
    ``markers`` (name, bytes/s) label network classes along the top.
    """
    bits = np.asarray(wan_bytes_per_s, dtype=float) * 8
    figure = go.Figure()
    for method, values in curves.items():
        thick = method == chosen
        figure.add_trace(go.Scatter(
            x=_rounded(bits), y=np.round(np.asarray(values, dtype=float) * 100, 3), mode="lines",
            name=labels.get(method, method),
            line={"color": METHOD_COLOURS.get(method, "#374151"), "width": 5 if thick else 2.5,
                  "dash": "solid" if thick else "dot"},
            hovertemplate="%{x:.3s}bit/s: %{y:.1f} %<extra>" + labels.get(method, method) + "</extra>",
        ))
    figure.add_hline(y=target_utilization * 100, line_dash="dot", line_color="#b91c1c", line_width=1.5)
    figure.add_annotation(x=0.01, xref="x domain", xanchor="left", y=target_utilization * 100, yanchor="bottom",
                          text=f"target {target_utilization:.0%}", showarrow=False, font={"color": "#b91c1c"})
    figure.add_vline(x=current_bytes_per_s * 8, line_dash="dash", line_color="#111827", line_width=1.5)
    for name, rate in markers:
        figure.add_vline(x=rate * 8, line_dash="dot", line_color="#9ca3af", line_width=1)
        # Inside the plot, reading up from the axis beside each line: upright labels of neighbouring
        # classes collided, and labels above the plot ran into the title.
        figure.add_annotation(x=math.log10(rate * 8), y=0.03, yref="y domain", yanchor="bottom", showarrow=False,
                              text=name, textangle=-90, font={"size": 14, "color": "#4b5563"}, xanchor="right",
                              bgcolor="rgba(255,255,255,0.8)")
    figure.update_layout(title={"text": "Compute utilisation against WAN bandwidth per site", "y": 0.98})
    apply_theme(figure, height=520)
    figure.update_layout(legend=_LEGEND_BELOW, margin={"b": 110, "t": 120})
    ticks, text = _bit_ticks(bits[0], bits[-1])
    figure.update_xaxes(type="log", title="WAN bandwidth per site, each direction", tickvals=ticks, ticktext=text,
                        range=[math.log10(bits[0]), math.log10(bits[-1])], gridcolor="#e5e7eb")
    figure.update_yaxes(title="compute utilisation (%)", range=[0, 102], gridcolor="#e5e7eb")
    return figure


def required_bandwidth_figure(params: np.ndarray, curves: Mapping[str, np.ndarray], labels: Mapping[str, str],
                              chosen: str, current_params: float, target_utilization: float) -> go.Figure:
    """WAN bandwidth needed for the target utilisation against model size, one curve per method."""
    sizes = np.asarray(params, dtype=float)
    figure = go.Figure()
    finite_bits: list[float] = []
    for method, values in curves.items():
        bits = np.asarray(values, dtype=float) * 8
        finite_bits.extend(bits[np.isfinite(bits) & (bits > 0)].tolist())
        thick = method == chosen
        figure.add_trace(go.Scatter(
            x=_rounded(sizes), y=_finite(bits), mode="lines", name=labels.get(method, method), connectgaps=False,
            line={"color": METHOD_COLOURS.get(method, "#374151"), "width": 5 if thick else 2.5,
                  "dash": "solid" if thick else "dot"},
            hovertemplate="%{x:.3s} parameters: %{y:.3s}bit/s<extra>" + labels.get(method, method) + "</extra>",
        ))
    figure.add_vline(x=current_params, line_dash="dash", line_color="#111827", line_width=1.5)
    figure.update_layout(title={"text": f"WAN bandwidth for {target_utilization:.0%} utilisation, by model size"})
    apply_theme(figure, height=480)
    figure.update_layout(legend=_LEGEND_BELOW, margin={"b": 110, "t": 70})
    xticks = powers_of_ten(float(sizes[0]), float(sizes[-1]))
    figure.update_xaxes(type="log", title="model parameters", tickvals=xticks,
                        ticktext=[_count_label(v) for v in xticks],
                        range=[math.log10(sizes[0]), math.log10(sizes[-1])], gridcolor="#e5e7eb")
    if finite_bits:
        low, high = min(finite_bits), max(finite_bits)
        ticks, text = _bit_ticks(low, high)
        figure.update_yaxes(type="log", title="WAN bandwidth needed", tickvals=ticks, ticktext=text,
                            gridcolor="#e5e7eb", range=[math.log10(low) - 0.2, math.log10(high) + 0.2])
    else:
        figure.update_yaxes(type="log", title="WAN bandwidth needed (out of reach at every size)")
    return figure


#: Weight-sync payload modes: colour and legend words.
WEIGHT_SYNC_MODES = {"full": ("#1565c0", "every value"),
                     "topk": ("#ef6c00", "{share} of the values, with their positions (delta or top-k)")}


def weight_sync_figure(rates_bytes_per_s: Sequence[float], times_s: Mapping[str, Sequence[float]], chosen: str,
                       current_bytes_per_s: float, generation_s: float, link_words: str,
                       share: float = 0.02) -> go.Figure:
    """One weight sync's time against the route's link rate, one line per payload mode (the chosen one thick),
    with the generation time it must hide behind as a dotted line and the page's rate as a dashed one; ``share``
    is the fraction of the values a partial sync sends.

    >>> fig = weight_sync_figure([1e9, 1e10], {"full": [140.0, 14.0]}, "full", 1.25e10, 60.0, "WAN")
    >>> fig.data[0].name, list(fig.data[0].y), fig.layout.xaxis.type
    ('every value', [140.0, 14.0], 'log')
    """
    bits = [float(r) * 8 for r in rates_bytes_per_s]
    figure = go.Figure()
    for mode, values in times_s.items():
        colour, words = WEIGHT_SYNC_MODES.get(mode, ("#374151", mode))
        words = words.format(share=f"{share * 100:.3g} %")
        thick = mode == chosen
        figure.add_trace(go.Scatter(x=_rounded(np.asarray(bits)), y=[round(float(v), 6) for v in values],
                                    mode="lines", name=words,
                                    line={"color": colour, "width": 5 if thick else 2.5,
                                          "dash": "solid" if thick else "dot"},
                                    hovertemplate="%{x:.3s}bit/s: %{y:.3g} s<extra>" + words + "</extra>"))
    figure.add_hline(y=generation_s, line_dash="dot", line_color="#b91c1c", line_width=1.5)
    figure.add_annotation(x=0.99, xref="x domain", xanchor="right", y=math.log10(generation_s), yanchor="bottom",
                          text=f"generation per step: {format_quantity(Q_(generation_s, 's'))} (below: hidden)",
                          showarrow=False, font={"color": "#b91c1c"})
    figure.add_vline(x=current_bytes_per_s * 8, line_dash="dash", line_color="#111827", line_width=1.5)
    figure.update_layout(title={"text": "One weight sync against the link's rate", "y": 0.98})
    apply_theme(figure, height=400)  # a tour step shows it whole under its caption at 1280 x 720
    figure.update_layout(legend=_LEGEND_BELOW, margin={"b": 110, "t": 70})
    ticks, text = _bit_ticks(bits[0], bits[-1])
    figure.update_xaxes(type="log", title=f"{link_words}, each direction", tickvals=ticks, ticktext=text,
                        range=[math.log10(bits[0]), math.log10(bits[-1])], gridcolor="#e5e7eb")
    figure.update_yaxes(type="log", title="time of one sync (s)", gridcolor="#e5e7eb", dtick=1)
    return figure
