"""The bandwidth cliff: how much bandwidth a GPU has inside the server against outside it.

The headline is a ratio of two bandwidths, and the popular version of it is wrong: NVIDIA quotes
NVLink as both directions added up (H100: 900 GB/s) while a network port is quoted per direction
(InfiniBand NDR: 400 Gbit/s = 50 GB/s). Like for like, H100 is 450 / 50 = 9:1; the "18:1" that is
often quoted for H100 mixes the two conventions, and is the honest ratio only for B200 (NVLink 5,
900 GB/s per direction) against a 400 Gbit/s port.

Everything here takes catalog ids and returns quantities with units; nothing imports Streamlit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import pint

from interconnect.catalog import Catalog, Figure, Gpu, Link, Node
from interconnect.units import Q_

__all__ = [
    "BASIS_CHOICES",
    "DIRECTION_CHOICES",
    "REFERENCE_LINKS",
    "CliffBar",
    "CliffSummary",
    "GenerationRatio",
    "ServerNics",
    "cliff_bars",
    "cliff_summary",
    "generation_ratios",
    "quoted_claims",
    "server_nics",
    "short_gpu_name",
    "short_link_name",
    "transfer_time",
]

DIRECTION_CHOICES = ("per_direction", "both_directions")
#: More GPUs than this in one reference "node" means a rack (GB200 NVL72), not one chassis.
RACK_SCALE_GPUS = 16
BASIS_CHOICES = ("spec", "achieved")

#: Links beyond the server that the cliff chart compares against, outermost last, with the short
#: label the chart gives each. Ids that are not in the catalog are skipped, so the chart never breaks
#: on a catalog edit.
REFERENCE_LINKS: tuple[tuple[str, str, str], ...] = (
    ("campus", "campus-400g-fr4", "Across a campus: 2 km fibre"),
    ("metro", "400zr", "Across a city: 400ZR optics"),
    ("wan", "cloud-cross-region", "Cloud, between regions"),
    ("home", "home-broadband", "Home broadband"),
    ("parallel", "laplink-parallel", "1980s LapLink cable"),
)


@dataclass(frozen=True)
class CliffBar:
    """One bar of the cliff chart: a bandwidth as the viewer asked for it, and where it came from."""

    key: str
    label: str
    layer: str
    bandwidth: pint.Quantity
    basis: str  # the basis actually used: "spec", "achieved" or "measured"
    figure: Figure
    entry_id: str
    detail: str

    @property
    def bandwidth_gbytes_per_s(self) -> float:
        """Bar height in GB/s (1 GB = 1e9 B)."""
        return float(self.bandwidth.to("GB/s").magnitude)


def _pick(spec: Figure, achieved: Figure | None, basis: str) -> Figure:
    if basis == "achieved" and achieved is not None:
        return achieved
    return spec


def _view(figure: Figure, direction: str) -> pint.Quantity:
    return figure.in_direction(direction).to("GB/s")


def short_gpu_name(name: str) -> str:
    """Shorten a GPU's name for chart labels: maker words and memory sizes dropped.

    Parameters
    ----------
    name : str
        The catalog name.

    Returns
    -------
    str
        The short name (the full name when nothing would be left).

    Examples
    --------
    >>> short_gpu_name("NVIDIA H100 SXM5 80GB")
    'H100 SXM5'
    """
    words = name.split(" (")[0].split()
    drop = {"NVIDIA", "AMD", "Instinct", "Intel", "Tesla", "Habana"}
    kept = [w for w in words if w not in drop and not re.fullmatch(r"\d+GB", w)]
    return " ".join(kept) or name


def short_link_name(name: str) -> str:
    """Drop a link name's parenthetical, for chart labels.

    Parameters
    ----------
    name : str
        The catalog name.

    Returns
    -------
    str
        The name up to its first `` (``.

    Examples
    --------
    >>> short_link_name("InfiniBand NDR (400 Gbit/s port)")
    'InfiniBand NDR'
    """
    return name.split(" (")[0]


class ServerNics(NamedTuple):
    """The scale-out NICs of the server a cliff is drawn for, and the reference server they came from.

    ``nic_id`` and ``nics`` are what the page shows: the GPU's reference server's own unless the
    viewer chose otherwise. ``gpus`` is always the reference server's (8 for an HGX board, 72 for
    a GB200 NVL72 rack).
    """

    nic_id: str
    nics: int
    gpus: int
    node: Node

    @property
    def nics_per_gpu(self) -> float:
        """NICs per GPU in the server (dimensionless; 1 for a DGX H100, 3 for a Gaudi 3 HLS-3)."""
        return self.nics / self.gpus

    @property
    def word(self) -> str:
        """What to call the box the NICs leave: a "rack" for a rack-scale domain (GB200 NVL72), else a "server"."""
        return "rack" if self.gpus > RACK_SCALE_GPUS else "server"

    @property
    def is_reference(self) -> bool:
        """Whether NIC and count are both the reference server's (Gaudi 3: 24 on-chip 200 GbE ports)."""
        return self.nic_id == self.node.nic and self.nics == self.node.nics


