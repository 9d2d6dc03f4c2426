"""The reader of the JSON file nccl-tests writes with ``-J`` (``JSON_FILE_VERSION`` 3): the document's structure.

:func:`_parse_json` checks the document (:func:`_results_list`), reads each result and its two
placements (:class:`_JsonRows`, :func:`_read_placement`), then the collective, the devices and
the footer (``out_of_bounds``, ``average_bus_bandwidth``), and builds the run with the checks the
text reader uses (:mod:`.checks`, :mod:`.ranks`). Single values are read by :mod:`.json_values`.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np

from interconnect.io.nccl_tests.checks import (
    _and_the_others,
    _build_run,
    _check_algbw,
    _check_complete,
    _impossible_rows,
    _skipped_rows_warning,
)
from interconnect.io.nccl_tests.decode import _INT32_MAX, _INT64_MAX, _NAME_CHARS, _show
from interconnect.io.nccl_tests.json_values import _json_float, _json_int, _json_label, _json_sweep, _load_json
from interconnect.io.nccl_tests.ranks import _decide_ranks
from interconnect.io.nccl_tests.run import _EXAMPLE_ROW, MAX_LINES, MAX_ROWS, NcclLogError, NcclRun

_JSON_FILE_VERSION_KNOWN = 3
_PLACEMENTS = ("out_of_place", "in_place")


def _results_list(document: object) -> list:
    """Return the document's ``results`` list; refuse a document that is not an nccl-tests -J file or too long."""
    if not isinstance(document, dict):
        raise NcclLogError("the JSON is not an object; nccl-tests -J writes one object with a 'results' list")
    results = document.get("results")
    if not isinstance(results, list):
        raise NcclLogError("the JSON has no 'results' list; is this an nccl-tests -J file?")
    if not results:
        raise NcclLogError(
            f"no data rows found: the JSON 'results' list is empty (expected rows like '{_EXAMPLE_ROW}')"
        )
    if len(results) > MAX_ROWS:
        raise NcclLogError(
            f"the JSON has {len(results):,} results; nccl-tests writes one per size, data type, reduction and root, "
            f"a few thousand at most (this reader stops at {MAX_ROWS:,})"
        )
    return results


def _read_placement(part: object, where: str, key: str) -> tuple[tuple[float, float, float], str, str, bool]:
    """Read one placement of a result (``results[i].out_of_place``): its values, time key, problem, #wrong.

    Returns (time, algbw, busbw), the key the time had (``time``, or ``cpu_time`` under ``-C 1``),
    the first reason the values cannot be used (``""`` if none: NaN, infinity, a zero time) and
    whether ``nwrong`` reports wrong elements. Negative values and non-numbers raise.
    """
    if not isinstance(part, dict):
        raise NcclLogError(f"{where}.{key} is not an object")
    time_key = "cpu_time" if "cpu_time" in part else "time"
    values = (
        _json_float(part.get(time_key), f"{where}.{key}.{time_key}"),
        _json_float(part.get("alg_bw"), f"{where}.{key}.alg_bw"),
        _json_float(part.get("bus_bw"), f"{where}.{key}.bus_bw"),
    )
    unusable = ""
    for name, value in zip((time_key, "alg_bw", "bus_bw"), values, strict=True):
        if value < 0:
            raise NcclLogError(f"{where}.{key}.{name} is {value:g}, a negative time or bandwidth")
        if not unusable and not value < math.inf:
            unusable = f"{key}.{name} is {_show(part.get(name))}, not a finite number"
    if not unusable and values[0] == 0:
        unusable = f"{key}.{time_key} is zero"
    wrong = _json_float(part.get("nwrong"), f"{where}.{key}.nwrong") > 0
    return values, time_key, unusable, wrong


