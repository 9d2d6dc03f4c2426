"""The ``#`` lines around nccl-tests' table: what the preamble and the footer say about the run.

The preamble names the test (``# Collective test starting: all_reduce_perf``), the processes and
the size sweep (``# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) ...``) and
each rank's host and GPU (``#  Rank  0 Group  0 Pid 1234 on dgx-a07 device  0 [0x1b] NVIDIA
H100``); the footer gives the average bus bandwidth, the out-of-bounds count and any error
nccl-tests printed. :class:`_RunNotes` reads each of those lines (the text reader decides which
kind a line is) and keeps what it says; the column header and the title line above it are
:mod:`.header`'s.
"""

from __future__ import annotations

import dataclasses
import math
import re

from interconnect.io.nccl_tests.decode import _INT32_MAX, _INT64_MAX, _NAME_CHARS, _SHOWN_CHARS, _bounded_int, _show
from interconnect.io.nccl_tests.layouts import (
    _AVG_BUSBW_RE,
    _NCCL_WARN_CHARS,
    _NTHREAD_RE,
    _OUT_OF_BOUNDS_RE,
    _PERF_PROGRAM_RE,
    _RANK_LOOSE_RE,
    _RANK_RE,
    _Sweep,
)
from interconnect.io.nccl_tests.ranks import _collective_key
from interconnect.io.nccl_tests.run import NcclLogError