def server_nics(catalog: Catalog, gpu_id: str, nic_id: str | None = None,
                nics_per_node: int | None = None) -> ServerNics:
    """Find the NIC and NIC count of a GPU's server: its reference server's unless given.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog
        The hardware catalog.
    gpu_id : str
        A GPU id of the catalog.
    nic_id : str, optional
        A scale-out NIC id; the reference server's when left out.
    nics_per_node : int, optional
        NICs in the server. When left out: the reference server's count if the NIC is the server's
        own, else one NIC per GPU (the usual design for a training server).

    Returns
    -------
    ServerNics
        NIC id, NIC count, GPUs in the reference server and that server.

    Examples
    --------
    Gaudi 3 alone gets 24 on-chip 200 GbE ports; with a 400 Gbit/s InfiniBand card, 8:

    >>> from interconnect.catalog import get_catalog
    >>> server_nics(get_catalog(), "gaudi3")[:3], server_nics(get_catalog(), "gaudi3", "ib-ndr")[:3]
    (('roce-200g', 24, 8), ('ib-ndr', 8, 8))
    """
    node = catalog.reference_node(gpu_id)
    nic = catalog.nic(nic_id if nic_id is not None else node.nic)
    if nics_per_node is None:
        nics_per_node = node.nics if nic.id == node.nic else node.gpus
    return ServerNics(nic.id, int(nics_per_node), node.gpus, node)


@dataclass(frozen=True)
class CliffSummary:
    """The headline numbers for one GPU and its server's network, in both conventions.

    The network side is **per GPU**: the server's NICs times their rate, divided by its GPUs (one
    400 Gbit/s port for an H100 of a DGX H100; three 200 GbE ports for a Gaudi 3; half an EDR port
    for a P100 of a DGX-1). ``ratio_like_for_like`` divides per-direction by per-direction.
    ``ratio_as_quoted`` divides the scale-up figure as makers quote it (both directions summed) by
    the per-direction network rate, which is how the popular "18:1 for H100" arises.
    """

    gpu: Gpu
    nic: Link
    scaleup_per_direction: pint.Quantity
    scaleup_both_directions: pint.Quantity
    nic_per_direction: pint.Quantity
    nic_both_directions: pint.Quantity
    scaleup_achieved_per_direction: pint.Quantity | None
    nic_achieved_per_direction: pint.Quantity | None
    nics_per_node: int
    gpus_per_node: int
    server: ServerNics | None = None
    #: What one GPU can send to one other GPU of its server (mesh: one peer's links; switched: all).
    scaleup_per_peer_per_direction: pint.Quantity | None = None

    @property
    def nics_per_gpu(self) -> float:
        """NICs per GPU (dimensionless)."""
        return self.nics_per_node / self.gpus_per_node

    @property
    def network_per_gpu_per_direction(self) -> pint.Quantity:
        """The server's NICs shared out over its GPUs, per direction, in GB/s."""
        return (self.nic_per_direction * self.nics_per_gpu).to("GB/s")

    @property
    def is_mesh(self) -> bool:
        """Whether the GPU's scale-up is a mesh (each peer over its own links) rather than switched."""
        return self.gpu.topology == "mesh"

    @property
    def ratio_like_for_like(self) -> float:
        """Scale-up over network bandwidth per GPU, both per direction (dimensionless; H100 with NDR: 9)."""
        return float((self.scaleup_per_direction / self.network_per_gpu_per_direction).to("").magnitude)

    @property
    def ratio_as_quoted(self) -> float:
        """Scale-up as quoted (both directions) over network per direction (H100 with NDR: the popular 18)."""
        return float((self.scaleup_both_directions / self.network_per_gpu_per_direction).to("").magnitude)

    @property
    def ratio_one_peer(self) -> float:
        """One peer's scale-up bandwidth over the network per GPU (like for like when switched)."""
        peer = self.scaleup_per_peer_per_direction
        if peer is None:
            return self.ratio_like_for_like
        return float((peer / self.network_per_gpu_per_direction).to("").magnitude)

    @property
    def ratio_achieved(self) -> float | None:
        """Achieved scale-up over achieved network per GPU, per direction; None without both figures."""
        if self.scaleup_achieved_per_direction is None or self.nic_achieved_per_direction is None:
            return None
        network = self.nic_achieved_per_direction * self.nics_per_gpu
        return float((self.scaleup_achieved_per_direction / network).to("").magnitude)

    @property
    def node_egress_per_direction(self) -> pint.Quantity:
        """Every NIC of the server together, per direction, in GB/s."""
        return (self.nic_per_direction * self.nics_per_node).to("GB/s")

    @property
    def node_scaleup_per_direction(self) -> pint.Quantity:
        """All the GPUs' scale-up bandwidth in one server, per direction, in GB/s."""
        return (self.scaleup_per_direction * self.gpus_per_node).to("GB/s")


