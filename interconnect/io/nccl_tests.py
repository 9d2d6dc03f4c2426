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

Units: sizes in bytes, times in microseconds, bandwidths in GB/s = 1e9 B/s, exactly as nccl-tests
prints them (``doc/PERFORMANCE.md``: ``algbw = S/t``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import operator
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from interconnect.units import IntegerInputError, InterconnectError, expects, read_int

__all__ = [
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "MAX_LOG_BYTES",
    "MAX_ROWS",
    "NcclLogError",
    "NcclRun",
    "busbw_factor",
    "infer_ranks",
    "parse_nccl_tests",
]

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


# ---------------------------------------------------------------------------------------------
# Collectives and the busbw factor
# ---------------------------------------------------------------------------------------------

_FACTOR_ALL_REDUCE = "2(n-1)/n"
_FACTOR_N_MINUS_1 = "(n-1)/n"
_FACTOR_ONE = "1"

# Normalised name -> busbw factor, from the *GetBw functions in nccl-tests src/<collective>.cu.
_FACTOR_BY_COLLECTIVE = {
    "allreduce": _FACTOR_ALL_REDUCE,
    "allgather": _FACTOR_N_MINUS_1,
    "reducescatter": _FACTOR_N_MINUS_1,
    "alltoall": _FACTOR_N_MINUS_1,
    "alltoallv": _FACTOR_N_MINUS_1,
    "gather": _FACTOR_N_MINUS_1,
    "scatter": _FACTOR_N_MINUS_1,
    "broadcast": _FACTOR_ONE,
    "reduce": _FACTOR_ONE,
    "sendrecv": _FACTOR_ONE,
    "hypercube": _FACTOR_ONE,
}

# Collectives whose algbw numerator is the printed size column, so algbw = size / time holds.
_ALGBW_IS_SIZE_OVER_TIME = {"allreduce", "broadcast", "reduce", "sendrecv", None}


def _collective_key(name: str) -> str | None:
    """``"./build/all_reduce_perf"``, ``"AllReduce"``, ``"all-reduce"`` -> ``"allreduce"``; None if unknown."""
    base = re.split(r"[\\/]", name.strip())[-1].lower().removesuffix(".exe")
    for suffix in ("_perf_mpi", "_perf"):
        base = base.removesuffix(suffix)
    key = re.sub(r"[\s_\-]", "", base)
    return key if key in _FACTOR_BY_COLLECTIVE else None


def busbw_factor(collective: str, ranks: int) -> float:
    r"""Compute the ratio busbw / algbw that nccl-tests applies for a collective on n ranks.

    Parameters
    ----------
    collective : str
        ``"all_reduce_perf"``, ``"all_reduce"``, ``"allreduce"``, ... (case, ``_perf`` suffix,
        underscores and directories are ignored).
    ranks : int
        Number of ranks n, at least 1.

    Returns
    -------
    float
        The dimensionless factor F.

    Raises
    ------
    ValueError
        Unknown collective or ``ranks < 1``.

    Notes
    -----
    nccl-tests reports :math:`\mathrm{algbw} = S / t` and
    :math:`\mathrm{busbw} = \mathrm{algbw} \cdot F` with

    .. math::

        F_{all\text{-}reduce} = \frac{2(n-1)}{n}, \qquad
        F_{all\text{-}gather,\ reduce\text{-}scatter,\ alltoall(v),\ gather,\ scatter} = \frac{n-1}{n},
        \qquad F_{broadcast,\ reduce,\ sendrecv,\ hypercube} = 1

    (``nccl-tests-performance``: ``doc/PERFORMANCE.md``, "Bus bandwidth"; the ``*GetBw`` functions
    in ``src/<collective>.cu``). The all-reduce factor follows from a ring moving each element
    through :math:`2(n-1)` steps over :math:`n` links: :math:`t = (S/B) \cdot 2(n-1)/n`, so
    :math:`B = \mathrm{algbw} \cdot 2(n-1)/n` is the bandwidth each link must sustain, comparable
    across rank counts.

    Examples
    --------
    >>> busbw_factor("all_reduce_perf", 8)
    1.75
    >>> busbw_factor("allgather", 4)
    0.75
    >>> busbw_factor("broadcast", 16)
    1.0
    """
    kind = _collective_key(collective) if isinstance(collective, str) else None
    if kind is None:
        known = ", ".join(sorted(_FACTOR_BY_COLLECTIVE))
        raise ValueError(f"unknown collective {collective!r}; known: {known} (with or without _perf)")
    if isinstance(ranks, bool) or not isinstance(ranks, int | np.integer) or ranks < 1:
        raise ValueError(f"ranks must be a whole number >= 1, got {ranks!r}")
    n = int(ranks)
    factor = _FACTOR_BY_COLLECTIVE[kind]
    if factor == _FACTOR_ALL_REDUCE:
        return 2.0 * (n - 1) / n
    if factor == _FACTOR_N_MINUS_1:
        return (n - 1) / n
    return 1.0


# ---------------------------------------------------------------------------------------------
# Rank count from busbw / algbw
# ---------------------------------------------------------------------------------------------

_MIN_ALGBW_FOR_RATIO_GBPS = 1.0  # printed with 2 decimals, smaller values say little about the ratio


@dataclass(frozen=True)
class _RankEstimate:
    ranks: int
    ratio: float  # median busbw / algbw over the rows used
    ranks_exact: float  # n solved from the median ratio, before rounding
    low: float  # smallest n consistent with every row at the printed precision (nan if rows disagree)
    high: float  # largest such n (may be inf)
    factor: str

    def admits(self, ranks: int) -> bool:
        if math.isnan(self.low):
            return ranks == self.ranks
        return self.low - 1e-9 <= ranks <= self.high + 1e-9

    def whole_numbers_admitted(self) -> int:
        if math.isnan(self.low):
            return 1
        if math.isinf(self.high):
            return 2**31
        return max(0, math.floor(self.high + 1e-9) - math.ceil(self.low - 1e-9) + 1)


def _printed_resolution_gbps(values: np.ndarray) -> np.ndarray:
    """Half a unit in the last printed digit: nccl-tests prints %6.2f, then %6.1f, then %6.0f."""
    magnitude = np.abs(values)
    return np.where(magnitude < 1000, 0.005, np.where(magnitude < 10000, 0.05, 0.5))


def _ranks_from_ratio(ratio: float, factor: str) -> float:
    """Invert ``busbw/algbw = F(n)``; inf when the ratio is at or beyond the factor's limit."""
    limit = 2.0 if factor == _FACTOR_ALL_REDUCE else 1.0
    if ratio >= limit:
        return math.inf
    return limit / (limit - ratio)


def _estimate_ranks(
    factor: str | None, algbw_gbps: np.ndarray, busbw_gbps: np.ndarray, *, resolution_gbps: float | None = None
) -> _RankEstimate | None:
    """Estimate the rank count implied by busbw/algbw.

    ``factor`` None means "collective unknown": a ratio above 1 can only be all-reduce's 2(n-1)/n
    and one below 1 only (n-1)/n.

    ``resolution_gbps`` None means values were printed by nccl-tests (2 decimals); JSON passes a
    tiny number because it carries 6 decimals.
    """
    if factor == _FACTOR_ONE:
        return None
    algbw = np.asarray(algbw_gbps, dtype=np.float64).ravel()
    busbw = np.asarray(busbw_gbps, dtype=np.float64).ravel()
    with np.errstate(invalid="ignore"):
        usable = np.isfinite(algbw) & np.isfinite(busbw) & (algbw >= _MIN_ALGBW_FOR_RATIO_GBPS) & (busbw >= 0)
    if not usable.any():
        return None
    algbw, busbw = algbw[usable], busbw[usable]
    ratio = float(np.median(busbw / algbw))
    if resolution_gbps is None:
        algbw_err, busbw_err = _printed_resolution_gbps(algbw), _printed_resolution_gbps(busbw)
    else:
        algbw_err = busbw_err = np.full_like(algbw, resolution_gbps)
    ratio_low_rows = np.maximum(busbw - busbw_err, 0.0) / (algbw + algbw_err)
    ratio_high_rows = (busbw + busbw_err) / (algbw - algbw_err)
    ratio_low, ratio_high = float(ratio_low_rows.max()), float(ratio_high_rows.min())
    rows_agree = ratio_low <= ratio_high
    if factor is None:
        low_side, high_side = (ratio_low, ratio_high) if rows_agree else (ratio, ratio)
        if low_side > 1.0:
            factor = _FACTOR_ALL_REDUCE
        elif high_side < 1.0:
            factor = _FACTOR_N_MINUS_1
        else:
            return None
    ranks_exact = _ranks_from_ratio(ratio, factor)
    if not math.isfinite(ranks_exact) or ranks_exact < 0.5:
        return None
    ranks = max(1, round(ranks_exact))
    low = high = math.nan
    if rows_agree and math.isfinite(_ranks_from_ratio(ratio_low, factor)):
        low, high = _ranks_from_ratio(ratio_low, factor), _ranks_from_ratio(ratio_high, factor)
        first = max(1, math.ceil(low - 1e-9))
        if math.isinf(high):
            ranks = max(ranks, first)
        elif first <= math.floor(high + 1e-9):
            ranks = min(max(first, ranks), math.floor(high + 1e-9))
    return _RankEstimate(ranks, ratio, ranks_exact, low, high, factor)


def infer_ranks(collective: str | None, algbw: np.ndarray, busbw: np.ndarray) -> int | None:
    r"""Infer the number of ranks from busbw / algbw, or None if the data cannot tell.

    Parameters
    ----------
    collective : str or None
        Collective or program name, or None when the log does not say.
    algbw, busbw : array_like
        Algorithm and bus bandwidth in GB/s, same length.

    Returns
    -------
    int or None
        The rank count n, or None (too few rows with ``algbw >= 1 GB/s``, or a collective whose
        factor is 1).

    Raises
    ------
    ValueError
        Unknown collective name, or arrays of different lengths.

    Notes
    -----
    Inverts :func:`busbw_factor` for the median ratio :math:`r` over rows with
    :math:`\mathrm{algbw} \ge 1` GB/s (smaller values, printed with 2 decimals, say little):

    .. math::

        n = \frac{2}{2 - r} \ \text{(all-reduce)}, \qquad
        n = \frac{1}{1 - r} \ \text{(all-gather, reduce-scatter, alltoall, gather, scatter)}

    The result is the whole number nearest :math:`n` that every row allows at that printed
    precision (our inversion of ``nccl-tests-performance``). With ``collective=None`` a ratio above
    1 is read as all-reduce, below 1 as :math:`(n-1)/n`. Broadcast, reduce and sendrecv (factor 1)
    carry no rank information.

    Examples
    --------
    >>> infer_ranks("all_reduce_perf", [239.71, 248.83], [419.49, 435.46])
    8
    >>> infer_ranks(None, [20.0, 40.0], [15.0, 30.0])  # (n-1)/n = 0.75
    4
    """
    factor = None
    if collective is not None:
        key = _collective_key(collective) if isinstance(collective, str) else None
        if key is None:
            raise ValueError(f"unknown collective {collective!r}")
        factor = _FACTOR_BY_COLLECTIVE[key]
    algbw_arr, busbw_arr = np.asarray(algbw, dtype=np.float64), np.asarray(busbw, dtype=np.float64)
    if algbw_arr.shape != busbw_arr.shape:
        raise ValueError(f"algbw and busbw differ in shape: {algbw_arr.shape} vs {busbw_arr.shape}")
    estimate = _estimate_ranks(factor, algbw_arr, busbw_arr)
    return None if estimate is None else estimate.ranks


# ---------------------------------------------------------------------------------------------
# Small token helpers
# ---------------------------------------------------------------------------------------------

_INT64_MAX = 2**63 - 1
_INT32_MAX = 2**31 - 1  # nccl-tests prints ranks, thread and GPU counts with %d
_MAX_INT_CHARS = 32  # longer than any int64 with sign, commas or underscores: not read with int()
_NA_TOKENS = frozenset({"N/A", "n/a", "NA"})
_FLOAT_WORDS = frozenset({"inf", "infinity", "nan"})
_SHOWN_CHARS = 40  # user text quoted in a message is cut to this length
_NAME_CHARS = 200  # collective, GPU and host names are kept up to this length


def _as_int(token: str) -> int | None:
    """Integer value of ``token`` (underscores allowed, ``1,048,576`` allowed), else None.

    Tokens longer than :data:`_MAX_INT_CHARS` are None without calling ``int()``: Python refuses
    strings over 4,300 digits with ValueError and converts long ones in super-linear time.
    """
    try:  # the project's one strict reader: ASCII digits only, a length cap
        return read_int(token, max_chars=_MAX_INT_CHARS)
    except IntegerInputError:
        return None


def _is_number(token: str) -> bool:
    first = token[:1]
    if first.isalpha() and token.lower().lstrip("+-") not in _FLOAT_WORDS:
        return False  # "float", "sum": the common case, without the cost of a ValueError
    try:
        float(token)
    except ValueError:
        return False
    return True


def _show(value: object) -> str:
    """``repr`` of a value taken from the input, short enough for a one-line message."""
    if isinstance(value, str):
        if len(value) <= _SHOWN_CHARS:
            return repr(value)
        return f"{value[:_SHOWN_CHARS]!r}... ({len(value):,} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        try:
            return f"a {len(str(abs(value))):,}-digit number"
        except ValueError:  # over sys.get_int_max_str_digits(): only the order of magnitude
            return f"a number of about {math.floor(value.bit_length() * math.log10(2)) + 1:,} digits"
    if isinstance(value, list | dict):
        if len(value) <= 4 and all(isinstance(v, int | float | bool | type(None)) for v in value):
            return repr(value)
        return f"a list of {len(value):,} items" if isinstance(value, list) else f"an object with {len(value):,} keys"
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."


def _bounded_int(digits: str, limit: int) -> int | None:
    """Value of a run of digits if it is at most ``limit``, else None; long runs are not converted."""
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(limit)):
        return None
    try:
        return read_int(digits, minimum=0, maximum=limit)
    except IntegerInputError:  # a Unicode digit the regex's \d let through, or past the limit
        return None


