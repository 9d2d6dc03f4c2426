"""The Explain page's drawings: one node of the log (GPUs, the scale-up domain, NICs) and the fabric between
nodes, what carried traffic in colour and what was only listed in grey; and measured busbw over the model's curve
with its band.

Every string that came from the log (host names, NIC names) is HTML-escaped before it becomes Plotly text, so a
host called ``<b>`` is drawn as those three characters. All text is 14 px or more (the project's readable
minimum), so it stays legible at 800 px wide and at 1280x720.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import plotly.graph_objects as go

from interconnect.figures.theme import LAYER_COLOURS, apply_theme, readable_figure
from interconnect.topics.explain.topology import Topology

__all__ = ["KIND_COLOURS", "fabric_figure", "measured_figure", "node_figure", "safe_text"]

#: Connection kinds in the layer colours: GPU to GPU, through host memory, over the network; grey: listed only.
KIND_COLOURS = {"p2p": LAYER_COLOURS["scale-up"], "shm": LAYER_COLOURS["host"], "net": LAYER_COLOURS["scale-out"]}
_SOCKET_COLOUR = LAYER_COLOURS["long-reach"]
_IDLE = "#9ca3af"
_ODD = "#000000"  # a node unlike its peers: a thick black outline (Okabe-Ito's black; no layer uses it)
_KIND_WORDS = {"p2p": "peer to peer (P2P)", "shm": "host shared memory (SHM)", "net": "network (NET)"}
_FONT = 14
_MAX_LABEL = 22


def safe_text(text: object, limit: int = _MAX_LABEL) -> str:
    """Log text made safe and short for a Plotly label: cut to ``limit`` characters, then HTML-escaped.

    >>> safe_text("<b>host</b>"), safe_text("x" * 30, 8)
    ('&lt;b&gt;host&lt;/b&gt;', 'xxxxxxx…')
    """
    raw = str(text)
    if len(raw) > limit:
        raw = raw[:limit - 1] + "…"
    return html.escape(raw, quote=True)


def _arc(x0: float, x1: float, y: float, height: float, points: int = 13) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for i in range(points):
        t = i / (points - 1)
        xs.append(x0 + (x1 - x0) * t)
        ys.append(y + height * 4 * t * (1 - t))
    return xs, ys


def _width(lines: int) -> float:
    return 2.0 + 1.5 * math.log2(max(lines, 1))


def untitled(figure: go.Figure) -> go.Figure:
    """The drawing for the page, whose title is written above it as text that wraps at any width: no Plotly title,
    the legend in rows across the top (Plotly wraps a horizontal legend to the chart's width)."""
    figure = go.Figure(figure)
    figure.update_layout(title=None, margin={"t": 20},
                         legend={"orientation": "h", "x": 0.0, "xanchor": "left", "y": 1.0, "yanchor": "bottom"})
    return figure


def _frame(figure: go.Figure, title: str, height: int, x_range: Sequence[float], y_range: Sequence[float]) -> go.Figure:
    apply_theme(figure, height=height, template=False)
    figure.update_layout(title={"text": title, "font": {"size": 17}}, showlegend=True, plot_bgcolor="white",
                         margin={"l": 10, "r": 10, "t": 90, "b": 10}, hovermode="closest",
                         legend={"font": {"size": _FONT}, "y": 1.0, "yanchor": "bottom"})
    figure.update_xaxes(visible=False, range=list(x_range), fixedrange=True)
    figure.update_yaxes(visible=False, range=list(y_range), fixedrange=True)
    return readable_figure(figure)


def _legend_line(figure: go.Figure, name: str, colour: str, dash: str = "solid") -> None:
    figure.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name, line={"color": colour, "width": 4,
                                                                                  "dash": dash}))


def _gpu_xy(count: int) -> list[tuple[float, float]]:
    """GPU positions: one row of up to 8, a second row under it (offset half a step) for 9 to 16."""
    return [(float(i % 8) + (0.5 if i >= 8 else 0.0), 1.0 if i < 8 else 0.35) for i in range(count)]