def cliff_summary(catalog: Catalog, gpu_id: str, nic_id: str | None = None, nics_per_node: int | None = None,
                  gpus_per_node: int | None = None) -> CliffSummary:
    r"""Compare scale-up with scale-out bandwidth per GPU, for one GPU in its server.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog
        The hardware catalog.
    gpu_id : str
        A GPU id of the catalog.
    nic_id : str, optional
        A scale-out NIC id; the reference server's by default (:func:`server_nics`).
    nics_per_node : int, optional
        NICs per server; the reference server's by default.
    gpus_per_node : int, optional
        GPUs per server; the reference server's by default.

    Returns
    -------
    CliffSummary
        Bandwidths as Quantities in GB/s, per direction and both directions, and the ratios.

    Notes
    -----
    .. math::

        r_{like} = \frac{B_{up}^{dir}}{B_{NIC}^{dir} \, n_{NIC} / n_{GPU}}, \qquad
        r_{quoted} = \frac{B_{up}^{both}}{B_{NIC}^{dir} \, n_{NIC} / n_{GPU}}

    NVIDIA quotes NVLink as both directions summed ("900 GB/s is the sum of both directions",
    ``nccl-issue-1442``) while a network port is quoted per direction (400 Gbit/s = 50 GB/s,
    ``nccl-tests-319``). For H100 that gives 450 / 50 = 9 like for like, and the popular 18 when the
    conventions are mixed. The ratios are our arithmetic on the catalog's figures.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> s = cliff_summary(get_catalog(), "h100-sxm", "ib-ndr")
    >>> s.scaleup_per_direction, s.nic_per_direction, s.ratio_like_for_like, s.ratio_as_quoted
    (<Quantity(450.0, 'gigabyte / second')>, <Quantity(50.0, 'gigabyte / second')>, 9.0, 18.0)
    >>> g = cliff_summary(get_catalog(), "gaudi3")  # HLS-3: 24 x 200 GbE for 8 cards, 75 GB/s per card
    >>> g.network_per_gpu_per_direction, round(g.ratio_like_for_like, 3)
    (<Quantity(75.0, 'gigabyte / second')>, 7.0)
    """
    gpu = catalog.gpu(gpu_id)
    server = server_nics(catalog, gpu_id, nic_id, nics_per_node)
    nic = catalog.nic(server.nic_id)
    up_achieved = gpu.scaleup_achieved.per_direction().to("GB/s") if gpu.scaleup_achieved else None
    nic_achieved = nic.achieved.per_direction().to("GB/s") if nic.achieved else None
    peer = gpu.scaleup_per_peer.per_direction().to("GB/s") if gpu.scaleup_per_peer is not None else None
    return CliffSummary(
        gpu=gpu,
        nic=nic,
        scaleup_per_direction=gpu.scaleup_bandwidth.per_direction().to("GB/s"),
        scaleup_both_directions=gpu.scaleup_bandwidth.both_directions().to("GB/s"),
        nic_per_direction=nic.bandwidth.per_direction().to("GB/s"),
        nic_both_directions=nic.bandwidth.both_directions().to("GB/s"),
        scaleup_achieved_per_direction=up_achieved,
        nic_achieved_per_direction=nic_achieved,
        nics_per_node=server.nics,
        gpus_per_node=gpus_per_node if gpus_per_node is not None else server.gpus,
        server=server,
        scaleup_per_peer_per_direction=peer,
    )


