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
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import pint

from interconnect.units import DIMENSIONS, Q_, format_quantity

__all__ = [
    "BASES",
    "DIRECTION_WORDS",
    "DIRECTIONS",
    "LAYERS",
    "Catalog",
    "CatalogError",
    "Figure",
    "Gpu",
    "Link",
    "Node",
    "Source",
    "UnknownIdError",
    "get_catalog",
    "load_catalog",
]

DIRECTIONS = ("per_direction", "both_directions", "shared", "n/a")
BASES = ("spec", "achieved", "measured", "estimate")
LAYERS = ("scale-up", "host", "scale-out", "long-reach", "everyday", "historical")
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
    "long-reach": "Between buildings and data centres",
    "everyday": "Everyday references",
    "historical": "Historical links",
}
SOURCE_KINDS = ("primary", "secondary", "third-party", "measurement")
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")


class CatalogError(ValueError):
    """The catalog data is inconsistent; the message names the file and the entry."""


class UnknownIdError(KeyError):
    """An id that is not in the catalog (from a URL, the CLI or code)."""

    def __init__(self, kind: str, wanted: str, known: Iterable[str]) -> None:
        self.kind = kind
        self.wanted = wanted
        self.known = sorted(known)
        super().__init__(f"unknown {kind} id '{wanted}'; known ids: {', '.join(self.known)}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return self.args[0]


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

    def per_direction(self) -> pint.Quantity:
        """What one direction can carry: half of a both-directions sum; all of a shared pipe."""
        if self.direction == "both_directions":
            return self.quantity / 2
        if self.direction in ("per_direction", "shared"):
            return self.quantity
        raise ValueError("this figure is not a rate with a direction")

    def both_directions(self) -> pint.Quantity:
        """Both directions added up: twice a full-duplex per-direction rate; a shared pipe once."""
        if self.direction == "per_direction":
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
        return format_quantity(self.quantity)


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
    notes: str = ""
    disagreements: tuple[str, ...] = ()
    quoted: tuple[Mapping[str, str], ...] = ()
    sources: tuple[str, ...] = ()

    kind = "link"

    def figures(self) -> dict[str, Figure]:
        names = ("bandwidth", "achieved", "per_link", "reach", "latency")
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
    scaleup_achieved: Figure | None = None
    typical_nics_per_gpu: float = 1.0
    notes: str = ""
    disagreements: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()

    kind = "gpu"

    def figures(self) -> dict[str, Figure]:
        names = ("memory", "memory_bandwidth", "bf16_dense", "scaleup_bandwidth", "scaleup_achieved")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


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
    notes: str = ""

    kind = "node"

    def figures(self) -> dict[str, Figure]:
        return {}


Entry = Gpu | Link | Node

# --- schema -------------------------------------------------------------------------------

# field name -> (dimension key in units.DIMENSIONS, required?)
_GPU_FIGURES = {
    "memory": ("size", True),
    "memory_bandwidth": ("bandwidth", True),
    "bf16_dense": ("flop_rate", True),
    "scaleup_bandwidth": ("bandwidth", True),
    "scaleup_achieved": ("bandwidth", False),
}
_GPU_SCALARS = {
    "id": (str, True), "name": (str, True), "vendor": (str, True), "architecture": (str, True),
    "year": (int, True), "scaleup_link": (str, True), "host_link": (str, True), "typical_nic": (str, True),
    "typical_nics_per_gpu": ((int, float), False), "notes": (str, False), "disagreements": (list, False),
    "sources": (list, False),
}
_LINK_FIGURES = {
    "bandwidth": ("bandwidth", True),
    "achieved": ("bandwidth", False),
    "per_link": ("bandwidth", False),
    "reach": ("length", False),
    "latency": ("time", False),
}
_LINK_SCALARS = {
    "id": (str, True), "name": (str, True), "layer": (str, True), "family": (str, True), "vendor": (str, True),
    "summary": (str, True), "medium": (str, True), "switched": (bool, True), "duplex": (str, True),
    "year": (int, False), "routable": (bool, False), "in_network_reduction": (bool, False), "links": (int, False),
    "notes": (str, False), "disagreements": (list, False), "quoted": (list, False), "sources": (list, False),
}
_NODE_SCALARS = {
    "id": (str, True), "name": (str, True), "gpu": (str, True), "gpus": (int, True),
    "scaleup_domain": (int, True), "nic": (str, True), "nics": (int, True), "sources": (list, True),
    "notes": (str, False),
}
_SOURCE_SCALARS = {
    "id": (str, True), "title": (str, True), "url": (str, True), "kind": (str, True), "note": (str, False),
}
_FIGURE_KEYS = {"value", "direction", "basis", "sources", "note"}
_QUOTED_KEYS = {"claim", "by", "correction"}


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
    try:
        quantity = Q_(str(raw["value"]))
    except Exception as exc:
        raise CatalogError(f"{here}: cannot read value {raw['value']!r}: {exc}") from exc
    if not isinstance(quantity, pint.Quantity):
        raise CatalogError(f"{here}: value {raw['value']!r} has no unit")
    expected = DIMENSIONS[dimension]
    if str(quantity.dimensionality) != expected:
        raise CatalogError(
            f"{here}: value {raw['value']!r} is {quantity.dimensionality}, expected {dimension} ({expected})"
        )
    if not quantity.magnitude > 0:
        raise CatalogError(f"{here}: value must be positive")
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
    return Figure(quantity, direction, raw["basis"], tuple(sources), note)


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

    def entry(self, entry_id: str) -> Entry:
        for table in (self.gpus, self.links, self.nodes):
            if entry_id in table:
                return table[entry_id]
        raise UnknownIdError("catalog", entry_id, [*self.gpus, *self.links, *self.nodes])

    def entries(self) -> list[Entry]:
        return [*self.gpus.values(), *self.links.values(), *self.nodes.values()]

    def sources_of(self, entry: Entry) -> list[Source]:
        """Every distinct source an entry's figures cite, in first-cited order."""
        ids: list[str] = []
        if isinstance(entry, Node):
            ids.extend(entry.source_ids)
        for figure in entry.figures().values():
            ids.extend(source for source in figure.source_ids if source not in ids)
        ids.extend(getattr(entry, "sources", ()))
        return [self.sources[source_id] for source_id in dict.fromkeys(ids)]


#: TOML files in ``data/`` that are not hardware catalog tables (read by their own loaders).
NON_CATALOG_FILES = frozenset({"models.toml"})


def _read_tables(paths: Iterable[Path]) -> dict[str, list[tuple[str, dict]]]:
    tables: dict[str, list[tuple[str, dict]]] = {"source": [], "gpu": [], "link": [], "node": []}
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
        if not row["url"].startswith(("https://", "http://")):
            raise CatalogError(f"{where}: url must start with https:// or http://")
        sources[row["id"]] = Source(**row)
    source_ids = set(sources)

    links: dict[str, Link] = {}
    for file, row in tables["link"]:
        where = f"{file}: link '{row.get('id', '?')}'"
        _check_keys(where, row, _LINK_SCALARS, _LINK_FIGURES)
        _check_id(where, row["id"], seen)
        if row["layer"] not in LAYERS:
            raise CatalogError(f"{where}: layer {row['layer']!r} is not one of {', '.join(LAYERS)}")
        if row["duplex"] not in ("full", "half"):
            raise CatalogError(f"{where}: duplex must be 'full' or 'half'")
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
        _check_extras(where, row, source_ids)
        scalars = {k: v for k, v in row.items() if k not in _GPU_FIGURES}
        scalars["disagreements"] = tuple(scalars.get("disagreements", ()))
        scalars["sources"] = tuple(scalars.get("sources", ()))
        gpus[row["id"]] = Gpu(**scalars, **figures)
        seen[row["id"]] = file

    nodes: dict[str, Node] = {}
    for file, row in tables["node"]:
        where = f"{file}: node '{row.get('id', '?')}'"
        _check_keys(where, row, _NODE_SCALARS, {})
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
        scalars = dict(row)
        scalars["source_ids"] = tuple(scalars.pop("sources"))
        nodes[row["id"]] = Node(**scalars)
        seen[row["id"]] = file

    return Catalog(sources, gpus, links, nodes, tuple(path.name for path in paths))


@functools.lru_cache(maxsize=1)
def get_catalog() -> Catalog:
    """The packaged catalog, loaded once per process."""
    return load_catalog()