def node_title(topo: Topology) -> str:
    """The node drawing's title as plain text (log text not yet escaped: the caller escapes it for where it goes)."""
    node = topo.node
    raw = str(node.name) if node is not None else "no node"
    name = raw if len(raw) <= 40 else raw[:39] + "…"
    more = f" (+{topo.gpus_not_drawn} GPUs not drawn)" if topo.gpus_not_drawn else ""
    return f"One node: {name}{more}. Boxes: GPUs (local number; r = rank)"


def fabric_title(topo: Topology) -> str:
    """The fabric drawing's title as plain text."""
    return f"Between nodes: {len(topo.nodes) + topo.nodes_not_drawn} node(s) in the log"


def node_figure(topo: Topology) -> go.Figure:
    """One node as the log shows it: GPUs, the scale-up domain above them, NICs and the network under them.

    Coloured: the GPU-to-GPU connections the log shows (by kind), the domain when used (NVLS marked), the NICs that
    carry traffic and their rails to the network. Grey: NICs listed that no connection line names.
    """
    figure = go.Figure()
    gpus = topo.gpus
    places = _gpu_xy(len(gpus))
    width = max(8 if len(gpus) > 8 else len(gpus), len(topo.nics), 2)
    span = (-0.8, max(width, 1) - 0.2)
    # the scale-up domain
    colour = KIND_COLOURS["p2p"] if topo.domain_used and "memory" not in topo.domain else (
        KIND_COLOURS["shm"] if topo.domain_used else _IDLE)
    nvls = {True: "NVLS used: reductions in the NVSwitch", False: "NVLS not used",
            "unknown": "NVLS: not in the log"}[topo.nvls if topo.nvls in (True, False) else "unknown"]
    if topo.vendor == "amd":
        nvls = "NVLS is NVIDIA's; RCCL has none"
    figure.add_shape(type="rect", x0=span[0] + 0.1, x1=span[1] - 0.1, y0=1.75, y1=2.25, line={"color": colour,
                     "width": 4 if topo.nvls is True else 2}, fillcolor=colour, opacity=0.25 if topo.domain_used else
                     0.1, layer="below")
    figure.add_annotation(x=(span[0] + span[1]) / 2, y=2.0, text=f"{html.escape(topo.domain)}<br>{nvls}",
                          showarrow=False, font={"size": _FONT})
    # GPU to GPU
    for edge in topo.intra:
        ia = next((i for i, g in enumerate(gpus) if g.rank == edge.a), None)
        ib = next((i for i, g in enumerate(gpus) if g.rank == edge.b), None)
        if ia is None or ib is None:
            continue
        (xa, ya), (xb, yb) = places[ia], places[ib]
        xs, ys = _arc(xa, xb, max(ya, yb) + 0.12, 0.12 + 0.07 * abs(ib - ia))
        ys = [min(y, 1.7) for y in ys]
        figure.add_trace(go.Scatter(x=xs, y=ys, mode="lines", showlegend=False, hoverinfo="text",
                                    line={"color": KIND_COLOURS[edge.kind], "width": _width(edge.lines)},
                                    text=[f"rank {edge.a} – rank {edge.b}: {html.escape(edge.transport)}, "
                                          f"{edge.lines} connection line(s), first on line {edge.line}"] * len(xs)))
    if topo.nvls is True:
        for x, y in places:
            figure.add_trace(go.Scatter(x=[x, x], y=[y + 0.15, 1.75], mode="lines", showlegend=False,
                                        hoverinfo="skip", line={"color": KIND_COLOURS["p2p"], "width": 3}))
    # NICs and rails
    nic_x = [i * (width - 1) / max(len(topo.nics) - 1, 1) if len(topo.nics) > 1 else (width - 1) / 2
             for i in range(len(topo.nics))]
    nic_y = -0.45
    where = {nic.label: (x, nic_y) for nic, x in zip(topo.nics, nic_x, strict=True)}
    socket = topo.network == "Socket"
    net_colour = _SOCKET_COLOUR if socket else KIND_COLOURS["net"]
    for gpu, (x, y) in zip(gpus, places, strict=True):
        for label in gpu.nics:
            if label in where:
                nx, ny = where[label]
                figure.add_trace(go.Scatter(x=[x, nx], y=[y - 0.15, ny + 0.12], mode="lines", showlegend=False,
                                            hoverinfo="text", text=[f"rank {gpu.rank} uses {html.escape(label)}"] * 2,
                                            line={"color": net_colour, "width": 2.5}))
    for nic, x in zip(topo.nics, nic_x, strict=True):
        figure.add_trace(go.Scatter(x=[x, x], y=[nic_y - 0.12, -1.35], mode="lines", showlegend=False,
                                    hoverinfo="skip", line={"color": net_colour if nic.used else _IDLE,
                                                            "width": _width(nic.lines) if nic.used else 1.5,
                                                            "dash": "solid" if nic.used else "dot"}))
    if topo.nics:
        figure.add_trace(go.Scatter(
            x=nic_x, y=[nic_y] * len(topo.nics), mode="markers+text", showlegend=False, textposition="middle right",
            marker={"symbol": "square", "size": 22, "color": [net_colour if n.used else "white" for n in topo.nics],
                    "line": {"color": [net_colour if n.used else _IDLE for n in topo.nics], "width": 2}},
            text=[safe_text(n.name or n.label.split("/", 1)[-1], 10) if len(topo.nics) <= 8 else "" for n in topo.nics],
            textfont={"size": _FONT},
            hovertext=[f"{html.escape(n.label)} {safe_text(n.name, 60)} {html.escape(n.layer)}: "
                       + (f"carries traffic ({n.lines} line(s)"
                          + (", GPUDirect RDMA" if n.gdr else "") + ")" if n.used else "listed, no connection line")
                       for n in topo.nics], hoverinfo="text"))
    fabric = f"{html.escape(topo.fabric)}: to the other nodes" if topo.network else "network: not shown in the log"
    figure.add_shape(type="rect", x0=span[0] + 0.1, x1=span[1] - 0.1, y0=-1.65, y1=-1.35, layer="below",
                     line={"color": net_colour if topo.network else _IDLE, "width": 2},
                     fillcolor=net_colour if topo.network else _IDLE, opacity=0.15)
    figure.add_annotation(x=(span[0] + span[1]) / 2, y=-1.5, text=fabric, showarrow=False, font={"size": _FONT})
    # GPUs last, over the lines
    if gpus:
        figure.add_trace(go.Scatter(
            x=[p[0] for p in places], y=[p[1] for p in places], mode="markers+text", showlegend=False,
            marker={"symbol": "square", "size": 34, "color": "white", "line": {"color": LAYER_COLOURS["gpu"],
                                                                               "width": 2}},
            text=[(f"{g.device}" if g.device is not None else "?") for g in gpus], textfont={"size": _FONT},
            hovertext=[f"GPU {g.device if g.device is not None else '?'}, rank "
                       f"{g.rank if g.rank is not None else '?'}: "
                       + (", ".join(_KIND_WORDS[k] for k in g.kinds) or "no connection line") for g in gpus],
            hoverinfo="text"))
        figure.add_trace(go.Scatter(
            x=[p[0] for p in places], y=[p[1] - 0.34 for p in places], mode="text", showlegend=False,
            text=[f"r{g.rank}" if g.rank is not None else "" for g in gpus], textfont={"size": _FONT},
            hoverinfo="skip"))
    for kind in sorted({e.kind for e in topo.intra}):
        _legend_line(figure, _KIND_WORDS[kind], KIND_COLOURS[kind])
    if any(n.used for n in topo.nics):
        _legend_line(figure, "NIC with traffic", net_colour)
    if any(not n.used for n in topo.nics):
        _legend_line(figure, "NIC listed, no line uses it", _IDLE, "dot")
    return _frame(figure, html.escape(node_title(topo)), 460, (span[0], span[1]), (-1.75, 2.35))