def _is_continuation_token(token: str) -> bool:
    return token in _NA_TOKENS or _is_number(token.rstrip("*"))


def _format_bytes(n_bytes: int) -> str:
    if n_bytes < 1024:
        return f"{n_bytes:,} bytes"
    if n_bytes < 1024**2:
        return f"{n_bytes / 1024:.1f} KiB".replace(".0 ", " ")
    return f"{n_bytes / 1024**2:.1f} MiB".replace(".0 ", " ")


# ---------------------------------------------------------------------------------------------
# Input decoding
# ---------------------------------------------------------------------------------------------

_ANSI_ESCAPE_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _too_large(size: int, max_bytes: int) -> NcclLogError:
    size_text, limit_text = _format_bytes(size), _format_bytes(max_bytes)
    if size_text == limit_text:  # "the log is 5 MiB; the limit is 5 MiB" would say nothing
        size_text, limit_text = f"{size:,} bytes", f"{limit_text} ({max_bytes:,} bytes)"
    return NcclLogError(f"the log is {size_text}; the limit is {limit_text}")


def _decode(data: str | bytes, max_bytes: int) -> str:
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        if len(raw) > max_bytes:
            raise _too_large(len(raw), max_bytes)
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with BOM, e.g. PowerShell's ">"
            try:
                text = raw.decode("utf-16")
            except UnicodeDecodeError:
                raise NcclLogError(_BINARY_MESSAGE) from None
        else:
            if b"\x00" in raw:
                raise NcclLogError(_BINARY_MESSAGE)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise NcclLogError(f"{_BINARY_MESSAGE} (byte {exc.start} is not valid UTF-8)") from None
    elif isinstance(data, str):
        text = data
        if len(text) > max_bytes or (
            4 * len(text) > max_bytes and len(text.encode("utf-8", "surrogatepass")) > max_bytes
        ):
            raise _too_large(len(text.encode("utf-8", "surrogatepass")), max_bytes)
    else:
        raise TypeError(f"expected str or bytes, got {type(data).__name__}")
    if "\x00" in text:
        raise NcclLogError(_BINARY_MESSAGE)
    text = text.removeprefix("\ufeff")
    if "\x1b" in text:
        text = _ANSI_ESCAPE_RE.sub("", text)
    return text


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


