"""The Home page's picture of the layers: from one GPU out to another building, each hop with its rate
per GPU and its reach, all read from the catalog.

* :func:`layer_hops`: the hops of a GPU's reference cluster (catalog ids, no numbers of our own).
* :func:`layers_figure`: the picture; each hop's line is as thick as its rate per GPU, so the
  kitchen (NVLink, hundreds of GB/s over half a metre) and the motorway (the network, tens of GB/s
  over hundreds of metres, a shared wavelength over a hundred kilometres) show at a glance.

Pure: catalog entries in, ``go.Figure`` out; no Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from interconnect.catalog import Catalog, Link
from interconnect.figures.theme import LAYER_COLOURS, apply_theme
from interconnect.units import format_bandwidth, format_quantity

__all__ = ["LayerHop", "layer_hops", "layers_figure"]

#: The three layers, left to right: (key in LAYER_COLOURS, title).
LAYERS = (("scale-up", "Inside the server"), ("scale-out", "Between servers"),
          ("long-reach", "Between buildings"))

#: The boxes of the picture, left to right along the way out (x in picture units); the NVLink switch
#: sits above the GPU, on a hop of its own.
_BOXES = {"gpu": (0.0, 0.0), "switch": (0.0, 1.0), "nic": (1.45, 0.0), "leaf": (2.95, 0.0), "spine": (4.45, 0.0),
          "site": (6.2, 0.0)}
#: Where each layer's band starts and ends on x.
_BANDS = ((-0.55, 2.05), (2.05, 5.25), (5.25, 7.0))


@dataclass(frozen=True)
class LayerHop:
    """One hop of the way out: between two boxes, over one catalog link.

    ``gpus_sharing`` is how many GPUs share the link's rate (1: each GPU has its own; 0: a whole site
    shares it, so there is no per-GPU figure without a site size).
    """

    start: str
    end: str
    layer: str
    link: Link
    gpus_sharing: int = 1
    note: str = ""
    #: A short name for the picture ("" = the link's name up to its first bracket).
    label: str = ""
    #: The cable or optics the link runs over, when the link is a protocol whose reach is its medium's.
    medium: Link | None = None
    #: Longer-reaching media the same protocol also runs over (optics), named beside the medium's reach.
    longer: Link | None = None

    @property
    def reach(self):
        """The catalog figure of how far the hop reaches: its medium's, else its link's own (or None)."""
        return (self.medium or self.link).reach

    def rate_text(self) -> str:
        rate = format_bandwidth(self.link.bandwidth.per_direction())
        return f"{rate} per GPU" if self.gpus_sharing == 1 else f"{rate}, whole site"

    def reach_text(self) -> str:
        """How far the hop reaches; a protocol's reach is its medium's, so the medium is named with it."""
        reach = self.reach
        if reach is None:
            return "reach not sourced"
        approx = "about " if reach.basis == "estimate" else "up to "
        text = approx + format_quantity(reach.quantity)
        if self.medium is None:
            return text
        text = f"over {_medium_words(self.medium)}, {text}"
        if self.longer is not None and self.longer.reach is not None:
            text += f"; optics to {format_quantity(self.longer.reach.quantity)} and beyond"
        return text

    def reach_lines(self) -> str:
        """:meth:`reach_text` in short lines for the picture (``<br>`` between them): the medium with its reach,
        then the longer medium's, each about as wide as the rate above it."""
        reach = self.reach
        if reach is None or self.medium is None:
            return self.reach_text()
        approx = "about " if reach.basis == "estimate" else "to "
        lines = [f"{_medium_short(self.medium)} {approx}{format_quantity(reach.quantity)}"]
        if self.longer is not None and self.longer.reach is not None:
            lines.append(f"optics to {format_quantity(self.longer.reach.quantity)}+")
        return "<br>".join(lines)


def _medium_short(medium: Link) -> str:
    """A medium in one or two words for the picture's labels: 'copper' for a passive copper cable."""
    return "copper" if _medium_words(medium) == "a passive copper cable" else _medium_words(medium)


def _medium_words(medium: Link) -> str:
    """A medium in a few words: 'a passive copper cable', else its name up to the first bracket or comma."""
    name = medium.name.lower()
    if "passive copper" in name or "dac" in name.split():
        return "a passive copper cable"
    return medium.name.split("(")[0].split(",")[0].strip()


def layer_hops(catalog: Catalog, gpu_id: str = "h100-sxm", *, server_leaf: str = "dac-400g-passive",
               leaf_spine: str = "400g-dr4", between_sites: str = "400zr",
               server_leaf_optics: str = "400g-sr4-multimode") -> tuple[LayerHop, ...]:
    """The hops out of one GPU of ``gpu_id``'s reference server, from the catalog.

    Scale-up is the GPU's own link; the NIC is its usual card, one per GPU (HGX-style servers), over
    ``server_leaf`` (a protocol's reach is its medium's: passive copper inside the rack); leaf to spine
    is ``leaf_spine`` optics, at the NIC's rate per GPU in a non-blocking fat tree (as many
    uplinks as downlinks); between buildings one ``between_sites`` wavelength serves the whole site.

    >>> from interconnect.catalog import get_catalog
    >>> [hop.link.id for hop in layer_hops(get_catalog())]
    ['nvlink4', 'pcie5-x16', 'ib-ndr', '400g-dr4', '400zr']
    """
    gpu = catalog.gpu(gpu_id)
    nic = catalog.nic(gpu.typical_nic) if gpu.typical_nic else catalog.link("ib-ndr")
    return (
        LayerHop("gpu", "switch", "scale-up", catalog.link(gpu.scaleup_link), note="to every other GPU of the server"),
        LayerHop("gpu", "nic", "scale-up", catalog.link(gpu.host_link), note="GPU to its network card"),
        LayerHop("nic", "leaf", "scale-out", nic, note="server to leaf switch", medium=catalog.link(server_leaf),
                 longer=catalog.links.get(server_leaf_optics)),
        LayerHop("leaf", "spine", "scale-out", catalog.link(leaf_spine), note="non-blocking fat tree",
                 label="400G DR4 optics"),
        LayerHop("spine", "site", "long-reach", catalog.link(between_sites), gpus_sharing=0,
                 note="one wavelength", label="400ZR optics"),
    )


