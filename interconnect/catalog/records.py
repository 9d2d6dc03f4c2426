"""The catalog's record types (sources, figures, links, GPUs, nodes, media), its vocabularies and its errors."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import pint

from interconnect.units import Q_, InterconnectError, format_quantity

DIRECTIONS = ("per_direction", "both_directions", "shared", "n/a")
BASES = ("spec", "achieved", "measured", "estimate")
LAYERS = ("scale-up", "host", "scale-out", "cable", "long-reach", "everyday", "historical")
#: How a GPU's scale-up peers are wired: through switches (any peer gets the full per-GPU rate) or
#: a mesh of direct links (one peer gets only the links wired to it).
NODE_TOPOLOGIES = ("switched", "mesh")
#: The number format of a GPU's ``bf16_dense`` figure (P100 and V100 have no BF16; theirs is FP16).
DENSE_FORMATS = ("BF16", "FP16")
#: What a propagation medium is made of.
MEDIUM_KINDS = ("fibre", "copper", "vacuum")
#: How each direction reads in prose and tables (empty for figures that are not rates).
DIRECTION_WORDS = {
    "per_direction": "per direction",
    "both_directions": "both directions summed",
    "shared": "shared by both directions",
    "n/a": "",
}
LAYER_TITLES = {
    "scale-up": "Inside the server (scale-up)",
    "host": "GPU to host (PCIe)",
    "scale-out": "Between servers (scale-out)",
    "cable": "Cables and optics (the physical link)",
    "long-reach": "Between buildings and data centres",
    "everyday": "Everyday references",
    "historical": "Historical links",
}
SOURCE_KINDS = ("primary", "secondary", "third-party", "measurement")
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")


class CatalogError(InterconnectError, ValueError):
    """The catalog data is inconsistent; the message names the file and the entry."""


class UnknownIdError(InterconnectError, KeyError):
    """An id that is not in the catalog (from a URL, the CLI or code)."""

    def __init__(self, kind: str, wanted: str, known: Iterable[str]) -> None:
        self.kind = kind
        self.wanted = wanted
        self.known = sorted(known)
        super().__init__(f"unknown {kind} id '{wanted}'; known ids: {', '.join(self.known)}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return self.args[0]

    def __reduce__(self) -> tuple:  # pickle rebuilds from the three arguments, not the message
        return (type(self), (self.kind, self.wanted, self.known))


@dataclass(frozen=True)
class Source:
    """Where a figure came from: a title, an address and what kind of source it is."""

    id: str
    title: str
    url: str
    kind: str
    note: str = ""


@dataclass(frozen=True)
class Figure:
    """One catalog number with its unit, direction, basis and sources."""

    quantity: pint.Quantity
    direction: str
    basis: str
    source_ids: tuple[str, ...]
    note: str = ""
    #: The other direction of an asymmetric ``per_direction`` link (home broadband's 20 Mbit/s up);
    #: ``quantity`` is then the main (downstream) direction. ``None`` for symmetric figures.
    upstream: pint.Quantity | None = None

    @property
    def is_asymmetric(self) -> bool:
        return self.upstream is not None

    def per_direction(self) -> pint.Quantity:
        """What one direction can carry: half of a both-directions sum; all of a shared pipe.

        For an asymmetric link this is the main (downstream) direction; see :meth:`upstream_rate`.
        """
        if self.direction == "both_directions":
            return self.quantity / 2
        if self.direction in ("per_direction", "shared"):
            return self.quantity
        raise ValueError("this figure is not a rate with a direction")

    def upstream_rate(self) -> pint.Quantity:
        """The reverse direction: the ``upstream`` value if the link is asymmetric, else :meth:`per_direction`."""
        if self.upstream is not None:
            return self.upstream
        return self.per_direction()

    def both_directions(self) -> pint.Quantity:
        """Both directions added up: twice a symmetric per-direction rate, down + up for an asymmetric
        link (100 + 20 = 120 Mbit/s), a both-directions figure or a shared pipe once."""
        if self.direction == "per_direction":
            if self.upstream is not None:
                return self.quantity + self.upstream.to(self.quantity.units)
            return self.quantity * 2
        if self.direction in ("both_directions", "shared"):
            return self.quantity
        raise ValueError("this figure is not a rate with a direction")

    def in_direction(self, direction: str) -> pint.Quantity:
        """``per_direction`` or ``both_directions`` view of this figure."""
        if direction == "per_direction":
            return self.per_direction()
        if direction == "both_directions":
            return self.both_directions()
        raise ValueError(f"direction must be per_direction or both_directions, not {direction!r}")

    def text(self) -> str:
        if self.upstream is not None:
            return f"{format_quantity(self.quantity)} down, {format_quantity(self.upstream)} up"
        return format_quantity(self.quantity)


@dataclass(frozen=True)
class Term:
    """A name with its sources: a GPU's scale-up brand ("Infinity Fabric") or collective library ("RCCL")."""

    name: str
    source_ids: tuple[str, ...]