def _network_share_label(nic: Link, nics: int, gpus: int) -> str:
    """'One GPU's NIC: InfiniBand NDR', 'One GPU's NICs: 3 × RoCE v2 over 200 GbE', 'One GPU's share: 4/8 × ...'."""
    name = short_link_name(nic.name)
    if nics == gpus:
        return f"One GPU's NIC: {name}"
    if nics % gpus == 0:
        return f"One GPU's NICs: {nics // gpus} × {name}"
    return f"One GPU's share: {nics}/{gpus} × {name}"


def cliff_bars(catalog: Catalog, gpu_id: str, nic_id: str | None = None, direction: str = "per_direction",
               basis: str = "spec", nics_per_node: int | None = None) -> list[CliffBar]:
    """Build the bars of the cliff chart, from the GPU's own memory outwards to a 1980s cable.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog
        The hardware catalog.
    gpu_id : str
        A GPU id of the catalog.
    nic_id : str, optional
        A scale-out NIC id; the reference server's by default (:func:`server_nics`).
    direction : {"per_direction", "both_directions"}
        How every bandwidth is shown.
    basis : {"spec", "achieved"}
        Which figure to show; a figure without an achieved value falls back to its spec, and the
        bar says so through its ``basis``.
    nics_per_node : int, optional
        NICs per server; the reference server's by default.

    Returns
    -------
    list of CliffBar
        Bandwidths as Quantities in GB/s, innermost first. A GPU whose scale-up is a mesh gets a
        second scale-up bar: what one peer gets (MI300X: 64 GB/s per direction, not the 448 GB/s
        summed over seven peers).

    Raises
    ------
    ValueError
        For an unknown ``direction`` or ``basis``.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> bars = cliff_bars(get_catalog(), "h100-sxm")
    >>> [(bar.key, f"{bar.bandwidth_gbytes_per_s:g} GB/s") for bar in bars[1:4]]
    [('scaleup', '450 GB/s'), ('host', '63 GB/s'), ('node', '400 GB/s')]
    """
    if direction not in DIRECTION_CHOICES:
        raise ValueError(f"direction must be one of {DIRECTION_CHOICES}")
    if basis not in BASIS_CHOICES:
        raise ValueError(f"basis must be one of {BASIS_CHOICES}")
    gpu = catalog.gpu(gpu_id)
    server = server_nics(catalog, gpu_id, nic_id, nics_per_node)
    nic = catalog.nic(server.nic_id)
    scaleup = catalog.link(gpu.scaleup_link)
    host = catalog.link(gpu.host_link)
    brand = short_link_name(gpu.scaleup_brand.name)  # "Gaudi on-chip RoCE", without "(200 GbE)"
    bars: list[CliffBar] = []

    def add(key: str, label: str, layer: str, figure: Figure, entry_id: str, detail: str,
            multiplier: float = 1.0) -> None:
        bars.append(CliffBar(key, label, layer, _view(figure, direction) * multiplier, figure.basis, figure,
                             entry_id, detail))

    add("hbm", f"{short_gpu_name(gpu.name)} memory (HBM)", "gpu", gpu.memory_bandwidth, gpu.id,
        "Memory bandwidth inside one GPU package, shared between reads and writes.")
    up = _pick(gpu.scaleup_bandwidth, gpu.scaleup_achieved, basis)
    peers = server.gpus - 1
    if gpu.topology == "mesh":
        add("scaleup", f"{brand}: all {peers} peers", "scale-up", up, gpu.id,
            f"Per GPU, every {gpu.scaleup_brand.name} link together: a mesh reaches this only when sending to "
            "all its peers at once.")
        add("peer", f"{brand}: one peer", "scale-up", gpu.peer_bandwidth(), gpu.id,
            "The links wired from one GPU to one other: what a GPU can send to a single neighbour.")
    else:
        add("scaleup", f"{brand}: GPU to GPU", "scale-up", up, gpu.id,
            f"Per GPU, all {scaleup.links} links together, to any peer through the switches." if scaleup.links
            else "Per GPU, all links together, to any peer through the switches.")
    add("host", f"{short_link_name(host.name)}: GPU to CPU", "host", _pick(host.bandwidth, host.achieved, basis),
        host.id, "The slot to the host CPU (and, on many servers, to the NIC).")
    nic_figure = _pick(nic.bandwidth, nic.achieved, basis)
    add("node", f"{server.word.capitalize()} out: {server.nics} × {short_link_name(nic.name)}", "scale-out",
        nic_figure, nic.id, f"Every NIC of the {server.word} together ({server.gpus} GPUs): what leaves it.",
        multiplier=server.nics)
    add("nic", _network_share_label(nic, server.nics, server.gpus), "scale-out", nic_figure, nic.id,
        "The server's NICs shared out over its GPUs: what one GPU can send when all of them send.",
        multiplier=server.nics_per_gpu)
    for key, link_id, label in REFERENCE_LINKS:
        link = catalog.links.get(link_id)
        if link is None:
            continue
        add(key, label, link.layer, _pick(link.bandwidth, link.achieved, basis), link.id,
            f"{link.name}: {link.summary}")
    return bars


