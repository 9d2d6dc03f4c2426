"""The hardware catalog: every figure is a quantity with a direction, a basis and a source.

The data lives in ``interconnect/data/*.toml`` (see ``data/SCHEMA.md``). This module turns it into
frozen dataclasses and refuses, at load time, anything that could later be misread: an unknown or
missing key, a figure whose unit has the wrong dimension, a bandwidth without a direction, a
figure without a source, or a reference to an id that does not exist. Errors name the file and
the entry so a broken edit is found in seconds.

Directions (the most common error in this field is mixing them):

* ``per_direction``   - what one direction of a full-duplex link carries (a 400 Gbit/s NIC port).
* ``both_directions`` - both directions of a full-duplex link added up (NVIDIA's "900 GB/s").
* ``shared``          - one pipe shared by both directions (HBM, a half-duplex parallel cable).
* ``n/a``             - not a rate (a capacity, a length, a compute rate).

Bases: ``spec`` (datasheet or standard), ``achieved`` (what software such as NCCL typically
reaches), ``measured`` (one published measurement), ``estimate`` (our reasoned estimate where no
source gives the number; the note says how it was made).

Asymmetric links (home broadband: 100 Mbit/s down, 20 Mbit/s up) are ``per_direction`` figures
with an ``upstream`` value beside the main one: :meth:`Figure.both_directions` adds the two
(120 Mbit/s), never doubles the faster one.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import pint

from interconnect.units import DIMENSIONS, Q_, InterconnectError, format_quantity

__all__ = [
    "BASES",
    "DIRECTION_WORDS",
    "DIRECTIONS",
    "LAYERS",
    "Claim",
    "TourStep",
    "load_tour",
    "catalog_entries_of_kind",
    "load_claims",
    "catalog_kind_of",
    "Catalog",
    "CatalogError",
    "Figure",
    "Gpu",
    "Link",
    "Medium",
    "Node",
    "ReferenceNic",
    "Source",
    "Term",
    "UnknownIdError",
    "check_url",
    "get_catalog",
    "load_catalog",
]

DIRECTIONS = ("per_direction", "both_directions", "shared", "n/a")
BASES = ("spec", "achieved", "measured", "estimate")
LAYERS = ("scale-up", "host", "scale-out", "cable", "long-reach", "everyday", "historical")
#: How a GPU's scale-up peers are wired: through switches (any peer gets the full per-GPU rate) or
#: a mesh of direct links (one peer gets only the links wired to it).
TOPOLOGIES = ("switched", "mesh")
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

# --- schema -------------------------------------------------------------------------------

# field name -> (dimension key in units.DIMENSIONS, required?)
_GPU_FIGURES = {
    "memory": ("size", True),
    "memory_bandwidth": ("bandwidth", True),
    "bf16_dense": ("flop_rate", True),
    "fp8_dense": ("flop_rate", False),
    "scaleup_bandwidth": ("bandwidth", True),
    "scaleup_achieved": ("bandwidth", False),
    "scaleup_per_peer": ("bandwidth", False),
    "memory_reported": ("size", False),
}
_GPU_SCALARS = {
    "id": (str, True), "name": (str, True), "vendor": (str, True), "architecture": (str, True),
    "year": (int, True), "scaleup_link": (str, True), "host_link": (str, True), "typical_nic": (str, True),
    "reference_node": (str, True), "scaleup_brand": (dict, True), "collective_library": (dict, True),
    "topology": (str, True), "typical_nics_per_gpu": ((int, float), False), "dense_format": (str, False),
    "host_link_basis": (str, False), "host_link_note": (str, False), "notes": (str, False),
    "disagreements": (list, False), "sources": (list, False),
}
_LINK_FIGURES = {
    "bandwidth": ("bandwidth", True),
    "achieved": ("bandwidth", False),
    "per_link": ("bandwidth", False),
    "reach": ("length", False),
    "latency": ("time", False),
    "timeout": ("time", False),
}
_LINK_SCALARS = {
    "id": (str, True), "name": (str, True), "layer": (str, True), "family": (str, True), "vendor": (str, True),
    "summary": (str, True), "medium": (str, True), "switched": (bool, True), "duplex": (str, True),
    "year": (int, False), "routable": (bool, False), "in_network_reduction": (bool, False), "links": (int, False),
    "propagation_medium": (str, False), "notes": (str, False), "disagreements": (list, False),
    "quoted": (list, False), "sources": (list, False),
}
_NODE_SCALARS = {
    "id": (str, True), "name": (str, True), "gpu": (str, True), "gpus": (int, True),
    "scaleup_domain": (int, True), "nic": (str, True), "nics": (int, True), "sources": (list, True),
    "notes": (str, False),
}
_NODE_FIGURES = {"scaleup_aggregate": ("bandwidth", False)}
_MEDIUM_SCALARS = {
    "id": (str, True), "name": (str, True), "kind": (str, True), "summary": (str, True), "sources": (list, False),
    "notes": (str, False), "disagreements": (list, False),
}
_MEDIUM_FIGURES = {"delay": ("delay", True)}
#: Dimensions the catalog needs beyond the shared table in ``units.DIMENSIONS``.
_CATALOG_DIMENSIONS = {**DIMENSIONS, "delay": "[time] / [length]"}
_SOURCE_SCALARS = {
    "id": (str, True), "title": (str, True), "url": (str, True), "kind": (str, True), "note": (str, False),
}
_FIGURE_KEYS = {"value", "direction", "basis", "sources", "note", "upstream"}
_QUOTED_KEYS = {"claim", "by", "correction"}
_TERM_KEYS = {"name", "sources"}


def _check_keys(where: str, table: Mapping[str, Any], scalars: Mapping[str, tuple], figures: Mapping[str, tuple]):
    allowed = set(scalars) | set(figures)
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise CatalogError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")
    for name, (_, required) in {**scalars, **figures}.items():
        if required and name not in table:
            raise CatalogError(f"{where}: missing required key '{name}'")
    for name, (kind, _) in scalars.items():
        if name in table:
            value = table[name]
            if isinstance(value, bool) and kind in (int, (int, float)):
                raise CatalogError(f"{where}: '{name}' must be a number, not a boolean")
            if not isinstance(value, kind):
                raise CatalogError(f"{where}: '{name}' has the wrong type ({type(value).__name__})")


def _parse_figure(where: str, name: str, raw: Any, dimension: str, source_ids: set[str]) -> Figure:
    here = f"{where}, figure '{name}'"
    if not isinstance(raw, Mapping):
        raise CatalogError(f"{here}: must be a table with value, direction, basis and sources")
    unknown = sorted(set(raw) - _FIGURE_KEYS)
    if unknown:
        raise CatalogError(f"{here}: unknown key(s) {', '.join(unknown)}")
    for key in ("value", "direction", "basis", "sources"):
        if key not in raw:
            raise CatalogError(f"{here}: missing '{key}'")
    quantity = _quantity(here, raw["value"], dimension)
    direction = raw["direction"]
    if direction not in DIRECTIONS:
        raise CatalogError(f"{here}: direction {direction!r} is not one of {', '.join(DIRECTIONS)}")
    if dimension == "bandwidth" and direction == "n/a":
        raise CatalogError(f"{here}: a bandwidth must say its direction")
    if dimension != "bandwidth" and direction != "n/a":
        raise CatalogError(f"{here}: only bandwidths have a direction; use 'n/a'")
    if raw["basis"] not in BASES:
        raise CatalogError(f"{here}: basis {raw['basis']!r} is not one of {', '.join(BASES)}")
    sources = raw["sources"]
    if not isinstance(sources, list) or not sources:
        raise CatalogError(f"{here}: needs at least one source id")
    for source in sources:
        if source not in source_ids:
            raise CatalogError(f"{here}: unknown source id {source!r}")
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise CatalogError(f"{here}: note must be text")
    upstream = None
    if "upstream" in raw:
        if dimension != "bandwidth" or direction != "per_direction":
            raise CatalogError(f"{here}: only a per_direction bandwidth can have an 'upstream' rate")
        upstream = _quantity(f"{here}, upstream", raw["upstream"], dimension)
    return Figure(quantity, direction, raw["basis"], tuple(sources), note, upstream)


def _quantity(here: str, text: Any, dimension: str) -> pint.Quantity:
    """A positive quantity of the named dimension, read from catalog text."""
    try:
        quantity = Q_(str(text))
    except Exception as exc:
        raise CatalogError(f"{here}: cannot read value {text!r}: {exc}") from exc
    if not isinstance(quantity, pint.Quantity):
        raise CatalogError(f"{here}: value {text!r} has no unit")
    expected = _CATALOG_DIMENSIONS[dimension]
    if str(quantity.dimensionality) != expected:
        raise CatalogError(f"{here}: value {text!r} is {quantity.dimensionality}, expected {dimension} ({expected})")
    if not quantity.magnitude > 0:
        raise CatalogError(f"{here}: value must be positive")
    return quantity


def _parse_term(where: str, name: str, raw: Any, source_ids: set[str]) -> Term:
    here = f"{where}, '{name}'"
    if not isinstance(raw, Mapping) or set(raw) != _TERM_KEYS:
        raise CatalogError(f"{here}: must be a table with exactly 'name' and 'sources'")
    if not isinstance(raw["name"], str) or not raw["name"].strip():
        raise CatalogError(f"{here}: 'name' must be text")
    sources = raw["sources"]
    if not isinstance(sources, list) or not sources or any(s not in source_ids for s in sources):
        raise CatalogError(f"{here}: 'sources' must be a non-empty list of known source ids")
    return Term(raw["name"], tuple(sources))


def _figures(where: str, table: Mapping[str, Any], spec: Mapping[str, tuple], source_ids: set[str]):
    return {
        name: _parse_figure(where, name, table[name], dimension, source_ids)
        for name, (dimension, _) in spec.items()
        if name in table
    }


def _check_extras(where: str, row: Mapping[str, Any], source_ids: set[str]) -> None:
    """Checks shared by links and GPUs: prose lists are text, prose sources exist, counts positive."""
    for key in ("disagreements", "sources"):
        if any(not isinstance(item, str) for item in row.get(key, ())):
            raise CatalogError(f"{where}: every item of '{key}' must be text")
    for source in row.get("sources", ()):
        if source not in source_ids:
            raise CatalogError(f"{where}: unknown source id {source!r} in 'sources'")
    for key in ("links", "typical_nics_per_gpu", "year"):
        if key in row and not row[key] > 0:
            raise CatalogError(f"{where}: '{key}' must be positive")


def _check_id(where: str, entry_id: Any, seen: dict[str, str]) -> None:
    if not isinstance(entry_id, str) or not ID_PATTERN.match(entry_id):
        raise CatalogError(f"{where}: id {entry_id!r} must be lower-case words joined by hyphens")
    if entry_id in seen:
        raise CatalogError(f"{where}: id '{entry_id}' is already used in {seen[entry_id]}")


@dataclass(frozen=True)
class Catalog:
    """All catalog entries, by id. Ids are the public schema of shared links and the CLI."""

    sources: Mapping[str, Source]
    gpus: Mapping[str, Gpu]
    links: Mapping[str, Link]
    nodes: Mapping[str, Node]
    files: tuple[str, ...] = field(default=())
    media: Mapping[str, Medium] = field(default_factory=dict)

    def gpu(self, gpu_id: str) -> Gpu:
        if gpu_id not in self.gpus:
            raise UnknownIdError("GPU", gpu_id, self.gpus)
        return self.gpus[gpu_id]

    def link(self, link_id: str) -> Link:
        if link_id not in self.links:
            raise UnknownIdError("link", link_id, self.links)
        return self.links[link_id]

    def nic(self, nic_id: str) -> Link:
        nics = self.nics()
        if nic_id not in nics:
            raise UnknownIdError("NIC", nic_id, nics)
        return nics[nic_id]

    def node(self, node_id: str) -> Node:
        if node_id not in self.nodes:
            raise UnknownIdError("node", node_id, self.nodes)
        return self.nodes[node_id]

    def medium(self, medium_id: str) -> Medium:
        if medium_id not in self.media:
            raise UnknownIdError("medium", medium_id, self.media)
        return self.media[medium_id]

    def source(self, source_id: str) -> Source:
        if source_id not in self.sources:
            raise UnknownIdError("source", source_id, self.sources)
        return self.sources[source_id]

    def layer(self, layer: str) -> dict[str, Link]:
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        return {key: link for key, link in self.links.items() if link.layer == layer}

    def nics(self) -> dict[str, Link]:
        """Scale-out links a GPU server can use to reach another server."""
        return self.layer("scale-out")

    def reference_node(self, gpu_id: str) -> Node:
        """The server (or rack) the GPU's maker ships it in: DGX H100 for H100, HLS-3 for Gaudi 3..."""
        return self.nodes[self.gpu(gpu_id).reference_node]

    def reference_server_nic(self, gpu_id: str) -> ReferenceNic:
        """The scale-out NICs of the GPU's reference server: (NIC link id, NICs per server, GPUs per server).

        Gaudi 3 gives ('roce-200g', 24, 8): its own on-chip ports, three per card; GB200 gives
        ('ib-ndr', 72, 72): one ConnectX-7 per GPU across an NVL72 rack.
        """
        node = self.reference_node(gpu_id)
        return ReferenceNic(node.nic, node.nics, node.gpus)

    def entry(self, entry_id: str) -> Entry:
        for table in (self.gpus, self.links, self.nodes):
            if entry_id in table:
                return table[entry_id]
        raise UnknownIdError("catalog", entry_id, [*self.gpus, *self.links, *self.nodes])

    def entries(self) -> list[Entry]:
        return [*self.gpus.values(), *self.links.values(), *self.nodes.values()]

    def sources_of(self, entry: Entry | Medium) -> list[Source]:
        """Every distinct source an entry's figures cite, in first-cited order."""
        ids: list[str] = []
        if isinstance(entry, Node | Medium):
            ids.extend(entry.source_ids)
        for figure in entry.figures().values():
            ids.extend(source for source in figure.source_ids if source not in ids)
        if isinstance(entry, Gpu):
            ids.extend(entry.scaleup_brand.source_ids)
            ids.extend(entry.collective_library.source_ids)
        ids.extend(getattr(entry, "sources", ()))
        return [self.sources[source_id] for source_id in dict.fromkeys(ids)]


