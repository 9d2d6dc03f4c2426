"""The bandwidth-against-reach map: every catalog link as a point, fast links at short reach.

A pure function returning ``go.Figure`` from catalog links.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from interconnect.catalog import LAYER_TITLES, Link
from interconnect.figures.theme import LAYER_COLOURS, apply_theme

__all__ = ["reach_figure"]


def _short_link_name(name: str) -> str:
    short = name.split(" (")[0]
    return short if len(short) <= 22 else short[:21] + "…"


def reach_figure(links: Sequence[Link]) -> go.Figure:
    """Bandwidth per direction against reach, log-log, one labelled point per link with a known reach.

    The shape of the field in one picture: the fastest links are the shortest (copper inside a
    rack), optics trade a little rate for kilometres, and old parallel cables were slow *and* short.
    """
    figure = go.Figure()
    for layer in LAYER_COLOURS:
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
            marker={"size": 14, "color": LAYER_COLOURS[layer], "line": {"width": 1, "color": "white"}},
            textfont={"size": 13},
            name=LAYER_TITLES.get(layer, layer),
            hovertemplate="<b>%{text}</b><br>reach %{x:.3g} m<br>%{y:.3g} GB/s per direction<extra></extra>",
        ))
    figure.update_layout(title={"text": "How fast, how far: bandwidth per direction against reach"})
    figure.update_xaxes(type="log", title="reach (metres)", gridcolor="#e5e7eb", range=[-0.3, 6.3])
    figure.update_yaxes(type="log", title="GB/s per direction", gridcolor="#e5e7eb")
    return apply_theme(figure, height=520)
