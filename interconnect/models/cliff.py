"""The bandwidth cliff: how much bandwidth a GPU has inside the server against outside it.

The headline is a ratio of two bandwidths, and the popular version of it is wrong: NVIDIA quotes
NVLink as both directions added up (H100: 900 GB/s) while a network port is quoted per direction
(InfiniBand NDR: 400 Gbit/s = 50 GB/s). Like for like, H100 is 450 / 50 = 9:1; the "18:1" that is
often quoted for H100 mixes the two conventions, and is the honest ratio only for B200 (NVLink 5,
900 GB/s per direction) against a 400 Gbit/s port.

Everything here takes catalog ids and returns quantities with units; nothing imports Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

import pint

from interconnect.catalog import Catalog, Figure, Gpu, Link
from interconnect.units import Q_

__all__ = [
    "BASIS_CHOICES",
    "DIRECTION_CHOICES",
    "REFERENCE_LINKS",
    "CliffBar",
    "CliffSummary",
    "cliff_bars",
    "cliff_summary",
    "generation_ratios",
]

DIRECTION_CHOICES = ("per_direction", "both_directions")
BASIS_CHOICES = ("spec", "achieved")

#: Links beyond the server that the cliff chart compares against, outermost last. Ids that are not
#: in the catalog are skipped, so the chart never breaks on a catalog edit.
REFERENCE_LINKS: tuple[tuple[str, str], ...] = (
    ("campus", "campus-400g-fr4"),
    ("metro", "400zr"),
    ("wan", "cloud-cross-region"),
    ("home", "home-broadband"),
    ("parallel", "laplink-parallel"),
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
        return float(self.bandwidth.to("GB/s").magnitude)


def _pick(spec: Figure, achieved: Figure | None, basis: str) -> Figure:
    if basis == "achieved" and achieved is not None:
        return achieved
    return spec


def _view(figure: Figure, direction: str) -> pint.Quantity:
    return figure.in_direction(direction).to("GB/s")


@dataclass(frozen=True)
class CliffSummary:
    """The headline numbers for one GPU and one NIC, in both conventions.

    ``ratio_like_for_like`` divides per-direction by per-direction. ``ratio_as_quoted`` divides
    the scale-up figure as vendors quote it (both directions summed) by the NIC's per-direction
    rate, which is how the popular "18:1 for H100" arises.
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

    @property
    def ratio_like_for_like(self) -> float:
        return float((self.scaleup_per_direction / self.nic_per_direction).to("").magnitude)

    @property
    def ratio_as_quoted(self) -> float:
        return float((self.scaleup_both_directions / self.nic_per_direction).to("").magnitude)

    @property
    def ratio_achieved(self) -> float | None:
        if self.scaleup_achieved_per_direction is None or self.nic_achieved_per_direction is None:
            return None
        return float((self.scaleup_achieved_per_direction / self.nic_achieved_per_direction).to("").magnitude)

    @property
    def node_egress_per_direction(self) -> pint.Quantity:
        return (self.nic_per_direction * self.nics_per_node).to("GB/s")

    @property
    def node_scaleup_per_direction(self) -> pint.Quantity:
        """All the GPUs' NVLink bandwidth in one node, per direction."""
        return (self.scaleup_per_direction * self.gpus_per_node).to("GB/s")


def cliff_summary(catalog: Catalog, gpu_id: str, nic_id: str, nics_per_node: int = 8,
                  gpus_per_node: int = 8) -> CliffSummary:
    """Scale-up against scale-out bandwidth for one GPU and NIC.

    >>> from interconnect.catalog import get_catalog
    >>> s = cliff_summary(get_catalog(), "h100-sxm", "ib-ndr")
    >>> s.scaleup_per_direction, s.nic_per_direction, s.ratio_like_for_like, s.ratio_as_quoted
    (<Quantity(450.0, 'gigabyte / second')>, <Quantity(50.0, 'gigabyte / second')>, 9.0, 18.0)
    """
    gpu = catalog.gpu(gpu_id)
    nic = catalog.nic(nic_id)
    up_achieved = gpu.scaleup_achieved.per_direction().to("GB/s") if gpu.scaleup_achieved else None
    nic_achieved = nic.achieved.per_direction().to("GB/s") if nic.achieved else None
    return CliffSummary(
        gpu=gpu,
        nic=nic,
        scaleup_per_direction=gpu.scaleup_bandwidth.per_direction().to("GB/s"),
        scaleup_both_directions=gpu.scaleup_bandwidth.both_directions().to("GB/s"),
        nic_per_direction=nic.bandwidth.per_direction().to("GB/s"),
        nic_both_directions=nic.bandwidth.both_directions().to("GB/s"),
        scaleup_achieved_per_direction=up_achieved,
        nic_achieved_per_direction=nic_achieved,
        nics_per_node=nics_per_node,
        gpus_per_node=gpus_per_node,
    )


