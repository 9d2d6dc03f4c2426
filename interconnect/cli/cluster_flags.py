"""Command-line flags that describe a cluster, shared by the sub-commands that model one (``allreduce``,
``compare``, ``overlap``): the flags, their strict checks, and the cluster they resolve to."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from interconnect.catalog import UnknownIdError, get_catalog
from interconnect.cli.output import CliError, quantity_json
from interconnect.hardware.cluster import Cluster, resolve_cluster
from interconnect.hardware.collectives import ALLREDUCE_ALGORITHMS, PROTOCOLS, apply_calibration
from interconnect.hardware.collectives.calibration import MAX_WIRE_EFFICIENCY, MIN_WIRE_EFFICIENCY
from interconnect.hardware.custom import name_problem
from interconnect.hardware.fabric import TopologySpec, get_fabric_data
from interconnect.inputs.cluster import (
    FABRIC_CHOICES,
    LAUNCH_CHOICES,
    NameParam,
    custom_gpu_specs,
    gpu_spec,
    topology_specs,
)
from interconnect.inputs.params import ChoiceParam, FloatParam
from interconnect.units import (
    Q_,
    IntegerInputError,
    QuantityInputError,
    parse_quantity,
    read_int,
)

# --- the link's records, which the flags mirror ------------------------------------------------------
# A flag that stands for a link key takes its default, choices and bounds from that key's parameter
# record (interconnect/inputs/cluster.py), so each is written once; the flags' words are their own.


def _custom_gpu_records() -> tuple[ChoiceParam, NameParam]:
    """The link's records of a custom GPU's base and name (``gpu_base``, ``gpu_name``)."""
    records = {record.key: record for record in custom_gpu_specs()}
    return records["gpu_base"], records["gpu_name"]


def _topology_records() -> dict[str, ChoiceParam | FloatParam]:
    """The link's records of the fabric topology (``topo``, ``switch``, ``osub``, ``shared``)."""
    return {record.key: record for record in topology_specs()}


def _span(record: FloatParam) -> str:
    """A record's range in words, its default marked where it is an end: ``1 (default) to 64``."""
    low, high = record.minimum, record.maximum
    mark = " (default)" if record.default == low else ""
    return f"{low:g}{mark} to {high:g}"


def positive_int(text: str) -> int:
    try:
        return read_int(text, minimum=1)
    except IntegerInputError as exc:
        reason = "must be at least 1" if exc.nearest is not None else "expected a whole number"
        raise argparse.ArgumentTypeError(f"{reason}, got '{text[:40]}'") from None


def efficiency(text: str) -> float:
    """``--net-efficiency`` / ``--scaleup-efficiency``: a share of the line rate, '87%' or 0.87."""
    raw = text.strip()
    try:
        value = float(raw.rstrip("%").strip()) / (100.0 if raw.endswith("%") else 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a share of the line rate such as '87%' or 0.87, "
                                         f"got '{text}'") from None
    if not MIN_WIRE_EFFICIENCY <= value <= MAX_WIRE_EFFICIENCY:
        raise argparse.ArgumentTypeError(f"must be between {MIN_WIRE_EFFICIENCY:.0%} and {MAX_WIRE_EFFICIENCY:.0%}, "
                                         f"got '{text}'")
    return value


def protocol_flag(text: str) -> str:
    """``--protocol``: auto, LL, LL128 or Simple, in any case (as NCCL_PROTO accepts them)."""
    lookup = {name.lower(): name for name in ("auto", *PROTOCOLS)}
    key = text.strip().lower()
    if key not in lookup:
        raise argparse.ArgumentTypeError(f"expected auto, ll, ll128 or simple, got '{text}'")
    return lookup[key]


