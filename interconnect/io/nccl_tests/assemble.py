"""Assembling the :class:`NcclRun` of a text log from what the reader kept, with the checks on the whole table.

The text reader (:mod:`.text`) leaves three records: the rows (:class:`~.rows._RowTable`), what
the ``#`` lines said (:class:`~.comments._RunNotes`) and the lines left out
(:class:`~.noise._SkippedLines`). :func:`_text_run` turns them into arrays, drops rows no
network can produce, decides the rank count, checks the sweep and algbw, and adds the warnings
about the table as a whole, in a fixed order.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from interconnect.io.nccl_tests.checks import (
    _and_the_others,
    _build_run,
    _check_algbw,
    _check_complete,
    _impossible_rows,
    _skipped_rows_warning,
)
from interconnect.io.nccl_tests.comments import _RunNotes
from interconnect.io.nccl_tests.noise import _SkippedLines
from interconnect.io.nccl_tests.ranks import _decide_ranks
from interconnect.io.nccl_tests.rows import _RowTable
from interconnect.io.nccl_tests.run import _EXAMPLE_ROW, NcclLogError, NcclRun


def _no_rows_error(rows: _RowTable, skipped: _SkippedLines, non_blank: int) -> NcclLogError:
    """Say why a log gave no usable row: every row was unusable, or none was found (and what was seen)."""
    if rows.skipped_rows:
        line_number, why = rows.skipped_rows[0]
        more = len(rows.skipped_rows) - 1
        return NcclLogError(f"no usable data rows: {why}{_and_the_others(more, 'data rows')}", line_number)
    return NcclLogError(f"no data rows found: expected lines like '{_EXAMPLE_ROW}'{skipped.no_rows_detail(non_blank)}")


def _truncated_row_warning(truncated_row: tuple[int, int, int], complete_rows: int) -> str:
    """Say that the log ends inside a row, given (line, columns found, columns expected)."""
    line_number, found, expected = truncated_row
    return (
        f"the log ends in the middle of a row (line {line_number}: {found} of {expected} columns), as a "
        f"copy that stopped early does; that row was left out and the {complete_rows:,} complete rows "
        "before it were read"
    )


def _add_closing_warnings(
    warnings: list[str], skipped: _SkippedLines, truncated_row: tuple[int, int, int] | None, complete_rows: int
) -> None:
    """Add the warnings about lines left out; one about a row cut off by the end of the log goes first."""
    warnings += skipped.warnings()
    if truncated_row is not None:
        warnings.insert(0, _truncated_row_warning(truncated_row, complete_rows))
    nccl_warn_summary = skipped.nccl_warn_summary()
    if nccl_warn_summary is not None:
        warnings.append(nccl_warn_summary)


def _text_run(
    rows: _RowTable,
    notes: _RunNotes,
    skipped: _SkippedLines,
    *,
    cputime: bool,
    truncated_row: tuple[int, int, int] | None,
    non_blank: int,
    warnings: list[str],
) -> NcclRun:
    """Build the run from the reader's records; ``warnings`` already holds those given line by line.

    Raises :class:`NcclLogError` when there is no usable row; ``rows`` loses the rows dropped as impossible.
    """
    if not rows.sizes:
        raise _no_rows_error(rows, skipped, non_blank)
    out = np.array(rows.out_values, dtype=np.float64).reshape(-1, 3)
    inp = np.array(rows.in_values, dtype=np.float64).reshape(-1, 3)
    if np.isnan(out[:, 0]).all() and not np.isnan(inp[:, 0]).all():
        warnings.append("the table has in-place results only; the out-of-place arrays are NaN")
    collective = notes.collective or notes.collective_from_command
    keep = _impossible_rows(collective, np.array(rows.sizes, dtype=np.int64), out, inp, cputime,
                            [f"line {n}" for n in rows.row_lines], warnings)
    if not keep.all():
        out, inp = out[keep], inp[keep]
        rows.keep_only(keep)
    if rows.wrong_rows:
        warnings.append(
            f"{len(rows.wrong_rows)} rows report wrong elements (#wrong > 0), first at line {rows.wrong_rows[0]}: "
            "those results failed nccl-tests' validation"
        )
    listed_ranks, gpu_names, hostnames = notes.devices()
    sizes = np.array(rows.sizes, dtype=np.int64)
    algbw = np.where(np.isnan(out[:, 1]), inp[:, 1], out[:, 1])
    busbw = np.where(np.isnan(out[:, 2]), inp[:, 2], out[:, 2])
    ranks, ranks_source = _decide_ranks(
        collective, algbw, busbw, listed_ranks, "Rank lines", "rank lines", notes.header_ranks, None, warnings
    )
    if rows.skipped_rows:
        warnings.append(_skipped_rows_warning([(f"line {n}", why) for n, why in rows.skipped_rows]))
    if notes.sweep is not None:
        _check_complete(notes.sweep, rows.sizes, rows.dtypes, rows.redops, rows.skipped_sweep, ranks, warnings)
    if not cputime:
        _check_algbw(collective, sizes, out, inp, [f"line {n}" for n in rows.row_lines], warnings)
    _add_closing_warnings(warnings, skipped, truncated_row, len(rows.sizes))
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
        time_is_cputime=cputime,
        avg_busbw_gbps=notes.avg_busbw_gbps,
        gpu_names=gpu_names,
        hostnames=hostnames,
        warnings=warnings,
        fmt="text",
    )
    return run if notes.header_ranks is None else dataclasses.replace(run, gpus_per_process=notes.header_ranks)