def fabric_figure(topo: Topology) -> go.Figure:
    """The nodes and the network between them: each node's NICs with traffic as rails to the fabric, the network
    connection lines between nodes as arcs; nodes past :data:`~.topology.MAX_NODES_DRAWN` summed in one box."""
    figure = go.Figure()
    nodes = list(topo.nodes)
    boxes = len(nodes) + (1 if topo.nodes_not_drawn else 0)
    per_row = max(boxes, 1)  # one row: at most MAX_NODES_DRAWN nodes and the box of the rest
    places = [(float(i), 0.0) for i in range(boxes)]
    socket = topo.network == "Socket"
    net_colour = _SOCKET_COLOUR if socket else KIND_COLOURS["net"]
    # an odd node's label runs two lines longer: the rails and the fabric move down by as much, the chart grows
    extra = 0.45 if any(node.odd for node in nodes) else 0.0
    fabric_y = -1.6 - extra
    cut = 16 if boxes <= 5 else 11
    span = (-0.7, max(per_row, 2) - 0.3)
    index = {node.name: i for i, node in enumerate(nodes)}
    for edge in topo.inter:
        if edge.a not in index or edge.b not in index:
            continue
        ia, ib = index[edge.a], index[edge.b]
        (xa, ya), (xb, yb) = places[ia], places[ib]
        if ya != yb:
            xs, ys = [xa, xb], [ya, yb]
        else:
            xs, ys = _arc(xa, xb, ya + 0.15, 0.2 + 0.1 * abs(ib - ia))
        figure.add_trace(go.Scatter(x=xs, y=ys, mode="lines", showlegend=False, hoverinfo="text",
                                    line={"color": net_colour, "width": _width(edge.lines)},
                                    text=[f"{safe_text(edge.a, 40)} – {safe_text(edge.b, 40)}: "
                                          f"{edge.lines} {html.escape(edge.transport)} line(s)"] * len(xs)))
    for node, (x, y) in zip(nodes, places, strict=False):
        rails = min(node.nics_listed, 8)
        for r in range(rails):
            used = r < node.nics_used
            dx = (r - (rails - 1) / 2) * 0.07
            figure.add_trace(go.Scatter(x=[x + dx, x + dx * 2], y=[y - 0.95 - extra, fabric_y + 0.2], mode="lines",
                                        showlegend=False, hoverinfo="skip",
                                        line={"color": net_colour if used else _IDLE, "width": 2.5 if used else 1,
                                              "dash": "solid" if used else "dot"}))
        if not rails and node.nics_used == 0 and topo.network:
            figure.add_trace(go.Scatter(x=[x, x], y=[y - 0.95 - extra, fabric_y + 0.2], mode="lines", showlegend=False,
                                        hoverinfo="skip", line={"color": _IDLE, "width": 1, "dash": "dot"}))
    labels, hovers = [], []
    for node in nodes:
        # two short lines: on one, three odd nodes' marks ran into each other at 800 px
        odd = "<br><b>unlike</b><br><b>its peers</b>" if node.odd else ""
        labels.append(f"{safe_text(node.name, cut)}<br>{node.gpus} GPU(s)<br>NICs {node.nics_used}/{node.nics_listed}"
                      f"{odd}")
        hovers.append(f"{safe_text(node.name, 80)}: ranks {_ranks(node.ranks)}; {node.nics_used} of "
                      f"{node.nics_listed} NICs carry traffic in the lines shown"
                      + (f"; unlike its peers: {html.escape(node.odd)}" if node.odd else ""))
    if topo.nodes_not_drawn:
        labels.append(f"+{topo.nodes_not_drawn} nodes<br>{topo.ranks_not_drawn} ranks")
        hovers.append(f"{topo.nodes_not_drawn} more nodes, not drawn one by one")
    if labels:
        figure.add_trace(go.Scatter(
            x=[p[0] for p in places], y=[p[1] for p in places], mode="markers+text", showlegend=False,
            marker={"symbol": "square", "size": 46, "color": "white",
                    "line": {"color": [_ODD if n.odd else LAYER_COLOURS["gpu"] for n in nodes]
                             + [LAYER_COLOURS["gpu"]] * (len(labels) - len(nodes)),
                             "width": [4 if n.odd else 2 for n in nodes] + [2] * (len(labels) - len(nodes))}},
            text=labels, textposition="bottom center", textfont={"size": _FONT}, hovertext=hovers, hoverinfo="text"))
    if any(n.odd for n in nodes):
        _legend_line(figure, "node unlike its peers (see the findings)", _ODD)
    words = f"{html.escape(topo.fabric)}" if topo.network else "network: not shown in the log"
    figure.add_shape(type="rect", x0=span[0] + 0.1, x1=span[1] - 0.1, y0=fabric_y - 0.25, y1=fabric_y + 0.2,
                     line={"color": net_colour if topo.network else _IDLE, "width": 2},
                     fillcolor=net_colour if topo.network else _IDLE, opacity=0.15, layer="below")
    figure.add_annotation(x=(span[0] + span[1]) / 2, y=fabric_y - 0.02, text=words, showarrow=False,
                          font={"size": _FONT})
    if topo.inter:
        _legend_line(figure, "network connection lines between nodes", net_colour)
    _legend_line(figure, "NIC with traffic (rail)", net_colour)
    _legend_line(figure, "NIC listed, no line uses it", _IDLE, "dot")
    top = 1.0
    return _frame(figure, html.escape(fabric_title(topo)), 440 + round(100 * extra), span, (fabric_y - 0.4, top))


