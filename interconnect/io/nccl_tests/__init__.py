"""Read the output of NVIDIA nccl-tests and AMD rccl-tests into arrays.

This is the ingest step of "paste your nccl-tests output": :func:`parse_nccl_tests` accepts what a
user pastes or uploads and returns one :class:`NcclRun` with one array element per data row
(message size, time, algbw, busbw for out-of-place and in-place), the rank count and where it came
from, and plain-language warnings about anything odd. Every failure is a :class:`NcclLogError`
that names the line and the reason. No Streamlit here: pages call this and render the result.

Formats read (checked against ``NVIDIA/nccl-tests`` ``src/util.cu``, ``src/common.cu`` and their
history, and ``ROCm/rccl-tests`` ``src/common.cu``):

* stdout of ``all_reduce_perf`` and friends, any version since 2017: with or without the ``#``
  preamble and column header; ``-C 1`` (``cputime``), ``-S 1`` (a trailing ``YYYY-mm-dd HH:MM:SS``
  timestamp), ``-I 1`` (per-iteration ``i_min i_max i_p99 i_cv%`` columns), ``-c 0`` (``N/A``),
  the 2019-2022 ``error`` column (a float such as ``2e-07``), rows without ``redop``/``root``
  (old ``all_gather``, ``broadcast``), the 2017 layout (``bytes N type op``, time in ms),
  rccl-tests' in-place-only table, numbers in scientific notation (``getFloatStr`` switches to
  ``%.1e`` when a value outgrows its column), underscores or commas in hand-edited sizes;
* noise around it: ``NCCL INFO`` / ``NCCL WARN`` lines, even when they split a data row in two,
  launcher prefixes (OpenMPI ``--tag-output``/``--timestamp-output``, ``srun --label``, pdsh,
  ``kubectl logs --timestamps``), Markdown table pipes, ANSI colour codes, CRLF, tabs, UTF-16
  (PowerShell ``>``);
* the JSON file written by ``-J`` (``JSON_FILE_VERSION`` 3, added to nccl-tests in October 2025).

The package holds one module per concern, each importing only those listed before it:
:mod:`.run` (:class:`NcclRun`, its error and the limits), :mod:`.decode` (bytes to text, tokens
to numbers), :mod:`.layouts` (the column layouts, patterns and records of the text output);
for text, :mod:`.noise` (NCCL messages, launcher prefixes, long lines), :mod:`.header` (the
table's layout from its header or a row's shape), :mod:`.rows` (reading one data row),
:mod:`.ranks` (busbw factors and the rank count), :mod:`.comments` (preamble and footer lines),
:mod:`.checks` (row checks shared with JSON), :mod:`.assemble` (the run from what was read),
:mod:`.text` (the line loop) and :mod:`.runs` (several result tables in one file); for the
``-J`` file, :mod:`.json_values` (loading it, single values) and :mod:`.json_file` (its structure).

Units: sizes in bytes, times in microseconds, bandwidths in GB/s = 1e9 B/s, exactly as nccl-tests
prints them (``doc/PERFORMANCE.md``: ``algbw = S/t``).
"""

from __future__ import annotations

from interconnect.io.nccl_tests.checks import MAX_ROW_RATE_GBPS, MAX_ROW_TIME_US, MIN_ROW_TIME_US
from interconnect.io.nccl_tests.decode import _decode, read_capped
from interconnect.io.nccl_tests.json_file import _parse_json
from interconnect.io.nccl_tests.ranks import busbw_factor, infer_ranks
from interconnect.io.nccl_tests.run import MAX_LINE_CHARS, MAX_LINES, MAX_LOG_BYTES, MAX_ROWS, NcclLogError, NcclRun
from interconnect.io.nccl_tests.runs import MAX_RUNS, split_runs
from interconnect.io.nccl_tests.text import _TextParser
from interconnect.units import expects

__all__ = [
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "MAX_LOG_BYTES",
    "MAX_ROWS",
    "MAX_ROW_RATE_GBPS",
    "MAX_ROW_TIME_US",
    "MIN_ROW_TIME_US",
    "NcclLogError",
    "MAX_RUNS",
    "NcclRun",
    "busbw_factor",
    "infer_ranks",
    "parse_nccl_runs",
    "parse_nccl_tests",
    "read_capped",
]

# The public classes keep the name they had before the reader became a package (messages, pickles).
NcclLogError.__module__ = NcclRun.__module__ = __name__


