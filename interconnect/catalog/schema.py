"""What each catalog table may hold, and the strict readers of one figure, term or entry (every error names
the file, the entry and the key)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pint

from interconnect.catalog.records import BASES, DIRECTIONS, ID_PATTERN, CatalogError, Figure, Term
from interconnect.units import DIMENSIONS, Q_

# --- schema -------------------------------------------------------------------------------

# field name -> (dimension key in units.DIMENSIONS, required?)
GPU_FIGURES = {
    "memory": ("size", True),
    "memory_bandwidth": ("bandwidth", True),
    "bf16_dense": ("flop_rate", True),
    "fp8_dense": ("flop_rate", False),
    "scaleup_bandwidth": ("bandwidth", True),
    "scaleup_achieved": ("bandwidth", False),
    "scaleup_per_peer": ("bandwidth", False),
    "memory_reported": ("size", False),
}
GPU_SCALARS = {
    "id": (str, True), "name": (str, True), "vendor": (str, True), "architecture": (str, True),
    "year": (int, True), "scaleup_link": (str, True), "host_link": (str, True), "typical_nic": (str, True),
    "reference_node": (str, True), "scaleup_brand": (dict, True), "collective_library": (dict, True),
    "topology": (str, True), "typical_nics_per_gpu": ((int, float), False), "dense_format": (str, False),
    "host_link_basis": (str, False), "host_link_note": (str, False), "notes": (str, False),
    "disagreements": (list, False), "sources": (list, False),
}
LINK_FIGURES = {
    "bandwidth": ("bandwidth", True),
    "achieved": ("bandwidth", False),
    "per_link": ("bandwidth", False),
    "reach": ("length", False),
    "latency": ("time", False),
    "timeout": ("time", False),
}
LINK_SCALARS = {
    "id": (str, True), "name": (str, True), "layer": (str, True), "family": (str, True), "vendor": (str, True),
    "summary": (str, True), "medium": (str, True), "switched": (bool, True), "duplex": (str, True),
    "year": (int, False), "routable": (bool, False), "in_network_reduction": (bool, False), "links": (int, False),
    "propagation_medium": (str, False), "notes": (str, False), "disagreements": (list, False),
    "quoted": (list, False), "sources": (list, False),
}
NODE_SCALARS = {
    "id": (str, True), "name": (str, True), "gpu": (str, True), "gpus": (int, True),
    "scaleup_domain": (int, True), "nic": (str, True), "nics": (int, True), "sources": (list, True),
    "notes": (str, False),
}
NODE_FIGURES = {"scaleup_aggregate": ("bandwidth", False)}
MEDIUM_SCALARS = {
    "id": (str, True), "name": (str, True), "kind": (str, True), "summary": (str, True), "sources": (list, False),
    "notes": (str, False), "disagreements": (list, False),
}
MEDIUM_FIGURES = {"delay": ("delay", True)}
#: Dimensions the catalog needs beyond the shared table in ``units.DIMENSIONS``.
CATALOG_DIMENSIONS = {**DIMENSIONS, "delay": "[time] / [length]"}
SOURCE_SCALARS = {
    "id": (str, True), "title": (str, True), "url": (str, True), "kind": (str, True), "note": (str, False),
}
FIGURE_KEYS = {"value", "direction", "basis", "sources", "note", "upstream"}
QUOTED_KEYS = {"claim", "by", "correction"}
TERM_KEYS = {"name", "sources"}


def check_keys(where: str, table: Mapping[str, Any], scalars: Mapping[str, tuple], figures: Mapping[str, tuple]):
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


def parse_figure(where: str, name: str, raw: Any, dimension: str, source_ids: set[str]) -> Figure:
    here = f"{where}, figure '{name}'"
    if not isinstance(raw, Mapping):
        raise CatalogError(f"{here}: must be a table with value, direction, basis and sources")
    unknown = sorted(set(raw) - FIGURE_KEYS)
    if unknown:
        raise CatalogError(f"{here}: unknown key(s) {', '.join(unknown)}")
    for key in ("value", "direction", "basis", "sources"):
        if key not in raw:
            raise CatalogError(f"{here}: missing '{key}'")
    quantity = parse_quantity_text(here, raw["value"], dimension)
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
        upstream = parse_quantity_text(f"{here}, upstream", raw["upstream"], dimension)
    return Figure(quantity, direction, raw["basis"], tuple(sources), note, upstream)


def parse_quantity_text(here: str, text: Any, dimension: str) -> pint.Quantity:
    """A positive quantity of the named dimension, read from catalog text."""
    try:
        quantity = Q_(str(text))
    except Exception as exc:
        raise CatalogError(f"{here}: cannot read value {text!r}: {exc}") from exc
    if not isinstance(quantity, pint.Quantity):
        raise CatalogError(f"{here}: value {text!r} has no unit")
    expected = CATALOG_DIMENSIONS[dimension]
    if str(quantity.dimensionality) != expected:
        raise CatalogError(f"{here}: value {text!r} is {quantity.dimensionality}, expected {dimension} ({expected})")
    if not quantity.magnitude > 0:
        raise CatalogError(f"{here}: value must be positive")
    return quantity


def parse_term(where: str, name: str, raw: Any, source_ids: set[str]) -> Term:
    here = f"{where}, '{name}'"
    if not isinstance(raw, Mapping) or set(raw) != TERM_KEYS:
        raise CatalogError(f"{here}: must be a table with exactly 'name' and 'sources'")
    if not isinstance(raw["name"], str) or not raw["name"].strip():
        raise CatalogError(f"{here}: 'name' must be text")
    sources = raw["sources"]
    if not isinstance(sources, list) or not sources or any(s not in source_ids for s in sources):
        raise CatalogError(f"{here}: 'sources' must be a non-empty list of known source ids")
    return Term(raw["name"], tuple(sources))


def parse_figures(where: str, table: Mapping[str, Any], spec: Mapping[str, tuple], source_ids: set[str]):
    return {
        name: parse_figure(where, name, table[name], dimension, source_ids)
        for name, (dimension, _) in spec.items()
        if name in table
    }


def check_extras(where: str, row: Mapping[str, Any], source_ids: set[str]) -> None:
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


def check_id(where: str, entry_id: Any, seen: dict[str, str]) -> None:
    if not isinstance(entry_id, str) or not ID_PATTERN.match(entry_id):
        raise CatalogError(f"{where}: id {entry_id!r} must be lower-case words joined by hyphens")
    if entry_id in seen:
        raise CatalogError(f"{where}: id '{entry_id}' is already used in {seen[entry_id]}")
