"""Loading the catalog from ``interconnect/data/*.toml`` with every check, once per process."""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from interconnect.catalog.records import (
    BASES,
    DENSE_FORMATS,
    LAYERS,
    MEDIUM_KINDS,
    NODE_TOPOLOGIES,
    SOURCE_KINDS,
    CatalogError,
    Entry,
    Gpu,
    Link,
    Medium,
    Node,
    ReferenceNic,
    Source,
    UnknownIdError,
)
from interconnect.catalog.schema import (
    GPU_FIGURES,
    GPU_SCALARS,
    LINK_FIGURES,
    LINK_SCALARS,
    MEDIUM_FIGURES,
    MEDIUM_SCALARS,
    NODE_FIGURES,
    NODE_SCALARS,
    QUOTED_KEYS,
    SOURCE_SCALARS,
    check_extras,
    check_id,
    check_keys,
    parse_figures,
    parse_term,
)


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
        return _one("GPU", gpu_id, self.gpus)

    def link(self, link_id: str) -> Link:
        return _one("link", link_id, self.links)

    def nic(self, nic_id: str) -> Link:
        return _one("NIC", nic_id, self.nics())

    def node(self, node_id: str) -> Node:
        return _one("node", node_id, self.nodes)

    def medium(self, medium_id: str) -> Medium:
        return _one("medium", medium_id, self.media)

    def source(self, source_id: str) -> Source:
        return _one("source", source_id, self.sources)

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


def _one(kind: str, entry_id: str, table: Mapping[str, Any]) -> Any:
    """The entry of ``table`` with this id, or :class:`UnknownIdError` naming the kind and the ids there are."""
    if entry_id not in table:
        raise UnknownIdError(kind, entry_id, table)
    return table[entry_id]


def _one_of(where: str, row: Mapping[str, Any], key: str, allowed: Iterable[str]) -> None:
    """Refuse a value of ``row[key]`` (when given) that is not among ``allowed``."""
    if key in row and row[key] not in allowed:
        raise CatalogError(f"{where}: {key} {row[key]!r} is not one of {', '.join(allowed)}")


def _begin(file: str, kind: str, row: Mapping[str, Any], scalars: Mapping[str, tuple], figures: Mapping[str, tuple],
           seen: dict[str, str]) -> str:
    """Check an entry's keys and id (unique across the catalog's tables) and return how messages name it."""
    where = f"{file}: {kind} '{row.get('id', '?')}'"
    check_keys(where, row, scalars, figures)
    check_id(where, row["id"], seen)
    return where