class _TextParser:
    """Line-by-line state machine over nccl-tests stdout."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.header_layout: _Layout | None = None
        self.fast_layout: _Layout | None = None  # layout of the last plain row, for run()'s fast path
        self.not_plain = 0  # line whose row the fast path found not plain
        self.inferred_layouts: dict[tuple[int, int, bool], _Layout] = {}
        self.title_in_place_only = False
        self.cputime = False
        # rows
        self.row_lines: list[int] = []
        self.sizes: list[int] = []
        self.counts: list[int] = []
        self.dtypes: list[str] = []
        self.redops: list[str] = []
        self.out_values: list[float] = []  # time, algbw, busbw of each row, flat
        self.in_values: list[float] = []
        self.wrong_rows: list[int] = []
        self.pending: tuple[int, list[str]] | None = None
        # preamble / footer
        self.collective: str | None = None
        self.collective_from_command: str | None = None
        self.nthread_ngpus: tuple[int, int] | None = None
        self.sweep: _Sweep | None = None
        self.rank_info: dict[int, tuple[str, str]] = {}
        self.rank_zero_lines = 0
        self.avg_busbw_gbps: float | None = None
        self.warnings: list[str] = []
        self.nccl_warns: dict[str, None] = {}  # insertion-ordered set
        self.unrecognised: list[int] = []
        self.other_lines = 0  # unrecognised lines and echoed command lines, each costly to examine
        self.examined = 0  # lines and prefixes examined (see _MAX_EXAMINED)
        self.long_lines: list[tuple[int, int]] = []  # (line number, length in characters)
        self.skipped_rows: list[tuple[int, str]] = []  # (line number, why the row cannot be used)
        self.skipped_sweep: list[tuple[int, str, str]] = []  # (size, type, redop) of those rows
        self.first_unrecognised_text = ""
        self.non_blank = 0
        self.stopped = False
        self.single_group_headerless = False
        self.unknown_dtypes: set[str] = set()
        self.layout_time_scale_warned = False

    # -- main loop ---------------------------------------------------------------------------

    def run(self) -> None:
        for index, line in enumerate(self.lines):
            if "NCCL " in line and ("NCCL INFO" in line or "NCCL WARN" in line):
                line = self._split_nccl_message(line)
                if not line or self._only_prefixes(line):
                    continue
            if len(line) > MAX_LINE_CHARS:
                self._long_line(line, index + 1)
                continue
            if not line or line.isspace():
                continue
            self.non_blank += 1
            text = line.strip()
            if text[0] == "#":  # what _dispatch does first with such a line, without its other tests
                self._count_examined(index + 1)
                self._flush_pending()
                self._comment(text, index + 1)
            else:
                self._dispatch(text, index + 1)
            if self.stopped:
                break
        self._flush_pending()

    def _only_prefixes(self, text: str) -> bool:
        """Say whether what preceded an NCCL message on its line is only launcher prefixes.

        A timestamp, an srun label, an OpenMPI tag, not nccl-tests output: then the line is dropped
        whole rather than counted as unrecognised (kubectl logs --timestamps with NCCL_DEBUG=INFO
        has thousands).
        """
        text = text.strip()
        for _ in range(4):
            if not text:
                return True
            stripped = self._strip_prefix(text + " ")  # each prefix pattern ends at whitespace
            if stripped == text + " ":
                return False
            text = stripped
        return not text

    def _count_examined(self, line_number: int) -> None:
        self.examined += 1
        if self.examined > _MAX_EXAMINED:
            raise NcclLogError(
                f"the log is too long to read: more than {_MAX_EXAMINED:,} lines and line prefixes by line "
                f"{line_number:,}; nccl-tests output, even from a large run with launcher prefixes, is shorter",
                line_number,
            )

    def _check_row_count(self, line_number: int) -> None:
        if len(self.row_lines) + len(self.skipped_rows) >= MAX_ROWS:
            raise NcclLogError(
                f"more than {MAX_ROWS:,} data rows; nccl-tests prints one per size, data type, reduction and "
                "root, a few thousand at most: is this one log?",
                line_number,
            )

    def _plain_row_shape(self, tokens: list[str], layout: _Layout) -> bool:
        """Whether the tokens have the plain row's length (and no fewer than _row_start waits for)."""
        n = len(tokens)
        if n < (self.header_layout.n_columns if self.header_layout else 13):
            return False
        if n == layout.n_columns:
            return True
        return n == layout.n_columns + 2 == layout.n_columns + layout.max_extra and _is_timestamp(tokens)

    def _long_line(self, line: str, line_number: int) -> None:
        """Skip a line over MAX_LINE_CHARS (an environment dump, a progress bar) with a warning.

        One that starts like nccl-tests' own output (``#`` or a number) means the log is damaged.
        """
        first = line[:80].split(maxsplit=1)[:1]
        if first and (first[0][0] == "#" or first[0].isdecimal()):
            raise NcclLogError(
                f"this line is {len(line):,} characters long; nccl-tests prints none longer than a few hundred "
                f"(this reader stops at {MAX_LINE_CHARS:,}), so the log is damaged here",
                line_number,
            )
        self.long_lines.append((line_number, len(line)))

    def _dispatch(self, text: str, line_number: int) -> None:
        original = text
        for _ in range(4):
            self._count_examined(line_number)
            tokens = text.split()
            if not tokens:
                return
            fast = self.fast_layout
            if fast is not None and self.pending is None and self._plain_row_shape(tokens, fast):
                # The common data row, read as the general path below would, in a third of the time.
                self._check_row_count(line_number)
                if self._add_plain_row(tokens, fast, line_number):
                    return
                self.not_plain = line_number  # _add_row need not try again
            if self._is_row_start(tokens):
                self._row_start(tokens, line_number)
                return
            if text[0] == "#":
                self._flush_pending()
                self._comment(text, line_number)
                return
            if self.pending is not None and all(_is_continuation_token(t) for t in tokens):
                self._continue_row(tokens)
                return
            if _KNOWN_NOISE_RE.match(text):
                return
            stripped = self._strip_prefix(text)
            if stripped == text:
                break
            text = stripped
        self._unrecognised(original, line_number)

    @staticmethod
    def _is_row_start(tokens: list[str]) -> bool:
        """Say whether the tokens start a data row: ``size count type ...``, or a damaged row.

        A damaged row is an integer, a data type among the next two tokens and at least four
        numbers (reported as malformed rather than skipped).
        """
        if len(tokens) < 3 or not (tokens[0].isdecimal() or _as_int(tokens[0]) is not None):
            return False  # (a run of digits too long for _as_int is a row with a size too large)
        if tokens[2] in _KNOWN_DTYPES and tokens[1].isdecimal():
            return True
        if _as_int(tokens[1]) is not None and not _is_number(tokens[2]):
            return True
        return (tokens[1] in _KNOWN_DTYPES or tokens[2] in _KNOWN_DTYPES) and sum(map(_is_number, tokens)) >= 4

    @staticmethod
    def _strip_prefix(text: str) -> str:
        if text[0] == "|":  # a Markdown table row
            return text.replace("|", " ").strip()
        tag = _STD_TAG_RE.search(text, 0, 200)
        if tag:
            return text[tag.end() :].strip()
        match = _PREFIX_RE.match(text)
        if match and match.end() > 0:
            return text[match.end() :].strip()
        return text

    def _split_nccl_message(self, line: str) -> str:
        """Drop an NCCL INFO/WARN message, keeping any nccl-tests output printed before it on the same line.

        stdout and stderr interleave mid-row when NCCL_DEBUG=INFO.

        Linear in the length of the line: the marker is found with ``str.find`` and the
        ``host:pid:tid [dev]`` prefix is matched backwards from it over a bounded window.
        Without a recognisable prefix the whole line is dropped.
        """
        info, warn = line.find("NCCL INFO"), line.find("NCCL WARN")
        marker = info if warn < 0 or 0 <= info < warn else warn
        window_start = max(0, marker - _NCCL_PREFIX_WINDOW)
        prefix = _NCCL_PREFIX_REVERSED_RE.match(line[window_start:marker][::-1])
        before = ""
        if prefix is not None and not (window_start > 0 and prefix.end() == marker - window_start):
            start = marker - prefix.end()
            before = line[:start]
            if line[start] in _GLUED_VALUE_STARTS:
                glued = _GLUED_VALUE_RE.match(line, start, marker)
                if glued and (not before or before[-1].isspace()):
                    before += glued.group(0)
        if warn >= 0:
            text = line[warn + len("NCCL WARN") : warn + len("NCCL WARN") + _NCCL_WARN_CHARS + 1].strip()
            if len(text) > _NCCL_WARN_CHARS:
                text = text[:_NCCL_WARN_CHARS] + "..."
            if text:
                self.nccl_warns.setdefault(text)
        return before

    def _unrecognised(self, text: str, line_number: int) -> None:
        self.other_lines += 1
        if self.other_lines > _MAX_UNRECOGNISED:
            raise NcclLogError(
                f"more than {_MAX_UNRECOGNISED:,} lines are not nccl-tests output (line {line_number}: "
                f"{text[:_SHOWN_CHARS]!r}); paste the part of the log with the results table"
            )
        program = _PERF_PROGRAM_RE.search(text)
        if program and _collective_key(program.group(1)) is not None:
            # The command line, echoed by the job script: names the collective on older versions.
            if self.collective_from_command is None:
                self.collective_from_command = program.group(1)
        else:
            if not self.unrecognised:
                self.first_unrecognised_text = text[:_SHOWN_CHARS]
            self.unrecognised.append(line_number)

    # -- comments: preamble, header, footer --------------------------------------------------

    def _comment(self, text: str, line_number: int) -> None:
        body = " ".join(text.lstrip("#").split())  # tabs or collapsed spaces read the same
        if not body:
            return
        if body.startswith("Rank"):
            self._rank_line(body, line_number)
        elif "algbw" in body and "time" in body:
            self._header(body, line_number)
        elif body.startswith("(B)") or body.startswith("(us)"):
            return
        elif "in-place" in body and body.split()[0] in ("in-place", "out-of-place"):
            self.title_in_place_only = "out-of-place" not in body
        elif body.startswith("nThread"):
            match = _NTHREAD_RE.match(body)
            if match and self.nthread_ngpus is None:
                self._nthread_line(match, line_number)
        elif body.startswith("Collective test starting:"):
            name = body.split(":", 1)[1].strip()
            if self.sizes:
                self._stop(line_number, f"a second test ({_show(name)}) starts")
            elif name:
                self.collective = re.split(r"[\\/]", name)[-1][:_NAME_CHARS]
        elif body.startswith("Reducing maxBytes to"):  # src/common.cu, when the GPUs lack memory for -e
            reduced = _bounded_int(body.split()[3], _INT64_MAX) if body.split()[3:4] else None
            if self.sweep is not None and reduced is not None and reduced < self.sweep.max_bytes:
                self.sweep = dataclasses.replace(
                    self.sweep, min_bytes=min(self.sweep.min_bytes, reduced), max_bytes=reduced
                )
        elif body.startswith("Avg bus bandwidth"):
            self._avg_busbw(body, line_number)
        elif body.startswith("Out of bounds values"):
            match = _OUT_OF_BOUNDS_RE.match(body)
            count = match.group(1).lstrip("0") if match else ""
            if count:  # kept as text: the count is only quoted, and may be too long for int()
                self.warnings.append(
                    f"nccl-tests reported {count[:_SHOWN_CHARS]} out-of-bounds values (line {line_number}): "
                    "some results failed validation"
                )
        elif body.startswith("error:") and body[6:].strip():
            detail = body[6:].strip()
            if len(detail) > _NCCL_WARN_CHARS:
                detail = detail[:_NCCL_WARN_CHARS] + "..."
            self.warnings.append(f"nccl-tests printed an error (line {line_number}): {detail}")

    def _rank_line(self, body: str, line_number: int) -> None:
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

    def _nthread_line(self, match: re.Match[str], line_number: int) -> None:
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

    def _avg_busbw(self, body: str, line_number: int) -> None:
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

    def _stop(self, line_number: int, what: str) -> None:
        first, last = self.row_lines[0], self.row_lines[-1]
        self.warnings.append(
            f"the log holds more than one result table: {what} at line {line_number}; "
            f"only the first table (lines {first}-{last}) was read"
        )
        self.stopped = True

    def _header(self, body: str, line_number: int) -> None:
        layout = self._layout_from_header(body.split(), line_number)
        if layout is None:
            return
        if self.sizes:
            self._stop(line_number, "a new column header")
            return
        self.header_layout = layout

    def _layout_from_header(self, tokens: list[str], line_number: int) -> _Layout | None:
        names = [t.lower() for t in tokens]
        if names and names[0] == "timestamp":  # a leading timestamp is stripped from rows as a prefix
            names = names[1:]
        max_extra = 0
        if "timestamp" in names:
            names = [n for n in names if n != "timestamp"]
            max_extra = 2
        roles = [_HEADER_ROLES.get(n, "extra") for n in names]
        not_understood = f"line {line_number}: column header not understood; columns were inferred from each row"
        if roles[:3] != ["size", "count", "type"]:
            self.warnings.append(not_understood)
            return None
        i = 3
        i_redop = i_root = None
        if i < len(roles) and roles[i] == "redop":
            i_redop, i = i, i + 1
        if i < len(roles) and roles[i] == "root":
            i_root, i = i, i + 1
        groups_found: list[dict[str, int]] = []
        for j in range(i, len(roles)):
            role = roles[j]
            if role == "time":
                groups_found.append({"time": j})
            elif role in ("algbw", "busbw", "wrong", "error") and groups_found and role not in groups_found[-1]:
                groups_found[-1][role] = j
            elif role != "extra":
                self.warnings.append(not_understood)
                return None
        complete = [g for g in groups_found if "algbw" in g and "busbw" in g]
        if not complete or len(complete) != len(groups_found):
            self.warnings.append(not_understood)
            return None
        if len(complete) > 2:
            self.warnings.append(f"line {line_number}: the header has {len(complete)} time columns; read the first two")
            complete = complete[:2]
        if len(complete) == 2:
            placements = ("out", "in")
        else:
            placements = ("in",) if self.title_in_place_only else ("out",)
        groups = tuple(
            _Group(p, g["time"], g["algbw"], g["busbw"], g.get("wrong", g.get("error")))
            for p, g in zip(placements, complete, strict=True)
        )
        self.cputime = "cputime" in names
        self.title_in_place_only = False
        wrong_is_count = True if "wrong" in roles else (False if "error" in roles else None)
        time_scale = 1000.0 if names[0] == "bytes" else 1.0  # 2017 layout: "bytes N type op", time in ms
        if time_scale != 1.0 and not self.layout_time_scale_warned:
            self.layout_time_scale_warned = True
            self.warnings.append(
                f"line {line_number}: 2017-style header (bytes, N, op): its time column is in ms; converted to µs"
            )
        return _Layout(
            names=" ".join(names) + (" [timestamp]" if max_extra else ""),
            n_columns=len(names),
            max_extra=max_extra,
            i_size=0,
            i_count=1,
            i_type=2,
            i_redop=i_redop,
            i_root=i_root,
            groups=groups,
            time_scale_to_us=time_scale,
            wrong_is_count=wrong_is_count,
        )

    # -- data rows ---------------------------------------------------------------------------

    def _row_start(self, tokens: list[str], line_number: int) -> None:
        self._flush_pending()
        expected = self.header_layout.n_columns if self.header_layout else 13
        if len(tokens) < expected:
            # Maybe split by an interleaved NCCL message: wait for continuation lines.
            self.pending = (line_number, list(tokens))
            return
        self._add_row(tokens, line_number)

    def _continue_row(self, tokens: list[str]) -> None:
        assert self.pending is not None
        self.pending[1].extend(tokens)
        expected = self.header_layout.n_columns if self.header_layout else 13
        if len(self.pending[1]) >= expected:
            self._flush_pending()

    def _flush_pending(self) -> None:
        if self.pending is not None:
            line_number, tokens = self.pending
            self.pending = None
            self._add_row(tokens, line_number)

    def _infer_layout(self, tokens: list[str], line_number: int) -> _Layout:
        n = len(tokens)
        n_timestamp = 2 if n >= 2 and _is_timestamp(tokens) else 0
        has_redop = n - n_timestamp > 3 and not _is_number(tokens[3])
        key = (n, n_timestamp, has_redop)
        layout = self.inferred_layouts.get(key)
        if layout is not None:
            return layout
        i = 4 if has_redop else 3
        remaining = n - n_timestamp - i
        i_root = None
        if remaining % 4 == 1:
            i_root, i, remaining = i, i + 1, remaining - 1
        n_groups = remaining // 4
        if remaining % 4 != 0 or not 1 <= n_groups <= 2:
            raise NcclLogError(
                f"expected 13 columns like '{_STANDARD_COLUMNS}', found {n}"
                + ("" if n < 13 else "; paste the '#  size  count ...' header too if the layout is different"),
                line_number,
            )
        placements = ("out", "in") if n_groups == 2 else ("out",)
        groups = tuple(
            _Group(p, i + 4 * k, i + 4 * k + 1, i + 4 * k + 2, i + 4 * k + 3) for k, p in enumerate(placements)
        )
        if n_groups == 1 and not self.single_group_headerless:
            self.single_group_headerless = True
            self.warnings.append(
                f"line {line_number}: rows have one time/algbw/busbw group and there is no header; read as out-of-place"
            )
        names = ["size", "count", "type"] + (["redop"] if has_redop else []) + (["root"] if i_root else [])
        names += ["time", "algbw", "busbw", "#wrong"] * n_groups
        layout = _Layout(
            names=" ".join(names),
            n_columns=n - n_timestamp,
            max_extra=n_timestamp,
            i_size=0,
            i_count=1,
            i_type=2,
            i_redop=3 if has_redop else None,
            i_root=i_root,
            groups=groups,
            time_scale_to_us=1.0,
            wrong_is_count=None,
        )
        self.inferred_layouts[key] = layout
        return layout

    def _append_row(self, line_number: int, size: int, count: int, dtype: str, redop: str,
                    out_values: tuple | list, in_values: tuple | list) -> None:
        """Keep one accepted data row: its line, size, count, type, operation and both placements' values."""
        self.row_lines.append(line_number)
        self.sizes.append(size)
        self.counts.append(count)
        self.dtypes.append(dtype)
        self.redops.append(redop)
        self.out_values.extend(out_values)
        self.in_values.extend(in_values)

    def _add_row(self, tokens: list[str], line_number: int) -> None:
        self._check_row_count(line_number)
        layout = self.header_layout
        if layout is None:
            layout = self._infer_layout(tokens, line_number)
        n = len(tokens)
        if not layout.n_columns <= n <= layout.n_columns + layout.max_extra:
            raise _column_count_error(layout.names, str(layout.n_columns), n, line_number)
        if line_number != self.not_plain and self._add_plain_row(tokens, layout, line_number):
            self.fast_layout = layout  # rows like this one are read with it from now on
            return
        unusable: list[str] = []  # non-finite numbers and zero times: the row is skipped, not fatal
        size = self._int_field(tokens[layout.i_size], "size", line_number, unusable)
        count = self._int_field(tokens[layout.i_count], "count", line_number, unusable)
        dtype = tokens[layout.i_type]
        if dtype not in _KNOWN_DTYPES:
            self._check_dtype(dtype, line_number)
        redop = "none"
        if layout.i_redop is not None:
            redop = tokens[layout.i_redop]
            if redop not in _KNOWN_REDOPS and _is_number(redop):
                raise NcclLogError(f"redop {_show(redop)} should be a reduction name such as sum", line_number)
        if layout.i_root is not None and _as_int(tokens[layout.i_root]) is None:
            raise NcclLogError(f"root {_show(tokens[layout.i_root])} is not a whole number", line_number)
        out_values = in_values = (math.nan, math.nan, math.nan)
        wrong = False
        for group in layout.groups:
            time_token = tokens[group.i_time]
            time_us = self._float_field(time_token, "time", line_number, unusable) * layout.time_scale_to_us
            values = (
                time_us,
                self._float_field(tokens[group.i_algbw], "algbw", line_number, unusable),
                self._float_field(tokens[group.i_busbw], "busbw", line_number, unusable),
            )
            if time_us == 0:
                unusable.append(f"time {_show(time_token)} is zero")
            elif math.isinf(time_us) and not unusable:
                unusable.append(f"time {_show(time_token)} ms is out of range")
            if group.i_wrong is not None and self._wrong_field(tokens[group.i_wrong], layout, line_number):
                wrong = True
            if group.placement == "out":
                out_values = values
            else:
                in_values = values
        if unusable:
            self.skipped_rows.append((line_number, unusable[0]))
            self.skipped_sweep.append((size, dtype, redop))  # the run did reach this size
            return
        if wrong:
            self.wrong_rows.append(line_number)
        self._append_row(line_number, size, count, dtype, redop, out_values, in_values)

    def _add_plain_row(self, tokens: list[str], layout: _Layout, line_number: int) -> bool:
        """Add the common row by the fast path.

        Known type and reduction, whole numbers, positive finite values, #wrong 0 or N/A (any number
        in the old max-error column). Returns False, having stored nothing, for anything else; the
        field-by-field path then accepts it, skips it or says what is wrong.
        """
        dtype = tokens[2]
        redop = "none" if layout.i_redop is None else tokens[layout.i_redop]
        if dtype not in _KNOWN_DTYPES or redop not in _KNOWN_REDOPS:
            return False
        try:
            for i in layout.wrong_columns:
                wrong = tokens[i]
                if wrong == "0" or wrong in _NA_TOKENS:
                    continue
                bare = wrong.rstrip("*")
                if layout.wrong_is_count or (layout.wrong_is_count is None and _as_int(bare) is not None):
                    return False  # a count of wrong elements: the general path records the row
                float(bare)  # the old max-error column ("2e-07"): only needs to be a number
            size, count = int(tokens[0]), int(tokens[1])
            if layout.i_root is not None:
                int(tokens[layout.i_root])
            values = tuple(map(float, layout.get_values(tokens)))
        except ValueError:
            return False
        # NaN or an infinity makes the sum NaN or infinite; a huge finite sum that overflows only
        # sends the row to the slow path.
        if not (0 <= size <= _INT64_MAX and 0 <= count <= _INT64_MAX and sum(values) < math.inf and min(values) >= 0):
            return False
        if layout.time_scale_to_us != 1.0:
            scale = layout.time_scale_to_us
            values = tuple(v * scale if k % 3 == 0 else v for k, v in enumerate(values))
            if sum(values) == math.inf:
                return False
        if values[0] == 0 or (len(values) == 6 and values[3] == 0):
            return False
        if len(values) == 6:  # groups are ("out", "in") whenever there are two
            out_values, in_values = values[:3], values[3:]
        elif layout.groups[0].placement == "out":
            out_values, in_values = values, (math.nan, math.nan, math.nan)
        else:
            out_values, in_values = (math.nan, math.nan, math.nan), values
        self._append_row(line_number, size, count, dtype, redop, out_values, in_values)
        return True

    def _check_dtype(self, dtype: str, line_number: int) -> None:
        if _is_number(dtype):
            raise NcclLogError(f"type {_show(dtype)} should be a data type name such as float", line_number)
        if dtype in _KNOWN_REDOPS:
            raise NcclLogError(
                f"'{dtype}' is a reduction operation but sits in the type column; is a column missing?", line_number
            )
        if dtype not in self.unknown_dtypes:
            self.unknown_dtypes.add(dtype)
            self.warnings.append(f"line {line_number}: unfamiliar data type {_show(dtype)}")

    @staticmethod
    def _int_field(token: str, name: str, line_number: int, unusable: list[str]) -> int:
        """Read a whole number >= 0 (also ``1e+06``).

        NaN or infinity is noted in ``unusable`` (the row is skipped); anything else that is not a
        whole number in 0..2^63-1 raises NcclLogError.
        """
        value = _as_int(token)
        if value is None:
            if len(token.lstrip("+-").lstrip("0")) > _MAX_INT_CHARS and token.lstrip("+-").isdecimal():
                raise NcclLogError(f"{name} {_show(token)} is too large", line_number)
            try:
                as_float = float(token)
            except ValueError:
                as_float = 0.5
            if math.isnan(as_float) or math.isinf(as_float):
                unusable.append(f"{name} {_show(token)} is not a finite number")
                return 0
            if not as_float.is_integer():
                raise NcclLogError(f"{name} {_show(token)} is not a whole number", line_number)
            if abs(as_float) > _INT64_MAX:
                raise NcclLogError(f"{name} {_show(token)} is too large", line_number)
            value = int(as_float)
        if value < 0:
            raise NcclLogError(f"{name} {_show(token)} is negative", line_number)
        if value > _INT64_MAX:
            raise NcclLogError(f"{name} {_show(token)} is too large", line_number)
        return value

    @staticmethod
    def _float_field(token: str, name: str, line_number: int, unusable: list[str]) -> float:
        """Read a number >= 0; NaN or infinity (``nan``, ``inf``, ``1e999``) is noted in ``unusable``."""
        try:
            value = float(token)
        except ValueError:
            raise NcclLogError(f"{name} {_show(token)} is not a number", line_number) from None
        if value < 0:
            raise NcclLogError(f"{name} {_show(token)} is negative", line_number)
        if not value < math.inf:  # NaN or +inf
            unusable.append(f"{name} {_show(token)} is not a finite number")
        return value

    @staticmethod
    def _wrong_field(token: str, layout: _Layout, line_number: int) -> bool:
        """Whether the ``#wrong`` column reports failed validation; raises if it is not a number or N/A."""
        if token == "0" or token in _NA_TOKENS:
            return False
        bare = token.rstrip("*")  # rccl-tests marks errors above its threshold with an asterisk
        try:
            value = float(bare)
        except ValueError:
            raise NcclLogError(f"#wrong {_show(token)} is not a number or N/A", line_number) from None
        counts_elements = layout.wrong_is_count
        if counts_elements is None:  # headerless: "0"/"12" is a count, "2e-07" the old max error
            counts_elements = _as_int(bare) is not None
        return bool(counts_elements) and value != 0

    # -- result ------------------------------------------------------------------------------

    def _no_rows_error(self) -> NcclLogError:
        if self.skipped_rows:
            line_number, why = self.skipped_rows[0]
            more = len(self.skipped_rows) - 1
            return NcclLogError(f"no usable data rows: {why}{_and_the_others(more, 'data rows')}", line_number)
        detail = ""
        if self.unrecognised:
            detail = (
                f"; {len(self.unrecognised)} of {self.non_blank} non-blank lines were not recognised "
                f"(first, line {self.unrecognised[0]}: {self.first_unrecognised_text!r})"
            )
        if self.long_lines:
            detail += "; " + self._long_lines_message()
        return NcclLogError(f"no data rows found: expected lines like '{_EXAMPLE_ROW}'{detail}")

    def _long_lines_message(self) -> str:
        line_number, length = self.long_lines[0]
        if len(self.long_lines) == 1:
            return (
                f"line {line_number} is {length:,} characters long, more than the {MAX_LINE_CHARS:,} "
                "any nccl-tests line needs, and was skipped"
            )
        return (
            f"{len(self.long_lines)} lines longer than {MAX_LINE_CHARS:,} characters were skipped "
            f"(first, line {line_number}: {length:,} characters)"
        )

    def result(self) -> NcclRun:
        if not self.sizes:
            raise self._no_rows_error()
        warnings = self.warnings
        out = np.array(self.out_values, dtype=np.float64).reshape(-1, 3)
        inp = np.array(self.in_values, dtype=np.float64).reshape(-1, 3)
        if np.isnan(out[:, 0]).all() and not np.isnan(inp[:, 0]).all():
            warnings.append("the table has in-place results only; the out-of-place arrays are NaN")
        collective = self.collective or self.collective_from_command
        keep = _impossible_rows(collective, np.array(self.sizes, dtype=np.int64), out, inp, self.cputime,
                                [f"line {n}" for n in self.row_lines], warnings)
        if not keep.all():
            out, inp = out[keep], inp[keep]
            rows = zip(self.sizes, self.dtypes, self.redops, strict=True)
            self.skipped_sweep += [row for row, kept in zip(rows, keep, strict=True) if not kept]  # reached
            for name in ("row_lines", "sizes", "counts", "dtypes", "redops"):
                setattr(self, name, [value for value, kept in zip(getattr(self, name), keep, strict=True) if kept])
        if self.wrong_rows:
            warnings.append(
                f"{len(self.wrong_rows)} rows report wrong elements (#wrong > 0), first at line {self.wrong_rows[0]}: "
                "those results failed nccl-tests' validation"
            )
        if self.rank_zero_lines > 1:
            warnings.append(
                f"'Rank 0' is listed {self.rank_zero_lines} times: the launcher may have started independent "
                "single-process copies (nccl-tests built without MPI=1?), each with its own communicator"
            )
        listed_ranks = None
        gpu_names: list[str] = []
        hostnames: list[str] = []
        if self.rank_info:
            listed_ranks = max(self.rank_info) + 1
            if len(self.rank_info) != listed_ranks:
                warnings.append(
                    f"Rank lines list {len(self.rank_info)} ranks but the highest is {listed_ranks - 1}; "
                    "the device list may be truncated"
                )
            for rank in sorted(self.rank_info):
                host, gpu = self.rank_info[rank]
                hostnames.append(host)
                gpu_names.append(gpu)
        header_ranks = self.nthread_ngpus[0] * self.nthread_ngpus[1] if self.nthread_ngpus else None
        sizes = np.array(self.sizes, dtype=np.int64)
        algbw = np.where(np.isnan(out[:, 1]), inp[:, 1], out[:, 1])
        busbw = np.where(np.isnan(out[:, 2]), inp[:, 2], out[:, 2])
        ranks, ranks_source = _decide_ranks(
            collective, algbw, busbw, listed_ranks, "Rank lines", "rank lines", header_ranks, None, warnings
        )
        if self.skipped_rows:
            warnings.append(_skipped_rows_warning([(f"line {n}", why) for n, why in self.skipped_rows]))
        if self.sweep is not None:
            _check_complete(self.sweep, self.sizes, self.dtypes, self.redops, self.skipped_sweep, ranks, warnings)
        if not self.cputime:
            _check_algbw(collective, sizes, out, inp, [f"line {n}" for n in self.row_lines], warnings)
        if self.unrecognised:
            warnings.append(
                f"{len(self.unrecognised)} lines were not recognised and were skipped "
                f"(first, line {self.unrecognised[0]}: {self.first_unrecognised_text!r})"
            )
        if self.long_lines:
            warnings.append(self._long_lines_message())
        if self.nccl_warns:
            listed = "; ".join(list(self.nccl_warns)[:_MAX_WARNINGS_LISTED])
            more = len(self.nccl_warns) - _MAX_WARNINGS_LISTED
            warnings.append(f"NCCL WARN: {listed}" + (f" (and {more} more)" if more > 0 else ""))
        return _build_run(
            collective=collective,
            ranks=ranks,
            ranks_source=ranks_source,
            sizes=sizes,
            counts=np.array(self.counts, dtype=np.int64),
            dtypes=self.dtypes,
            redops=self.redops,
            out=out,
            inp=inp,
            time_is_cputime=self.cputime,
            avg_busbw_gbps=self.avg_busbw_gbps,
            gpu_names=gpu_names,
            hostnames=hostnames,
            warnings=warnings,
            fmt="text",
        )