class ReferenceNic(NamedTuple):
    """The scale-out NICs of a GPU's reference server: which link, how many, for how many GPUs."""

    nic_id: str
    nics: int
    gpus: int

    @property
    def nics_per_gpu(self) -> float:
        return self.nics / self.gpus


@dataclass(frozen=True)
class Link:
    """A kind of link: NVLink 4, PCIe 5 x16, an InfiniBand NDR port, 400ZR, a LapLink cable..."""

    id: str
    name: str
    layer: str
    family: str
    vendor: str
    summary: str
    medium: str
    switched: bool
    duplex: str
    bandwidth: Figure
    year: int | None = None
    routable: bool | None = None
    in_network_reduction: bool = False
    achieved: Figure | None = None
    per_link: Figure | None = None
    links: int | None = None
    reach: Figure | None = None
    latency: Figure | None = None
    timeout: Figure | None = None
    propagation_medium: str | None = None
    notes: str = ""
    disagreements: tuple[str, ...] = ()
    quoted: tuple[Mapping[str, str], ...] = ()
    sources: tuple[str, ...] = ()

    kind = "link"

    def figures(self) -> dict[str, Figure]:
        names = ("bandwidth", "achieved", "per_link", "reach", "latency", "timeout")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


@dataclass(frozen=True)
class Gpu:
    """An accelerator with its memory, compute and the links it is wired with."""

    id: str
    name: str
    vendor: str
    architecture: str
    year: int
    memory: Figure
    memory_bandwidth: Figure
    bf16_dense: Figure
    scaleup_link: str
    scaleup_bandwidth: Figure
    host_link: str
    typical_nic: str
    reference_node: str
    scaleup_brand: Term
    collective_library: Term
    topology: str
    scaleup_achieved: Figure | None = None
    scaleup_per_peer: Figure | None = None
    #: what the driver reports (NVML, nvidia-smi) where it differs from the label: "80 GB" H100s have 85.5 GB
    memory_reported: Figure | None = None
    #: dense FP8 tensor-core peak; None where the GPU has no FP8 tensor cores or the catalog has no figure
    fp8_dense: Figure | None = None
    typical_nics_per_gpu: float = 1.0
    dense_format: str = "BF16"
    host_link_basis: str = "spec"
    host_link_note: str = ""
    notes: str = ""
    disagreements: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()

    kind = "gpu"

    def figures(self) -> dict[str, Figure]:
        names = ("memory", "memory_reported", "memory_bandwidth", "bf16_dense", "fp8_dense", "scaleup_bandwidth",
                 "scaleup_achieved", "scaleup_per_peer")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}

    def usable_memory(self) -> Figure:
        """The memory a program can allocate: the driver-reported figure where the catalog has one, else the label."""
        return self.memory_reported if self.memory_reported is not None else self.memory

    def peer_bandwidth(self) -> Figure:
        """What one GPU can send to one other GPU of its server: all of it when switched, one peer's
        links in a mesh (MI300X: 64 GB/s per direction, not the 448 GB/s summed over seven peers)."""
        return self.scaleup_per_peer if self.scaleup_per_peer is not None else self.scaleup_bandwidth


@dataclass(frozen=True)
class Node:
    """A server or rack preset: which GPU, how many, how big the NVLink domain, which NICs."""

    id: str
    name: str
    gpu: str
    gpus: int
    scaleup_domain: int
    nic: str
    nics: int
    source_ids: tuple[str, ...]
    scaleup_aggregate: Figure | None = None
    notes: str = ""

    kind = "node"

    def figures(self) -> dict[str, Figure]:
        return {} if self.scaleup_aggregate is None else {"scaleup_aggregate": self.scaleup_aggregate}


@dataclass(frozen=True)
class Medium:
    """What a signal travels through, and how long it takes per metre (fibre about 4.9 us/km)."""

    id: str
    name: str
    kind: str
    summary: str
    delay: Figure
    source_ids: tuple[str, ...] = ()
    notes: str = ""
    disagreements: tuple[str, ...] = ()

    SPEED_OF_LIGHT = Q_(299_792_458, "m/s")

    def figures(self) -> dict[str, Figure]:
        return {"delay": self.delay}

    def velocity(self) -> pint.Quantity:
        """How fast the signal moves: 1 / delay."""
        return (1 / self.delay.quantity).to("km/s")

    def velocity_factor(self) -> float:
        """The velocity as a fraction of the speed of light in vacuum."""
        return float((self.velocity() / self.SPEED_OF_LIGHT).to("").magnitude)

    def group_index(self) -> float:
        """c over the velocity (about 1.47 for silica fibre)."""
        return 1 / self.velocity_factor()

    def one_way(self, distance: pint.Quantity) -> pint.Quantity:
        """Propagation time over ``distance`` (a length quantity), one way."""
        return (distance * self.delay.quantity).to("us")


Entry = Gpu | Link | Node