def quoted_claims(catalog: Catalog, bars: list[CliffBar]) -> list[tuple[str, dict]]:
    """Collect the popular figures recorded on the links a chart shows, each with its correction.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog
        The hardware catalog.
    bars : list of CliffBar
        The chart's bars (from :func:`cliff_bars`).

    Returns
    -------
    list of (str, dict)
        Link name and the claim as recorded in the catalog, each link once.

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> claims = quoted_claims(get_catalog(), cliff_bars(get_catalog(), "h100-sxm"))
    >>> all(isinstance(name, str) and isinstance(claim, dict) for name, claim in claims)
    True
    """
    seen: set[str] = set()
    claims = []
    for bar in bars:
        entry_ids = [bar.entry_id]
        if bar.key == "scaleup":
            entry_ids = [catalog.gpu(bar.entry_id).scaleup_link]
        for entry_id in entry_ids:
            link = catalog.links.get(entry_id)
            if link is None or entry_id in seen:
                continue
            seen.add(entry_id)
            claims.extend((link.name, dict(claim)) for claim in link.quoted)
    return claims


@dataclass(frozen=True)
class GenerationRatio:
    """The cliff for one GPU in its reference server (the same numbers as :func:`cliff_summary`'s defaults)."""

    gpu: Gpu
    nic: Link
    nics_per_gpu: float
    scaleup_per_direction: pint.Quantity
    network_per_gpu_per_direction: pint.Quantity
    ratio_like_for_like: float
    ratio_as_quoted: float
    ratio_achieved: float | None


def generation_ratios(catalog: Catalog) -> list[GenerationRatio]:
    """Compute the cliff for every GPU of the catalog in its reference server, in release order.

    Parameters
    ----------
    catalog : interconnect.catalog.Catalog
        The hardware catalog.

    Returns
    -------
    list of GenerationRatio
        One row per GPU. Each is :func:`cliff_summary` with the reference server's NICs, so the
        chart and the page's headline agree for every GPU.

    Notes
    -----
    Release order is by year; GPUs of one year keep the catalog's order, which lists each maker's
    generations as they came out (H200 before B200 before GB200).

    Examples
    --------
    >>> from interconnect.catalog import get_catalog
    >>> rows = {row.gpu.id: row for row in generation_ratios(get_catalog())}
    >>> rows["h100-sxm"].ratio_like_for_like
    9.0
    """
    rows = []
    for gpu in sorted(catalog.gpus.values(), key=lambda g: g.year):  # sorted() is stable
        summary = cliff_summary(catalog, gpu.id)
        rows.append(GenerationRatio(
            gpu=gpu,
            nic=summary.nic,
            nics_per_gpu=summary.nics_per_gpu,
            scaleup_per_direction=summary.scaleup_per_direction,
            network_per_gpu_per_direction=summary.network_per_gpu_per_direction,
            ratio_like_for_like=summary.ratio_like_for_like,
            ratio_as_quoted=summary.ratio_as_quoted,
            ratio_achieved=summary.ratio_achieved,
        ))
    return rows


ONE_BLURAY = Q_(1, "bluray")


def transfer_time(bandwidth: pint.Quantity, payload: pint.Quantity = ONE_BLURAY) -> pint.Quantity:
    """Compute how long a payload takes at a bandwidth.

    Parameters
    ----------
    bandwidth : pint.Quantity
        A bandwidth (information per time).
    payload : pint.Quantity, default one 50 GB Blu-ray disc
        A data size.

    Returns
    -------
    pint.Quantity
        Time in s.

    Notes
    -----
    .. math:: t = S / B

    Examples
    --------
    >>> transfer_time(Q_(50, "GB/s")).to("s")
    <Quantity(1.0, 'second')>
    >>> transfer_time(Q_(400, "Gbit/s"), Q_(1, "TB"))
    <Quantity(20.0, 'second')>
    """
    return (payload / bandwidth).to("s")