# ---------------------------------------------------------------------------------------------
# Shared by text and JSON
# ---------------------------------------------------------------------------------------------


def _decide_ranks(
    collective: str | None,
    algbw_gbps: np.ndarray,
    busbw_gbps: np.ndarray,
    listed_ranks: int | None,
    listed_label: str,
    listed_source: str,
    header_ranks: int | None,
    resolution_gbps: float | None,
    warnings: list[str],
) -> tuple[int | None, str]:
    """Pick the rank count: listed devices, else busbw/algbw, else the header; warn on disagreement.

    Messages about the busbw/algbw estimate are given only when the estimate is the count used;
    when devices are listed, only a disagreement with them is reported, naming both sources.
    """
    factor: str | None = None
    if collective is not None:
        key = _collective_key(collective)
        if key is None:
            if listed_ranks is None:
                warnings.append(
                    f"collective {_show(collective)} has no known busbw factor; ranks not inferred from busbw/algbw"
                )
            estimate = None
        else:
            factor = _FACTOR_BY_COLLECTIVE[key]
            estimate = _estimate_ranks(factor, algbw_gbps, busbw_gbps, resolution_gbps=resolution_gbps)
    else:
        estimate = _estimate_ranks(None, algbw_gbps, busbw_gbps, resolution_gbps=resolution_gbps)

    if estimate is not None and listed_ranks is None:
        if math.isnan(estimate.low):
            warnings.append(
                f"busbw/algbw varies between rows more than printing rounds it (median {estimate.ratio:.5f}); "
                "the rank count was inferred from the median ratio"
            )
        elif estimate.whole_numbers_admitted() == 0:
            warnings.append(
                f"busbw/algbw = {estimate.ratio:.5f} gives {estimate.ranks_exact:.2f} ranks, not a whole number: "
                "busbw may not follow nccl-tests' standard factor here"
            )
        if collective is None:
            name = "all-reduce's 2(n-1)/n" if estimate.factor == _FACTOR_ALL_REDUCE else "(n-1)/n"
            warnings.append(
                f"the log does not name the collective; busbw/algbw = {estimate.ratio:.4f} fits {name}, "
                "which was used to infer the rank count"
            )

    if listed_ranks is not None:
        if estimate is not None and not estimate.admits(listed_ranks):
            warnings.append(
                f"ranks from {listed_label} ({listed_ranks}) disagree with busbw/algbw ({estimate.ranks}); "
                f"the count from the {listed_label} is used"
            )
        return listed_ranks, listed_source
    if estimate is not None:
        spread = estimate.whole_numbers_admitted()
        if spread > 1 and math.isfinite(estimate.high):
            warnings.append(
                f"busbw/algbw pins the rank count only to {math.ceil(estimate.low - 1e-9)}-"
                f"{math.floor(estimate.high + 1e-9)} (bandwidths are printed with 2 decimals); "
                f"{estimate.ranks} fits the median best"
            )
        if header_ranks is not None and estimate.ranks < header_ranks and not estimate.admits(header_ranks):
            warnings.append(
                f"busbw/algbw implies {estimate.ranks} ranks, fewer than nThread*nGpus = {header_ranks} in the header"
            )
        return estimate.ranks, "inferred from busbw/algbw"
    if header_ranks is not None:
        warnings.append(
            f"rank count taken from the header's nThread*nGpus ({header_ranks}); under MPI every process "
            "prints its own GPUs only, so the real count may be a multiple of it"
        )
        return header_ranks, "nthread*ngpus header"
    return None, "unknown"