def _plain(row: Mapping[str, Any], figures: Mapping[str, tuple]) -> dict[str, Any]:
    """An entry's values other than its figures, each list as a tuple (the records are frozen)."""
    return {key: tuple(value) if isinstance(value, list) else value for key, value in row.items() if key not in figures}


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

    An address must use https, name a host with a dot and no trailing dot, and carry no whitespace; wiki
    edit pages (``action=edit``) and ``pages.dev`` mirrors are not sources.
    """
    if url.startswith("http://"):
        return "must be https (a source a reader opens is fetched over TLS; use the maker's https page)"
    match = re.fullmatch(r"(https)://([^/?#\s]+)([^\s]*)", url)
    if match is None:
        return "must be https:// followed by a host, with no whitespace"
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
        check_keys(where, row, SOURCE_SCALARS, {})
        check_id(where, row["id"], {})
        if row["id"] in sources:
            raise CatalogError(f"{where}: duplicate source id")
        _one_of(where, row, "kind", SOURCE_KINDS)
        problem = check_url(row["url"])
        if problem:
            raise CatalogError(f"{where}: url {row['url']!r} {problem}")
        sources[row["id"]] = Source(**row)
    source_ids = set(sources)

    media: dict[str, Medium] = {}
    for file, row in tables["medium"]:
        where = _begin(file, "medium", row, MEDIUM_SCALARS, MEDIUM_FIGURES, seen)
        _one_of(where, row, "kind", MEDIUM_KINDS)
        figures = parse_figures(where, row, MEDIUM_FIGURES, source_ids)
        if figures["delay"].direction != "n/a":
            raise CatalogError(f"{where}: a delay has no direction; use 'n/a'")
        check_extras(where, row, source_ids)
        scalars = _plain(row, MEDIUM_FIGURES)
        scalars["source_ids"] = scalars.pop("sources", ())
        media[row["id"]] = Medium(**scalars, **figures)
        seen[row["id"]] = file

    links: dict[str, Link] = {}
    for file, row in tables["link"]:
        where = _begin(file, "link", row, LINK_SCALARS, LINK_FIGURES, seen)
        _one_of(where, row, "layer", LAYERS)
        if row["duplex"] not in ("full", "half"):
            raise CatalogError(f"{where}: duplex must be 'full' or 'half'")
        if "propagation_medium" in row and row["propagation_medium"] not in media:
            raise CatalogError(f"{where}: propagation_medium {row['propagation_medium']!r} is not a medium id")
        figures = parse_figures(where, row, LINK_FIGURES, source_ids)
        if row["duplex"] == "half" and figures["bandwidth"].direction != "shared":
            raise CatalogError(f"{where}: a half-duplex link's bandwidth must be 'shared'")
        for claim in row.get("quoted", ()):
            if not isinstance(claim, Mapping) or set(claim) != QUOTED_KEYS:
                raise CatalogError(f"{where}: each 'quoted' item needs exactly {', '.join(sorted(QUOTED_KEYS))}")
        check_extras(where, row, source_ids)
        links[row["id"]] = Link(**_plain(row, LINK_FIGURES), **figures)
        seen[row["id"]] = file

    gpus: dict[str, Gpu] = {}
    for file, row in tables["gpu"]:
        where = _begin(file, "gpu", row, GPU_SCALARS, GPU_FIGURES, seen)
        figures = parse_figures(where, row, GPU_FIGURES, source_ids)
        for key, layer in (("scaleup_link", "scale-up"), ("host_link", "host"), ("typical_nic", "scale-out")):
            target = links.get(row[key])
            if target is None or target.layer != layer:
                raise CatalogError(f"{where}: '{key}' = {row[key]!r} is not a {layer} link id")
        choices = (("topology", NODE_TOPOLOGIES), ("dense_format", DENSE_FORMATS), ("host_link_basis", BASES))
        for key, allowed in choices:
            if key in row and row[key] not in allowed:
                raise CatalogError(f"{where}: '{key}' = {row[key]!r} is not one of {', '.join(allowed)}")
        if row["topology"] == "mesh" and "scaleup_per_peer" not in figures:
            raise CatalogError(f"{where}: a mesh GPU needs 'scaleup_per_peer' (what one peer gets)")
        if (row["topology"] == "switched") != links[row["scaleup_link"]].switched:
            raise CatalogError(f"{where}: topology {row['topology']!r} disagrees with its scale-up link's 'switched'")
        if "scaleup_per_peer" in figures and (
                figures["scaleup_per_peer"].per_direction() > figures["scaleup_bandwidth"].per_direction()):
            raise CatalogError(f"{where}: 'scaleup_per_peer' cannot exceed 'scaleup_bandwidth'")
        check_extras(where, row, source_ids)
        scalars = _plain(row, GPU_FIGURES)
        for key in ("scaleup_brand", "collective_library"):
            scalars[key] = parse_term(where, key, row[key], source_ids)
        gpus[row["id"]] = Gpu(**scalars, **figures)
        seen[row["id"]] = file

    nodes: dict[str, Node] = {}
    for file, row in tables["node"]:
        where = _begin(file, "node", row, NODE_SCALARS, NODE_FIGURES, seen)
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
        figures = parse_figures(where, row, NODE_FIGURES, source_ids)
        scalars = _plain(row, NODE_FIGURES)
        scalars["source_ids"] = scalars.pop("sources")
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
