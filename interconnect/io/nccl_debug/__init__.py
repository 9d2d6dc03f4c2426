"""Read the ``NCCL_DEBUG=INFO`` output of a job (NVIDIA NCCL 2.4 to 2.28, AMD RCCL 2.x) into a :class:`DebugLog`.

This is the reading half of "Explain my run": :func:`read_nccl_debug` takes what a user uploads, pastes or
pipes in (one rank's output or all ranks', with or without launcher prefixes, any noise around it, bytes that
are not UTF-8, several runs one after the other) and returns what the log says: the NCCL or RCCL version, the
ranks, hosts and GPUs per node where they can be told, each kind of connection and its transport with GPUDirect
RDMA on or off, the NICs listed and those connections use (and by which ranks), ring, tree and channel counts,
NVLS, tuning lines, and the collectives of the COLL trace; per host, its own NIC list and connection lines;
each rank's ``Init timings``; and the NCCL Inspector plugin's JSON records (busbw per rank, collective, size).
Every finding carries the line number it rests on.
Judging what it means is the Explain topic's model; no Streamlit here.

The package holds one module per concern, each importing only those before it: :mod:`.limits` (caps and the
error), :mod:`.decode` (bytes or a stream to numbered lines), :mod:`.prefix` (launcher and NCCL prefixes),
:mod:`.messages` (one message at a time), :mod:`.result` (the records) and :mod:`.collect` (the line loop);
:mod:`.forms` is data only: the line forms of NCCL's and RCCL's source by release, with an example of each.
The line formats are described in ``tests/data/nccl_debug_logs/FORMAT.md``.

Cost: one pass, each line cut at :data:`MAX_LINE_CHARS` and read with bounded string operations and anchored
patterns without nested repetition, so time is linear in the input and memory is bounded by the caps in
:mod:`.limits`, whatever the text; a file is read as a stream.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO

from interconnect.io.nccl_debug.collect import Collector
from interconnect.io.nccl_debug.decode import iter_lines
from interconnect.io.nccl_debug.limits import MAX_LINE_CHARS, MAX_LINES, NcclDebugError
from interconnect.io.nccl_debug.messages import DATATYPE_NAMES, OP_NAMES
from interconnect.io.nccl_debug.result import (
    At,
    CollectiveStat,
    DebugLog,
    HostLinks,
    HostStat,
    InitStat,
    InspectorStat,
    NicUse,
    PeerStat,
    Place,
    TransportStat,
)

__all__ = [
    "DATATYPE_NAMES",
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "OP_NAMES",
    "At",
    "CollectiveStat",
    "DebugLog",
    "HostLinks",
    "HostStat",
    "InitStat",
    "InspectorStat",
    "NcclDebugError",
    "NicUse",
    "PeerStat",
    "Place",
    "TransportStat",
    "read_nccl_debug",
    "tests_runs",
]

NOT_A_LOG = ("this is not NCCL_DEBUG=INFO output: none of its {lines:,} lines is a NCCL message "
             "(run the job with NCCL_DEBUG=INFO and give its output, one rank's or all ranks')")


def read_nccl_debug(source: str | bytes | IO | Iterable, *, max_lines: int = MAX_LINES) -> DebugLog:
    r"""Read a NCCL_DEBUG=INFO log.

    Parameters
    ----------
    source : str, bytes, a file opened in binary or text mode, or an iterable of str or bytes chunks
        The log. Bytes are decoded as UTF-8 (UTF-16 with a byte-order mark), undecodable bytes replaced.
    max_lines : int
        Stop after this many lines (reported in :attr:`DebugLog.stopped_at`).

    Returns
    -------
    DebugLog
        What the log says, each finding with its line number; lines that are not NCCL output are counted in
        ``skipped_count`` and their numbers listed (up to a cap) in ``skipped``.

    Raises
    ------
    NcclDebugError
        When no line of the text is a NCCL message: one message, whatever the input. Nothing else is raised
        for any text.

    Examples
    --------
    >>> log = read_nccl_debug("noise\n[1,0]<stdout>:NCCL version 2.4.2+cuda10.0\n"
    ...                       "gpu6:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n")
    >>> log.version, sorted(log.transports), log.skipped
    (At(value='2.4.2', line=2), ['NET/Socket'], [1])
    >>> try:
    ...     read_nccl_debug(b"\x00\x01binary")
    ... except NcclDebugError as error:
    ...     print(str(error)[:60])
    this is not NCCL_DEBUG=INFO output: none of its 1 lines is a
    """
    collector = Collector()
    for number, line, cut in iter_lines(source):
        if number > max_lines:
            collector.log.stopped_at = number
            break
        collector.add(number, line, cut)
    log = collector.log
    if log.nccl_lines == 0:
        raise NcclDebugError(NOT_A_LOG.format(lines=log.lines))
    return log


def tests_runs(log: DebugLog) -> list:
    """Read the nccl-tests result tables among the log's lines (sizes and times) with the nccl-tests reader.

    Returns an empty list when there are none or they cannot be read; their lines are ``log.table_lines``.
    """
    from interconnect.io.nccl_tests import NcclLogError, parse_nccl_runs

    rows = [text for _, text in log.table_lines]
    if not any(text.strip()[:1].isdigit() for text in rows):
        return []
    try:
        return parse_nccl_runs("\n".join(rows))
    except NcclLogError:
        return []
