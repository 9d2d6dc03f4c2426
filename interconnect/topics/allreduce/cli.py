"""CLI sub-commands for collectives: ``allreduce`` (model one cluster) and ``compare`` (model vs a log).

``python -m interconnect allreduce --gpu h100-sxm --gpus-per-node 8 --nodes 2 --size "256 MiB"``
prints the predicted time, algbw and busbw and the algorithm NCCL would pick;
``python -m interconnect compare all_reduce.log --gpu h100-sxm --gpus-per-node 8 --nodes 2`` lines a
measured nccl-tests / rccl-tests log up against the model, row by row. ``--json`` gives machine-
readable output with every quantity as ``{"value", "unit"}`` (allreduce) or with the unit in the
key (compare rows). Both carry ``error_band``: the model's error on the published nccl-tests tables like this
case (:mod:`interconnect.hardware.collectives.accuracy`; ``low``, ``high``, ``median`` model / measured time,
``n`` tables, ``basis``), per size for ``allreduce``, over the whole sweep for ``compare``; the text output
prints it as one line. Inside it, ``expected`` reads the band the other way, what a measurement would likely
read (the model's value / ``high`` .. / ``low``, about / ``median``; null for an extrapolation): for
``allreduce`` ``{"time", "busbw"}`` each ``{"low", "central", "high", "unit", "quantity"}``; for ``compare``
the same with a list per key in row order, and ``measured_inside`` (how many of the log's times fall in
their row's range). User errors (unknown ids, a bad bandwidth, an unreadable log) exit with status 2
and one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import Any

import numpy as np

from interconnect.cli.cluster_flags import (
    add_cluster_flags,
    add_topology_flags,
    cluster_from_args,
    positive_int,
    quantity_or_none,
    warn,
)
from interconnect.cli.output import CliError, print_json
from interconnect.hardware.accuracy import ErrorBand, expected_text, seconds_in_unit_of
from interconnect.hardware.cluster import Cluster
from interconnect.hardware.collectives import (
    ALLREDUCE_ALGORITHMS,
    COLLECTIVE_ALGORITHMS,
    COLLECTIVE_LABELS,
    allreduce,
    apply_calibration,
    busbw_factor,
    calibrate,
    compare_collective,
    normalize_collective,
)
from interconnect.hardware.collectives.accuracy import SIZE_BANDS, collective_band, collective_expected, size_band
from interconnect.hardware.collectives.measurements import host_issue_us, launch_overhead_us
from interconnect.hardware.vendor import vendor_words
from interconnect.topics.allreduce.inputs import SIZE
from interconnect.topics.allreduce.view import launch_from_log
from interconnect.units import (
    Q_,
    QuantityInputError,
    format_duration,
    format_seconds,
    format_size,
    parse_quantity,
)

DEFAULT_SIZE = SIZE.default  # the page's size record (the CLI takes up to 1 PiB; the page 16 GiB)
SWEEP_SIZES = [8 * 2**i for i in range(31)]  # 8 B .. 8 GiB, as all_reduce_perf -b 8 -e 8G -f 2


def register(commands: Any) -> None:
    model = commands.add_parser("allreduce", help="predicted all-reduce time, algbw and busbw for a cluster")
    add_cluster_flags(model)
    add_topology_flags(model)
    model.add_argument("--size", action="append",
                       help=f"message size per GPU, repeatable (default {DEFAULT_SIZE}); 'sweep' for 8 B .. 8 GiB")
    model.set_defaults(handler=run_allreduce)

    compare = commands.add_parser(
        "compare", help="compare an nccl-tests/rccl-tests log (all-reduce, all-gather, reduce-scatter, all-to-all, "
                        "send/recv) with the model of that collective")
    compare.add_argument("logfile", help="nccl-tests stdout or -J JSON file ('-' for stdin)")
    compare.add_argument("--run", type=positive_int, default=1,
                         help="which result table of a file holding several (default 1, the first)")
    every = dict.fromkeys((*ALLREDUCE_ALGORITHMS, *(a for algos in COLLECTIVE_ALGORITHMS.values() for a in algos)))
    add_cluster_flags(compare, tuple(every))
    compare.set_defaults(handler=run_compare)


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


def _band_json(band: ErrorBand, row: dict[str, Any]) -> dict[str, Any]:
    """A size's ``error_band`` with ``expected``: the likely measured ``time`` (us) and ``busbw`` (GB/s)."""
    read = collective_expected(band, row["time_us"], row["busbw_gbps"])
    return {**band.as_json(), "expected": None if read is None else {k: v.as_json() for k, v in read.items()}}