_TABLES = ("source", "gpu", "link", "node", "medium")
#: TOML files in ``data/`` that are not hardware catalog tables (read by their own loaders).
#: models.toml: model presets for the parallelism pages; crossdc.toml: the Across sites page's published figures;
#: wires.toml: protocols and the media that carry them (interconnect/hardware/wires.py);
#: weight_sync.toml: published RL weight-sync measurements (the Across sites page's weight-sync section);
#: fabric.toml: the Fabric page's switches, distance classes and published designs;
#: crossdc_pipeline.toml: CrossPipe's published cases (the Across sites page's pipeline section).
NON_CATALOG_FILES = frozenset({"models.toml", "crossdc.toml", "weight_sync.toml", "wires.toml", "fabric.toml",
                               "crossdc_pipeline.toml"})


def _read_tables(paths: Iterable[Path]) -> dict[str, list[tuple[str, dict]]]:
    tables: dict[str, list[tuple[str, dict]]] = {name: [] for name in _TABLES}
    for path in paths:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"{path.name}: not valid TOML: {exc}") from exc
        for key, rows in data.items():
            if key not in tables:
                raise CatalogError(f"{path.name}: unknown table [[{key}]]; expected one of {', '.join(tables)}")
            if not isinstance(rows, list):
                raise CatalogError(f"{path.name}: '{key}' must be an array of tables ([[{key}]])")
            tables[key].extend((path.name, row) for row in rows)
    return tables


