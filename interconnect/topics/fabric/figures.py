"""Plotly builders for the Fabric page: the picture of the fabric and the Playbook hypothesis chart.

Pure functions of :mod:`interconnect.hardware.fabric` results. The picture draws a sample of the fabric
(at most three leaf groups, four servers per group, eight rails, eight spines and four cores), labels
each tier with its real count, and draws one path between two GPUs through it. A handful of traces
whatever the size: servers, switches and links are one trace each per kind.
"""

from __future__ import annotations

import plotly.graph_objects as go

from interconnect.figures.theme import apply_theme
from interconnect.hardware.fabric import Fabric
from interconnect.topics.fabric.playbook import PlaybookRow

__all__ = ["PATHS", "fabric_figure", "playbook_figure"]

#: The paths the picture can draw (URL values of the page's choice).
PATHS = {"same_rail": "Same rail, same group", "cross_rail": "Other rail, same group",
         "cross_group": "Other leaf group", "cross_pod": "Other pod (three tiers)"}
_RAIL_COLOURS = ["#1565c0", "#ef6c00", "#2e7d32", "#7b1fa2", "#00838f", "#c2185b", "#6d4c41", "#5c6bc0"]
_SWITCH = "#374151"
_LINK = "#9ca3af"
_PATH = "#d32f2f"
_MAX_GROUPS, _MAX_SERVERS, _MAX_RAILS, _MAX_SPINES, _MAX_CORES = 3, 4, 8, 8, 4
_Y = {"server": 0.0, "leaf": 1.0, "spine": 2.0, "core": 3.0}


def _spread(count: int, left: float, right: float) -> list[float]:
    if count <= 1:
        return [(left + right) / 2]
    step = (right - left) / (count - 1)
    return [left + i * step for i in range(count)]


