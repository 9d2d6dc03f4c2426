"""CLI sub-command ``reach``: which links still work at a distance, and what the distance costs in time.

``python -m interconnect reach --distance "11 m"`` lists every catalog link with a reach figure,
whether it reaches, its rate and reach, and the one-way propagation delay and round trip over the
distance (fibre unless ``--medium`` says otherwise). ``--json`` prints the same with every quantity
as ``{"value", "unit"}``: ``one_way_latency`` and ``rtt`` in µs, and a ``media`` list whose items
carry ``id``, ``name``, a boolean ``reaches``, ``rate`` (GB/s per direction) and ``reach`` (m).

A distance that is not a length (``5 kg``) is a user error (one line on stderr, exit status 2);
zero, negative and astronomical distances are clamped to 10 cm .. 20,000 km with a warning.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from interconnect.catalog import get_catalog
from interconnect.cli.output import CliError, print_json, quantity_json
from interconnect.models.reach import (
    DEFAULT_DISTANCE,
    GAP_MEDIA,
    distance_text,
    fastest_reaching,
    links_without_reach,
    media_with_reach,
    nearest_landmark,
    one_way_delay_s,
    propagation_for,
    read_distance,
    round_trip_s,
)
from interconnect.units import Q_, QuantityInputError, format_bandwidth, format_duration, format_quantity


def register(commands: Any) -> None:
    reach = commands.add_parser("reach", help="which links reach a distance, one-way latency and round trip")
    reach.add_argument("--distance", default=DEFAULT_DISTANCE,
                       help=f"distance with a unit, e.g. '11 m', '3 ft', '1000 km' (default {DEFAULT_DISTANCE})")
    reach.add_argument("--medium", default="fibre", choices=tuple(GAP_MEDIA),
                       help="what the signal travels through for the latency figures (default fibre)")
    reach.add_argument("--json", action="store_true", help="machine-readable output")
    reach.set_defaults(handler=run_reach)


def _us(seconds: float) -> dict[str, Any]:
    return quantity_json(Q_(seconds * 1e6, "us"), "us")


def run_reach(args: argparse.Namespace) -> int:
    try:
        reading = read_distance(args.distance)
    except QuantityInputError as exc:
        raise CliError(f"--distance: {exc}") from exc
    catalog = get_catalog()
    distance = reading.distance_m
    gap = propagation_for(GAP_MEDIA[args.medium], catalog)
    one_way, rtt = float(one_way_delay_s(distance, gap.delay_s_per_m)), float(round_trip_s(distance, gap.delay_s_per_m))
    media = media_with_reach(catalog.links.values(), catalog)
    fastest = fastest_reaching(media, distance)
    warnings = [reading.warning] if reading.warning else []
    if args.json:
        print_json({
            "distance": quantity_json(Q_(distance, "m"), "m"),
            "distance_text": reading.text,
            "medium": args.medium,
            "delay_per_km": quantity_json(Q_(gap.delay_s_per_m * 1e9, "us/km"), "us/km"),
            "one_way_latency": _us(one_way),
            "rtt": _us(rtt),
            "fastest_reaching": fastest.id if fastest else None,
            "warnings": warnings,
            "media": [
                {
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
                for row in media
            ],
            "without_reach": [link.id for link in links_without_reach(catalog.links.values())],
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
    if fastest is None:
        print(f"\nNo catalogued link reaches {distance_text(distance)}.")
    else:
        print(f"\nFastest that still reaches: {fastest.name}, {format_bandwidth(Q_(fastest.rate_gbps, 'GB/s'))} "
              f"per direction; {format_quantity(Q_(fastest.bdp_bytes(distance), 'B'))} in flight to fill it.")
    return 0