def check_url(url: str) -> str | None:
    """Why a source address is not well formed, or ``None`` if it is.

    An address must use http or https, name a host with a dot and no trailing dot, and carry no
    whitespace; wiki edit pages (``action=edit``) and ``pages.dev`` mirrors are not sources.
    """
    match = re.fullmatch(r"(https?)://([^/?#\s]+)([^\s]*)", url)
    if match is None:
        return "must be http:// or https:// followed by a host, with no whitespace"
    host = match.group(2).split("@")[-1].split(":")[0].lower()
    if "." not in host or host.endswith(".") or host.startswith(".") or ".." in host:
        return f"host {host!r} must be a dotted name without a leading or trailing dot"
    if "action=edit" in url:
        return "is a wiki edit page (action=edit), not the page itself"
    if host.endswith(".pages.dev"):
        return "is a pages.dev mirror, not the original page"
    return None


def load_catalog(data_dir: str | Path | None = None) -> Catalog:
    """Load and validate every ``*.toml`` file in ``data_dir`` (default: the packaged data)."""
    if data_dir is None:
        directory = Path(str(resources.files("interconnect").joinpath("data")))
    else:
        directory = Path(data_dir)
    paths = sorted(p for p in directory.glob("*.toml") if p.name not in NON_CATALOG_FILES)
    if not paths:
        raise CatalogError(f"no catalog files in {directory}")
    tables = _read_tables(paths)
    seen: dict[str, str] = {}

    sources: dict[str, Source] = {}
    for file, row in tables["source"]:
        where = f"{file}: source '{row.get('id', '?')}'"
        _check_keys(where, row, _SOURCE_SCALARS, {})
        _check_id(where, row["id"], {})
        if row["id"] in sources:
            raise CatalogError(f"{where}: duplicate source id")
        if row["kind"] not in SOURCE_KINDS:
            raise CatalogError(f"{where}: kind {row['kind']!r} is not one of {', '.join(SOURCE_KINDS)}")
        problem = check_url(row["url"])
        if problem:
            raise CatalogError(f"{where}: url {row['url']!r} {problem}")
        sources[row["id"]] = Source(**row)
    source_ids = set(sources)

    media: dict[str, Medium] = {}
    for file, row in tables["medium"]:
        where = f"{file}: medium '{row.get('id', '?')}'"
        _check_keys(where, row, _MEDIUM_SCALARS, _MEDIUM_FIGURES)
        _check_id(where, row["id"], seen)
        if row["kind"] not in MEDIUM_KINDS:
            raise CatalogError(f"{where}: kind {row['kind']!r} is not one of {', '.join(MEDIUM_KINDS)}")
        figures = _figures(where, row, _MEDIUM_FIGURES, source_ids)
        if figures["delay"].direction != "n/a":
            raise CatalogError(f"{where}: a delay has no direction; use 'n/a'")
        _check_extras(where, row, source_ids)
        scalars = {k: v for k, v in row.items() if k not in _MEDIUM_FIGURES}
        scalars["source_ids"] = tuple(scalars.pop("sources", ()))
        scalars["disagreements"] = tuple(scalars.get("disagreements", ()))
        media[row["id"]] = Medium(**scalars, **figures)
        seen[row["id"]] = file

    links: dict[str, Link] = {}
    for file, row in tables["link"]:
        where = f"{file}: link '{row.get('id', '?')}'"
        _check_keys(where, row, _LINK_SCALARS, _LINK_FIGURES)
        _check_id(where, row["id"], seen)
        if row["layer"] not in LAYERS:
            raise CatalogError(f"{where}: layer {row['layer']!r} is not one of {', '.join(LAYERS)}")
        if row["duplex"] not in ("full", "half"):
            raise CatalogError(f"{where}: duplex must be 'full' or 'half'")
        if "propagation_medium" in row and row["propagation_medium"] not in media:
            raise CatalogError(f"{where}: propagation_medium {row['propagation_medium']!r} is not a medium id")
        figures = _figures(where, row, _LINK_FIGURES, source_ids)
        if row["duplex"] == "half" and figures["bandwidth"].direction != "shared":
            raise CatalogError(f"{where}: a half-duplex link's bandwidth must be 'shared'")
        quoted = tuple(row.get("quoted", ()))
        for claim in quoted:
            if not isinstance(claim, Mapping) or set(claim) != _QUOTED_KEYS:
                raise CatalogError(f"{where}: each 'quoted' item needs exactly {', '.join(sorted(_QUOTED_KEYS))}")
        _check_extras(where, row, source_ids)
        scalars = {k: v for k, v in row.items() if k not in _LINK_FIGURES}
        scalars["disagreements"] = tuple(scalars.get("disagreements", ()))
        scalars["sources"] = tuple(scalars.get("sources", ()))
        scalars["quoted"] = quoted
        links[row["id"]] = Link(**scalars, **figures)
        seen[row["id"]] = file

    gpus: dict[str, Gpu] = {}
    for file, row in tables["gpu"]:
        where = f"{file}: gpu '{row.get('id', '?')}'"
        _check_keys(where, row, _GPU_SCALARS, _GPU_FIGURES)
        _check_id(where, row["id"], seen)
        figures = _figures(where, row, _GPU_FIGURES, source_ids)
        for key, layer in (("scaleup_link", "scale-up"), ("host_link", "host"), ("typical_nic", "scale-out")):
            target = links.get(row[key])
            if target is None or target.layer != layer:
                raise CatalogError(f"{where}: '{key}' = {row[key]!r} is not a {layer} link id")
        for key, allowed in (("topology", TOPOLOGIES), ("dense_format", DENSE_FORMATS), ("host_link_basis", BASES)):
            if key in row and row[key] not in allowed:
                raise CatalogError(f"{where}: '{key}' = {row[key]!r} is not one of {', '.join(allowed)}")
        if row["topology"] == "mesh" and "scaleup_per_peer" not in figures:
            raise CatalogError(f"{where}: a mesh GPU needs 'scaleup_per_peer' (what one peer gets)")
        if (row["topology"] == "switched") != links[row["scaleup_link"]].switched:
            raise CatalogError(f"{where}: topology {row['topology']!r} disagrees with its scale-up link's 'switched'")
        if "scaleup_per_peer" in figures and (
                figures["scaleup_per_peer"].per_direction() > figures["scaleup_bandwidth"].per_direction()):
            raise CatalogError(f"{where}: 'scaleup_per_peer' cannot exceed 'scaleup_bandwidth'")
        _check_extras(where, row, source_ids)
        scalars = {k: v for k, v in row.items() if k not in _GPU_FIGURES}
        scalars["disagreements"] = tuple(scalars.get("disagreements", ()))
        scalars["sources"] = tuple(scalars.get("sources", ()))
        for key in ("scaleup_brand", "collective_library"):
            scalars[key] = _parse_term(where, key, row[key], source_ids)
        gpus[row["id"]] = Gpu(**scalars, **figures)
        seen[row["id"]] = file

    nodes: dict[str, Node] = {}
    for file, row in tables["node"]:
        where = f"{file}: node '{row.get('id', '?')}'"
        _check_keys(where, row, _NODE_SCALARS, _NODE_FIGURES)
        _check_id(where, row["id"], seen)
        if row["gpu"] not in gpus:
            raise CatalogError(f"{where}: gpu {row['gpu']!r} is not a GPU id")
        if row["nic"] not in links or links[row["nic"]].layer != "scale-out":
            raise CatalogError(f"{where}: nic {row['nic']!r} is not a scale-out link id")
        for number in ("gpus", "scaleup_domain", "nics"):
            if row[number] < 1:
                raise CatalogError(f"{where}: '{number}' must be at least 1")
        if row["scaleup_domain"] > row["gpus"] and row["scaleup_domain"] % row["gpus"]:
            raise CatalogError(f"{where}: 'scaleup_domain' must be a multiple of 'gpus' when larger")
        if not row["sources"] or any(s not in source_ids for s in row["sources"]):
            raise CatalogError(f"{where}: sources must be a non-empty list of known source ids")
        figures = _figures(where, row, _NODE_FIGURES, source_ids)
        scalars = {k: v for k, v in row.items() if k not in _NODE_FIGURES}
        scalars["source_ids"] = tuple(scalars.pop("sources"))
        nodes[row["id"]] = Node(**scalars, **figures)
        seen[row["id"]] = file

    for gpu in gpus.values():
        where = f"gpu '{gpu.id}'"
        node = nodes.get(gpu.reference_node)
        if node is None or node.gpu != gpu.id:
            raise CatalogError(f"{where}: reference_node {gpu.reference_node!r} is not a node of this GPU")
        if node.nic != gpu.typical_nic or abs(node.nics / node.gpus - gpu.typical_nics_per_gpu) > 1e-9:
            raise CatalogError(
                f"{where}: typical_nic/typical_nics_per_gpu ({gpu.typical_nic}, {gpu.typical_nics_per_gpu}) disagree "
                f"with its reference node {node.id} ({node.nic}, {node.nics} for {node.gpus} GPUs)"
            )

    return Catalog(sources, gpus, links, nodes, tuple(path.name for path in paths), media)