class _RunNotes:
    """What the preamble and footer lines said: collective, ranks and their devices, sweep, average busbw.

    Warnings (a FAILED average, out-of-bounds values, an error line) go to the reader's list,
    shared so that warnings keep the order of the lines.
    """

    def __init__(self, warnings: list[str]) -> None:
        self.warnings = warnings
        self.collective: str | None = None  # from "# Collective test starting:"
        self.collective_from_command: str | None = None  # from an echoed command line, for older versions
        self.nthread_ngpus: tuple[int, int] | None = None
        self.sweep: _Sweep | None = None
        self.rank_info: dict[int, tuple[str, str]] = {}  # rank -> (host, GPU), the first line of each rank
        self.rank_zero_lines = 0
        self.avg_busbw_gbps: float | None = None

    @property
    def header_ranks(self) -> int | None:
        """Ranks the ``nThread``/``nGpus`` line gives (nThread x nGpus per process), or None without one."""
        return self.nthread_ngpus[0] * self.nthread_ngpus[1] if self.nthread_ngpus else None

    def devices(self) -> tuple[int | None, list[str], list[str]]:
        """Return the ranks the rank lines list (highest + 1, or None), and GPU and host names in rank order.

        Warns about ``Rank 0`` listed more than once (independent single-process copies) and about
        gaps in the ranks listed.
        """
        if self.rank_zero_lines > 1:
            self.warnings.append(
                f"'Rank 0' is listed {self.rank_zero_lines} times: the launcher may have started independent "
                "single-process copies (nccl-tests built without MPI=1?), each with its own communicator"
            )
        if not self.rank_info:
            return None, [], []
        listed_ranks = max(self.rank_info) + 1
        if len(self.rank_info) != listed_ranks:
            self.warnings.append(
                f"Rank lines list {len(self.rank_info)} ranks but the highest is {listed_ranks - 1}; "
                "the device list may be truncated"
            )
        in_order = [self.rank_info[rank] for rank in sorted(self.rank_info)]
        return listed_ranks, [gpu for _, gpu in in_order], [host for host, _ in in_order]

    def rank_line(self, body: str, line_number: int) -> None:
        """Read ``Rank N [Group G] [Pid P] on HOST device D [bus] GPU name`` (or just ``Rank N``)."""
        match = _RANK_RE.match(body)
        if match:
            digits, host, gpu = match.group("rank"), match.group("host"), match.group("gpu")
        else:
            loose = _RANK_LOOSE_RE.match(body)
            if loose is None:
                return
            digits, host, gpu = loose.group(1), "", ""
        rank = _bounded_int(digits, _INT32_MAX)
        if rank is None:
            raise NcclLogError(
                f"Rank {_show(digits)} is not a rank number nccl-tests can print (it prints ranks with %d, "
                f"at most {_INT32_MAX:,})",
                line_number,
            )
        if rank == 0:
            self.rank_zero_lines += 1
        gpu = gpu.rstrip(". ") if gpu.endswith("...") else gpu
        self.rank_info.setdefault(rank, (host[:_NAME_CHARS], gpu[:_NAME_CHARS]))

    def nthread_line(self, body: str, line_number: int) -> None:
        """Read the first ``nThread T nGpus G [minBytes .. maxBytes .. step: S(factor|bytes)]`` line."""
        match = _NTHREAD_RE.match(body)
        if match is None or self.nthread_ngpus is not None:
            return
        nthread, ngpus = _bounded_int(match.group(1), _INT32_MAX), _bounded_int(match.group(2), _INT32_MAX)
        if nthread is None or ngpus is None:
            bad = match.group(1) if nthread is None else match.group(2)
            name = "nThread" if nthread is None else "nGpus"
            raise NcclLogError(
                f"{name} {_show(bad)} is not a count nccl-tests can print (it prints it with %d, "
                f"at most {_INT32_MAX:,})",
                line_number,
            )
        self.nthread_ngpus = (nthread, ngpus)
        if match.group(3) is None:
            return
        min_bytes, max_bytes = _bounded_int(match.group(3), _INT64_MAX), _bounded_int(match.group(4), _INT64_MAX)
        step = _bounded_int(match.group(5), _INT64_MAX) if match.group(5) else None
        if min_bytes is not None and max_bytes is not None:
            self.sweep = _Sweep(min_bytes, max_bytes, step, match.group(6), f"the header (line {line_number})")

    def test_name(self, name: str) -> None:
        """Keep the program named by ``Collective test starting: NAME`` (without its directory)."""
        if name:
            self.collective = re.split(r"[\\/]", name)[-1][:_NAME_CHARS]

    def command_line(self, text: str) -> bool:
        """Say whether a line not otherwise recognised is the echoed command (``.../all_reduce_perf -b 8 ...``).

        The first such line names the collective for versions without a ``Collective test starting`` line.
        """
        program = _PERF_PROGRAM_RE.search(text)
        if program is None or _collective_key(program.group(1)) is None:
            return False
        if self.collective_from_command is None:
            self.collective_from_command = program.group(1)
        return True

    def reduced_max_bytes(self, body: str) -> None:
        """Read ``Reducing maxBytes to N`` (src/common.cu, when the GPUs lack memory for ``-e``) into the sweep."""
        reduced = _bounded_int(body.split()[3], _INT64_MAX) if body.split()[3:4] else None
        if self.sweep is not None and reduced is not None and reduced < self.sweep.max_bytes:
            self.sweep = dataclasses.replace(
                self.sweep, min_bytes=min(self.sweep.min_bytes, reduced), max_bytes=reduced
            )

    def avg_busbw(self, body: str, line_number: int) -> None:
        """Read ``Avg bus bandwidth : V [FAILED]``: the first finite value is kept; FAILED is warned about."""
        match = _AVG_BUSBW_RE.match(body)
        if match is None:
            return
        try:
            value = float(match.group(1))
        except ValueError:
            self.warnings.append(f"line {line_number}: average bus bandwidth {_show(match.group(1))} is not a number")
            return
        if self.avg_busbw_gbps is None:
            self.avg_busbw_gbps = value if math.isfinite(value) else None
        if match.group(2) == "FAILED":
            self.warnings.append(
                f"nccl-tests marked the average bus bandwidth FAILED (line {line_number}): "
                "it is below the NCCL_TESTS_MIN_BW threshold set for the run"
            )

    def out_of_bounds(self, body: str, line_number: int) -> None:
        """Warn about a non-zero ``Out of bounds values : N`` count."""
        match = _OUT_OF_BOUNDS_RE.match(body)
        count = match.group(1).lstrip("0") if match else ""
        if count:  # kept as text: the count is only quoted, and may be too long for int()
            self.warnings.append(
                f"nccl-tests reported {count[:_SHOWN_CHARS]} out-of-bounds values (line {line_number}): "
                "some results failed validation"
            )

    def error_line(self, body: str, line_number: int) -> None:
        """Quote an ``error: ...`` line nccl-tests printed, cut to ``_NCCL_WARN_CHARS``."""
        detail = body[6:].strip()
        if len(detail) > _NCCL_WARN_CHARS:
            detail = detail[:_NCCL_WARN_CHARS] + "..."
        self.warnings.append(f"nccl-tests printed an error (line {line_number}): {detail}")