def _ranks(ranks: Sequence[int]) -> str:
    if not ranks:
        return "none named"
    shown = ", ".join(str(r) for r in ranks[:8])
    return shown + (f" and {len(ranks) - 8} more" if len(ranks) > 8 else "")


def _size_text(size: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size:g} B"


def measured_figure(measured: dict) -> go.Figure:
    """Measured busbw (the log's nccl-tests rows) over the model's curve on the log's cluster, the model's band
    shaded (its error on published tables like this case, per size band), and the sizes the job's COLL lines name
    marked on the curve."""
    figure = go.Figure()
    curve = measured["curve"]
    sizes, model = curve["size_bytes"], curve["busbw_gbps"]
    segment: list[int] = []
    shown_band = False
    for i in [*range(len(sizes)), None]:
        if i is not None and curve["band_low"][i] is not None:
            segment.append(i)
            continue
        if len(segment) >= 2:
            xs = [sizes[j] for j in segment] + [sizes[j] for j in reversed(segment)]
            ys = [curve["band_high"][j] for j in segment] + [curve["band_low"][j] for j in reversed(segment)]
            figure.add_trace(go.Scatter(x=xs, y=ys, fill="toself", mode="lines", line={"width": 0},
                                        fillcolor="rgba(0,114,178,0.18)", hoverinfo="skip",
                                        name="the model's band", showlegend=not shown_band,
                                        legendgroup="band"))
            shown_band = True
        segment = []
    label = measured["collective"].replace("_", "-")
    figure.add_trace(go.Scatter(x=sizes, y=model, mode="lines", name=f"model, {label}",
                                line={"color": KIND_COLOURS["net"], "width": 3},
                                hovertemplate="%{x:,} B: model %{y:.3g} GB/s<extra></extra>"))
    rows = measured["rows"]
    if rows:
        figure.add_trace(go.Scatter(
            x=[r["size_bytes"] for r in rows], y=[r["measured_busbw_gbps"] for r in rows], mode="markers",
            name="measured (the log's rows)", marker={"color": LAYER_COLOURS["long-reach"], "size": 10},
            hovertemplate="%{x:,} B: measured %{y:.3g} GB/s<extra></extra>"))
    job = [j for j in measured["job"] if j["model_busbw_gbps"] is not None]
    if job:
        figure.add_trace(go.Scatter(
            x=[j["size_bytes"] for j in job], y=[j["model_busbw_gbps"] for j in job], mode="markers",
            name="the job's sizes (COLL lines, no time)",
            marker={"symbol": "diamond", "size": 12, "color": "white", "line": {"color": "#111827", "width": 2}},
            hovertext=[f"{html.escape(j['op'])} of {j['size_bytes']:,} B, {j['calls']} call(s) seen, first on line "
                       f"{j['line']}" for j in job], hoverinfo="text"))
    apply_theme(figure, height=440, template=False)
    tick_sizes = [s for s in sizes if math.log2(s) % 4 == 3 or s == sizes[-1]]
    figure.update_layout(title={"text": "busbw by message size: the log against the model", "font": {"size": 16}},
                         margin={"t": 100}, plot_bgcolor="white",
                         legend={"font": {"size": _FONT}, "y": 1.02, "yanchor": "bottom"})
    figure.update_xaxes(type="log", title="message size", tickvals=tick_sizes,
                        ticktext=[_size_text(s) for s in tick_sizes], showgrid=True, gridcolor="#e5e7eb")
    figure.update_yaxes(title="busbw, GB/s (log scale)", type="log", showgrid=True, gridcolor="#e5e7eb")
    return readable_figure(figure)