@functools.lru_cache(maxsize=1)
def get_catalog() -> Catalog:
    """The packaged catalog, loaded once per process."""
    return load_catalog()


def catalog_entries_of_kind(catalog: Catalog, kind: str) -> list:
    """The entries the Catalog page lists under ``kind``: ``"gpu"``, ``"node"`` or a link layer."""
    if kind == "gpu":
        return list(catalog.gpus.values())
    if kind == "node":
        return list(catalog.nodes.values())
    return list(catalog.layer(kind).values())


def catalog_kind_of(catalog: Catalog, entry_id: str) -> str:
    """The Catalog page's kind for an entry id (``"gpu"``, ``"node"`` or the link's layer)."""
    if entry_id in catalog.gpus:
        return "gpu"
    if entry_id in catalog.nodes:
        return "node"
    return catalog.links[entry_id].layer


VERDICTS = ("wrong", "misleading", "unsourced", "roughly right", "right")
_CLAIM_KEYS = {"id", "claim", "by", "verdict", "correction", "why", "sources", "page", "params"}


@dataclass(frozen=True)
class Claim:
    """A popular figure checked against the sources: the claim, the verdict, the correction and why.

    ``page`` names the app page that shows it (a key of the page table in :mod:`interconnect.ui.pages`)
    and ``params`` the link parameters that open the view.
    """

    id: str
    claim: str
    by: str
    verdict: str
    correction: str
    why: str
    source_ids: tuple[str, ...]
    page: str
    params: tuple[tuple[str, str], ...]