def fabric_figure(fabric: Fabric, path: str = "cross_rail") -> go.Figure:
    """The servers, their rails, the tiers of switches and one path between two GPUs.

    ``path`` is a key of :data:`PATHS`; ``cross_pod`` on a two-tier fabric falls back to
    ``cross_group``. Counts beside each tier are the fabric's real ones; the drawing is a sample.
    """
    rail_fabric = fabric.inputs.topology == "rail-leaf-spine"
    tiers = {t.name: t for t in fabric.tiers}
    groups = min(fabric.groups, _MAX_GROUPS)
    rails = min(fabric.rails if rail_fabric else 1, _MAX_RAILS)
    servers_shown = min(fabric.servers_per_group, fabric.inputs.servers, _MAX_SERVERS)
    if path == "cross_pod" and "core" not in tiers:
        path = "cross_group"
    if path == "cross_group" and groups < 2:
        path = "cross_rail" if rail_fabric and rails > 1 else "same_rail"
    if path == "cross_rail" and (not rail_fabric or rails < 2):
        path = "same_rail"

    width = 10.0
    group_width = width / groups
    # Positions: servers and leaves per group; a rail-optimised group has one leaf per rail.
    server_x: dict[tuple[int, int], float] = {}
    leaf_x: dict[tuple[int, int], float] = {}
    for g in range(groups):
        left, right = g * group_width + 0.12 * group_width, (g + 1) * group_width - 0.12 * group_width
        for s, x in enumerate(_spread(servers_shown, left, right)):
            server_x[g, s] = x
        for r, x in enumerate(_spread(rails, left, right)):
            leaf_x[g, r] = x
    spine_count = min(tiers["spine"].switches, _MAX_SPINES)
    spine_x = _spread(spine_count, 0.3, width - 0.3)
    core_x = _spread(min(tiers["core"].switches, _MAX_CORES), 1.5, width - 1.5) if "core" in tiers else []

    figure = go.Figure()
    # Links: server NICs to rail leaves (coloured by rail), leaves to spines, spines to cores.
    for r in range(rails):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for g in range(groups):
            for s in range(servers_shown):
                xs += [server_x[g, s] + (r - (rails - 1) / 2) * 0.04, leaf_x[g, r], None]
                ys += [_Y["server"] + 0.12, _Y["leaf"] - 0.08, None]
        figure.add_trace(go.Scatter(x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False,
                                    line={"color": _RAIL_COLOURS[r % len(_RAIL_COLOURS)], "width": 1.2}))
    xs, ys = [], []
    for (_, _), lx in leaf_x.items():
        for sx in spine_x:
            xs += [lx, sx, None]
            ys += [_Y["leaf"] + 0.08, _Y["spine"] - 0.08, None]
    for sx in spine_x:
        for cx in core_x:
            xs += [sx, cx, None]
            ys += [_Y["spine"] + 0.08, _Y["core"] - 0.08, None]
    figure.add_trace(go.Scatter(x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False,
                                line={"color": _LINK, "width": 0.6}))

    # Servers (with their GPUs' rails as dots) and switches.
    figure.add_trace(go.Scatter(
        x=list(server_x.values()), y=[_Y["server"]] * len(server_x), mode="markers", showlegend=False,
        marker={"symbol": "square", "size": 26, "color": "#e5e7eb", "line": {"color": _SWITCH, "width": 1.5}},
        hovertext=[f"server {s + 1} of leaf group {g + 1}" for g, s in server_x], hoverinfo="text"))
    for name, positions in (("leaf", list(leaf_x.values())), ("spine", spine_x), ("core", core_x)):
        if not positions:
            continue
        colours = ([_RAIL_COLOURS[r % len(_RAIL_COLOURS)] for (_, r) in leaf_x] if name == "leaf" and rail_fabric
                   else [_SWITCH] * len(positions))
        figure.add_trace(go.Scatter(
            x=positions, y=[_Y[name]] * len(positions), mode="markers", showlegend=False,
            marker={"symbol": "square", "size": 18, "color": colours},
            hovertext=[name] * len(positions), hoverinfo="text"))

    # The path between GPU a (server 1, rail 1, group 1) and GPU b.
    a = (server_x[0, 0], leaf_x[0, 0])
    hops = [(a[0], _Y["server"]), (a[1], _Y["leaf"])]
    if path == "same_rail":
        target_server = server_x[0, min(1, servers_shown - 1)]
        hops += [(target_server, _Y["server"])]
    elif path == "cross_rail":
        hops += [(spine_x[0], _Y["spine"]), (leaf_x[0, 1], _Y["leaf"]), (server_x[0, min(1, servers_shown - 1)],
                                                                          _Y["server"])]
    elif path == "cross_group":
        hops += [(spine_x[0], _Y["spine"]), (leaf_x[1, 0], _Y["leaf"]), (server_x[1, 0], _Y["server"])]
    else:
        hops += [(spine_x[0], _Y["spine"]), (core_x[0], _Y["core"]), (spine_x[-1], _Y["spine"]),
                 (leaf_x[groups - 1, 0], _Y["leaf"]), (server_x[groups - 1, servers_shown - 1], _Y["server"])]
    switch_hops = len(hops) - 2
    figure.add_trace(go.Scatter(
        x=[p[0] for p in hops], y=[p[1] for p in hops], mode="lines+markers", name="the path",
        line={"color": _PATH, "width": 4}, marker={"size": 9, "color": _PATH}, hoverinfo="skip", showlegend=False))
    figure.add_annotation(x=hops[0][0], y=_Y["server"] - 0.28, text="GPU a", showarrow=False,
                          font={"color": _PATH})
    figure.add_annotation(x=hops[-1][0], y=_Y["server"] - 0.28, text="GPU b", showarrow=False,
                          font={"color": _PATH})

    # Tier labels with the real counts, left of the drawing.
    labels = {"server": f"{fabric.inputs.servers:,} servers"}
    for name, tier in tiers.items():
        plural = {"leaf": "leaves", "spine": "spines", "core": "cores"}[name]
        labels[name] = f"{tier.switches:,} {name if tier.switches == 1 else plural}"
    for name, text in labels.items():
        figure.add_annotation(x=-0.25, y=_Y[name], text=f"<b>{text}</b>", showarrow=False, xanchor="right")

    top = max(_Y[name] for name in tiers)
    title = f"{PATHS[path]}: {switch_hops} switch hop{'s' if switch_hops != 1 else ''}"
    if rail_fabric:
        title += f" · {fabric.rails} rails (NIC i of each server to leaf i)"
    apply_theme(figure, height=430 if top < 3 else 500, template=False)
    figure.update_layout(title={"text": title, "x": 0, "xanchor": "left"}, margin={"l": 10, "r": 10, "t": 50, "b": 10},
                         plot_bgcolor="white")
    figure.update_xaxes(visible=False, range=[-2.6, width + 0.4])
    figure.update_yaxes(visible=False, range=[-0.55, top + 0.35])
    return figure


def playbook_figure(rows: list[PlaybookRow], tapered: dict[float, list[float]]) -> go.Figure:
    """The Playbook's measured 256 MB curve, the model without a fabric, and fixed tapers for comparison."""
    nodes = [r.nodes for r in rows]
    figure = go.Figure()
    if rows and rows[0].low_gbps is not None:
        figure.add_trace(go.Scatter(
            x=nodes + nodes[::-1], y=[r.high_gbps for r in rows] + [r.low_gbps for r in rows][::-1], fill="toself",
            mode="lines", fillcolor="rgba(211,47,47,0.12)", line={"width": 0}, name="Playbook, 5th-95th percentile",
            hoverinfo="skip"))
    figure.add_trace(go.Scatter(x=nodes, y=[r.measured_gbps for r in rows], mode="lines+markers",
                                name="Playbook, measured median", line={"color": _PATH, "width": 3}))
    figure.add_trace(go.Scatter(x=nodes, y=[r.model_gbps for r in rows], mode="lines+markers",
                                name="Model, no fabric limit", line={"color": "#1565c0", "width": 3}))
    for i, (ratio, values) in enumerate(tapered.items()):
        figure.add_trace(go.Scatter(x=nodes, y=values, mode="lines", name=f"Model with {ratio:g}:1 (hypothesis)",
                                    line={"color": ["#6b7280", "#111827"][i % 2], "width": 2, "dash": "dash"}))
    apply_theme(figure, height=460, template=False)
    figure.update_xaxes(type="log", title="Nodes (8 x H100 each)", tickvals=nodes, ticktext=[str(n) for n in nodes])
    figure.update_yaxes(title="busbw, GB/s", rangemode="tozero")
    figure.update_layout(margin={"t": 90})
    return figure
