"""CLI sub-command over the catalog: ``catalog`` (list entries with figures, directions and sources)."""

from __future__ import annotations

import argparse
from typing import Any

from interconnect.catalog import LAYERS, Catalog, Entry, Figure, Node, get_catalog
from interconnect.cli.output import print_json, quantity_json
from interconnect.hardware.fabric import get_fabric_data

KINDS = ("all", "gpu", "nic", "link", "node", *LAYERS, "switch")
_JSON_UNITS = {"[information] / [time]": "GB/s", "[information]": "GB", "[length]": "m", "[time]": "us",
               "[compute] / [time]": "TFLOP/s"}


def register(commands: Any) -> None:
    listing = commands.add_parser("catalog", help="list catalog entries with figures, directions and sources")
    listing.add_argument("--kind", default="all", choices=KINDS,
                         help="which entries (default: all, the catalog's entries and the switches)")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(handler=run_catalog)



def _select(catalog: Catalog, kind: str) -> list[Entry]:
    if kind == "all":
        return catalog.entries()
    if kind == "gpu":
        return list(catalog.gpus.values())
    if kind == "node":
        return list(catalog.nodes.values())
    if kind == "link":
        return list(catalog.links.values())
    if kind == "nic":
        return list(catalog.nics().values())
    return list(catalog.layer(kind).values())


def _figure_json(catalog: Catalog, figure: Figure) -> dict[str, Any]:
    unit = _JSON_UNITS.get(str(figure.quantity.dimensionality), str(figure.quantity.units))
    payload = quantity_json(figure.quantity, unit)
    payload.update({
        "direction": figure.direction,
        "basis": figure.basis,
        "sources": [{"id": s, "title": catalog.source(s).title, "url": catalog.source(s).url}
                    for s in figure.source_ids],
    })
    if figure.note:
        payload["note"] = figure.note
    return payload


def _entry_json(catalog: Catalog, entry: Entry) -> dict[str, Any]:
    payload: dict[str, Any] = {"id": entry.id, "kind": entry.kind, "name": entry.name}
    if isinstance(entry, Node):
        payload.update({"gpu": entry.gpu, "gpus": entry.gpus, "scaleup_domain": entry.scaleup_domain,
                        "nic": entry.nic, "nics": entry.nics,
                        "sources": [{"id": s.id, "title": s.title, "url": s.url} for s in catalog.sources_of(entry)]})
    else:
        if hasattr(entry, "layer"):
            payload["layer"] = entry.layer
        payload["figures"] = {name: _figure_json(catalog, fig) for name, fig in entry.figures().items()}
    return payload


def _print_switches(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        power = "power not found" if row["power"] is None else f"{row['power']['value']:g} W"
        print(f"{row['id']}  (switch) {row['name']}")
        print(f"    {row['ports']} ports x {row['port_rate']['value']:g} Gbit/s per direction "
              f"({row['capacity']['value']:g} Tbit/s), {power}  [{', '.join(s['id'] for s in row['sources'])}]")


def run_catalog(args: argparse.Namespace) -> int:
    """List the entries of ``--kind``; ``all`` is every catalog entry and then every switch of ``fabric.toml``."""
    switches = switch_rows() if args.kind in ("all", "switch") else []
    catalog = get_catalog()
    entries = [] if args.kind == "switch" else _select(catalog, args.kind)
    if args.json:
        print_json([*(_entry_json(catalog, entry) for entry in entries), *switches])
        return 0
    for entry in entries:
        print(f"{entry.id}  ({entry.kind}) {entry.name}")
        if isinstance(entry, Node):
            print(f"    {entry.gpus} x {entry.gpu}, NVLink domain {entry.scaleup_domain}, {entry.nics} x {entry.nic}"
                  f"  [{', '.join(entry.source_ids)}]")
        for name, figure in entry.figures().items():
            direction = "" if figure.direction == "n/a" else f", {figure.direction.replace('_', ' ')}"
            print(f"    {name}: {figure.text()}{direction}, {figure.basis}  [{', '.join(figure.source_ids)}]")
    _print_switches(switches)
    return 0


def switch_rows() -> list[dict[str, Any]]:
    """The switch catalogue as JSON-ready rows (``interconnect catalog --kind switch``)."""
    catalog = get_catalog()
    rows = []
    for switch in get_fabric_data().switches.values():
        rows.append({
            "id": switch.id, "kind": "switch", "name": switch.name, "vendor": switch.vendor, "fabric": switch.fabric,
            "ports": switch.ports,
            "port_rate": {"value": switch.port_gbit_s, "unit": "Gbit/s", "direction": "per_direction"},
            "capacity": {"value": switch.capacity_gbit_s / 1e3, "unit": "Tbit/s", "direction": "per_direction"},
            "power": None if switch.power_w is None else {"value": switch.power_w, "unit": "W"},
            "note": switch.note,
            "sources": [{"id": s, "title": catalog.source(s).title, "url": catalog.source(s).url}
                        for s in (*switch.sources, *switch.power_sources)],
        })
    return rows