def load_claims(catalog: Catalog | None = None, directory: str | Path | None = None) -> tuple[Claim, ...]:
    """The checked claims in ``data/claims/*.toml``, with every key and source id validated."""
    catalog = catalog or get_catalog()
    folder = Path(directory) if directory else Path(str(resources.files("interconnect").joinpath("data/claims")))
    claims: list[Claim] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            rows = tomllib.loads(path.read_text(encoding="utf-8")).get("claim", [])
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"{path.name}: not valid TOML: {exc}") from exc
        for row in rows:
            where = f"{path.name}: claim {row.get('id', '?')!r}"
            if set(row) != _CLAIM_KEYS:
                raise CatalogError(f"{where}: keys must be {sorted(_CLAIM_KEYS)}, got {sorted(row)}")
            if row["verdict"] not in VERDICTS:
                raise CatalogError(f"{where}: verdict must be one of {VERDICTS}")
            missing = [s for s in row["sources"] if s not in catalog.sources]
            if missing or not row["sources"]:
                raise CatalogError(f"{where}: unknown or missing source ids {missing}")
            params = tuple((str(k), str(v)) for k, v in row["params"].items())
            claims.append(Claim(row["id"], row["claim"], row["by"], row["verdict"], row["correction"], row["why"],
                                tuple(row["sources"]), row["page"], params))
    ids = [claim.id for claim in claims]
    if len(set(ids)) != len(ids):
        raise CatalogError(f"duplicate claim ids in {folder.name}/")
    return tuple(claims)


