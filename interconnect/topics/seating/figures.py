"""Plotly builders for the Seating Chart page: the GPU grid, the bill and the memory chart.

Pure functions of :mod:`interconnect.topics.seating.model` results. The grid draws any number of GPUs
as a handful of traces (domain outlines as one path, all GPUs as one marker trace coloured per
point, the groups that straddle domains as one more, NVLink and NIC traffic as one line trace each),
so a 72-rack GB200 cluster (5,184 GPUs) costs the browser no more traces than one server.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from interconnect.figures.theme import LAYER_COLOURS, apply_theme
from interconnect.topics.seating.model import RECOMPUTE_WORDS, SCHEDULES, Layout, Memory, Plan, groups_of, seat_map

__all__ = ["COLOUR_BY", "MAX_GRID_GPUS", "bill_figure", "gpu_grid_figure", "grid_positions", "memory_figure"]

#: What the grid can be coloured by (URL values of the page's toggle).
COLOUR_BY = {"tp": "tensor-parallel group", "pp": "pipeline stage", "dp": "data-parallel replica",
             "cp": "context-parallel group", "ep": "expert-parallel group"}
_PALETTE = ["#1565c0", "#ef6c00", "#2e7d32", "#7b1fa2", "#00838f", "#c2185b", "#6d4c41", "#5c6bc0",
            "#9e9d24", "#00695c", "#ad1457", "#455a64"]
_STEPS = [[edge, colour] for i, colour in enumerate(_PALETTE)
          for edge in (i / len(_PALETTE), (i + 1) / len(_PALETTE))]
_WARNING = "#d32f2f"
_NVLINK = LAYER_COLOURS["scale-up"]
_NIC = LAYER_COLOURS["scale-out"]
_MAX_LINK_GROUPS = 48
#: Beyond this many GPUs the grid is not drawn (its JSON would pass a megabyte; the bill still is).
MAX_GRID_GPUS = 20_000  # traffic lines drawn for at most this many groups (they overlap beyond that)


def _tile(count: int, aspect: float = 2.0) -> tuple[int, int]:
    """(rows, columns) of a near-rectangular grid holding ``count`` cells, ``aspect`` = columns/rows."""
    ideal = math.sqrt(count * aspect)
    exact = [c for c in range(1, count + 1) if count % c == 0 and ideal / 1.6 <= c <= ideal * 1.6]
    columns = min(exact, key=lambda c: abs(math.log(c / ideal))) if exact else max(1, math.ceil(ideal))
    return math.ceil(count / columns), columns


def grid_positions(gpus: int, domain_size: int) -> dict[str, np.ndarray | int]:
    """x, y of every GPU (rank order) and the domain boxes: GPUs tile a box per scale-up domain,
    boxes tile the chart.

    >>> p = grid_positions(16, 8)
    >>> p["domains"], p["x"].shape, (p["x"][8], p["y"][8]) != (p["x"][0], p["y"][0])
    (2, (16,), True)
    """
    domain_size = max(1, min(domain_size, gpus))
    domains = math.ceil(gpus / domain_size)
    in_rows, in_cols = _tile(domain_size, aspect=4.0 if domain_size <= 8 else 1.2)
    box_w, box_h = in_cols + 0.6, in_rows + 0.6
    out_rows, out_cols = _tile(domains, aspect=1.6 * box_h / box_w)
    ranks = np.arange(gpus)
    domain = ranks // domain_size
    local = ranks % domain_size
    dx, dy = domain % out_cols, domain // out_cols
    x = dx * (box_w + 0.8) + 0.3 + (local % in_cols) + 0.5
    y = -(dy * (box_h + 0.8) + 0.3 + (local // in_cols) + 0.5)
    box_x0 = (np.arange(domains) % out_cols) * (box_w + 0.8)
    box_y0 = -(np.arange(domains) // out_cols) * (box_h + 0.8)
    return {"x": x, "y": y, "box_x0": box_x0, "box_y0": box_y0, "box_w": box_w, "box_h": box_h,
            "domains": domains, "rows": out_rows, "columns": out_cols}


def _path(x0: np.ndarray, y0: np.ndarray, w: float, h: float) -> tuple[list, list]:
    xs: list = []
    ys: list = []
    for a, b in zip(x0.tolist(), y0.tolist(), strict=True):
        xs += [a, a + w, a + w, a, a, None]
        ys += [b, b, b - h, b - h, b, None]
    return xs, ys


def _links(seats: dict[str, np.ndarray], layout: Layout, dim: str, x: np.ndarray,
           y: np.ndarray) -> tuple[tuple[list, list], tuple[list, list]]:
    """Ring links of the first groups of ``dim``: (NVLink segments, NIC segments) as None-separated paths."""
    size = getattr(layout, dim)
    nv: tuple[list, list] = ([], [])
    nic: tuple[list, list] = ([], [])
    if size <= 1:
        return nv, nic
    groups = groups_of(layout, dim)[:_MAX_LINK_GROUPS if len(x) <= 600 else _MAX_LINK_GROUPS // 3]
    domain = seats["domain"]
    for members in groups:
        ring = np.append(members, members[0]) if size > 2 else members
        for a, b in zip(ring[:-1], ring[1:], strict=True):
            target = nv if domain[a] == domain[b] else nic
            target[0].extend([float(x[a]), float(x[b]), None])
            target[1].extend([float(y[a]), float(y[b]), None])
    return nv, nic


def _colour_index(layout: Layout, seats: dict[str, np.ndarray], colour_by: str) -> np.ndarray:
    """Per rank: its TP (CP, EP) group number, its pipeline stage, or its data-parallel replica."""
    if colour_by in ("pp", "dp"):
        return seats[colour_by]
    groups = groups_of(layout, colour_by)
    index = np.empty(layout.gpus, dtype=int)
    index[groups] = np.arange(len(groups))[:, None]
    return index


def gpu_grid_figure(layout: Layout, domain_size: int, colour_by: str = "tp", *, domain_label: str = "node",
                    height: int | None = None) -> go.Figure:
    """Every GPU inside its scale-up domain, coloured by ``colour_by`` (tp, pp, dp, cp, ep); the
    groups of that dimension drawn as rings on the tier they use (green NVLink inside a domain, blue
    dashed NIC across); GPUs whose group straddles domains outlined in red. At most six traces."""
    if colour_by not in COLOUR_BY:
        raise ValueError(f"colour_by must be one of {', '.join(COLOUR_BY)}")
    if layout.gpus > MAX_GRID_GPUS:
        raise ValueError(f"the grid draws at most {MAX_GRID_GPUS:,} GPUs, not {layout.gpus:,}")
    seats = seat_map(layout, domain_size)
    pos = grid_positions(layout.gpus, domain_size)
    x, y = pos["x"], pos["y"]
    index = _colour_index(layout, seats, colour_by) % len(_PALETTE)
    figure = go.Figure()
    bx, by = _path(pos["box_x0"], pos["box_y0"], pos["box_w"], pos["box_h"])
    figure.add_trace(go.Scatter(x=bx, y=by, mode="lines", line={"color": "#9ca3af", "width": 1.5},
                                name=f"{domain_label} (NVLink domain)", hoverinfo="skip"))
    nv, nic = _links(seats, layout, colour_by, x, y)
    if nv[0]:
        figure.add_trace(go.Scatter(x=nv[0], y=nv[1], mode="lines", line={"color": _NVLINK, "width": 2},
                                    name="traffic on NVLink", hoverinfo="skip", opacity=0.6))
    if nic[0]:
        figure.add_trace(go.Scatter(x=nic[0], y=nic[1], mode="lines",
                                    line={"color": _NIC, "width": 2, "dash": "dash"},
                                    name="traffic over the NIC", hoverinfo="skip", opacity=0.7))
    big = layout.gpus > 600
    label = COLOUR_BY[colour_by]
    columns = (seats["rank"], seats["domain"], seats["tp"], seats["pp"], seats["dp"])
    hover = None if big else [f"GPU {r}: {domain_label} {d}, TP {t}, PP {p}, DP {q}"
                              for r, d, t, p, q in zip(*columns, strict=True)]
    figure.add_trace(go.Scatter(
        x=x, y=y, mode="markers", name=f"GPU, coloured by {label}",
        # numbers on a stepped colour scale: Plotly validates a list of 5,000 colour strings slowly
        marker={"color": index.astype(float), "colorscale": _STEPS, "cmin": -0.5, "cmax": len(_PALETTE) - 0.5,
                "size": 5 if big else 16, "symbol": "square", "line": {"width": 0}, "showscale": False},
        text=hover, hoverinfo="text" if hover else "skip",
    ))
    straddle = seats[f"straddle_{colour_by}"]
    if straddle.any():
        figure.add_trace(go.Scatter(
            x=x[straddle], y=y[straddle], mode="markers", name=f"{label} straddles {domain_label}s",
            marker={"color": _WARNING, "size": 7 if big else 22, "symbol": "square-open",
                    "line": {"color": _WARNING, "width": 2.5}},
            hoverinfo="skip",
        ))
    rows = pos["rows"]
    auto_height = int(min(900, max(320, 140 + rows * (pos["box_h"] + 0.8) * (6 if big else 34))))
    apply_theme(figure, height=height or auto_height)
    figure.update_xaxes(visible=False, scaleanchor="y", scaleratio=1)
    figure.update_yaxes(visible=False)
    domains = f"{pos['domains']:,} {domain_label}{'' if pos['domains'] == 1 else 's'}"
    figure.update_layout(
        title={"text": f"{layout.gpus:,} GPUs in {domains}, coloured by {label}",
               "y": 0.98, "yanchor": "top"},
        legend={"orientation": "h", "yanchor": "top", "y": -0.02, "xanchor": "left", "x": 0},
        margin={"l": 10, "r": 10, "t": 50, "b": 80},
    )
    return figure


def _time_unit(seconds: float) -> tuple[float, str]:
    if seconds >= 1:
        return 1.0, "s"
    if seconds >= 1e-3:
        return 1e3, "ms"
    return 1e6, "µs"


def bill_figure(bill: Plan) -> go.Figure:
    """Time per step by dimension: the exposed part solid, the part hidden behind compute pale,
    coloured by the tier it runs on; compute and the pipeline bubble for scale."""
    rows = [d for d in bill.dimensions if d.degree > 1]
    bubble_s = bill.bubble_fraction * bill.step_s  # the idle share of the step, whatever the schedule
    longest = max([bill.compute_s, bubble_s, *(d.time_s for d in rows)] or [1.0])
    scale, unit = _time_unit(longest)
    schedule = SCHEDULES.get(bill.workload.schedule, bill.workload.schedule)
    if bill.workload.schedule == "interleaved":
        schedule += f", v = {bill.virtual_stages}"
    labels = ["Compute", f"Pipeline bubble ({schedule})", *(f"{d.label}, {d.tier}" for d in rows)]
    exposed = [0.0, bubble_s, *(d.exposed_s for d in rows)]
    hidden = [bill.compute_s, 0.0, *(max(0.0, d.time_s - d.exposed_s) for d in rows)]
    colours = ["#6b7280", "#f59e0b", *(_NVLINK if d.tier == "NVLink" else _NIC for d in rows)]
    if bill.layout.pp <= 1:  # no pipeline, no bubble row
        del labels[1], exposed[1], hidden[1], colours[1]
    figure = go.Figure()
    figure.add_trace(go.Bar(
        y=labels, x=[v * scale for v in exposed], orientation="h", name="on the critical path (exposed)",
        marker={"color": colours}, text=[f"{v * scale:.3g} {unit}" if v > 0 else "" for v in exposed],
        textposition="auto", textfont={"size": 15}, hovertemplate="%{y}: %{x:.3g} " + unit + " exposed<extra></extra>",
    ))
    figure.add_trace(go.Bar(
        y=labels, x=[v * scale for v in hidden], orientation="h", name="overlapped with compute",
        marker={"color": colours, "opacity": 0.35, "pattern": {"shape": "/"}},
        hovertemplate="%{y}: %{x:.3g} " + unit + " hidden<extra></extra>",
    ))
    apply_theme(figure, height=150 + 55 * len(labels))
    figure.update_layout(
        barmode="stack",
        title={"text": f"Time per step: {bill.step_s * scale:.3g} {unit}, {bill.exposed_s * scale:.3g} {unit} of it "
                       "communication nobody hides", "y": 0.97, "yanchor": "top"},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0},
        margin={"l": 10, "r": 30, "t": 100, "b": 60},
    )
    figure.update_xaxes(title=f"time per training step ({unit})", gridcolor="#e5e7eb", rangemode="tozero")
    figure.update_yaxes(autorange="reversed")
    return figure


def memory_figure(stages: dict[int, Memory], chosen: int, *, recompute: str = "selective") -> go.Figure:
    """Memory per GPU by ZeRO stage (stacked: weights, gradients, optimizer, activations) against the
    GPU's memory less the reserve for buffers and fragmentation; bars over that line do not fit."""
    kinds = (("params", "weights (BF16)", "#1565c0"), ("grads", "gradients (BF16)", "#5c6bc0"),
             ("optimizer", "optimizer (FP32 master, Adam m, v)", "#7b1fa2"),
             ("activations", f"activations ({RECOMPUTE_WORDS.get(recompute, recompute)} recomputation)", "#ef6c00"))
    x = [f"ZeRO-{z}" + (" (chosen)" if z == chosen else "") for z in stages]
    figure = go.Figure()
    for key, label, colour in kinds:
        figure.add_trace(go.Bar(x=x, y=[getattr(m, key) / 1e9 for m in stages.values()], name=label,
                                marker={"color": colour},
                                hovertemplate="%{x}: %{y:.1f} GB<extra>" + label + "</extra>"))
    capacity = next(iter(stages.values())).capacity / 1e9
    figure.add_hline(y=capacity, line={"color": _WARNING, "width": 2, "dash": "dash"})
    figure.add_trace(go.Scatter(x=[None], y=[None], mode="lines",
                                name=f"the GPU's memory, as its driver reports it ({capacity:.3g} GB)",
                                line={"color": _WARNING, "width": 2, "dash": "dash"}))
    reserved = next(iter(stages.values())).reserved / 1e9
    usable = capacity - reserved
    if reserved > 0:  # what the formulas do not count: context, buffers, fragmentation
        figure.add_hline(y=usable, line={"color": "#6b7280", "width": 1.5, "dash": "dot"})
        figure.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line={"color": "#6b7280", "width": 1.5,
                                                                            "dash": "dot"},
                                    name=f"after {reserved:.0f} GB kept for buffers and fragmentation"))
    totals = [m.total / 1e9 for m in stages.values()]
    figure.add_trace(go.Scatter(x=x, y=totals, mode="text", showlegend=False, hoverinfo="skip",
                                text=[f"{t:.0f} GB" + ("" if t <= usable else " · does not fit") for t in totals],
                                textposition="top center", textfont={"size": 15}))
    apply_theme(figure, height=460)
    top = max(max(totals), capacity) * 1.18
    figure.update_layout(barmode="stack", title={"text": "Memory per GPU by ZeRO stage", "y": 0.98, "yanchor": "top"},
                         legend={"orientation": "h", "yanchor": "top", "y": -0.12, "xanchor": "left", "x": 0},
                         margin={"l": 10, "r": 30, "t": 60, "b": 120})
    figure.update_yaxes(title="GB per GPU", range=[0, top], gridcolor="#e5e7eb")
    return figure

