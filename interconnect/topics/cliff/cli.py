"""The cliff's CLI sub-command: ``cliff``, scale-up against scale-out bandwidth for a GPU and a NIC."""

from __future__ import annotations

import argparse
from typing import Any

from interconnect.catalog import get_catalog
from interconnect.cli.output import CliError, print_json, quantity_json
from interconnect.topics.cliff.model import cliff_summary
from interconnect.units import IntegerInputError, format_bandwidth, read_int


def register(commands: Any) -> None:
    cliff = commands.add_parser("cliff", help="scale-up against scale-out bandwidth for a GPU and a NIC")
    cliff.add_argument("--gpu", required=True, help="GPU id, e.g. h100-sxm")
    cliff.add_argument("--nic", help="NIC id, e.g. ib-ndr (default: the NIC the GPU's reference server uses)")
    cliff.add_argument("--nics-per-node", type=_whole_number, default=None,
                       help="NICs per server (default: as many as the GPU's reference server has for its own NIC, "
                            "else one per GPU)")
    cliff.add_argument("--json", action="store_true", help="machine-readable output")
    cliff.set_defaults(handler=run_cliff)


def _whole_number(text: str) -> int:
    """A whole number read by the project's strict reader (ASCII digits, short)."""
    try:
        return read_int(text)
    except IntegerInputError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text[:40]}'") from None


def run_cliff(args: argparse.Namespace) -> int:
    catalog = get_catalog()
    gpu = catalog.gpu(args.gpu)
    nic_id = args.nic or gpu.typical_nic
    if args.nics_per_node is not None and not 1 <= args.nics_per_node <= 1024:
        raise CliError(f"--nics-per-node must be between 1 and 1024, got {args.nics_per_node}")
    summary = cliff_summary(catalog, gpu.id, nic_id, nics_per_node=args.nics_per_node)
    if args.json:
        achieved_up = summary.scaleup_achieved_per_direction
        achieved_nic = summary.nic_achieved_per_direction
        print_json({
            "gpu": gpu.id,
            "nic": summary.nic.id,
            "scaleup": {
                "link": gpu.scaleup_link,
                "per_direction": quantity_json(summary.scaleup_per_direction, "GB/s"),
                "both_directions": quantity_json(summary.scaleup_both_directions, "GB/s"),
                "achieved_per_direction": quantity_json(achieved_up, "GB/s") if achieved_up is not None else None,
                "sources": list(gpu.scaleup_bandwidth.source_ids),
            },
            "scaleout": {
                "per_direction": quantity_json(summary.nic_per_direction, "GB/s"),
                "both_directions": quantity_json(summary.nic_both_directions, "GB/s"),
                "achieved_per_direction": quantity_json(achieved_nic, "GB/s") if achieved_nic is not None else None,
                "sources": list(summary.nic.bandwidth.source_ids),
            },
            "node_egress_per_direction": quantity_json(summary.node_egress_per_direction, "GB/s"),
            "nics_per_node": summary.nics_per_node,
            "gpus_per_node": summary.gpus_per_node,
            "network_per_gpu_per_direction": quantity_json(summary.network_per_gpu_per_direction, "GB/s"),
            "ratio_like_for_like": round(summary.ratio_like_for_like, 6),
            "ratio_as_quoted": round(summary.ratio_as_quoted, 6),
            "ratio_achieved": None if summary.ratio_achieved is None else round(summary.ratio_achieved, 6),
        })
        return 0
    print(f"{gpu.name} with {summary.nic.name}")
    print(f"  scale-up per GPU : {format_bandwidth(summary.scaleup_per_direction)} per direction, "
          f"{format_bandwidth(summary.scaleup_both_directions)} both directions summed")
    print(f"  network per GPU  : {format_bandwidth(summary.network_per_gpu_per_direction)} per direction "
          f"({format_bandwidth(summary.network_per_gpu_per_direction, 'bit/s')}; "
          f"{summary.nics_per_node} NICs for {summary.gpus_per_node} GPUs)")
    print(f"  server egress    : {format_bandwidth(summary.node_egress_per_direction)} per direction "
          f"through {summary.nics_per_node} NICs")
    print(f"  like for like    : {summary.ratio_like_for_like:.3g} : 1")
    print(f"  as often quoted  : {summary.ratio_as_quoted:.3g} : 1 (both directions over one direction)")
    if summary.ratio_achieved is not None:
        print(f"  achieved ({gpu.collective_library.name})  : {summary.ratio_achieved:.3g} : 1")
    return 0