@dataclass(frozen=True)
class TourStep:
    """One step of the guided tour: a page, the link parameters of its view, a title and a caption."""

    page: str
    title: str
    caption: str
    params: tuple[tuple[str, str], ...]
    #: The key of the chart the step is about (drawn under the caption in presentation mode); "" for none.
    chart: str = ""


def load_tour(directory: str | Path | None = None) -> tuple[TourStep, ...]:
    """The guided tour's steps from ``data/tour/episode.toml`` (strict keys)."""
    folder = Path(directory) if directory else Path(str(resources.files("interconnect").joinpath("data/tour")))
    path = folder / "episode.toml"
    try:
        rows = tomllib.loads(path.read_text(encoding="utf-8")).get("step", [])
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path.name}: not valid TOML: {exc}") from exc
    steps = []
    for number, row in enumerate(rows, start=1):
        if not {"page", "title", "caption", "params"} <= set(row) <= {"page", "title", "caption", "params", "chart"}:
            raise CatalogError(f"{path.name}: step {number} must have page, title, caption and params "
                               "(and may name its chart)")
        steps.append(TourStep(row["page"], row["title"], row["caption"],
                              tuple((str(k), str(v)) for k, v in row["params"].items()), str(row.get("chart", ""))))
    return tuple(steps)