def _and_the_others(count: int, rows: str) -> str:
    if count == 0:
        return ""
    if count == 1:
        return f", and the other {rows[:-1]} has NaN, infinite or zero values too"
    return f", and the {count} other {rows} have NaN, infinite or zero values too"


def _skipped_rows_warning(skipped: list[tuple[str, str]]) -> str:
    """One warning for the rows dropped because a value is NaN, infinite or a zero time."""
    listed = "; ".join(f"{where}: {why}" for where, why in skipped[:3])
    more = f"; and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    rows = "1 data row was" if len(skipped) == 1 else f"{len(skipped)} data rows were"
    return f"{rows} skipped because a value is NaN, infinite or a zero time ({listed}{more})"


def _format_size(n_bytes: int) -> str:
    """Sizes as nccl-tests users write them: 512 KiB, 8 GiB, 1000 bytes."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= scale:
            value = n_bytes / scale
            return f"{value:.0f} {unit}" if value.is_integer() else f"{value:.3g} {unit}"
    return f"{n_bytes:,} bytes"


def _check_complete(
    sweep: _Sweep,
    sizes: list[int],
    dtypes: list[str],
    redops: list[str],
    skipped: list[tuple[int, str, str]],
    ranks: int | None,
    warnings: list[str],
) -> None:
    """Warn when the rows stop before the largest size the run was asked for: a truncated log.

    nccl-tests steps ``size = size * factor`` (or ``+ step`` bytes) from minBytes while
    ``size <= maxBytes`` (src/common.cu), once per data type and reduction operation (``-d all``,
    ``-o all``). It prints each size rounded down to whole elements on every rank, so a complete
    sweep may end up to ``ranks x 8`` bytes (largest element) short of the last nominal size; a
    sweep is called truncated only when a whole step is missing beyond that. Rows skipped for a NaN
    or infinite value (``skipped``: size, type, redop) count as reached.
    """
    if sweep.step is None or sweep.max_bytes < sweep.min_bytes:
        return
    if sweep.step_kind == "factor" and sweep.step > 1:
        largest = max(sweep.min_bytes, 1)
        while largest * sweep.step <= sweep.max_bytes:
            largest *= sweep.step
        step_before_largest = largest // sweep.step
    elif sweep.step_kind == "bytes" and sweep.step > 0:
        largest = sweep.min_bytes + (sweep.max_bytes - sweep.min_bytes) // sweep.step * sweep.step
        step_before_largest = largest - sweep.step
    else:
        return
    slack = 16 * (ranks or 1)
    reached: dict[tuple[str, str], int] = {}
    if len(set(dtypes)) == 1 and len(set(redops)) == 1:
        reached[(dtypes[0], redops[0])] = max(sizes)
        rows: list[tuple[int, str, str]] = skipped
    else:
        rows = [*zip(sizes, dtypes, redops, strict=True), *skipped]
    for size, dtype, redop in rows:
        key = (dtype, redop)
        if size > reached.get(key, -1):
            reached[key] = size
    short = [(key, top) for key, top in reached.items() if top <= step_before_largest and top < largest - slack]
    if not short:
        return
    (dtype, redop), top = short[0]
    which = f"the {dtype[:_SHOWN_CHARS]}/{redop[:_SHOWN_CHARS]} rows" if len(reached) > 1 else "the rows"
    warnings.append(
        f"the log looks truncated: {sweep.where} asks for sizes up to {_format_size(largest)} "
        f"(maxBytes {sweep.max_bytes}) but {which} stop at {_format_size(top)}; did the run stop early, "
        "or was only part of its output copied?"
    )


def _check_algbw(
    collective: str | None,
    sizes: np.ndarray,
    out: np.ndarray,
    inp: np.ndarray,
    row_labels: list[str],
    warnings: list[str],
) -> None:
    """Warn when algbw is not size/time (GB/s from B and µs: size / time / 1e3) beyond 5 %."""
    key = _collective_key(collective) if collective else None
    if key not in _ALGBW_IS_SIZE_OVER_TIME or (collective and key is None):
        return
    size = sizes.astype(np.float64)
    bad = np.zeros(len(sizes), dtype=bool)
    first_detail = ""
    for values in (out, inp):
        time_us, algbw = values[:, 0], values[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = size / time_us / 1e3
            off = (
                (algbw >= 0.1)
                & (time_us > 0)
                & np.isfinite(expected)
                & (np.abs(algbw - expected) > 0.05 * algbw + 0.01)
            )
        if off.any() and not first_detail:
            i = int(np.argmax(off))
            first_detail = f"{row_labels[i]}: algbw {algbw[i]:g} GB/s but size/time = {expected[i]:.4g} GB/s"
        bad |= off
    if bad.any():
        warnings.append(
            f"{first_detail} ({int(bad.sum())} rows differ by more than 5%); check the time unit and the size column"
        )


#: Bounds of a row a real run could print. One collective on GPUs takes at least a nanosecond (a
#: kernel launch alone takes microseconds) and, inside a benchmark sweep, less than 1,000 s; no row
#: moves more than 100 TB/s, over ten times the fastest link or memory in the catalogue (a test keeps
#: that true). Rows outside them are refused, not fitted.
MIN_ROW_TIME_US = 1e-3
MAX_ROW_TIME_US = 1e9
MAX_ROW_RATE_GBPS = 1e5
_REFUSED_LISTED = 5


def _row_problem(size: float, values: np.ndarray, check_algbw: bool, ratio: float | None) -> str | None:
    """Why one placement's (time µs, algbw GB/s, busbw GB/s) cannot come from a real run, else None."""
    time_us, algbw, busbw = (float(v) for v in values)
    if not math.isfinite(time_us):
        return None  # a missing placement (NaN); infinities are skipped as unusable before this
    if time_us < MIN_ROW_TIME_US:
        return f"time {time_us:.3g} µs is under a nanosecond; no collective is that quick"
    if time_us > MAX_ROW_TIME_US:
        return f"time {time_us:.3g} µs is over 1,000 s for one operation"
    rate = size / time_us / 1e3
    if rate > MAX_ROW_RATE_GBPS:
        return f"size/time is {rate:.3g} GB/s, orders of magnitude beyond any link"
    if check_algbw and math.isfinite(algbw) and (
        (algbw >= 0.1 and not algbw / 10 <= rate <= algbw * 10) or (algbw < 0.1 and rate >= 1.0)
    ):
        return f"algbw {algbw:g} GB/s but size/time is {rate:.3g} GB/s (more than ten times apart)"
    if ratio is not None and algbw >= 1.0 and math.isfinite(busbw) and abs(busbw / algbw - ratio) > 0.1 * ratio + 0.02:
        return (f"busbw {busbw:g} GB/s beside algbw {algbw:g} GB/s (busbw/algbw {busbw / algbw:.3g}; "
                f"the other rows' is {ratio:.3g})")
    return None


