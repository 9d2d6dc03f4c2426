"""CLI sub-command ``fabric``: the switches, links, optics and power of a GPU cluster's network.

``interconnect fabric --gpus 1024 --server dgx-h100 --switch quantum-2-qm9700 --topology rail-leaf-spine``
prints the tiers from the leaves up (switches, links down and up, the medium of each tier's links for
its distance class, the optical modules bought and their power), the totals, the bisection bandwidth and
the switch hops between two GPUs. ``--json`` prints the same: a ``tiers`` list (``name``, ``switches``,
``links_down``, ``links_up``, ``medium``, ``transceivers`` and ``modules`` (modules bought: a twin-port
module carries two links), ``cables``, ``media_power_w``...) beside ``totals``,
``bisection_bandwidth`` and ``hops``. Bad input is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from interconnect.cli.cluster_flags import ratio_flag
from interconnect.cli.output import CliError, print_json
from interconnect.hardware.fabric import (
    DISTANCE_IDS,
    FabricError,
    build_fabric,
    server_inputs,
)
from interconnect.topics.fabric.inputs import fabric_specs
from interconnect.units import Q_, QuantityInputError, format_bandwidth, parse_quantity

__all__ = ["register", "run_fabric"]


def register(commands: Any) -> None:
    fabric = commands.add_parser("fabric", help="switches, links, optics and power of a cluster's network fabric")
    # The defaults, choices and bounds of the flags that stand for the page's link keys are those keys' records.
    records = {record.key: record for record in fabric_specs()}
    server, switch, topology, osub = records["server"], records["switch"], records["topo"], records["osub"]
    fabric.add_argument("--gpus", type=int, required=True, help="GPUs in the cluster, e.g. 1024")
    fabric.add_argument("--server", default=server.default,
                        help=f"server (node id of the catalog, default {server.default})")
    fabric.add_argument("--switch", default=switch.default,
                        help=f"switch id (see 'interconnect catalog --kind switch'; default {switch.default})")
    fabric.add_argument("--topology", default=topology.default, choices=topology.choices,
                        help="rail-optimised leaf-spine (NIC i of every server on rail leaf i) or a fat tree "
                             f"with top-of-rack leaves (default {topology.default})")
    fabric.add_argument("--oversubscription", type=float, default=osub.default,
                        help=f"down : up at the leaves, e.g. 2 for 2:1 (default {osub.default:g}, non-blocking)")
    fabric.add_argument("--spine-oversubscription", type=float, default=None,
                        help="down : up at the spines of a three-tier fabric (default: as the leaves)")
    fabric.add_argument("--tiers", type=int, default=0, choices=(0, 2, 3),
                        help="force two or three tiers (default 0: the fewest that reach)")
    fabric.add_argument("--distance", default="",
                        help=f"distance class of the links into each tier, leaves first ({', '.join(DISTANCE_IDS)}) "
                             "(default: row,hall,hall rail-optimised; rack,row,hall fat tree)")
    fabric.add_argument("--rails", type=int, default=0,
                        help="rails of a rail-optimised fabric (default 0: the NIC count, at most 8)")
    fabric.add_argument("--nic-rate", default=None, help="NIC rate per direction (default: the server's NIC)")
    fabric.add_argument("--json", action="store_true", help="machine-readable output")
    fabric.set_defaults(handler=run_fabric)


def _distances(text: str) -> tuple[str, ...]:
    classes = tuple(part.strip().lower() for part in text.split(",") if part.strip())
    bad = [c for c in classes if c not in DISTANCE_IDS]
    if bad or len(classes) > 3:
        raise CliError(f"--distance: got {text!r}; give up to three of {', '.join(DISTANCE_IDS)}, comma-separated")
    return classes


def run_fabric(args: argparse.Namespace) -> int:
    leaf = ratio_flag("--oversubscription", args.oversubscription)
    spine = ratio_flag("--spine-oversubscription", args.spine_oversubscription)
    nic_gbit_s = None
    if args.nic_rate:
        try:
            nic_gbit_s = float(parse_quantity(args.nic_rate, "bandwidth").quantity.to("Gbit/s").magnitude)
        except QuantityInputError as exc:
            raise CliError(f"--nic-rate: {exc}") from exc
    rails = next(record for record in fabric_specs() if record.key == "rails")
    if not rails.minimum <= args.rails <= rails.maximum:
        raise CliError(f"--rails: got {args.rails}; give {rails.minimum} (automatic) to {rails.maximum}")
    try:
        inputs, warnings = server_inputs(args.server, args.gpus, args.switch, topology=args.topology,
                                         oversubscription=(leaf, spine if spine is not None else leaf),
                                         nic_gbit_s=nic_gbit_s, distances=_distances(args.distance),
                                         rails=args.rails)
        fabric = build_fabric(inputs, tiers=args.tiers)
    except FabricError as exc:
        raise CliError(str(exc)) from exc
    switch = inputs.switch
    if args.json:
        payload = fabric.as_dict()
        payload["switch_name"] = switch.name
        payload["switch_sources"] = list(switch.sources)
        payload["warnings"] = warnings
        print_json(payload)
        return 0
    for warning in warnings:
        print(f"interconnect: warning: {warning}", file=sys.stderr)
    i = fabric.inputs
    print(f"{i.gpus} GPUs in {i.servers} x {i.server} ({i.nics_per_server} NICs of "
          f"{format_bandwidth(Q_(i.nic_gbit_s, 'Gbit/s'), 'bit/s')} each), {switch.name}, {args.topology}:")
    print(f"  {'tier':<6} {'switches':>8} {'links in':>9} {'links up':>9}  {'medium (distance)':<44} "
          f"{'modules':>8} {'power':>9}")
    for tier in fabric.tiers:
        medium = "none reaches" if tier.medium is None else f"{tier.medium.name} ({tier.distance})"
        power = "not found" if tier.media_power_w is None else f"{tier.media_power_w / 1e3:.1f} kW"
        print(f"  {tier.name:<6} {tier.switches:>8} {tier.links_down:>9} {tier.links_up:>9}  {medium[:44]:<44} "
              f"{tier.transceivers:>8} {power:>9}")
    power = fabric.media_power_w
    print(f"  total: {fabric.switches} switches, {fabric.links} links, {fabric.modules} optical modules, "
          f"{fabric.cables} cables" + ("" if power is None else f", {power / 1e3:.1f} kW in modules and cable ends"))
    for tier in fabric.tiers:
        if tier.medium is not None and tier.medium.ports_per_plug > 1:
            kind = "copper cable's plug" if tier.medium.copper else "module"
            rate = tier.medium.rate_gbit_s / tier.medium.ports_per_plug
            print(f"  {tier.name}: one {kind} carries {tier.medium.ports_per_plug} links of {rate:g} Gbit/s")
    print(f"  bisection: {format_bandwidth(Q_(fabric.bisection_gbit_s, 'Gbit/s'), 'bit/s')} per direction "
          f"({fabric.bisection_per_gpu_gbit_s:.0f} Gbit/s per GPU of one half)")
    print("  switch hops: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in fabric.hops().items()))
    for note in fabric.notes:
        print(f"  note: {note}")
    return 0
