"""CLI sub-command ``plan``: the seating chart's bill for one layout, or the fastest layout that fits.

``python -m interconnect plan --model llama3-70b --gpu h100-sxm --gpus-per-node 8 --nodes 2 --tp 8
--pp 1 --dp 2 --zero 1`` prints one row per parallelism dimension (collective, tier, bytes and calls
per step, time, overlap, exposed time), the step time, utilisation and pipeline bubble, and the
memory per GPU; ``--search`` tries every factorization of the GPU count and reports the fastest that
fits. ``--json`` gives ``step_time``, ``exposed_comm`` and ``memory_per_gpu`` as ``{"value", "unit"}``,
``fits``, ``layout`` and ``dimensions``. A layout that cannot run (degrees that do not multiply to
the GPU count, TP not dividing the heads, EP without experts) is a one-line error, exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from interconnect.catalog import UnknownIdError, get_catalog
from interconnect.cli.output import CliError, print_json
from interconnect.models.cluster import FABRICS, resolve_cluster
from interconnect.models.parallelism import Layout, LayoutError, Plan, Workload, plan, search_layouts
from interconnect.models.presets import load_model_presets
from interconnect.units import IntegerInputError, QuantityInputError, parse_quantity, read_int

__all__ = ["register", "run_plan"]


def _whole(minimum: int):
    def parse(text: str) -> int:
        try:
            return read_int(text, minimum=minimum)
        except IntegerInputError as exc:
            reason = f"must be at least {minimum}" if exc.nearest is not None else "expected a whole number"
            raise argparse.ArgumentTypeError(f"{reason}, got '{text[:40]}'") from None
    return parse


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got '{text}'") from None
    if not 0.01 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0.01 and 1, got {text}")
    return value


def register(commands: Any) -> None:
    parser = commands.add_parser("plan", help="seat TP x PP x DP (x CP, EP) on a cluster: traffic per tier, "
                                              "step time, memory; --search for the fastest layout that fits")
    parser.add_argument("--model", default="llama3-70b",
                        help=f"model preset ({', '.join(load_model_presets())}; default llama3-70b)")
    parser.add_argument("--gpu", default="h100-sxm", help="GPU catalog id (default h100-sxm)")
    parser.add_argument("--gpus-per-node", type=_whole(1), help="GPUs per server (default: the GPU's reference node)")
    parser.add_argument("--nodes", type=_whole(1), default=1, help="servers (default 1)")
    parser.add_argument("--nic", help="NIC catalog id (ib-ndr) or bandwidth per NIC ('400 Gbit/s')")
    parser.add_argument("--nics-per-node", type=_whole(1), help="NICs per server (default one per GPU)")
    parser.add_argument("--fabric", choices=sorted(FABRICS), help="scale-out fabric (default: from the NIC)")
    parser.add_argument("--scaleup-domain", type=_whole(1), help="GPUs per NVLink domain (default: preset)")
    parser.add_argument("--tp", type=_whole(1), default=1, help="tensor-parallel degree (default 1)")
    parser.add_argument("--pp", type=_whole(1), default=1, help="pipeline stages (default 1)")
    parser.add_argument("--dp", type=_whole(1), help="data-parallel replicas (default: GPUs / (TP x PP x CP))")
    parser.add_argument("--cp", type=_whole(1), default=1, help="context-parallel degree (default 1)")
    parser.add_argument("--ep", type=_whole(1), default=1, help="expert-parallel degree, inside DP (default 1)")
    parser.add_argument("--zero", type=_whole(0), choices=(0, 1, 2, 3), default=0, help="ZeRO stage (default 0)")
    parser.add_argument("--micro-batch", type=_whole(1), default=1, help="sequences per micro-batch (default 1)")
    parser.add_argument("--global-batch", type=_whole(1), default=256, help="sequences per step (default 256)")
    parser.add_argument("--seq-len", type=_whole(1), help="tokens per sequence (default: the model's)")
    parser.add_argument("--recompute", choices=("none", "selective", "full"), default="selective",
                        help="activation recomputation (default selective)")
    parser.add_argument("--no-sequence-parallel", action="store_true", help="TP without sequence parallelism")
    parser.add_argument("--efficiency", type=_share, default=0.5,
                        help="share of the GPU's BF16 peak the matrix multiplies reach (default 0.5)")
    parser.add_argument("--search", action="store_true", help="find the fastest layout that fits (ignores --tp ...)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_plan)


def _quantity(value: float, unit: str, digits: int = 6) -> dict[str, Any]:
    return {"value": round(float(value), digits), "unit": unit}


def _cluster(args: argparse.Namespace):
    if args.nic is not None and args.nic not in get_catalog().links:
        try:
            parse_quantity(args.nic, "bandwidth")
        except QuantityInputError as exc:
            raise CliError(f"--nic: {exc}") from exc
    try:
        return resolve_cluster(args.gpu, gpus_per_node=args.gpus_per_node, nodes=args.nodes, nic=args.nic,
                               nics_per_node=args.nics_per_node, fabric=args.fabric,
                               scaleup_domain=args.scaleup_domain)
    except UnknownIdError as exc:
        raise CliError(str(exc)) from exc


def _payload(bill: Plan, warnings: list[str], search: dict[str, Any] | None) -> dict[str, Any]:
    memory = bill.memory
    return {
        "model": {"id": bill.model.id, "name": bill.model.name, "sources": list(bill.model.source_ids)},
        "cluster": bill.cluster.as_dict(),
        "description": bill.cluster.describe(),
        "layout": bill.layout.as_dict(),
        "step_time": _quantity(bill.step_s, "s"),
        "compute_time": _quantity(bill.compute_s, "s"),
        "exposed_comm": _quantity(bill.exposed_s, "s"),
        "bubble_fraction": round(bill.bubble_fraction, 6),
        "mfu": round(bill.mfu, 6),
        "micro_batches": bill.micro_batches,
        "memory_per_gpu": _quantity(memory.total / 1e9, "GB"),
        "memory": {
            "params": _quantity(memory.params / 1e9, "GB"), "grads": _quantity(memory.grads / 1e9, "GB"),
            "optimizer": _quantity(memory.optimizer / 1e9, "GB"),
            "activations": _quantity(memory.activations / 1e9, "GB"),
            "capacity": _quantity(memory.capacity / 1e9, "GB"),
        },
        "fits": bill.fits,
        "dimensions": [d.as_json() for d in bill.dimensions],
        "notes": list(bill.notes),
        "warnings": warnings,
        **({"search": search} if search is not None else {}),
    }


def _print_bill(bill: Plan) -> None:
    print(f"{bill.model.name} on {bill.cluster.describe()}")
    print(f"layout: {bill.layout.label()}  ({bill.micro_batches} micro-batches per step)")
    print(f"{'dimension':<14} {'deg':>4}  {'collective':<38} {'tier':<14} {'GB/step':>9} {'calls':>8} "
          f"{'time ms':>9} {'exposed ms':>10}")
    for d in bill.dimensions:
        if d.degree <= 1:
            continue
        print(f"{d.label:<14} {d.degree:>4}  {d.collective:<38} {d.tier:<14} {d.bytes_per_step / 1e9:>9.2f} "
              f"{d.calls_per_step:>8.0f} {d.time_s * 1e3:>9.1f} {d.exposed_s * 1e3:>10.1f}")
    print(f"step time {bill.step_s:.3f} s: compute {bill.compute_s:.3f} s, pipeline bubble "
          f"{bill.bubble_fraction:.1%}, exposed communication {bill.exposed_s:.3f} s; utilisation (MFU) {bill.mfu:.1%}")
    m = bill.memory
    verdict = "fits" if m.fits else "DOES NOT FIT"
    print(f"memory per GPU {m.total / 1e9:.1f} GB of {m.capacity / 1e9:.0f} GB ({verdict}): weights "
          f"{m.params / 1e9:.1f}, gradients {m.grads / 1e9:.1f}, optimizer {m.optimizer / 1e9:.1f}, "
          f"activations {m.activations / 1e9:.1f} GB")


def run_plan(args: argparse.Namespace) -> int:
    presets = load_model_presets()
    if args.model not in presets:
        raise CliError(f"--model: unknown model '{args.model}'; known: {', '.join(presets)}")
    model = presets[args.model]
    cluster, warnings = _cluster(args)
    for warning in warnings:
        if not args.json:
            print(f"interconnect: warning: {warning}")
    workload = Workload(micro_batch=args.micro_batch, global_batch=args.global_batch, seq_len=args.seq_len,
                        recompute=args.recompute, sequence_parallel=not args.no_sequence_parallel,
                        compute_efficiency=args.efficiency)
    search_info = None
    if args.search:
        found = search_layouts(model, cluster, workload)
        search_info = {"tried": found.tried, "valid": found.valid, "fitting": found.fitting}
        if found.best is None:
            message = (f"no layout of {cluster.ranks:,} GPUs fits {model.name} in "
                       f"{get_catalog().gpu(cluster.gpu).memory.text()} per GPU "
                       f"({found.valid} valid layouts tried)")
            if args.json:
                print_json({"model": {"id": model.id, "name": model.name}, "cluster": cluster.as_dict(),
                            "layout": None, "fits": False, "message": message, "search": search_info,
                            "warnings": warnings})
            else:
                print(message)
            return 0
        bill = found.best
    else:
        rest = cluster.ranks // max(1, args.tp * args.pp * args.cp)
        layout = Layout(tp=args.tp, pp=args.pp, dp=args.dp if args.dp is not None else max(1, rest), cp=args.cp,
                        ep=args.ep, zero=args.zero)
        try:
            bill = plan(model, cluster, layout, workload)
        except LayoutError as exc:
            raise CliError(str(exc)) from exc
    if args.json:
        print_json(_payload(bill, warnings, search_info))
        return 0
    if search_info is not None:
        print(f"fastest of {search_info['fitting']} fitting layouts ({search_info['valid']} valid):")
    _print_bill(bill)
    return 0