def _impossible_rows(collective: str | None, sizes: np.ndarray, out: np.ndarray, inp: np.ndarray, cputime: bool,
                     row_labels: list[str], warnings: list[str]) -> np.ndarray:
    """Which rows to keep: a row no real run could print is refused, with a warning naming it and why.

    Raises :class:`NcclLogError` if every row is refused.
    Bandwidths are compared only where printing (two decimals) leaves them precise enough.
    """
    key = _collective_key(collective) if collective else None
    check_algbw = not cputime and key in _ALGBW_IS_SIZE_OVER_TIME and not (collective and key is None)
    both = np.concatenate([out, inp])
    usable = np.isfinite(both[:, 1]) & (both[:, 1] >= 1.0) & np.isfinite(both[:, 2])
    ratio = float(np.median(both[usable, 2] / both[usable, 1])) if usable.sum() >= 3 else None
    keep = np.ones(len(sizes), dtype=bool)
    refused: list[str] = []
    for i, size in enumerate(sizes.astype(np.float64)):
        for name, values in (("out-of-place", out[i]), ("in-place", inp[i])):
            problem = _row_problem(float(size), values, check_algbw, ratio)
            if problem:
                keep[i] = False
                refused.append(f"{row_labels[i]} ({name}): {problem}")
                break
    if not refused:
        return keep
    if not keep.any():
        raise NcclLogError(f"every row is impossible for a real run, so nothing is fitted; first, {refused[0]}")
    more = len(refused) - _REFUSED_LISTED
    warnings.append(f"{len(refused)} rows refused as impossible for a real run: " + "; ".join(refused[:_REFUSED_LISTED])
                    + (f"; and {more} more" if more > 0 else ""))
    return keep


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


