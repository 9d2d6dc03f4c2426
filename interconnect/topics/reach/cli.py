"""CLI sub-command ``reach``: which links still work at a distance, and what the distance costs in time.

``python -m interconnect reach --distance "11 m"`` lists every medium (passive copper, active copper,
multimode and single-mode optics, coherent optics, NVLink's copper) and the catalog's other links with
a reach: whether each reaches, its rate and reach, and the one-way propagation delay and round trip
over the distance (fibre unless ``--medium`` says otherwise); the fastest of each kind of link that
still reaches; then each protocol (NVLink, InfiniBand, Ethernet, PCIe, UALink) with the medium to use
at that distance (or, where none reaches, a long-haul appliance of its family the catalog lists, such as
MetroX for InfiniBand), and the fastest link of all with its watts per end. "Fastest" follows one rule
everywhere (:func:`~interconnect.topics.reach.model.fastest_by_kind`): the highest rate, then the fewer
watts per port, then the shorter reach, as on the Reach page and its live chart.

``--json`` prints the same with every quantity as ``{"value", "unit"}``: ``one_way_latency`` and
``rtt`` in µs; a ``media`` list whose items carry ``id``, ``name``, a boolean ``reaches``, ``rate``
(GB/s per direction) and ``reach`` (m), and for the media of ``wires.toml`` also ``kind``,
``carries`` (protocol ids), ``power_per_end`` (W, or null where no maker figure was read) and
``standard``; a ``protocols`` list, each protocol with its ``rate`` and the ``media`` that carry it
at that distance in order of preference (``use`` is the first, or null) and ``long_haul``, the ids
of catalog appliances of its family that reach when no medium does; ``kinds``, each kind of link
(``id``, ``name``) with the id and ``rate`` of its fastest member that reaches (null where none does);
and ``fastest``, the fastest protocol and medium that reach (``fastest_reaching`` keeps the medium's id).

A distance that is not a length (``5 kg``) is a user error (one line on stderr, exit status 2);
zero, negative and astronomical distances are clamped to 10 cm .. 20,000 km with a warning.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from interconnect.catalog import get_catalog
from interconnect.cli.output import CliError, print_json, quantity_json
from interconnect.hardware.wires import Option, get_wires, media_reaching
from interconnect.topics.reach.inputs import reach_specs
from interconnect.topics.reach.model import (
    GAP_MEDIA,
    distance_text,
    fastest_by_kind,
    fastest_reaching,
    kind_name,
    links_without_reach,
    long_haul_links,
    nearest_landmark,
    one_way_delay_s,
    option_of,
    propagation_for,
    reach_rows,
    read_distance,
    round_trip_s,
)
from interconnect.units import Q_, QuantityInputError, format_bandwidth, format_duration, format_quantity


def register(commands: Any) -> None:
    reach = commands.add_parser("reach", help="which links reach a distance, one-way latency and round trip")
    # --distance and --medium stand for the page's d and medium: their defaults and choices are those records'.
    records = {record.key: record for record in reach_specs()}
    distance, medium = records["d"], records["medium"]
    reach.add_argument("--distance", default=distance.default,
                       help=f"distance with a unit, e.g. '11 m', '3 ft', '1000 km' (default {distance.default})")
    reach.add_argument("--medium", default=medium.default, choices=medium.choices,
                       help=f"what the signal travels through for the latency figures (default {medium.default})")
    reach.add_argument("--json", action="store_true", help="machine-readable output")
    reach.set_defaults(handler=run_reach)


def _us(seconds: float) -> dict[str, Any]:
    return quantity_json(Q_(seconds * 1e6, "us"), "us")


def _watts(watts: float | None) -> dict[str, Any] | None:
    return None if watts is None else quantity_json(Q_(watts, "W"), "W")


def _option_json(option: Option) -> dict[str, Any]:
    return {
        "id": option.medium.id,
        "name": option.medium.name,
        "kind": option.medium.kind,
        "reach": quantity_json(Q_(option.reach_m, "m"), "m"),
        "reach_basis": option.medium.reach.basis,
        "power_per_end": _watts(option.medium.power_w),
        "ports_per_plug": option.ports_per_plug,
        "power_per_port": _watts(option.power_w_per_port),
        "standard": option.medium.standard,
    }


def _power_text(option: Option) -> str:
    if option.power_w_per_port is None:
        return "power not found"
    if option.ports_per_plug > 1:
        return f"{option.power_w_per_port:.2g} W per port ({option.medium.power_w:g} W plug)"
    return f"{option.power_w_per_port:.2g} W per end"


def run_reach(args: argparse.Namespace) -> int:
    try:
        reading = read_distance(args.distance)
    except QuantityInputError as exc:
        raise CliError(f"--distance: {exc}") from exc
    catalog, wires = get_catalog(), get_wires()
    distance = reading.distance_m
    gap = propagation_for(GAP_MEDIA[args.medium], catalog)
    one_way, rtt = float(one_way_delay_s(distance, gap.delay_s_per_m)), float(round_trip_s(distance, gap.delay_s_per_m))
    media = reach_rows(wires, catalog)
    fastest = fastest_reaching(media, distance)
    best = option_of(fastest, wires)
    fastest_id = fastest.id if fastest else None
    by_kind = fastest_by_kind(media, distance, {medium.id: medium.kind for medium in wires.media.values()})
    per_protocol = {pid: media_reaching(distance, protocol=pid, wires=wires) for pid in wires.protocols}
    long_haul = {pid: [] if per_protocol[pid] else long_haul_links(p.family, distance, wires, catalog)
                 for pid, p in wires.protocols.items()}
    warnings = [reading.warning] if reading.warning else []
    if args.json:
        items = []
        for row in media:
            item: dict[str, Any] = {
                "id": row.id,
                "name": row.name,
                "layer": row.layer,
                "reaches": row.reaches(distance),
                "rate": quantity_json(Q_(row.rate_gbps, "GB/s"), "GB/s"),
                "reach": quantity_json(Q_(row.reach_m, "m"), "m"),
                "reach_basis": row.reach_basis,
                "propagation_medium": row.medium_id,
                "one_way_latency": _us(float(one_way_delay_s(distance, row.delay_s_per_m))),
                "rtt": _us(row.rtt_s(distance)),
                "bandwidth_delay_product": quantity_json(Q_(row.bdp_bytes(distance), "B"), "B"),
            }
            medium = wires.media.get(row.id)
            if medium is not None:
                item.update({"kind": medium.kind, "carries": list(medium.carries),
                             "power_per_end": _watts(medium.power_w), "standard": medium.standard})
            items.append(item)
        print_json({
            "distance": quantity_json(Q_(distance, "m"), "m"),
            "distance_text": reading.text,
            "medium": args.medium,
            "delay_per_km": quantity_json(Q_(gap.delay_s_per_m * 1e9, "us/km"), "us/km"),
            "one_way_latency": _us(one_way),
            "rtt": _us(rtt),
            "fastest_reaching": fastest_id,
            "fastest": None if best is None else {
                "protocol": best.protocol.id, "medium": best.medium.id,
                "rate": quantity_json(Q_(best.rate_gbps, "GB/s"), "GB/s"),
                "power_per_end": _watts(best.medium.power_w), "power_per_port": _watts(best.power_w_per_port)},
            "warnings": warnings,
            "protocols": [
                {
                    "id": protocol.id,
                    "name": protocol.name,
                    "family": protocol.family,
                    "rate": quantity_json(Q_(protocol.rate_gbps, "GB/s"), "GB/s"),
                    "use": per_protocol[protocol.id][0].medium.id if per_protocol[protocol.id] else None,
                    "media": [_option_json(option) for option in per_protocol[protocol.id]],
                    "long_haul": [row.id for row in long_haul[protocol.id]],
                }
                for protocol in wires.protocols.values()
            ],
            "kinds": [{"id": key, "name": kind_name(key, media), "fastest": None if row is None else row.id,
                       "rate": None if row is None else quantity_json(Q_(row.rate_gbps, "GB/s"), "GB/s")}
                      for key, row in by_kind.items()],
            "media": items,
            "without_reach": [link.id for link in links_without_reach(catalog.links.values())
                              if link.id not in wires.catalog_link_ids()],
        })
        return 0
    for warning in warnings:
        print(f"interconnect: warning: {warning}", file=sys.stderr)
    print(f"{distance_text(distance)} ({nearest_landmark(distance).label}), through {gap.name.lower()}:")
    print(f"  one way {format_duration(Q_(one_way, 's'))}, round trip {format_duration(Q_(rtt, 's'))} "
          f"({gap.delay_s_per_m * 1e9:.3g} ns per metre)")
    width = max((len(row.name) for row in media), default=10)
    print(f"\n  {'link':<{width}}  {'rate per direction':>18}  {'reach':>9}  reaches")
    for row in media:
        mark = "yes" if row.reaches(distance) else "no"
        print(f"  {row.name:<{width}}  {format_bandwidth(Q_(row.rate_gbps, 'GB/s')):>18}  "
              f"{format_quantity(Q_(row.reach_m, 'm')):>9}  {mark}")
    print(f"\nThe fastest of each kind at {distance_text(distance)}")
    kind_width = max((len(kind_name(key, media)) for key in by_kind), default=10)
    for key, row in by_kind.items():
        print(f"  {kind_name(key, media):<{kind_width}}  "
              + ("does not reach" if row is None else f"{format_bandwidth(Q_(row.rate_gbps, 'GB/s'))}, {row.name}"))
    print(f"\nEach protocol at {distance_text(distance)}: the medium to use")
    name_width = max(len(p.name) for p in wires.protocols.values())
    for protocol in wires.protocols.values():
        options = per_protocol[protocol.id]
        use = (f"{options[0].medium.name}, {format_quantity(Q_(options[0].reach_m, 'm'))}, {_power_text(options[0])}"
               if options else "no catalogued medium reaches")
        if long_haul[protocol.id]:
            use += "; a long-haul appliance carries it this far, at its own rate: " + ", ".join(
                f"{row.name}, {format_quantity(Q_(row.reach_m, 'm'))} at {format_bandwidth(Q_(row.rate_gbps, 'GB/s'))}"
                for row in long_haul[protocol.id])
        print(f"  {protocol.name:<{name_width}}  {format_bandwidth(Q_(protocol.rate_gbps, 'GB/s')):>10}  {use}")
    if best is not None:
        best_rtt_s = 2 * distance * propagation_for(best.medium.propagation, catalog).delay_s_per_m
        print(f"\nFastest that still reaches: {best.medium.name}, carrying {best.protocol.name}: "
              f"{format_bandwidth(Q_(best.rate_gbps, 'GB/s'))} per direction, {_power_text(best)}; "
              f"{format_quantity(Q_(best.rate_gbps * 1e9 * best_rtt_s, 'B'))} in flight to fill it.")
    elif fastest is not None:
        print(f"\nFastest that still reaches: {fastest.name}, {format_bandwidth(Q_(fastest.rate_gbps, 'GB/s'))} "
              f"per direction; {format_quantity(Q_(fastest.bdp_bytes(distance), 'B'))} in flight to fill it.")
    else:
        print(f"\nNo catalogued link reaches {distance_text(distance)}.")
    return 0
