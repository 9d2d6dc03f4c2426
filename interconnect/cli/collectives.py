"""CLI sub-commands for collectives: ``allreduce`` (model one cluster) and ``compare`` (model vs a log).

``python -m interconnect allreduce --gpu h100-sxm --gpus-per-node 8 --nodes 2 --size "256 MiB"``
prints the predicted time, algbw and busbw and the algorithm NCCL would pick;
``python -m interconnect compare all_reduce.log --gpu h100-sxm --gpus-per-node 8 --nodes 2`` lines a
measured nccl-tests / rccl-tests log up against the model, row by row. ``--json`` gives machine-
readable output with every quantity as ``{"value", "unit"}`` (allreduce) or with the unit in the
key (compare rows). User errors (unknown ids, a bad bandwidth, an unreadable log) exit with status 2
and one line on stderr.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from interconnect.catalog import UnknownIdError, get_catalog
from interconnect.cli.fabric import add_topology_flags, topology_from_args
from interconnect.cli.output import CliError, print_json, quantity_json
from interconnect.models.allreduce_view import launch_from_log, vendor_words
from interconnect.models.cluster import FABRICS, Cluster, resolve_cluster
from interconnect.models.collectives import (
    ALLREDUCE_ALGORITHMS,
    COLLECTIVE_ALGORITHMS,
    COLLECTIVE_LABELS,
    LAUNCH_OVERHEAD_US,
    PROTOCOLS,
    allreduce,
    apply_calibration,
    busbw_factor,
    calibrate,
    compare_collective,
    normalize_collective,
)
from interconnect.models.collectives.calibration import MAX_WIRE_EFFICIENCY, MIN_WIRE_EFFICIENCY
from interconnect.models.collectives.measurements import launch_overhead_us
from interconnect.models.custom import name_problem
from interconnect.units import (
    Q_,
    IntegerInputError,
    QuantityInputError,
    format_duration,
    format_size,
    parse_quantity,
    read_int,
)

DEFAULT_SIZE = "256 MiB"
SWEEP_SIZES = [8 * 2**i for i in range(31)]  # 8 B .. 8 GiB, as all_reduce_perf -b 8 -e 8G -f 2


def _positive_int(text: str) -> int:
    try:
        return read_int(text, minimum=1)
    except IntegerInputError as exc:
        reason = "must be at least 1" if exc.nearest is not None else "expected a whole number"
        raise argparse.ArgumentTypeError(f"{reason}, got '{text[:40]}'") from None


def _efficiency(text: str) -> float:
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


def _protocol(text: str) -> str:
    """``--protocol``: auto, LL, LL128 or Simple, in any case (as NCCL_PROTO accepts them)."""
    lookup = {name.lower(): name for name in ("auto", *PROTOCOLS)}
    key = text.strip().lower()
    if key not in lookup:
        raise argparse.ArgumentTypeError(f"expected auto, ll, ll128 or simple, got '{text}'")
    return lookup[key]


def _add_cluster_flags(parser: argparse.ArgumentParser, algorithms: tuple[str, ...] = ALLREDUCE_ALGORITHMS) -> None:
    parser.add_argument("--gpu", default="h100-sxm",
                        help="GPU catalog id (default h100-sxm), or 'custom' with --gpu-bw (and --gpu-base)")
    parser.add_argument("--gpu-bw", metavar="RATE",
                        help="a custom GPU's scale-up bandwidth per direction ('3.6 TB/s'), as the page's gpu_bw")
    parser.add_argument("--gpu-base", metavar="ID",
                        help="the catalog GPU whose compute, memory and server a custom GPU keeps (default h100-sxm)")
    parser.add_argument("--gpu-name", metavar="NAME", help="a custom GPU's name in the output (default 'Custom GPU')")
    parser.add_argument("--gpus-per-node", type=_positive_int,
                        help="GPUs per server (default: the GPU's reference node)")
    parser.add_argument("--nodes", type=_positive_int, help="servers (default 1; compare: from the log's rank count)")
    parser.add_argument("--nic", help="NIC catalog id (ib-ndr) or bandwidth per NIC ('200 Gbit/s')")
    parser.add_argument("--nics-per-node", type=_positive_int, help="NICs per server (default one per GPU)")
    parser.add_argument("--fabric", choices=sorted(FABRICS), help="scale-out fabric (default: from the NIC)")
    parser.add_argument("--scaleup-domain", type=_positive_int,
                        help="GPUs per NVLink domain (default: preset; 72 for GB200)")
    parser.add_argument("--sharp", action="store_true", help="in-network reduction (SHARP) in an InfiniBand fabric")
    parser.add_argument("--hop-latency", metavar="TIME",
                        help="extra latency per network hop instead of the fabric's ('25 us'), as in the page's lat")
    parser.add_argument("--net-efficiency", type=_efficiency, metavar="SHARE",
                        help="calibration: share of each NIC's line rate reached ('87%%'), as the page's net_eff")
    parser.add_argument("--scaleup-efficiency", type=_efficiency, metavar="SHARE",
                        help="calibration: share of the GPU's scale-up spec reached ('80%%'), as the page's up_eff")
    parser.add_argument("--extra-latency", metavar="TIME",
                        help="calibration: added to every collective call ('5 us', may be negative), as xlat")
    parser.add_argument("--procs", choices=("auto", *LAUNCH_OVERHEAD_US), default="auto",
                        help="how the benchmark drives the GPUs (its launch mode): one process per GPU, or one "
                             "process for all (-g N: about 2.9 us per call for each GPU after the first, 20 us "
                             "at -g 8), as the page's procs; default auto: "
                             "compare reads it from the log, other commands model one process per GPU")
    parser.add_argument("--algorithm", default="auto", choices=("auto", *algorithms),
                        help="force an algorithm (default auto: what NCCL would pick per size)")
    parser.add_argument("--protocol", default="auto", type=_protocol, metavar="{auto,ll,ll128,simple}",
                        help="force a protocol, any case, as NCCL_PROTO does (default auto: NCCL's pick)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def register(commands: Any) -> None:
    model = commands.add_parser("allreduce", help="predicted all-reduce time, algbw and busbw for a cluster")
    _add_cluster_flags(model)
    add_topology_flags(model)
    model.add_argument("--size", action="append",
                       help=f"message size per GPU, repeatable (default {DEFAULT_SIZE}); 'sweep' for 8 B .. 8 GiB")
    model.set_defaults(handler=run_allreduce)

    compare = commands.add_parser(
        "compare", help="compare an nccl-tests/rccl-tests log (all-reduce, all-gather, reduce-scatter, all-to-all, "
                        "send/recv) with the model of that collective")
    compare.add_argument("logfile", help="nccl-tests stdout or -J JSON file ('-' for stdin)")
    compare.add_argument("--run", type=_positive_int, default=1,
                         help="which result table of a file holding several (default 1, the first)")
    every = dict.fromkeys((*ALLREDUCE_ALGORITHMS, *(a for algos in COLLECTIVE_ALGORITHMS.values() for a in algos)))
    _add_cluster_flags(compare, tuple(every))
    compare.set_defaults(handler=run_compare)


# --- shared ------------------------------------------------------------------------------------


def _check_nic(text: str | None) -> None:
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


def _check_hop_latency(text: str | None) -> None:
    if text is None:
        return
    try:
        parse_quantity(text, "time", allow_zero=True)
    except QuantityInputError as exc:
        raise CliError(f"--hop-latency: {exc}") from exc


def _custom_gpu(args: argparse.Namespace) -> dict[str, Any]:
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
    base = args.gpu_base or "h100-sxm"
    if base not in get_catalog().gpus:
        raise CliError(f"--gpu-base: unknown GPU id '{base}'; known ids: {', '.join(sorted(get_catalog().gpus))}")
    problem = name_problem(args.gpu_name) if args.gpu_name is not None else None
    if problem:
        raise CliError(f"--gpu-name: {problem}")
    return {"gpu_base": base, "scaleup_bandwidth": args.gpu_bw, "gpu_name": args.gpu_name}


def _extra_latency_us(text: str | None) -> float:
    if text is None:
        return 0.0
    negative = text.strip().startswith("-")
    try:
        quantity = parse_quantity(text.strip().lstrip("-"), "time", allow_zero=True).quantity
    except QuantityInputError as exc:
        raise CliError(f"--extra-latency: {exc}") from exc
    value = float(quantity.to("us").magnitude)
    return -value if negative else value


def _calibrated(args: argparse.Namespace, cluster: Cluster, launch: str) -> Cluster:
    """The cluster with the calibration flags and the launch mode applied."""
    return apply_calibration(cluster, network_efficiency=args.net_efficiency,
                             scaleup_efficiency=args.scaleup_efficiency,
                             extra_latency_us=_extra_latency_us(args.extra_latency), launch=launch)


def _cluster(args: argparse.Namespace, nodes: int | None = None, *,
             with_launch: bool = True) -> tuple[Cluster, list[str]]:
    """The cluster the flags describe, calibrated by the calibration flags (and the launch mode)."""
    _check_nic(args.nic)
    _check_hop_latency(args.hop_latency)
    _extra_latency_us(args.extra_latency)
    custom = _custom_gpu(args)
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
    return _calibrated(args, cluster, launch), warnings


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        print(f"interconnect: warning: {warning}", file=sys.stderr)


def _quantity(value: float, unit: str) -> dict[str, Any]:
    if not math.isfinite(value):
        return {"value": None, "unit": unit}
    return quantity_json(Q_(float(value), unit), unit)


# --- allreduce ---------------------------------------------------------------------------------


def _sizes(values: list[str] | None) -> np.ndarray:
    if not values:
        values = [DEFAULT_SIZE]
    sizes: list[float] = []
    for text in values:
        if text.strip().lower() == "sweep":
            sizes.extend(SWEEP_SIZES)
            continue
        try:
            quantity = parse_quantity(text, "size").quantity
        except QuantityInputError as exc:
            raise CliError(f"--size: {exc}") from exc
        size = float(quantity.to("B").magnitude)
        if size > 2**50:
            raise CliError(f"--size: {text} is more than 1 PiB per GPU")
        sizes.append(size)
    return np.array(sizes)


def run_allreduce(args: argparse.Namespace) -> int:
    sizes = _sizes(args.size)
    cluster, warnings = _cluster(args)
    result = allreduce(cluster, sizes, args.algorithm, protocol=args.protocol)
    if not np.isfinite(result.time_us).all():
        raise CliError(_unavailable(args, cluster))
    rows = result.rows()
    if args.json:
        entries = [
            {
                "size": _quantity(row["size_bytes"], "B"),
                "time": _quantity(row["time_us"], "us"),
                "algbw": _quantity(row["algbw_gbps"], "GB/s"),
                "busbw": _quantity(row["busbw_gbps"], "GB/s"),
                "algorithm": row["algorithm"],
                "protocol": row["protocol"],
            }
            for row in rows
        ]
        payload: dict[str, Any] = {
            "cluster": cluster.as_dict(),
            "description": cluster.describe(),
            "algorithm_requested": args.algorithm,
            "protocol_requested": args.protocol,
            "busbw_factor": round(busbw_factor("all_reduce", cluster.ranks), 6),
            "warnings": warnings,
            "results": entries,
        }
        if len(entries) == 1:
            keys = ("size", "time", "algbw", "busbw", "algorithm", "protocol")
            payload.update({key: entries[0][key] for key in keys})
        print_json(payload)
        return 0
    _warn(warnings)
    print(cluster.describe())
    factor = busbw_factor("all_reduce", cluster.ranks)
    if len(rows) == 1:
        row = rows[0]
        print(f"all-reduce of {format_size(Q_(row['size_bytes'], 'B'))} per GPU on {cluster.ranks} ranks: "
              f"{format_duration(Q_(row['time_us'], 'us'))} ({row['algorithm']}, {row['protocol']} protocol)")
        print(f"  algbw {row['algbw_gbps']:.1f} GB/s, busbw {row['busbw_gbps']:.1f} GB/s "
              f"(nccl-tests factor 2(n-1)/n = {factor:.4g})")
        return 0
    print(f"{'size':>10} {'time':>11} {'algbw GB/s':>11} {'busbw GB/s':>11}  algorithm")
    for row in rows:
        print(f"{format_size(Q_(row['size_bytes'], 'B')):>10} {format_duration(Q_(row['time_us'], 'us')):>11} "
              f"{row['algbw_gbps']:>11.2f} {row['busbw_gbps']:>11.2f}  {row['algorithm']}/{row['protocol']}")
    return 0


def _unavailable(args: argparse.Namespace, cluster: Cluster) -> str:
    """One line: why NCCL has no algorithm and protocol for the forced choice on this cluster."""
    what = " with ".join(part for part in (
        f"--algorithm {args.algorithm}" if args.algorithm != "auto" else "",
        f"--protocol {args.protocol}" if args.protocol != "auto" else "") if part)
    words = vendor_words(cluster)
    return (f"{what or 'this choice'}: {words.library} has no algorithm and protocol for it on "
            f"{cluster.describe()} (NVLS, NVLSTree and SHARP run only with Simple; NVLS needs Hopper or newer "
            "and an NVSwitch domain)")


# --- compare -----------------------------------------------------------------------------------


def _read_log(path_text: str) -> tuple[list[Any], str]:
    from interconnect.io.nccl_tests import NcclLogError, parse_nccl_runs

    if path_text == "-":
        data: bytes = sys.stdin.buffer.read()
        label = "<stdin>"
    else:
        path = Path(path_text)
        label = str(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CliError(f"cannot read {label}: no such file") from None
        except IsADirectoryError:
            raise CliError(f"cannot read {label}: it is a directory") from None
        except OSError as exc:
            raise CliError(f"cannot read {label}: {exc.strerror or exc}") from None
    try:
        return parse_nccl_runs(data), label
    except NcclLogError as exc:
        raise CliError(f"{label}: {exc}") from exc


def _run_label(run: Any) -> str:
    return f"{run.collective or 'collective not named'}, {run.size_bytes.size} rows, {run.ranks or '?'} ranks"


def _pick_run(runs: list[Any], label: str, number: int, warnings: list[str]) -> Any:
    """Return result table ``number`` (1-based) of the log, saying so when the log holds several."""
    if number > len(runs):
        raise CliError(f"--run: {label} holds {len(runs)} result table{'s' if len(runs) > 1 else ''}, "
                       f"not {number}")
    if len(runs) > 1:
        listed = "; ".join(f"{i + 1}: {_run_label(r)}" for i, r in enumerate(runs))
        warnings.append(f"the file holds {len(runs)} runs ({listed}); comparing run {number} "
                        "(choose another with --run N)")
    return runs[number - 1]


def _log_collective(run: Any, label: str, args: argparse.Namespace, warnings: list[str]) -> str:
    """Return the collective the log measured (all-reduce when it does not say); check --algorithm and --protocol."""
    if run.collective:
        try:
            collective = normalize_collective(run.collective)
        except ValueError:
            modelled = ", ".join(COLLECTIVE_LABELS)
            raise CliError(f"{label}: the log holds {run.collective}, which the model does not cover "
                           f"(it covers {modelled})") from None
    else:
        collective = "all_reduce"
        warnings.append("the log does not name its collective; compared as all-reduce")
    algorithms = ALLREDUCE_ALGORITHMS if collective == "all_reduce" else COLLECTIVE_ALGORITHMS[collective]
    if args.algorithm != "auto" and args.algorithm not in algorithms:
        raise CliError(f"--algorithm: {args.algorithm} is not an algorithm of {COLLECTIVE_LABELS[collective]}; "
                       f"choose auto or one of {', '.join(algorithms)}")
    if args.protocol != "auto" and collective != "all_reduce":
        raise CliError(f"--protocol: the model forces a protocol for all-reduce only, not {collective}")
    return collective


def _cluster_for_log(args: argparse.Namespace, run: Any, warnings: list[str]) -> Cluster:
    """Return the cluster the flags describe; without --nodes, as many nodes as the log's ranks fill."""
    log_ranks = run.ranks
    nodes = args.nodes
    if nodes is None and log_ranks:
        probe, _ = _cluster(args, nodes=1, with_launch=False)
        g = probe.gpus_per_node
        if log_ranks % g == 0:
            nodes = log_ranks // g
        else:
            nodes = max(1, round(log_ranks / g))
    cluster, cluster_warnings = _cluster(args, nodes=nodes, with_launch=False)
    warnings.extend(cluster_warnings)
    if log_ranks and log_ranks != cluster.ranks:
        warnings.append(
            f"ranks: the log has {log_ranks} ranks ({run.ranks_source}) but the cluster flags give "
            f"{cluster.ranks} ({cluster.nodes} x {cluster.gpus_per_node}); the model uses {cluster.ranks}"
        )
    return cluster


