"""The text layouts of nccl-tests output: known columns, launcher prefixes, noise, and where each field sits."""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from interconnect.io.nccl_tests.run import NcclLogError

# ---------------------------------------------------------------------------------------------
# Text format
# ---------------------------------------------------------------------------------------------

_KNOWN_DTYPES = frozenset(
    {
        "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
        "f8e4m3", "f8e5m2", "fp8_e4m3", "fp8_e5m2", "char", "int", "float16", "float32", "float64",
        "bf16", "fp16", "fp32", "fp64",
    }
)  # fmt: skip
_KNOWN_REDOPS = frozenset({"sum", "prod", "max", "min", "avg", "mulsum", "premulsum", "none"})

# Launcher prefixes, stripped (repeatedly) from lines that do not already look like output.
_STD_TAG_RE = re.compile(r"<std(?:out|err)>:")
_PREFIX_RE = re.compile(
    r"""^(?:
        \[\d+(?:,\d+)*\]:?                                      # OpenMPI --tag-output [1,0], or [0]
      | \d{4}-\d{2}-\d{2}[T\ ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?:?  # ISO timestamp
      | \[\d{4}-\d{2}-\d{2}[T\ ][^\]]*\]:?                      # [2024-07-18 10:00:00]
      | [A-Z][a-z]{2}\ [A-Z][a-z]{2}\ +\d{1,2}\ \d{2}:\d{2}:\d{2}\ \d{4}:?   # ctime (Thu Jul 18 ...)
      | \d{2}:\d{2}:\d{2}(?:[.,]\d+)?:?                          # bare clock (ts, annotate-output)
      | \d+:                                                    # srun --label
      | [A-Za-z][\w.\-]*:                                       # pdsh / clush "host:"
      | [A-Za-z][\w.\-]*\s+\|                                   # docker compose "worker-1  |"
      | \[[\w.\-]+(?:/[\w.\-]+)+\]                             # kubectl logs --prefix [pod/name/container]
    )(?:\s+|(?=\#))""",
    re.VERBOSE,
)
# NCCL's logger (src/debug.cc, ncclDebugLog) starts a message with "host:pid:tid [cudaDev] NCCL INFO " or
# "\nhost:pid:tid [cudaDev] file.cc:line NCCL WARN ". The parser finds the marker with str.find and matches
# this prefix backwards from it: the pattern is written reversed and run anchored (re.match) on the reversed
# text just before the marker, so it tries one start position and sees at most _NCCL_PREFIX_WINDOW characters.
# An unanchored search for the prefix was quadratic in the length of a long token before the marker.
_NCCL_PREFIX_WINDOW = 512  # hostnames are at most 253 characters (RFC 1035), pid/tid/device/file:line a few dozen
_NCCL_PREFIX_REVERSED_RE = re.compile(
    r"\s+(?:\d+:\S+\s+)?"  # " NCCL", then WARN's "file.cc:123 ", reversed
    r"\]\d+\[\s+"  # "[0] "
    r"\d+:\d+:[^\s:\[\]]+"  # "host:pid:tid"
    r"(?:\s*\](?:\d+,)*\d+\[)?"  # OpenMPI's "[1,0]" tag, if any
)
_NCCL_WARN_CHARS = 200  # an NCCL WARN message is quoted in a warning up to this length
# A value nccl-tests printed just before NCCL's message, glued to the hostname ("-1dgx-a07:123:456 [0] NCCL INFO").
_GLUED_VALUE_RE = re.compile(r"(?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|N/A)(?=[A-Za-z])")
_GLUED_VALUE_STARTS = frozenset("-0123456789N")
_KNOWN_NOISE_RE = re.compile(r"(?:NCCL version|RCCL version|rccl-tests: Version)\b")
_RANK_RE = re.compile(
    r"Rank\s+(?P<rank>\d+)(?:\s+Group\s+\d+)?(?:\s+Pid\s+\d+)?\s+on\s+(?P<host>\S+)\s+device\s+\d+"
    r"(?:\s+\[[^\]]*\])?\s*(?P<gpu>.*?)\s*$"
)
_RANK_LOOSE_RE = re.compile(r"Rank\s+(\d+)\b")
# "nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: ..." (src/common.cu, run()).
_NTHREAD_RE = re.compile(
    r"nThread\s+(\d+)\s+nGpus\s+(\d+)(?:\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)(?:\s+step:\s*(\d+)\((factor|bytes)\))?)?"
)
_AVG_BUSBW_RE = re.compile(r"Avg bus bandwidth\s*:\s*(\S+)(?:\s+(\S+))?")
_OUT_OF_BOUNDS_RE = re.compile(r"Out of bounds values\s*:\s*(\d+)(?:\s+(\S+))?")
_PERF_PROGRAM_RE = re.compile(r"\b([a-z][a-z0-9_]*_perf(?:_mpi)?)\b")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CLOCK_RE = re.compile(r"\d{2}:\d{2}:\d{2}")