@expects(max_bytes="B")
def parse_nccl_tests(data: str | bytes, *, max_bytes: int = MAX_LOG_BYTES) -> NcclRun:
    r"""Parse nccl-tests / rccl-tests stdout, or an nccl-tests ``-J`` JSON file.

    Parameters
    ----------
    data : str or bytes
        The whole log. Bytes must be UTF-8 (or UTF-16 with a byte-order mark).
    max_bytes : int
        Reject larger inputs, B (default :data:`MAX_LOG_BYTES`, 5 MiB; a data-size Quantity works too).

    Returns
    -------
    NcclRun
        The first result table in the input: sizes in B, times in µs, algbw and busbw in GB/s
        (1 GB = 1e9 B, as nccl-tests prints them), with warnings about anything odd.

    Raises
    ------
    NcclLogError
        Too large (over ``max_bytes``, :data:`MAX_LINES` lines or :data:`MAX_ROWS` data rows, or
        too many lines that are not nccl-tests output), binary, no usable data rows, or a line that
        cannot be read (with its line number). Nothing else, whatever the input: rows with NaN,
        infinite or zero-time values are skipped with a warning, and every step takes time linear
        in the input, within the caps.

    Notes
    -----
    The columns are checked against their definitions (``nccl-tests-performance``):

    .. math:: \mathrm{algbw} = \frac{S}{t}, \qquad \mathrm{busbw} = \mathrm{algbw} \cdot F(n)

    with :math:`F` from :func:`busbw_factor`; the rank count comes from the ``# Rank`` lines, the
    header, or :func:`infer_ranks`.

    Examples
    --------
    >>> from interconnect.units import Q_
    >>> run = parse_nccl_tests("  1048576  262144  float  sum  -1  8.52  123.07  215.37  0  8.41  124.68  218.19  0")
    >>> run.size_bytes.tolist(), run.time_us.tolist(), run.ranks, run.ranks_source
    ([1048576], [8.52], 8, 'inferred from busbw/algbw')
    >>> f"{run.algbw_gbps[0]} GB/s = {run.size_bytes[0] / (run.time_us[0] * 1e-6) / 1e9:.2f} GB/s"
    '123.07 GB/s = 123.07 GB/s'
    >>> parse_nccl_tests("x" * 6000, max_bytes=Q_(4, "KiB"))
    Traceback (most recent call last):
    ...
    interconnect.io.nccl_tests.NcclLogError: the log is 5.9 KiB; the limit is 4 KiB
    """
    text = _decode(data, max_bytes)
    if text.lstrip()[:1] == "{":
        return _parse_json(text)
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        raise NcclLogError(
            f"the log has {lines:,} lines; nccl-tests output, even with NCCL_DEBUG=INFO messages, has far fewer "
            f"(this reader stops at {MAX_LINES:,}): paste the part with the results table"
        )
    parser = _TextParser(text)
    parser.run()
    return parser.result()


@expects(max_bytes="B")
def parse_nccl_runs(data: str | bytes, *, max_bytes: int = MAX_LOG_BYTES) -> list[NcclRun]:
    r"""Parse every result table of a log, each as a run of its own with its own header.

    Parameters
    ----------
    data : str or bytes
        The whole log, as for :func:`parse_nccl_tests`.
    max_bytes : int
        Reject larger inputs, B (default :data:`MAX_LOG_BYTES`).

    Returns
    -------
    list of NcclRun
        One run per table in the order of the file (one for a JSON file): a sweep over node counts,
        or several collectives pasted together, come back as separate runs.

    Raises
    ------
    NcclLogError
        As :func:`parse_nccl_tests`, naming the run from the second on, or with more than
        :data:`MAX_RUNS` tables.

    Notes
    -----
    :func:`parse_nccl_tests` reads the first table and warns about the others; this reads them all
    (:func:`~interconnect.io.nccl_tests.runs.split_runs`), with the same checks per table.

    Examples
    --------
    >>> row = "1048576 262144 float sum -1 8.52 123.07 215.37 0 8.41 124.68 218.19 0"
    >>> header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong"
    >>> runs = parse_nccl_runs(chr(10).join([header, row, header, row.replace("8.52", "9.10")]))
    >>> [run.time_us.tolist() for run in runs]
    [[8.52], [9.1]]
    """
    text = _decode(data, max_bytes)
    if text.lstrip()[:1] == "{":
        return [_parse_json(text)]
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        return [parse_nccl_tests(text, max_bytes=max_bytes)]  # raises the same message
    return split_runs(text)