def _measured_columns(run: Any, warnings: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the log's sizes (B), times (µs) and busbw (GB/s): out of place, or in place when that is all it has."""
    time = np.asarray(run.time_us, dtype=float)
    busbw_log = np.asarray(run.busbw_gbps, dtype=float)
    if not np.isfinite(time).any():  # in-place-only tables (rccl-tests -O 0 style)
        time = np.asarray(run.inplace_time_us, dtype=float)
        busbw_log = np.asarray(run.inplace_busbw_gbps, dtype=float)
        warnings.append("the log has in-place results only; comparing those")
    return np.asarray(run.size_bytes, dtype=float), time, busbw_log


def _compare_rows(comparison: Any, busbw_log: np.ndarray) -> list[dict[str, object]]:
    """One JSON-ready row per compared size; the measured busbw is the log's own where it printed one."""
    rows = []
    for i in range(comparison.size_bytes.size):
        measured_bus = float(busbw_log[i]) if np.isfinite(busbw_log[i]) else float(comparison.measured_busbw_gbps[i])
        rows.append({
            "size_bytes": int(comparison.size_bytes[i]),
            "measured_time_us": float(comparison.measured_time_us[i]),
            "model_time_us": round(float(comparison.model_time_us[i]), 3),
            "time_ratio": round(float(comparison.time_ratio[i]), 4),
            "measured_busbw_gbps": measured_bus,
            "model_busbw_gbps": round(float(comparison.model_busbw_gbps[i]), 3),
            "algorithm": str(comparison.algorithm[i]),
            "protocol": str(comparison.protocol[i]),
        })
    return rows


def run_compare(args: argparse.Namespace) -> int:
    runs, label = _read_log(args.logfile)
    warnings: list[str] = []
    run = _pick_run(runs, label, args.run, warnings)
    collective = _log_collective(run, label, args, warnings)
    cluster = _cluster_for_log(args, run, warnings)
    log_ranks = run.ranks
    if args.procs == "auto":
        launch, launch_source = launch_from_log(run.gpus_per_process, log_ranks)
    else:
        launch, launch_source = args.procs, "--procs"
    model_cluster = cluster
    size, time, busbw_log = _measured_columns(run, warnings)
    keep = np.isfinite(time) & (time > 0) & (size > 0)
    if not keep.any():
        raise CliError(f"{label}: no rows with a positive size and time")
    try:
        comparison = compare_collective(model_cluster, collective, size[keep], time[keep], args.algorithm,
                                        args.protocol, launch)
        calibration = calibrate(model_cluster, size[keep], time[keep], collective, args.algorithm, args.protocol,
                                launch)
        share = calibration.wire_efficiency
        calibrated = compare_collective(
            apply_calibration(model_cluster, extra_latency_us=calibration.extra_latency_us,
                              network_efficiency=share if calibration.wire == "network" else None,
                              scaleup_efficiency=share if calibration.wire == "scale-up" else None),
            collective, size[keep], time[keep], args.algorithm, args.protocol, launch)
    except ValueError as exc:
        raise CliError(f"{label}: {exc}") from exc
    if not np.isfinite(comparison.model_time_us).all():
        raise CliError(_unavailable(args, cluster))
    warnings.extend(run.warnings)
    words = vendor_words(cluster)
    rows = _compare_rows(comparison, busbw_log[keep])
    fit = comparison.fit
    factor = busbw_factor(collective, max(cluster.ranks, 1))
    overhead_us = round(launch_overhead_us(launch, model_cluster.gpus_per_node), 3) if model_cluster.ranks > 1 else 0.0
    summary = comparison.summary()
    after = calibrated.summary()
    link = calibration.link_values()
    flags = " ".join(f"--{flag} '{text}'" for flag, value, text in (
        ("net-efficiency", link["net_eff"], f"{link['net_eff']:g}%"),
        ("scaleup-efficiency", link["up_eff"], f"{link['up_eff']:g}%"),
        ("extra-latency", link["xlat"], f"{link['xlat']:g} us")) if value)
    if args.json:
        print_json({
            "log": {"path": label, "collective": run.collective, "ranks": log_ranks,
                    "ranks_source": run.ranks_source, "rows": int(size.size), "format": run.format,
                    "run": args.run, "runs": len(runs)},
            "collective": collective,
            "library": words.library,
            "launch": {"mode": launch, "source": launch_source, "overhead_us": overhead_us},
            "busbw_factor": round(factor, 6),
            "ranks": log_ranks,
            "cluster": cluster.as_dict(),
            "description": model_cluster.describe(),
            "warnings": warnings,
            "fitted_latency_us": round(fit.latency_us, 3) if fit else None,
            "fitted_bandwidth_gbps": round(fit.bandwidth_gbps, 3) if fit else None,
            "fitted_busbw_gbps": round(fit.bandwidth_gbps * factor, 3) if fit else None,
            "calibration": calibration.as_dict(),
            "calibrated": {**after, "model_time_us": [round(float(t), 3) for t in calibrated.model_time_us]},
            "summary": summary,
            "geomean_time_ratio": summary["geomean_time_ratio"],
            "rows": rows,
        })
        return 0
    _warn(warnings)
    named = f" ({run.collective})" if run.collective else " (not named in the log)"
    print(f"{label}: {COLLECTIVE_LABELS[collective]}{named}, {size.size} rows, {log_ranks or '?'} ranks "
          f"({run.ranks_source})")
    print(f"model: {COLLECTIVE_LABELS[collective]} with {words.library} on {model_cluster.describe()}")
    print(f"launch: {launch} ({launch_source}; +{overhead_us:g} us per call)")
    print(f"{'size':>10} {'measured':>11} {'model':>11} {'ratio':>6} {'busbw meas':>10} {'busbw model':>11}  algorithm")
    for row in rows:
        print(f"{format_size(Q_(row['size_bytes'], 'B')):>10} "
              f"{format_duration(Q_(row['measured_time_us'], 'us')):>11} "
              f"{format_duration(Q_(row['model_time_us'], 'us')):>11} {row['time_ratio']:>6.2f} "
              f"{row['measured_busbw_gbps']:>10.2f} {row['model_busbw_gbps']:>11.2f}  "
              f"{row['algorithm']}/{row['protocol']}")
    if fit:
        print(f"fit of the measured rows: t = {fit.latency_us:.1f} us + S / {fit.bandwidth_gbps:.1f} GB/s "
              f"(algbw; busbw {fit.bandwidth_gbps * factor:.1f} GB/s)")
    print(f"model/measured time: geometric mean {summary['geomean_time_ratio']}, "
          f"typical error x{summary['geomean_error_factor']}")
    print("calibration: " + " ".join(calibration.sentences()))
    if calibration.changes_anything:
        print(f"calibrated model/measured time: geometric mean {after['geomean_time_ratio']}, typical error "
              f"x{after['geomean_error_factor']}; apply it with {flags}")
    return 0