_MAX_WARNINGS = 20  # a hostile log could otherwise produce one warning per line


def _build_run(
    *,
    collective: str | None,
    ranks: int | None,
    ranks_source: str,
    sizes: np.ndarray,
    counts: np.ndarray,
    dtypes: list[str],
    redops: list[str],
    out: np.ndarray,
    inp: np.ndarray,
    time_is_cputime: bool,
    avg_busbw_gbps: float | None,
    gpu_names: list[str],
    hostnames: list[str],
    warnings: list[str],
    fmt: str,
) -> NcclRun:
    if len(warnings) > _MAX_WARNINGS:
        hidden = len(warnings) - (_MAX_WARNINGS - 1)
        warnings = warnings[: _MAX_WARNINGS - 1] + [f"{hidden} more warnings are not shown"]
    return NcclRun(
        collective=collective,
        ranks=ranks,
        ranks_source=ranks_source,
        size_bytes=_readonly(sizes),
        count_elements=_readonly(counts),
        dtype=list(dtypes),
        redop=list(redops),
        time_us=_readonly(out[:, 0]),
        algbw_gbps=_readonly(out[:, 1]),
        busbw_gbps=_readonly(out[:, 2]),
        inplace_time_us=_readonly(inp[:, 0]),
        inplace_algbw_gbps=_readonly(inp[:, 1]),
        inplace_busbw_gbps=_readonly(inp[:, 2]),
        time_is_cputime=time_is_cputime,
        avg_busbw_gbps=avg_busbw_gbps,
        gpu_names=gpu_names,
        hostnames=hostnames,
        warnings=warnings,
        format=fmt,
    )


# ---------------------------------------------------------------------------------------------
# JSON format (-J)
# ---------------------------------------------------------------------------------------------

_JSON_FILE_VERSION_KNOWN = 3
_BARE_INF_RE = re.compile(r"(?<=[:\[,])(\s*)(-?)inf\b")  # nccl-tests prints inf with %lf, which JSON lacks


def _json_float(value: object, where: str) -> float:
    """Read a JSON number (or nccl-tests' string "nan"); None is NaN. May return NaN or infinity."""
    if value is None:
        return math.nan
    if isinstance(value, bool):
        raise NcclLogError(f"{where} is {_show(value)}, expected a number")
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # a whole number of more than 308 digits
            raise NcclLogError(f"{where} is {_show(value)}, too large for a number nccl-tests writes") from None
    if isinstance(value, float):
        return value
    if isinstance(value, str):  # nccl-tests writes NaN as the string "nan"
        try:
            return float(value)
        except ValueError:
            pass
    raise NcclLogError(f"{where} is {_show(value)}, expected a number")