def cliff_bars(catalog: Catalog, gpu_id: str, nic_id: str, direction: str = "per_direction",
               basis: str = "spec", nics_per_node: int = 8) -> list[CliffBar]:
    """The bars of the cliff chart, from the GPU's own memory outwards to a 1980s cable.

    ``direction`` is ``per_direction`` or ``both_directions``; ``basis`` is ``spec`` or
    ``achieved`` (a figure without an achieved value falls back to its spec, and the bar says so
    through its ``basis``).
    """
    if direction not in DIRECTION_CHOICES:
        raise ValueError(f"direction must be one of {DIRECTION_CHOICES}")
    if basis not in BASIS_CHOICES:
        raise ValueError(f"basis must be one of {BASIS_CHOICES}")
    gpu = catalog.gpu(gpu_id)
    nic = catalog.nic(nic_id)
    scaleup = catalog.link(gpu.scaleup_link)
    host = catalog.link(gpu.host_link)
    bars: list[CliffBar] = []

    def add(key: str, label: str, layer: str, figure: Figure, entry_id: str, detail: str,
            multiplier: float = 1.0) -> None:
        bars.append(CliffBar(key, label, layer, _view(figure, direction) * multiplier, figure.basis, figure,
                             entry_id, detail))

    add("hbm", f"{gpu.name}: its own memory (HBM)", "gpu", gpu.memory_bandwidth, gpu.id,
        "Memory bandwidth inside one GPU package, shared between reads and writes.")
    up = _pick(gpu.scaleup_bandwidth, gpu.scaleup_achieved, basis)
    add("scaleup", f"{scaleup.name}: GPU to GPU in the server", "scale-up", up, gpu.id,
        f"Per GPU, all {scaleup.links} links together." if scaleup.links else "Per GPU, all links together.")
    add("host", f"{host.name}: GPU to CPU", "host", _pick(host.bandwidth, host.achieved, basis), host.id,
        "The slot to the host CPU (and, on many servers, to the NIC).")
    nic_figure = _pick(nic.bandwidth, nic.achieved, basis)
    add("node", f"Whole server out: {nics_per_node} × {nic.name}", "scale-out", nic_figure, nic.id,
        "Every NIC of the server together: what leaves the chassis.", multiplier=nics_per_node)
    add("nic", f"{nic.name}: one GPU's NIC", "scale-out", nic_figure, nic.id,
        "One network port per GPU, the usual design for training servers.")
    for key, link_id in REFERENCE_LINKS:
        link = catalog.links.get(link_id)
        if link is None:
            continue
        add(key, link.name, link.layer, _pick(link.bandwidth, link.achieved, basis), link.id, link.summary)
    return bars


def quoted_claims(catalog: Catalog, bars: list[CliffBar]) -> list[tuple[str, dict]]:
    """Popular figures recorded on the links a chart shows, each with its correction."""
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
    """The cliff for one GPU against the NIC its reference server ships with."""

    gpu: Gpu
    nic: Link
    nics_per_gpu: float
    scaleup_per_direction: pint.Quantity
    network_per_gpu_per_direction: pint.Quantity
    ratio_like_for_like: float
    ratio_as_quoted: float
    ratio_achieved: float | None


def generation_ratios(catalog: Catalog) -> list[GenerationRatio]:
    """For every GPU in the catalog (oldest first): scale-up per GPU against its NICs per GPU."""
    rows = []
    for gpu in sorted(catalog.gpus.values(), key=lambda g: (g.year, g.name)):
        nic = catalog.link(gpu.typical_nic)
        per_gpu = nic.bandwidth.per_direction() * gpu.typical_nics_per_gpu
        up = gpu.scaleup_bandwidth.per_direction()
        achieved = None
        if gpu.scaleup_achieved is not None and nic.achieved is not None:
            achieved = float(
                (gpu.scaleup_achieved.per_direction() / (nic.achieved.per_direction() * gpu.typical_nics_per_gpu))
                .to("").magnitude
            )
        rows.append(GenerationRatio(
            gpu=gpu,
            nic=nic,
            nics_per_gpu=gpu.typical_nics_per_gpu,
            scaleup_per_direction=up.to("GB/s"),
            network_per_gpu_per_direction=per_gpu.to("GB/s"),
            ratio_like_for_like=float((up / per_gpu).to("").magnitude),
            ratio_as_quoted=float((gpu.scaleup_bandwidth.both_directions() / per_gpu).to("").magnitude),
            ratio_achieved=achieved,
        ))
    return rows


ONE_BLURAY = Q_(1, "bluray")


def transfer_time(bandwidth: pint.Quantity, payload: pint.Quantity = ONE_BLURAY) -> pint.Quantity:
    """How long ``payload`` (default: one 50 GB Blu-ray) takes at ``bandwidth``.

    >>> transfer_time(Q_(50, "GB/s")).to("s")
    <Quantity(1.0, 'second')>
    """
    return (payload / bandwidth).to("s")