def _sweep_expected(band: ErrorBand, model_time_us: np.ndarray, model_busbw_gbps: np.ndarray,
                    measured_time_us: np.ndarray) -> dict[str, Any] | None:
    """``compare``'s ``expected``: per row, what a measurement would likely read (lists in row order), and how
    many of the log's measured times fall inside their row's range."""
    reads = [collective_expected(band, float(t), float(b))
             for t, b in zip(model_time_us, model_busbw_gbps, strict=True)]
    if not reads or any(read is None for read in reads):
        return None

    def lists(key: str) -> dict[str, Any]:
        rows = [read[key].as_json() for read in reads]  # type: ignore[index]
        return {"low": [r["low"] for r in rows], "central": [r["central"] for r in rows],
                "high": [r["high"] for r in rows], "unit": rows[0]["unit"],
                "quantity": f"{key} per row, each row's model {key} read through the whole-sweep band"}

    inside = sum(read["time"].low <= m <= read["time"].high  # type: ignore[index]
                 for read, m in zip(reads, measured_time_us, strict=True))
    return {"time": lists("time"), "busbw": lists("busbw"),
            "measured_inside": {"rows": int(inside), "of": len(reads)}}


def run_allreduce(args: argparse.Namespace) -> int:
    sizes = _sizes(args.size)
    cluster, warnings = cluster_from_args(args)
    result = allreduce(cluster, sizes, args.algorithm, protocol=args.protocol)
    if not np.isfinite(result.time_us).all():
        raise CliError(_unavailable(args, cluster))
    rows = result.rows()
    if args.json:
        entries = [
            {
                "size": quantity_or_none(row["size_bytes"], "B"),
                "time": quantity_or_none(row["time_us"], "us"),
                "algbw": quantity_or_none(row["algbw_gbps"], "GB/s"),
                "busbw": quantity_or_none(row["busbw_gbps"], "GB/s"),
                "algorithm": row["algorithm"],
                "protocol": row["protocol"],
                "error_band": _band_json(collective_band(cluster, "all_reduce", row["size_bytes"]), row),
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
            keys = ("size", "time", "algbw", "busbw", "algorithm", "protocol", "error_band")
            payload.update({key: entries[0][key] for key in keys})
        print_json(payload)
        return 0
    warn(warnings)
    print(cluster.describe())
    factor = busbw_factor("all_reduce", cluster.ranks)
    if len(rows) == 1:
        row = rows[0]
        print(f"all-reduce of {format_size(Q_(row['size_bytes'], 'B'))} per GPU on {cluster.ranks} ranks: "
              f"{format_duration(Q_(row['time_us'], 'us'))} ({row['algorithm']}, {row['protocol']} protocol)")
        print(f"  algbw {row['algbw_gbps']:.1f} GB/s, busbw {row['busbw_gbps']:.1f} GB/s "
              f"(nccl-tests factor 2(n-1)/n = {factor:.4g})")
        band = collective_band(cluster, "all_reduce", row["size_bytes"])
        print(f"  error band (time, model / measured; busbw the inverse): {band.text()}; {band.basis}")
        read = collective_expected(band, row["time_us"], row["busbw_gbps"])
        if read is not None:
            in_unit = seconds_in_unit_of(format_seconds, row["time_us"] * 1e-6)
            print("  " + expected_text((read["time"], lambda us: in_unit(us * 1e-6), ""),
                                      (read["busbw"], lambda gbps: f"{gbps:.1f} GB/s", "busbw")))
        return 0
    print(f"{'size':>10} {'time':>11} {'algbw GB/s':>11} {'busbw GB/s':>11}  algorithm")
    for row in rows:
        print(f"{format_size(Q_(row['size_bytes'], 'B')):>10} {format_duration(Q_(row['time_us'], 'us')):>11} "
              f"{row['algbw_gbps']:>11.2f} {row['busbw_gbps']:>11.2f}  {row['algorithm']}/{row['protocol']}")
    for band_name in dict.fromkeys(size_band(row["size_bytes"]) for row in rows):
        band = collective_band(cluster, "all_reduce", {"small": 8, "middle": 2**20, "large": 2**30}[band_name])
        print(f"error band, {SIZE_BANDS[band_name]} (time, model / measured; busbw the inverse): {band.text()}; "
              f"{band.basis}")
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
    """The runs of the log at ``path_text`` (``-``: standard input), read with the parser's 5 MiB cap: never more
    than the limit and one byte is held, so a huge file, ``/dev/zero`` or an endless pipe is refused at once."""
    from interconnect.io.nccl_tests import NcclLogError, parse_nccl_runs, read_capped

    if path_text == "-":
        label = "<stdin>"
        try:
            data = read_capped(sys.stdin.buffer)
        except NcclLogError as exc:
            raise CliError(f"{label}: {exc}") from exc
        except OSError as exc:
            raise CliError(f"cannot read {label}: {exc.strerror or exc}") from None
    else:
        path = Path(path_text)
        label = str(path)
        try:
            with path.open("rb") as handle:
                status = os.fstat(handle.fileno())
                data = read_capped(handle, size=status.st_size if stat.S_ISREG(status.st_mode) else None)
        except NcclLogError as exc:
            raise CliError(f"{label}: {exc}") from exc
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
        probe, _ = cluster_from_args(args, nodes=1, with_launch=False)
        g = probe.gpus_per_node
        if log_ranks % g == 0:
            nodes = log_ranks // g
        else:
            nodes = max(1, round(log_ranks / g))
    cluster, cluster_warnings = cluster_from_args(args, nodes=nodes, with_launch=False)
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
    host_us = round(host_issue_us(launch, model_cluster.gpus_per_node), 3) if model_cluster.ranks > 1 else 0.0
    summary = comparison.summary()
    after = calibrated.summary()
    link = calibration.link_values()
    flags = " ".join(f"--{flag} '{text}'" for flag, value, text in (
        ("net-efficiency", link["net_eff"], f"{link['net_eff']:g}%"),
        ("scaleup-efficiency", link["up_eff"], f"{link['up_eff']:g}%"),
        ("extra-latency", link["xlat"], f"{link['xlat']:g} us")) if value)
    band = collective_band(model_cluster, collective, None, launch=launch)
    if args.json:
        print_json({
            "error_band": {**band.as_json(), "expected": _sweep_expected(
                band, comparison.model_time_us, comparison.model_busbw_gbps, time[keep])},
            "log": {"path": label, "collective": run.collective, "ranks": log_ranks,
                    "ranks_source": run.ranks_source, "rows": int(size.size), "format": run.format,
                    "run": args.run, "runs": len(runs)},
            "collective": collective,
            "library": words.library,
            "launch": {"mode": launch, "source": launch_source, "overhead_us": overhead_us,
                       "host_issue_us": host_us},
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
    warn(warnings)
    named = f" ({run.collective})" if run.collective else " (not named in the log)"
    print(f"{label}: {COLLECTIVE_LABELS[collective]}{named}, {size.size} rows, {log_ranks or '?'} ranks "
          f"({run.ranks_source})")
    print(f"model: {COLLECTIVE_LABELS[collective]} with {words.library} on {model_cluster.describe()}")
    cost = f"+{overhead_us:g} us per call"
    if host_us:
        cost += f", every call at least {host_us:g} us (the host's issue time, overlapped with the GPUs')"
    print(f"launch: {launch} ({launch_source}; {cost})")
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
    print(f"error band (time over whole sweeps, model / measured; busbw the inverse): {band.text()}; {band.basis}")
    expected = _sweep_expected(band, comparison.model_time_us, comparison.model_busbw_gbps, time[keep])
    if expected is not None:
        inside = expected["measured_inside"]
        print(f"expected: each row's model time read through the band (model / high .. model / low) holds "
              f"{inside['rows']} of {inside['of']} measured times")
    print("calibration: " + " ".join(calibration.sentences()))
    if calibration.changes_anything:
        print(f"calibrated model/measured time: geometric mean {after['geomean_time_ratio']}, typical error "
              f"x{after['geomean_error_factor']}; apply it with {flags}")
    return 0