def add_cluster_flags(parser: argparse.ArgumentParser, algorithms: tuple[str, ...] = ALLREDUCE_ALGORITHMS) -> None:
    gpu = gpu_spec().default
    base, name = _custom_gpu_records()
    parser.add_argument("--gpu", default=gpu,
                        help=f"GPU catalog id (default {gpu}), or 'custom' with --gpu-bw (and --gpu-base)")
    parser.add_argument("--gpu-bw", metavar="RATE",
                        help="a custom GPU's scale-up bandwidth per direction ('3.6 TB/s'), as the page's gpu_bw")
    parser.add_argument("--gpu-base", metavar="ID",
                        help="the catalog GPU whose compute, memory and server a custom GPU keeps "
                             f"(default {base.default})")
    parser.add_argument("--gpu-name", metavar="NAME",
                        help=f"a custom GPU's name in the output (default '{name.default}')")
    parser.add_argument("--gpus-per-node", type=positive_int,
                        help="GPUs per server (default: the GPU's reference node)")
    parser.add_argument("--nodes", type=positive_int, help="servers (default 1; compare: from the log's rank count)")
    parser.add_argument("--nic", help="NIC catalog id (ib-ndr) or bandwidth per NIC ('200 Gbit/s')")
    parser.add_argument("--nics-per-node", type=positive_int, help="NICs per server (default one per GPU)")
    parser.add_argument("--fabric", choices=sorted(set(FABRIC_CHOICES) - {"auto"}),
                        help="scale-out fabric (default: from the NIC)")
    parser.add_argument("--scaleup-domain", type=positive_int,
                        help="GPUs per NVLink domain (default: preset; 72 for GB200)")
    parser.add_argument("--sharp", action="store_true", help="in-network reduction (SHARP) in an InfiniBand fabric")
    parser.add_argument("--hop-latency", metavar="TIME",
                        help="extra latency per network hop instead of the fabric's ('25 us'), as in the page's lat")
    parser.add_argument("--net-efficiency", type=efficiency, metavar="SHARE",
                        help="calibration: share of each NIC's line rate reached ('87%%'), as the page's net_eff")
    parser.add_argument("--scaleup-efficiency", type=efficiency, metavar="SHARE",
                        help="calibration: share of the GPU's scale-up spec reached ('80%%'), as the page's up_eff")
    parser.add_argument("--extra-latency", metavar="TIME",
                        help="calibration: added to every collective call ('5 us', may be negative), as xlat")
    parser.add_argument("--procs", choices=("auto", *LAUNCH_CHOICES), default="auto",
                        help="how the benchmark drives the GPUs (its launch mode): one process per GPU, or one "
                             "process for all (-g N: each call takes at least the host's issue time, about "
                             "4.2 us per GPU, 33.7 us at -g 8), as the page's procs; default auto: "
                             "compare reads it from the log, other commands model one process per GPU")
    parser.add_argument("--algorithm", default="auto", choices=("auto", *algorithms),
                        help="force an algorithm (default auto: what NCCL would pick per size)")
    parser.add_argument("--protocol", default="auto", type=protocol_flag, metavar="{auto,ll,ll128,simple}",
                        help="force a protocol, any case, as NCCL_PROTO does (default auto: NCCL's pick)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def check_nic(text: str | None) -> None:
    """The CLI is strict where the page is forgiving: a NIC that is neither an id nor a bandwidth is
    an error, not a warning."""
    if text is None:
        return
    catalog = get_catalog()
    if text in catalog.links:
        if catalog.links[text].layer != "scale-out":
            raise CliError(f"--nic: '{text}' is a {catalog.links[text].layer} link, not a NIC")
        return
    try:
        parse_quantity(text, "bandwidth")
    except QuantityInputError as exc:
        if text[:1].isalpha() and " " not in text.strip():
            known = ", ".join(sorted(catalog.nics()))
            raise CliError(
                f"--nic: unknown NIC id '{text}'; known ids: {known}; or give a bandwidth like '400 Gbit/s'"
            ) from exc
        raise CliError(f"--nic: {exc}") from exc


def check_hop_latency(text: str | None) -> None:
    if text is None:
        return
    try:
        parse_quantity(text, "time", allow_zero=True)
    except QuantityInputError as exc:
        raise CliError(f"--hop-latency: {exc}") from exc


def custom_gpu_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The custom GPU the flags describe, checked strictly (the page would warn and fall back)."""
    given = [flag for flag, value in (("--gpu-bw", args.gpu_bw), ("--gpu-base", args.gpu_base),
                                      ("--gpu-name", args.gpu_name)) if value is not None]
    if args.gpu != "custom":
        if given:
            raise CliError(f"{given[0]} describes a custom GPU: use it with --gpu custom")
        return {}
    if args.gpu_bw is None:
        raise CliError("--gpu custom needs --gpu-bw, its scale-up bandwidth per direction (e.g. '3.6 TB/s')")
    try:
        parse_quantity(args.gpu_bw, "bandwidth")
    except QuantityInputError as exc:
        raise CliError(f"--gpu-bw: {exc}") from exc
    base = args.gpu_base or _custom_gpu_records()[0].default
    if base not in get_catalog().gpus:
        raise CliError(f"--gpu-base: unknown GPU id '{base}'; known ids: {', '.join(sorted(get_catalog().gpus))}")
    problem = name_problem(args.gpu_name) if args.gpu_name is not None else None
    if problem:
        raise CliError(f"--gpu-name: {problem}")
    return {"gpu_base": base, "scaleup_bandwidth": args.gpu_bw, "gpu_name": args.gpu_name}


def extra_latency_us(text: str | None) -> float:
    if text is None:
        return 0.0
    negative = text.strip().startswith("-")
    try:
        quantity = parse_quantity(text.strip().lstrip("-"), "time", allow_zero=True).quantity
    except QuantityInputError as exc:
        raise CliError(f"--extra-latency: {exc}") from exc
    value = float(quantity.to("us").magnitude)
    return -value if negative else value


def calibrated(args: argparse.Namespace, cluster: Cluster, launch: str) -> Cluster:
    """The cluster with the calibration flags and the launch mode applied."""
    return apply_calibration(cluster, network_efficiency=args.net_efficiency,
                             scaleup_efficiency=args.scaleup_efficiency,
                             extra_latency_us=extra_latency_us(args.extra_latency), launch=launch)


def cluster_from_args(args: argparse.Namespace, nodes: int | None = None, *,
             with_launch: bool = True) -> tuple[Cluster, list[str]]:
    """The cluster the flags describe, calibrated by the calibration flags (and the launch mode)."""
    check_nic(args.nic)
    check_hop_latency(args.hop_latency)
    extra_latency_us(args.extra_latency)
    custom = custom_gpu_flags(args)
    try:
        cluster, warnings = resolve_cluster(
            args.gpu,
            **custom,
            gpus_per_node=args.gpus_per_node,
            nodes=nodes if nodes is not None else (args.nodes or 1),
            nic=args.nic,
            nics_per_node=args.nics_per_node,
            fabric=args.fabric,
            scaleup_domain=args.scaleup_domain,
            in_network_reduction=args.sharp or None,
            hop_latency=args.hop_latency,
            topology=topology_from_args(args),
        )
    except UnknownIdError as exc:
        raise CliError(str(exc)) from exc
    launch = "process-per-gpu" if args.procs == "auto" or not with_launch else args.procs
    return calibrated(args, cluster, launch), warnings


def warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"interconnect: warning: {warning}", file=sys.stderr)


def quantity_or_none(value: float, unit: str) -> dict[str, Any]:
    if not math.isfinite(value):
        return {"value": None, "unit": unit}
    return quantity_json(Q_(float(value), unit), unit)


def add_topology_flags(parser: argparse.ArgumentParser) -> None:
    """The cluster's fabric, as the cluster pages take it (their ``topo``, ``switch``, ``osub``, ``shared`` keys).

    With no ``--topology`` no fabric is modelled and the output is what it was without these flags.
    """
    records = _topology_records()
    group = parser.add_argument_group(f"fabric topology (default: {records['topo'].default}, no fabric modelled)")
    group.add_argument("--topology", choices=tuple(c for c in records["topo"].choices if c != records["topo"].default),
                       default=None,
                       help="the scale-out fabric's topology; collectives that leave a leaf group cross the spine")
    group.add_argument("--switch", default=None, metavar="SWITCH_ID",
                       help="the fabric's switch (ids: interconnect catalog --kind switch; "
                            f"default {records['switch'].default})")
    group.add_argument("--oversubscription", type=float, default=None, metavar="RATIO",
                       help=f"leaf down : up ratio, {_span(records['osub'])}")
    group.add_argument("--shared", type=float, default=None, metavar="PERCENT",
                       help=f"share of the spine's capacity other traffic takes, {_span(records['shared'])}")


def topology_from_args(args: argparse.Namespace) -> TopologySpec | None:
    """Return the :class:`TopologySpec` the flags of :func:`add_topology_flags` give, or None without ``--topology``.

    Raises :class:`CliError` naming the flag for an unknown switch or a value out of range; without
    ``--topology`` the other flags are ignored and a warning says so.
    """
    topology = getattr(args, "topology", None)
    given = {flag: value for flag, value in (("--switch", getattr(args, "switch", None)),
                                             ("--oversubscription", getattr(args, "oversubscription", None)),
                                             ("--shared", getattr(args, "shared", None))) if value is not None}
    if topology is None:
        for flag in given:
            print(f"interconnect: warning: {flag}: ignored without --topology (no fabric is modelled)", file=sys.stderr)
        return None
    records = _topology_records()
    switches = get_fabric_data().switches
    switch = given.get("--switch", records["switch"].default)
    if switch not in switches:
        raise CliError(f"--switch: unknown switch {switch!r}; known: {', '.join(switches)}")
    ratio = ratio_flag("--oversubscription", given.get("--oversubscription", records["osub"].default))
    shared, spare = given.get("--shared", records["shared"].default), records["shared"]
    if not spare.minimum <= shared <= spare.maximum:
        raise CliError(f"--shared: got {shared:g}; give a percentage between {spare.minimum:g} and {spare.maximum:g}")
    return TopologySpec(topology, switch, ratio, shared / 100.0)


def ratio_flag(name: str, value: float | None) -> float | None:
    """A down : up ratio within the bounds of the link's ``osub`` record, or :class:`CliError` naming the flag."""
    osub = _topology_records()["osub"]
    if value is not None and not osub.minimum <= value <= osub.maximum:
        raise CliError(f"{name}: got {value:g}; give a down : up ratio between {osub.minimum:g} and {osub.maximum:g}")
    return value
