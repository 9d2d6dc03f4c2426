"""Plotly builders for the All-reduce page: pure functions of core results, one look for all.

Every axis is labelled in readable units (µs / ms / s, MB/s / GB/s / TB/s, B / KiB / MiB / GiB) at
whole decades only, so a log axis never shows a bare "2" or "5" minor label or "1M µs".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from interconnect.figures.theme import apply_theme
from interconnect.figures.ticks import powers_of_ten
from interconnect.hardware.collectives import ALGORITHM_LABELS, COLLECTIVE_LABELS
from interconnect.hardware.vendor import VendorWords, nvidia_words
from interconnect.topics.allreduce.view import AllreduceView, NodeCurve, PublishedCurve
from interconnect.units import Q_, format_size

__all__ = [
    "ALGORITHM_COLOURS",
    "Overlay",
    "busbw_figure",
    "algorithm_label",
    "choice_label",
    "decade_ticks",
    "node_count_figure",
    "time_figure",
    "traffic_figure",
]

ALGORITHM_COLOURS = {
    "flat_ring": "#9ca3af",
    "ring": "#1565c0",
    "tree": "#2e7d32",
    "hierarchical": "#ef6c00",
    "nvls": "#7b1fa2",
    "nvls_tree": "#c2185b",
    "collnet": "#00838f",
    "pat": "#6d4c41",
    "p2p": "#1565c0",
}
#: Algorithms of the other collectives, in the legend.
_OTHER_LABELS = {"pat": "PAT (parallel aggregated trees, one GPU per node)",
                 "p2p": "Point-to-point (grouped send/recv)"}
_FIT = "#dc2626"
SHORT_NAMES = {"flat_ring": "Flat ring", "ring": "Ring", "tree": "Tree", "hierarchical": "Hierarchical",
               "nvls": "NVLS", "nvls_tree": "NVLSTree", "collnet": "SHARP", "pat": "PAT", "p2p": "P2P", "none": "none"}
_SIZE_TICKS = [2**p for p in range(3, 35, 3)]
_LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0}
_CHOSEN = "#111827"
_FASTEST = "#f59e0b"


def _finish(figure: go.Figure, height: int) -> go.Figure:
    """The shared theme, with the legend under the plot (these charts have many traces)."""
    apply_theme(figure, height=height)
    figure.update_layout(legend=_LEGEND_BELOW, margin={"b": 190})
    return figure


def choice_label(algorithm: str, protocol: str, library: str = "NCCL") -> str:
    """The name of the chosen line: the library's pick (NCCL's, RCCL's, ...), or what the user forced.

    >>> choice_label("auto", "auto"), choice_label("ring", "simple"), choice_label("auto", "auto", "RCCL")
    ("NCCL's pick", 'Forced: Ring, Simple', "RCCL's pick")
    """
    if algorithm == "auto" and protocol.lower() == "auto":
        return f"{library}'s pick"
    names = {"ll": "LL", "ll128": "LL128", "simple": "Simple"}
    parts = [SHORT_NAMES.get(algorithm, algorithm) if algorithm != "auto" else f"{library}'s algorithm",
             names.get(protocol.lower(), protocol) if protocol.lower() != "auto" else f"{library}'s protocol"]
    return "Forced: " + ", ".join(parts)


def decade_ticks(low: float, high: float, formatter) -> tuple[list[float], list[str]]:
    """Tick values at every power of ten from ``low`` to ``high`` and their labels.

    >>> decade_ticks(3.0, 2e3, lambda v: f"{v:g}")
    ([1.0, 10.0, 100.0, 1000.0, 10000.0], ['1', '10', '100', '1000', '10000'])
    """
    values = powers_of_ten(low, high) if high > low else []  # clipped to what a float holds
    return values, [formatter(v) for v in values]


def _time_text(value_us: float) -> str:
    """A time in µs as readable text, three significant digits: ``49.2 µs``, ``1.23 ms``.

    The same text as :func:`interconnect.units.format_duration`, without pint: a chart labels hundreds
    of points and pint would take most of the figure's build time.

    >>> from interconnect.units import format_duration
    >>> [_time_text(v) for v in (0.5, 49.2004, 1234.5, 2e7)] == [format_duration(Q_(v, "us")) for v in
    ...                                                        (0.5, 49.2004, 1234.5, 2e7)]
    True
    """
    if not math.isfinite(value_us):
        return ""
    for scale, unit in ((1e6, "s"), (1e3, "ms"), (1.0, "µs")):
        if abs(value_us) >= scale:
            return f"{value_us / scale:.3g} {unit}"
    return f"{value_us * 1e3:.3g} ns"


def _bw_text(value_gbps: float) -> str:
    """A bandwidth in GB/s as readable text, three significant digits: ``480 GB/s``, ``12.3 MB/s``.

    >>> from interconnect.units import format_bandwidth
    >>> [_bw_text(v) for v in (2e-6, 0.0123, 480.3, 1500.0)] == [format_bandwidth(Q_(v, "GB/s")) for v in
    ...                                                         (2e-6, 0.0123, 480.3, 1500.0)]
    True
    """
    if not math.isfinite(value_gbps):
        return ""
    for scale, unit in ((1e3, "TB/s"), (1.0, "GB/s"), (1e-3, "MB/s"), (1e-6, "kB/s")):
        if abs(value_gbps) >= scale:
            return f"{value_gbps / scale:.3g} {unit}"
    return f"{value_gbps * 1e9:.3g} B/s"


class Overlay:
    """Measured points to draw over the model: sizes, times and busbw, with a label."""

    def __init__(self, label: str, size_bytes: np.ndarray, time_us: np.ndarray, busbw_gbps: np.ndarray) -> None:
        self.label = label
        self.size_bytes = np.asarray(size_bytes, dtype=float)
        self.time_us = np.asarray(time_us, dtype=float)
        self.busbw_gbps = np.asarray(busbw_gbps, dtype=float)


def _size_axis(figure: go.Figure, collective: str = "all_reduce") -> None:
    title = "message size per GPU" if collective == "all_reduce" else "message size (nccl-tests' size column)"
    figure.update_xaxes(type="log", title=title, tickvals=_SIZE_TICKS,
                        ticktext=[format_size(Q_(v, "B")) for v in _SIZE_TICKS], gridcolor="#e5e7eb",
                        minor={"showgrid": False, "ticks": ""})


def _log_axis(figure: go.Figure, values: list[np.ndarray], title: str, formatter, *, floor_fraction: float | None
              ) -> float:
    """A log y axis with decade ticks in readable units; ``floor_fraction`` cuts the range at peak x it.

    Returns the bottom of the range (the value below which nothing is drawn)."""
    finite = np.concatenate([v[np.isfinite(v) & (v > 0)] for v in values]) if values else np.array([])
    if finite.size == 0:
        figure.update_yaxes(type="log", title=title)
        return 0.0
    high = float(finite.max()) * 1.6
    low = float(finite.min()) / 1.6
    if floor_fraction is not None:
        low = max(low, high * floor_fraction)
    ticks, text = decade_ticks(low, high, formatter)
    figure.update_yaxes(type="log", title=title, range=[math.log10(low), math.log10(high)], tickvals=ticks,
                        ticktext=text, gridcolor="#e5e7eb", minor={"showgrid": False, "ticks": ""})
    return low


def _overlay_traces(figure: go.Figure, overlays: Sequence[Overlay], field: str, formatter) -> None:
    symbols = ["circle-open", "diamond-open", "square-open", "x"]
    for i, overlay in enumerate(overlays):
        values = getattr(overlay, field)
        figure.add_trace(go.Scatter(
            x=overlay.size_bytes, y=values, mode="markers", name=overlay.label,
            marker={"symbol": symbols[i % len(symbols)], "size": 11, "color": "#111827", "line": {"width": 2}},
            text=[f"{format_size(Q_(float(s), 'B'))}: {formatter(float(v))}" for s, v in
                  zip(overlay.size_bytes, values, strict=True)],
            hovertemplate="%{text}<extra>" + overlay.label + "</extra>",
        ))


def _pick_markers(figure: go.Figure, view: AllreduceView) -> None:
    """A thin vertical line where the chosen algorithm or protocol changes, labelled with the new pick."""
    for i, change in enumerate(view.pick_changes):
        figure.add_shape(type="line", x0=change.size_bytes, x1=change.size_bytes, y0=0, y1=1, yref="y domain",
                         line={"color": "#6b7280", "width": 1, "dash": "dot"})
        figure.add_annotation(
            x=math.log10(change.size_bytes), y=0.92 - 0.08 * (i % 3), yref="y domain", xanchor="left",
            text=f"→ {SHORT_NAMES.get(change.algorithm, change.algorithm)} {change.protocol}", showarrow=False,
            font={"size": 14, "color": "#374151"}, bgcolor="rgba(255,255,255,0.8)",
        )


def _title(view: AllreduceView, what: str) -> str:
    name = COLLECTIVE_LABELS.get(view.collective, view.collective)
    return f"{name[0].upper()}{name[1:]} {what}"


def _level(figure: go.Figure, size: np.ndarray, value: float | None, label: str) -> None:
    """A measured level (the log's latency floor or plateau) as a red line across the sizes."""
    if value is None or not math.isfinite(value) or value <= 0:
        return
    figure.add_trace(go.Scatter(x=[size[0], size[-1]], y=[value, value], mode="lines", name=label,
                                line={"color": _FIT, "width": 2, "dash": "dashdot"}, hoverinfo="name"))


def time_figure(view: AllreduceView, overlays: Sequence[Overlay] = (), *, chosen_label: str | None = None,
                floor_us: float | None = None, floor_label: str = "", words: VendorWords | None = None) -> go.Figure:
    """A collective's time against message size for every algorithm; the chosen one drawn thick, where
    the pick changes marked, the fastest the model knows when it is faster, and a log's latency floor.

    ``words`` are the maker's words (:func:`~interconnect.hardware.vendor.vendor_words`): every legend
    that names the library names the cluster's own (RCCL on AMD), NCCL's by default."""
    words = words or nvidia_words()
    chosen_label = chosen_label or words.pick
    figure = go.Figure()
    size = view.size_bytes
    if np.isfinite(view.crossover_bytes):
        figure.add_vrect(x0=size[0], x1=view.crossover_bytes, fillcolor="#fef3c7", opacity=0.5, line_width=0)
        figure.add_vrect(x0=view.crossover_bytes, x1=size[-1], fillcolor="#e0f2fe", opacity=0.4, line_width=0)
        # Placed by axis-domain fraction: data coordinates on a log axis would need log10 values, and
        # Plotly hides a data-anchored annotation that rounds to just outside the range.
        figure.add_annotation(x=0.01, xref="x domain", xanchor="left", y=1, yref="y domain", yanchor="top",
                              text="latency-bound", showarrow=False, font={"color": "#92400e"})
        figure.add_annotation(x=0.99, xref="x domain", xanchor="right", y=1, yref="y domain", yanchor="top",
                              text="bandwidth-bound", showarrow=False, font={"color": "#075985"})
    for name, times in view.time_us_by_algorithm.items():
        if not np.isfinite(times).any():
            continue
        figure.add_trace(go.Scatter(
            x=size, y=np.where(np.isfinite(times), times, None), mode="lines", name=_label(name, words),
            line={"color": ALGORITHM_COLOURS.get(name, "#374151"), "width": 2, "dash": "dot"},
            text=[_time_text(t) if np.isfinite(t) else "" for t in times],
            hovertemplate="%{x:.3s} B: %{text}<extra>" + _label(name, words) + "</extra>",
        ))
    chosen = view.chosen
    figure.add_trace(go.Scatter(
        x=size, y=np.where(np.isfinite(chosen.time_us), chosen.time_us, None), mode="lines", name=chosen_label,
        line={"color": _CHOSEN, "width": 5}, opacity=0.45,
        text=[f"{_time_text(t)}, {SHORT_NAMES.get(a, a)} {p}" for t, a, p in
              zip(chosen.time_us, chosen.algorithm, chosen.protocol, strict=True)],
        hovertemplate="%{x:.3s} B: %{text}<extra>" + chosen_label + "</extra>",
    ))
    if view.fastest_differs:
        figure.add_trace(go.Scatter(
            x=size, y=view.fastest.time_us, mode="lines",
            name=f"fastest the model knows ({words.library} does not pick it)",
            line={"color": _FASTEST, "width": 2, "dash": "dash"},
            text=[f"{_time_text(t)}, {SHORT_NAMES.get(a, a)} {p}" for t, a, p in
                  zip(view.fastest.time_us, view.fastest.algorithm, view.fastest.protocol, strict=True)],
            hovertemplate="%{x:.3s} B: %{text}<extra>fastest</extra>",
        ))
    _pick_markers(figure, view)
    _overlay_traces(figure, overlays, "time_us", _time_text)
    _level(figure, size, floor_us, floor_label or f"your latency floor: {_time_text(floor_us or 0.0)}")
    figure.update_layout(title={"text": _title(view, "time against message size")})
    _size_axis(figure, view.collective)
    figure.update_xaxes(range=[math.log10(float(size[0])), math.log10(float(size[-1]))])
    _log_axis(figure, [chosen.time_us, *[o.time_us for o in overlays]], "time", _time_text, floor_fraction=None)
    return _finish(figure, 600)


def busbw_figure(view: AllreduceView, overlays: Sequence[Overlay] = (), *, chosen_label: str | None = None,
                 plateau_gbps: float | None = None, plateau_label: str = "", words: VendorWords | None = None
                 ) -> go.Figure:
    """algbw and busbw of the chosen algorithm, busbw per algorithm, the ring limit and a log's plateau
    (``words``: the maker's words, as :func:`time_figure`)."""
    words = words or nvidia_words()
    chosen_label = chosen_label or words.pick
    figure = go.Figure()
    size = view.size_bytes
    for name, busbw in view.busbw_by_algorithm().items():
        if not np.isfinite(busbw).any():
            continue
        figure.add_trace(go.Scatter(
            x=size, y=np.where(np.isfinite(busbw), busbw, None), mode="lines", name=f"busbw, {_label(name, words)}",
            line={"color": ALGORITHM_COLOURS.get(name, "#374151"), "width": 2, "dash": "dot"},
            visible="legendonly" if name == "flat_ring" else True,
            text=[_bw_text(b) if np.isfinite(b) else "" for b in busbw],
            hovertemplate="%{x:.3s} B: %{text}<extra>" + _label(name, words) + "</extra>",
        ))
    chosen = view.chosen
    figure.add_trace(go.Scatter(x=size, y=chosen.busbw_gbps, mode="lines", name=f"busbw, {chosen_label}",
                                line={"color": _CHOSEN, "width": 4},
                                text=[_bw_text(b) for b in chosen.busbw_gbps],
                                hovertemplate="%{x:.3s} B: %{text}<extra>busbw</extra>"))
    figure.add_trace(go.Scatter(x=size, y=chosen.algbw_gbps, mode="lines", name=f"algbw, {chosen_label}",
                                line={"color": _CHOSEN, "width": 2, "dash": "dash"},
                                text=[_bw_text(b) for b in chosen.algbw_gbps],
                                hovertemplate="%{x:.3s} B: %{text}<extra>algbw</extra>"))
    if view.fastest_differs:
        figure.add_trace(go.Scatter(x=size, y=view.fastest.busbw_gbps, mode="lines",
                                    name="busbw, fastest the model knows", line={"color": _FASTEST, "width": 2,
                                                                                  "dash": "dash"}))
    figure.add_trace(go.Scatter(x=[size[0], size[-1]], y=[view.wire_gbps, view.wire_gbps], mode="lines",
                                name=f"{view.wire_label}: {_bw_text(view.wire_gbps)}",
                                line={"color": "#b91c1c", "dash": "dash", "width": 2}, hoverinfo="skip"))
    _overlay_traces(figure, overlays, "busbw_gbps", _bw_text)
    _level(figure, size, plateau_gbps, plateau_label or f"your plateau busbw: {_bw_text(plateau_gbps or 0.0)}")
    reported = f"bandwidth as {words.tests} reports it"
    figure.update_layout(title={"text": reported[0].upper() + reported[1:] if view.collective == "all_reduce"
                                else _title(view, reported)})
    _size_axis(figure, view.collective)
    # From a thousandth of the peak: below that the curve is pure latency and says nothing new; the
    # size axis starts where the chosen busbw enters the chart, so no third of it stays empty.
    floor = _log_axis(figure, [chosen.busbw_gbps, np.array([view.wire_gbps]), *[o.busbw_gbps for o in overlays]],
                      "bandwidth", _bw_text, floor_fraction=1e-3)
    visible = size[np.isfinite(chosen.busbw_gbps) & (chosen.busbw_gbps >= floor)]
    if visible.size:
        start = 2.0 ** (3 * math.floor(math.log2(max(float(visible[0]), 8.0)) / 3))  # the size tick below it
        figure.update_xaxes(range=[math.log10(start), math.log10(float(size[-1]))])
    return _finish(figure, 600)


def algorithm_label(name: str, words: VendorWords | None = None) -> str:
    """An algorithm's name in a legend, naming the cluster's own library where it names one.

    >>> from interconnect.hardware.vendor import VendorWords
    >>> rccl = VendorWords("RCCL", "rccl-tests", "Infinity Fabric", "one Infinity Fabric node", "RCCL's pick")
    >>> algorithm_label("tree"), algorithm_label("tree", rccl), algorithm_label("ring", rccl)
    ('Double binary tree (NCCL Tree)', 'Double binary tree (RCCL Tree)', 'Ring (RCCL, node-aware)')
    """
    label = ALGORITHM_LABELS.get(name, _OTHER_LABELS.get(name, name))
    library = (words or nvidia_words()).library
    if library == "NCCL":
        return label
    if " " in library:  # "the collective library": no maker's name to put before "Tree"
        label = label.replace("NCCL Tree", "the library's tree")
    return label.replace("NCCL", library)


_label = algorithm_label


def node_count_figure(curve: NodeCurve, published: PublishedCurve | None = None, *,
                      chosen_label: str | None = None, size_label: str = "",
                      reference_band: tuple[tuple[int, float, float], ...] = (), reference_label: str = "",
                      words: VendorWords | None = None) -> go.Figure:
    """busbw at one size against the number of nodes: per algorithm, as chosen (the headline's own
    number), the fastest the model knows, and published curves with their spread (``words``: the
    maker's words, as :func:`time_figure`)."""
    words = words or nvidia_words()
    chosen_label = chosen_label or words.pick
    figure = go.Figure()
    counts = curve.node_counts
    for name, busbw in curve.busbw_by_algorithm.items():
        if not np.isfinite(busbw).any():
            continue
        figure.add_trace(go.Scatter(
            x=counts, y=np.where(np.isfinite(busbw), busbw, None), mode="lines", name=_label(name, words),
            line={"color": ALGORITHM_COLOURS.get(name, "#374151"), "dash": "dot"},
            visible="legendonly" if name in ("flat_ring", "hierarchical") else True,
            text=[_bw_text(b) if np.isfinite(b) else "" for b in busbw],
            hovertemplate="%{x} nodes: %{text}<extra>" + _label(name, words) + "</extra>",
        ))
    if published is not None and published.low_gbps is not None and published.high_gbps is not None:
        figure.add_trace(go.Scatter(
            x=np.concatenate([published.x, published.x[::-1]]),
            y=np.concatenate([published.high_gbps, published.low_gbps[::-1]]), fill="toself", mode="lines",
            fillcolor="rgba(239,108,0,0.15)", line={"width": 0}, name=published.spread_label, hoverinfo="skip",
        ))
    if reference_band:
        nodes = [row[0] for row in reference_band]
        figure.add_trace(go.Scatter(
            x=nodes + nodes[::-1], y=[row[2] for row in reference_band] + [row[1] for row in reference_band][::-1],
            fill="toself", mode="lines", fillcolor="rgba(21,101,192,0.12)",
            line={"color": "rgba(21,101,192,0.5)", "width": 1}, name=reference_label, hoverinfo="skip",
        ))
    figure.add_trace(go.Scatter(
        x=counts, y=curve.busbw_chosen, mode="lines+markers", name=chosen_label, line={"color": _CHOSEN, "width": 4},
        text=[f"{_bw_text(b)}, {SHORT_NAMES.get(a, a)} {p}" if np.isfinite(b) else "" for b, a, p in
              zip(curve.busbw_chosen, curve.algorithm_chosen, curve.protocol_chosen, strict=True)],
        hovertemplate="%{x} nodes: %{text}<extra>" + chosen_label + "</extra>",
    ))
    with np.errstate(invalid="ignore"):
        faster = np.nanmax(curve.busbw_fastest / curve.busbw_chosen) > 1.03 if np.isfinite(curve.busbw_chosen).any() \
            else False
    if faster:
        figure.add_trace(go.Scatter(x=counts, y=curve.busbw_fastest, mode="lines", name="fastest the model knows",
                                    line={"color": _FASTEST, "width": 2, "dash": "dash"}))
    if published is not None:
        figure.add_trace(go.Scatter(
            x=published.x, y=published.busbw_gbps, mode="markers+lines", name=published.label,
            marker={"symbol": "diamond", "size": 12, "color": "#ef6c00"}, line={"color": "#ef6c00", "width": 1},
            text=[_bw_text(b) for b in published.busbw_gbps],
            hovertemplate="%{x} nodes: %{text}<extra>" + published.label + "</extra>",
        ))
    size_text = size_label or format_size(Q_(curve.size_bytes, "B"))
    figure.update_layout(title={"text": f"busbw at {size_text} against cluster size"})
    figure.update_xaxes(type="log", title="nodes", tickvals=list(counts), ticktext=[f"{c:,}" for c in counts],
                        gridcolor="#e5e7eb", minor={"showgrid": False, "ticks": ""})
    values = [curve.busbw_chosen]
    if published is not None:
        values.append(published.busbw_gbps if published.low_gbps is None else published.low_gbps)
    _log_axis(figure, values, "busbw", _bw_text, floor_fraction=1e-3)
    return _finish(figure, 580)


def traffic_figure(traffic: Mapping[str, float], size_bytes: int, *, words: VendorWords | None = None
                   ) -> go.Figure:
    """Bytes per GPU that leave the node for each algorithm, as a share of the message (``words``: the
    maker's words, as :func:`time_figure`)."""
    names = list(traffic)
    values = [traffic[name] / size_bytes for name in names]
    figure = go.Figure(go.Bar(
        x=[_label(name, words).split(" (")[0] for name in names], y=values,
        hovertext=[_label(name, words) for name in names],
        marker_color=[ALGORITHM_COLOURS.get(name, "#374151") for name in names],
        text=[f"{v:.3g} × S" for v in values], textposition="outside", cliponaxis=False,
    ))
    figure.update_layout(title={"text": "Bytes per GPU that leave the node, per all-reduce of S bytes"},
                         showlegend=False)
    figure.update_yaxes(title="× message size S", rangemode="tozero")
    return apply_theme(figure, height=440)