_HEADER_ROLES = {
    "size": "size",
    "bytes": "size",
    "count": "count",
    "n": "count",
    "type": "type",
    "redop": "redop",
    "op": "redop",
    "root": "root",
    "time": "time",
    "cputime": "time",
    "algbw": "algbw",
    "busbw": "busbw",
    "#wrong": "wrong",
    "wrong": "wrong",
    "error": "error",
    "res": "error",
}
_STANDARD_COLUMNS = "size count type redop root time algbw busbw #wrong time algbw busbw #wrong"


@dataclass(frozen=True)
class _Group:
    placement: str  # "out" or "in"
    i_time: int
    i_algbw: int
    i_busbw: int
    i_wrong: int | None


@dataclass(frozen=True)
class _Layout:
    """Where each field sits in a whitespace-split data row."""

    names: str  # the columns, for error messages
    n_columns: int  # tokens in a row, without the optional timestamp
    max_extra: int  # 2 when a trailing "YYYY-mm-dd HH:MM:SS" timestamp may follow
    i_size: int
    i_count: int
    i_type: int
    i_redop: int | None
    i_root: int | None
    groups: tuple[_Group, ...]
    time_scale_to_us: float  # 1000 for the 2017 layout, which printed milliseconds
    wrong_is_count: bool | None  # True for "#wrong", False for the old max-error column, None unknown

    @functools.cached_property
    def get_values(self) -> Callable[[list[str]], tuple[str, ...]]:
        """Picks time, algbw, busbw of each group, in group order, from a row's tokens."""
        columns = [i for g in self.groups for i in (g.i_time, g.i_algbw, g.i_busbw)]
        return operator.itemgetter(*columns)

    @functools.cached_property
    def wrong_columns(self) -> tuple[int, ...]:
        return tuple(g.i_wrong for g in self.groups if g.i_wrong is not None)


@dataclass(frozen=True)
class _Sweep:
    """The sizes a run was asked to cover.

    ``-b`` minBytes, ``-e`` maxBytes and ``-f`` step factor or ``-i`` step in bytes, as nccl-tests
    reports them (src/common.cu prints ``step: 2(factor)`` or ``step: 1048576(bytes)``; the ``-J``
    file has them in ``config``).
    """

    min_bytes: int
    max_bytes: int
    step: int | None
    step_kind: str | None  # "factor", "bytes" or None (not given)
    where: str  # "the header (line 3)" or "the JSON config"


def _is_timestamp(tokens: list[str]) -> bool:
    """Whether a row ends with nccl-tests' ``-S 1`` timestamp, ``YYYY-mm-dd HH:MM:SS``."""
    return bool(_CLOCK_RE.fullmatch(tokens[-1]) and _DATE_RE.fullmatch(tokens[-2]))


def _column_count_error(layout_names: str, n_expected: str, found: int, line_number: int) -> NcclLogError:
    return NcclLogError(f"expected {n_expected} columns ({layout_names}), found {found}", line_number)