def _json_int(value: object, where: str) -> int:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        number = _as_int(value.strip())
    if number is None:
        raise NcclLogError(f"{where} is {_show(value)}, expected a whole number")
    if not 0 <= number <= _INT64_MAX:
        raise NcclLogError(f"{where} is {_show(value)}, outside 0..2^63-1")
    return number


_DIGIT_RUN_RE = re.compile(r"\d+")


def _long_number_error(text: str) -> NcclLogError:
    """Name the line of the first integer too long for Python's json.

    Python's json refuses integers over sys.get_int_max_str_digits() (4,300) digits with a bare
    ValueError; one linear scan finds the first such number.
    """
    limit = sys.get_int_max_str_digits() or 4300
    for run in _DIGIT_RUN_RE.finditer(text):
        if run.end() - run.start() > limit:
            line_number = text.count("\n", 0, run.start()) + 1
            return NcclLogError(
                f"a number of {run.end() - run.start():,} digits; nccl-tests writes nothing that long", line_number
            )
    return NcclLogError("the JSON holds a number too long to read")


def _json_label(value: object, max_chars: int = _SHOWN_CHARS) -> str:
    """Read a name (data type, reduction, GPU, host) from JSON, as text of bounded length."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return _show(value)
    text = value if isinstance(value, str) else (str(value) if isinstance(value, int | float | bool) else "")
    return text.strip()[:max_chars]


def _json_sweep(config: dict) -> _Sweep | None:
    """Read the size sweep from the -J file's config (minimum_bytes, maximum_bytes, step_factor or step_bytes)."""
    low, high = config.get("minimum_bytes"), config.get("maximum_bytes")
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= _INT64_MAX for v in (low, high)):
        return None
    for key, kind in (("step_factor", "factor"), ("step_bytes", "bytes")):
        step = config.get(key)
        if isinstance(step, int) and not isinstance(step, bool) and (step > 1 if kind == "factor" else step > 0):
            if step <= _INT64_MAX:
                return _Sweep(low, high, step, kind, "the JSON config")
    return None


def _load_json(text: str) -> object:
    try:
        return json.loads(text)
    except RecursionError:
        raise NcclLogError("the JSON is nested too deeply to be nccl-tests output") from None
    except json.JSONDecodeError as exc:
        repaired = _BARE_INF_RE.sub(r"\1\2Infinity", text)
        if repaired != text:
            try:
                return json.loads(repaired)
            except (json.JSONDecodeError, RecursionError):
                pass
            except ValueError:  # now reading further, it met a number over 4,300 digits
                raise _long_number_error(repaired) from None
        if not text.rstrip().endswith("}"):  # nccl-tests closes its one object last (jsonOutputFinalize)
            reason = "the JSON ends early (was the nccl-tests run interrupted before it finished the file?)"
        else:
            reason = f"not valid JSON: {exc.msg} (column {exc.colno})"
        raise NcclLogError(reason, exc.lineno) from None
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise _long_number_error(text) from None


def _parse_json(text: str) -> NcclRun:
    document = _load_json(text)
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
    warnings: list[str] = []
    version = document.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > _JSON_FILE_VERSION_KNOWN:
        warnings.append(
            f"JSON file version {version if version <= _INT64_MAX else _show(version)} is newer than version "
            f"{_JSON_FILE_VERSION_KNOWN} this reader was written for"
        )
    config = document.get("config")
    config = config if isinstance(config, dict) else {}

    sizes: list[int] = []
    counts: list[int] = []
    dtypes: list[str] = []
    redops: list[str] = []
    placements: dict[str, list[tuple[float, float, float]]] = {"out_of_place": [], "in_place": []}
    cputime = False
    wrong_rows: list[int] = []
    skipped: list[tuple[str, str]] = []  # (where, why): NaN, infinite or zero-time results
    kept: list[int] = []  # indices into results of the rows read
    skipped_sweep: list[tuple[int, str, str]] = []  # (size, type, redop) of the results skipped
    for i, row in enumerate(results):
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
        for key in placements:
            part = row.get(key)
            if part is None:  # writeBenchMarkLineNullBody: this placement was not run
                row_values[key] = (math.nan, math.nan, math.nan)
                continue
            if not isinstance(part, dict):
                raise NcclLogError(f"{where}.{key} is not an object")
            time_key = "cpu_time" if "cpu_time" in part else "time"
            cputime |= time_key == "cpu_time"
            values = (
                _json_float(part.get(time_key), f"{where}.{key}.{time_key}"),
                _json_float(part.get("alg_bw"), f"{where}.{key}.alg_bw"),
                _json_float(part.get("bus_bw"), f"{where}.{key}.bus_bw"),
            )
            for name, value in zip((time_key, "alg_bw", "bus_bw"), values, strict=True):
                if value < 0:
                    raise NcclLogError(f"{where}.{key}.{name} is {value:g}, a negative time or bandwidth")
                if not unusable and not value < math.inf:
                    unusable = f"{key}.{name} is {_show(part.get(name))}, not a finite number"
            if not unusable and values[0] == 0:
                unusable = f"{key}.{time_key} is zero"
            row_values[key] = values
            wrong |= _json_float(part.get("nwrong"), f"{where}.{key}.nwrong") > 0
        if all(row.get(key) is None for key in placements):
            raise NcclLogError(f"{where} has neither 'out_of_place' nor 'in_place' results")
        if unusable:
            skipped.append((where, unusable))
            skipped_sweep.append((size, _json_label(row.get("type", "")), _json_label(row.get("redop", "none"))))
            continue
        if wrong:
            wrong_rows.append(i)
        kept.append(i)
        sizes.append(size)
        counts.append(count)
        dtypes.append(_json_label(row.get("type", "")))
        redops.append(_json_label(row.get("redop", "none")))
        for key, values in row_values.items():
            placements[key].append(values)

    if not sizes:
        where, why = skipped[0]
        more = len(skipped) - 1
        raise NcclLogError(f"no usable results: {where}.{why}{_and_the_others(more, 'results')}")
    out = np.array(placements["out_of_place"], dtype=np.float64).reshape(-1, 3)
    inp = np.array(placements["in_place"], dtype=np.float64).reshape(-1, 3)
    if np.isnan(out[:, 0]).all():
        warnings.append("the table has in-place results only; the out-of-place arrays are NaN")
    if skipped:
        warnings.append(_skipped_rows_warning(skipped))
    if wrong_rows:
        warnings.append(
            f"{len(wrong_rows)} results report wrong elements (nwrong > 0), first results[{wrong_rows[0]}]: "
            "those results failed nccl-tests' validation"
        )

    collective = None
    if isinstance(document.get("collective"), str) and document["collective"].strip():
        collective = document["collective"].strip()[:_NAME_CHARS]
    else:
        args = document.get("args")
        if isinstance(args, list) and args and isinstance(args[0], str) and args[0].strip():
            collective = re.split(r"[\\/]", args[0].strip())[-1][:_NAME_CHARS]

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
    # nccl-tests' JSON keeps only the first "# Rank" line of each process (parseRankInfo reads one line
    # of the per-process buffer), so devices has one entry per process, each driving nThread*nGpus ranks.
    listed_ranks = len(devices) * per_process if devices else None

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

    keep = _impossible_rows(collective, np.array(sizes, dtype=np.int64), out, inp, cputime,
                            [f"results[{i}]" for i in kept], warnings)
    if not keep.all():
        out, inp = out[keep], inp[keep]
        skipped_sweep += [row for row, k in zip(zip(sizes, dtypes, redops, strict=True), keep, strict=True) if not k]
        sizes, counts, dtypes, redops, kept = ([value for value, k in zip(column, keep, strict=True) if k]
                                               for column in (sizes, counts, dtypes, redops, kept))
    sizes_arr = np.array(sizes, dtype=np.int64)
    algbw = np.where(np.isnan(out[:, 1]), inp[:, 1], out[:, 1])
    busbw = np.where(np.isnan(out[:, 2]), inp[:, 2], out[:, 2])
    ranks, ranks_source = _decide_ranks(
        collective, algbw, busbw, listed_ranks, "JSON devices", "json devices", header_ranks, 5e-7, warnings
    )
    sweep = _json_sweep(config)
    if sweep is not None:
        _check_complete(sweep, sizes, dtypes, redops, skipped_sweep, ranks, warnings)
    if not cputime:
        _check_algbw(collective, sizes_arr, out, inp, [f"results[{i}]" for i in kept], warnings)
    return _build_run(
        collective=collective,
        ranks=ranks,
        ranks_source=ranks_source,
        sizes=sizes_arr,
        counts=np.array(counts, dtype=np.int64),
        dtypes=dtypes,
        redops=redops,
        out=out,
        inp=inp,
        time_is_cputime=cputime,
        avg_busbw_gbps=avg_busbw_gbps,
        gpu_names=gpu_names,
        hostnames=hostnames,
        warnings=warnings,
        fmt="json",
    )


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------


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