class _JsonRows:
    """The results read from the ``results`` list, column by column, with those skipped or flagged."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.counts: list[int] = []
        self.dtypes: list[str] = []
        self.redops: list[str] = []
        self.placements: dict[str, list[tuple[float, float, float]]] = {key: [] for key in _PLACEMENTS}
        self.cputime = False
        self.wrong_rows: list[int] = []  # indices into results of those reporting wrong elements
        self.skipped: list[tuple[str, str]] = []  # (where, why): NaN, infinite or zero-time results
        self.kept: list[int] = []  # indices into results of the rows read
        self.skipped_sweep: list[tuple[int, str, str]] = []  # (size, type, redop) of the results skipped

    def read(self, i: int, row: object) -> None:
        """Read ``results[i]``: keep it, or skip it when a value cannot be used; raise if it is malformed."""
        where = f"results[{i}]"
        if not isinstance(row, dict):
            raise NcclLogError(f"{where} is not an object")
        if "size" not in row:
            raise NcclLogError(f"{where} has no 'size'")
        size = _json_int(row["size"], f"{where}.size")
        count = _json_int(row["count"], f"{where}.count") if row.get("count") is not None else -1
        row_values: dict[str, tuple[float, float, float]] = {}
        unusable = ""
        wrong = False
        for key in _PLACEMENTS:
            part = row.get(key)
            if part is None:  # writeBenchMarkLineNullBody: this placement was not run
                row_values[key] = (math.nan, math.nan, math.nan)
                continue
            row_values[key], time_key, problem, part_wrong = _read_placement(part, where, key)
            self.cputime |= time_key == "cpu_time"
            unusable = unusable or problem
            wrong |= part_wrong
        if all(row.get(key) is None for key in _PLACEMENTS):
            raise NcclLogError(f"{where} has neither 'out_of_place' nor 'in_place' results")
        if unusable:
            self.skipped.append((where, unusable))
            self.skipped_sweep.append((size, _json_label(row.get("type", "")), _json_label(row.get("redop", "none"))))
            return
        if wrong:
            self.wrong_rows.append(i)
        self.kept.append(i)
        self.sizes.append(size)
        self.counts.append(count)
        self.dtypes.append(_json_label(row.get("type", "")))
        self.redops.append(_json_label(row.get("redop", "none")))
        for key, values in row_values.items():
            self.placements[key].append(values)

    def keep_only(self, keep: np.ndarray) -> None:
        """Drop the results where ``keep`` is false; they count as reached for the sweep check."""
        rows = zip(self.sizes, self.dtypes, self.redops, strict=True)
        self.skipped_sweep += [row for row, k in zip(rows, keep, strict=True) if not k]
        self.sizes, self.counts, self.dtypes, self.redops, self.kept = (
            [value for value, k in zip(column, keep, strict=True) if k]
            for column in (self.sizes, self.counts, self.dtypes, self.redops, self.kept)
        )


def _json_collective(document: dict) -> str | None:
    """Return the collective named by ``collective``, else the program in ``args[0]``, else None."""
    if isinstance(document.get("collective"), str) and document["collective"].strip():
        return document["collective"].strip()[:_NAME_CHARS]
    args = document.get("args")
    if isinstance(args, list) and args and isinstance(args[0], str) and args[0].strip():
        return re.split(r"[\\/]", args[0].strip())[-1][:_NAME_CHARS]
    return None


def _json_devices(document: dict, config: dict) -> tuple[list[str], list[str], int | None, int | None]:
    """Return GPU and host names (one per process), the ranks they list, and nThread x nGpus from ``config``.

    nccl-tests' JSON keeps only the first "# Rank" line of each process (parseRankInfo reads one line
    of the per-process buffer), so ``devices`` has one entry per process, each driving nThread*nGpus ranks.
    """
    devices = document.get("devices", config.get("devices"))
    devices = [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []
    if len(devices) > MAX_LINES:
        raise NcclLogError(f"the JSON lists {len(devices):,} devices, more than any nccl-tests run has processes")
    gpu_names = [_json_label(d.get("device_info", ""), _NAME_CHARS) for d in devices]
    hostnames = [_json_label(d.get("hostname", ""), _NAME_CHARS) for d in devices]
    per_process = 1
    nthreads, ngpus = config.get("nthreads"), config.get("ngpus")
    header_ranks = None
    if isinstance(nthreads, int) and isinstance(ngpus, int) and 0 < nthreads <= _INT32_MAX and 0 < ngpus <= _INT32_MAX:
        per_process = header_ranks = nthreads * ngpus
    listed_ranks = len(devices) * per_process if devices else None
    return gpu_names, hostnames, listed_ranks, header_ranks


def _json_footer(document: dict, warnings: list[str]) -> float | None:
    """Read ``out_of_bounds`` and ``average_bus_bandwidth``: warn about failures, return the average busbw."""
    out_of_bounds = document.get("out_of_bounds")
    if isinstance(out_of_bounds, dict):
        count = out_of_bounds.get("count")
        if isinstance(count, int | float) and not isinstance(count, bool) and count > 0:
            shown = f"{count:g}" if isinstance(count, float) else _show(count) if count > _INT64_MAX else f"{count:,}"
            warnings.append(f"nccl-tests reported {shown} out-of-bounds values: some results failed validation")
    avg_busbw_gbps = None
    average = document.get("average_bus_bandwidth")
    if isinstance(average, dict) and average.get("bandwidth") is not None:
        value = _json_float(average.get("bandwidth"), "average_bus_bandwidth.bandwidth")
        avg_busbw_gbps = value if math.isfinite(value) else None
        if average.get("okay") in (False, "false"):
            warnings.append("nccl-tests marked the average bus bandwidth as failing its NCCL_TESTS_MIN_BW check")
    return avg_busbw_gbps


def _rows_warnings(rows: _JsonRows, out: np.ndarray, warnings: list[str]) -> None:
    """Warn about an in-place-only table, results skipped, and results reporting wrong elements."""
    if np.isnan(out[:, 0]).all():
        warnings.append("the table has in-place results only; the out-of-place arrays are NaN")
    if rows.skipped:
        warnings.append(_skipped_rows_warning(rows.skipped))
    if rows.wrong_rows:
        warnings.append(
            f"{len(rows.wrong_rows)} results report wrong elements (nwrong > 0), first results[{rows.wrong_rows[0]}]: "
            "those results failed nccl-tests' validation"
        )


def _parse_json(text: str) -> NcclRun:
    """Read an nccl-tests ``-J`` file into a run, with the same checks as a text log."""
    document = _load_json(text)
    results = _results_list(document)
    warnings: list[str] = []
    version = document.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > _JSON_FILE_VERSION_KNOWN:
        warnings.append(
            f"JSON file version {version if version <= _INT64_MAX else _show(version)} is newer than version "
            f"{_JSON_FILE_VERSION_KNOWN} this reader was written for"
        )
    config = document.get("config")
    config = config if isinstance(config, dict) else {}
    rows = _JsonRows()
    for i, row in enumerate(results):
        rows.read(i, row)
    if not rows.sizes:
        where, why = rows.skipped[0]
        raise NcclLogError(f"no usable results: {where}.{why}{_and_the_others(len(rows.skipped) - 1, 'results')}")
    out = np.array(rows.placements["out_of_place"], dtype=np.float64).reshape(-1, 3)
    inp = np.array(rows.placements["in_place"], dtype=np.float64).reshape(-1, 3)
    _rows_warnings(rows, out, warnings)
    collective = _json_collective(document)
    gpu_names, hostnames, listed_ranks, header_ranks = _json_devices(document, config)
    avg_busbw_gbps = _json_footer(document, warnings)
    keep = _impossible_rows(collective, np.array(rows.sizes, dtype=np.int64), out, inp, rows.cputime,
                            [f"results[{i}]" for i in rows.kept], warnings)
    if not keep.all():
        out, inp = out[keep], inp[keep]
        rows.keep_only(keep)
    sizes = np.array(rows.sizes, dtype=np.int64)
    algbw = np.where(np.isnan(out[:, 1]), inp[:, 1], out[:, 1])
    busbw = np.where(np.isnan(out[:, 2]), inp[:, 2], out[:, 2])
    ranks, ranks_source = _decide_ranks(
        collective, algbw, busbw, listed_ranks, "JSON devices", "json devices", header_ranks, 5e-7, warnings
    )
    sweep = _json_sweep(config)
    if sweep is not None:
        _check_complete(sweep, rows.sizes, rows.dtypes, rows.redops, rows.skipped_sweep, ranks, warnings)
    if not rows.cputime:
        _check_algbw(collective, sizes, out, inp, [f"results[{i}]" for i in rows.kept], warnings)
    run = _build_run(
        collective=collective,
        ranks=ranks,
        ranks_source=ranks_source,
        sizes=sizes,
        counts=np.array(rows.counts, dtype=np.int64),
        dtypes=rows.dtypes,
        redops=rows.redops,
        out=out,
        inp=inp,
        time_is_cputime=rows.cputime,
        avg_busbw_gbps=avg_busbw_gbps,
        gpu_names=gpu_names,
        hostnames=hostnames,
        warnings=warnings,
        fmt="json",
    )
    return run if header_ranks is None else dataclasses.replace(run, gpus_per_process=header_ranks)