def _width_px(hop: LayerHop, fastest_bytes_per_s: float) -> float:
    """Line width: 3 to 26 px by the square root of the rate per GPU (a shared site link is thin)."""
    if hop.gpus_sharing != 1:
        return 3.0
    rate = float(hop.link.bandwidth.per_direction().to("B/s").magnitude)
    return 3.0 + 23.0 * math.sqrt(rate / fastest_bytes_per_s)


def layers_figure(hops: Sequence[LayerHop], gpu_name: str, *, height: int = 340) -> go.Figure:
    """The layers as one picture: boxes from the GPU out to another building, hops as thick as their rate.

    >>> from interconnect.catalog import get_catalog
    >>> catalog = get_catalog()
    >>> fig = layers_figure(layer_hops(catalog), catalog.gpu("h100-sxm").name)
    >>> [a.text for a in fig.layout.annotations if a.text.startswith("<b>NVLink 4")]
    ['<b>NVLink 4</b><br>450 GB/s per GPU<br>about 50 cm']
    """
    fastest = max(float(hop.link.bandwidth.per_direction().to("B/s").magnitude) for hop in hops)
    figure = go.Figure()
    for (layer, title), (x0, x1) in zip(LAYERS, _BANDS, strict=True):
        figure.add_shape(type="rect", x0=x0, x1=x1, y0=-0.55, y1=1.45, line={"width": 0}, layer="below",
                         fillcolor=LAYER_COLOURS[layer], opacity=0.10)
        figure.add_annotation(x=(x0 + x1) / 2, y=1.42, text=f"<b>{title}</b>", showarrow=False, yanchor="top",
                              font={"size": 17, "color": LAYER_COLOURS[layer]})
    for hop in hops:
        (xa, ya), (xb, yb) = _BOXES[hop.start], _BOXES[hop.end]
        colour = LAYER_COLOURS[hop.layer]
        rate = hop.rate_text()
        figure.add_trace(go.Scatter(
            x=[xa, (xa + xb) / 2, xb], y=[ya, (ya + yb) / 2, yb], mode="lines", showlegend=False,
            line={"width": _width_px(hop, fastest), "color": colour, "dash": "dot" if hop.gpus_sharing != 1 else None},
            hoverinfo="text", hoveron="points",
            hovertext=f"{hop.link.name}: {rate}, {hop.reach_text()}"
                      + (f" over {hop.medium.name}" if hop.medium else "") + f" ({hop.note}). "
                      f"{hop.link.bandwidth.text()} in the catalog, {hop.link.bandwidth.direction.replace('_', ' ')}.",
        ))
        short = hop.label or hop.link.name.split(" (")[0]
        label = f"<b>{short}</b><br>{rate}<br>{hop.reach_lines()}"
        if ya != yb:  # the vertical hop up to the switch: its label beside it
            figure.add_annotation(x=xa + 0.14, y=(ya + yb) / 2 + 0.08, text=label, showarrow=False, xanchor="left",
                                  align="left", font={"size": 15})
        elif hop.start == "gpu":  # the short hop to the NIC: its label under it, clear of NVLink's
            figure.add_annotation(x=(xa + xb) / 2 + 0.1, y=ya - 0.17, text=label, showarrow=False, yanchor="top",
                                  font={"size": 15})
        else:
            figure.add_annotation(x=(xa + xb) / 2, y=ya + 0.17, text=label, showarrow=False, yanchor="bottom",
                                  font={"size": 15})
    short_gpu = " ".join(gpu_name.replace("NVIDIA ", "").split()[:2])
    names = {"gpu": f"<b>{short_gpu}</b>", "switch": "<b>NVLink switch</b>",
             "nic": "<b>NIC</b>", "leaf": "<b>Leaf switch</b>", "spine": "<b>Spine switch</b>",
             "site": "<b>Another building</b>"}
    for key, (x, y) in _BOXES.items():
        figure.add_annotation(x=x, y=y, text=names[key], showarrow=False, bgcolor="white", bordercolor="#374151",
                              borderwidth=2, borderpad=6, font={"size": 15})
    apply_theme(figure, height=height, template=False)
    figure.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10}, plot_bgcolor="white", showlegend=False,
                         hovermode="closest", dragmode=False)
    figure.update_xaxes(visible=False, range=[-0.58, 7.03], fixedrange=True)
    figure.update_yaxes(visible=False, range=[-0.6, 1.5], fixedrange=True)
    return figure

