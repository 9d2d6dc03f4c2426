"""Several runs in one file: a sweep over node counts, or two collectives pasted one after the other.

The text reader stops where a second result table starts (a new column header, or a second
"Collective test starting" line). :func:`split_runs` cuts the log there, after the first table's
footer (``# Out of bounds values``, ``# Avg bus bandwidth``), and reads each part on its own, so
each run keeps its own header: its rank lines, its ``nThread``/``nGpus`` line and its collective.
Lines of the other parts are blanked rather than removed, so every message keeps the line number
of the whole file.
"""

from __future__ import annotations

from interconnect.io.nccl_tests.run import NcclLogError, NcclRun
from interconnect.io.nccl_tests.text import _TextParser

#: Most runs read from one file; a sweep over node counts has a handful.
MAX_RUNS = 32

_FOOTER_STARTS = ("Out of bounds values", "Avg bus bandwidth", "Errors with asterisks")


def _is_footer(line: str) -> bool:
    text = line.strip()
    if not text:
        return True
    if "NCCL INFO" in text or "NCCL WARN" in text:
        return True
    body = text.lstrip("#").strip()
    return text.startswith("#") and (not body or body.startswith(_FOOTER_STARTS))


def _part(lines: list[str], start: int, stop: int) -> str:
    """Return lines ``start``..``stop`` (0-based, stop excluded) with every other line blanked."""
    return "\n" * start + "\n".join(lines[start:stop]) + "\n" * max(len(lines) - stop, 0)


def split_runs(text: str) -> list[NcclRun]:
    """Read every result table of a text log as a run of its own.

    Parameters
    ----------
    text : str
        The decoded log (see :func:`~interconnect.io.nccl_tests.parse_nccl_tests`).

    Returns
    -------
    list of NcclRun
        One run per result table, in the order of the file.

    Raises
    ------
    NcclLogError
        As for one table, for the first table that cannot be read (its message says which run, from
        the second on), or with more than :data:`MAX_RUNS` tables.
    """
    lines = text.split("\n")
    runs: list[NcclRun] = []
    start = 0
    while True:
        parser = _TextParser(_part(lines, start, len(lines)))
        try:
            parser.run()
            if not parser.stopped:
                runs.append(parser.result())
                return runs
        except NcclLogError as exc:
            if not runs:
                raise
            raise NcclLogError(f"run {len(runs) + 1} of the file (from line {start + 1}): {exc.reason}",
                               exc.line_number) from None
        stop = parser.rows.row_lines[-1]  # 1-based line of the table's last row = 0-based index after it
        while stop < len(lines) and _is_footer(lines[stop]):
            stop += 1
        if len(runs) + 1 >= MAX_RUNS:
            raise NcclLogError(f"the file holds more than {MAX_RUNS} result tables; paste the runs to compare "
                               "a few at a time")
        first = _TextParser(_part(lines, start, stop))
        first.run()
        runs.append(first.result())
        start = stop
