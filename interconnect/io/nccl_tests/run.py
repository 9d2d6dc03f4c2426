"""What the log reader returns: :class:`NcclRun`, its error :class:`NcclLogError`, and the limits it reads within."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interconnect.units import InterconnectError

MAX_LOG_BYTES = 5 * 1024 * 1024
"""Largest log accepted by default, in bytes (5 MiB). A 25-size sweep of all_reduce_perf is about 5 kB."""

MAX_LINE_CHARS = 4096
"""Longest text line read, in characters. nccl-tests' own lines are short (the longest in the sample
logs of the tests is 166 characters); NCCL INFO/WARN messages, which can be much longer (a ring on
thousands of ranks lists every rank), are removed before this check. A longer line is skipped with a
warning that names it, or refused as damage when it starts like nccl-tests output (``#`` or a
number). The cap keeps every later step working on short strings."""

MAX_LINES = 100_000
"""Most text lines read. A 5 MiB log of nccl-tests output with NCCL_DEBUG=INFO messages (about 90
characters each) has about 60,000; millions of short lines would cost seconds to read."""

MAX_ROWS = 20_000
"""Most data rows read. nccl-tests prints one row per size, data type, reduction and root: -d all
-o all over 30 sizes is 1,500 rows; a fine -i sweep from 1 MiB to 16 GiB in 1 MiB steps, 16,384."""

_MAX_UNRECOGNISED = 10_000  # lines that are not nccl-tests output, before the log is refused
# Lines, and launcher prefixes taken off lines, examined one by one (blank lines and NCCL messages are
# cheaper and not counted). With every line prefixed by a launcher, a run on 16,000 GPUs prints about
# 70,000 (Rank lines, NCCL version lines, rows); each costs a few microseconds.
_MAX_EXAMINED = 100_000

_EXAMPLE_ROW = "  1048576  262144  float  sum  -1  ..."
_BINARY_MESSAGE = "this looks like a binary file, not nccl-tests output"
_MAX_WARNINGS_LISTED = 5


class NcclLogError(InterconnectError, ValueError):
    """The input cannot be read as nccl-tests output.

    Attributes
    ----------
    line_number : int or None
        1-based line of the text input the problem was found on, or None when it concerns the
        whole input (size, encoding, JSON structure).
    reason : str
        What is wrong, in words a user can act on.

    ``str(error)`` is ``"line 17: expected 13 columns ..."`` or just the reason.
    """

    def __init__(self, reason: str, line_number: int | None = None) -> None:
        super().__init__(reason, line_number)
        self.reason = reason
        self.line_number = line_number

    def __str__(self) -> str:
        if self.line_number is None:
            return self.reason
        return f"line {self.line_number}: {self.reason}"


@dataclass(frozen=True, eq=False)
class NcclRun:
    """One nccl-tests result table.

    Arrays hold one element per data row, in the order of the input, and are read-only. ``eq=False``
    because dataclass equality would compare numpy arrays with ``==`` (ambiguous truth value);
    compare fields with ``np.array_equal`` instead.

    Attributes
    ----------
    collective : str or None
        Program or collective name as the input gives it (``"all_reduce_perf"``), or None.
    ranks : int or None
        Number of ranks (GPUs) in the communicator.
    ranks_source : str
        ``"rank lines"``, ``"json devices"``, ``"nthread*ngpus header"``,
        ``"inferred from busbw/algbw"`` or ``"unknown"``.
    size_bytes, count_elements : numpy.ndarray of int64
        The ``size`` (B) and ``count`` (elements) columns; ``count_elements`` is -1 where absent.
    dtype, redop : list of str
        ``type`` and ``redop`` columns; ``redop`` is ``"none"`` where the layout has no such column.
    time_us, algbw_gbps, busbw_gbps : numpy.ndarray of float64
        Out-of-place time (µs; CPU time under ``-C 1``), algorithm and bus bandwidth (GB/s).
        NaN where the table has in-place results only.
    inplace_time_us, inplace_algbw_gbps, inplace_busbw_gbps : numpy.ndarray of float64
        The same for in-place; NaN where absent.
    time_is_cputime : bool
        True when the time columns are ``cputime`` (``-C 1``).
    avg_busbw_gbps : float or None
        nccl-tests' own ``# Avg bus bandwidth`` (mean busbw over both placements), if printed.
    gpu_names, hostnames : list of str
        From the ``# Rank`` lines, one entry per rank in rank order. From JSON, one entry per
        process: nccl-tests records only the first GPU of each process there.
    warnings : list of str
        Non-fatal oddities, each a complete sentence.
    format : str
        ``"text"`` or ``"json"``.
    gpus_per_process : int or None
        GPUs one process drives, nThread x nGpus from the header (1: one process per GPU, under MPI or
        Slurm; 8: ``-g 8``, one process drives all eight); None when the header does not say.
    """

    collective: str | None
    ranks: int | None
    ranks_source: str
    size_bytes: np.ndarray
    count_elements: np.ndarray
    dtype: list[str]
    redop: list[str]
    time_us: np.ndarray
    algbw_gbps: np.ndarray
    busbw_gbps: np.ndarray
    inplace_time_us: np.ndarray
    inplace_algbw_gbps: np.ndarray
    inplace_busbw_gbps: np.ndarray
    time_is_cputime: bool
    avg_busbw_gbps: float | None
    gpu_names: list[str]
    hostnames: list[str]
    warnings: list[str]
    format: str
    gpus_per_process: int | None = None
