"""One data row of the text output: whether tokens start a row, reading its fields, and the table of rows kept.

A row is read by one of two paths. :func:`_read_plain_row` takes the common row (known type and
reduction, whole numbers, positive finite values) in a few conversions and says None for anything
else; :func:`_read_row` then reads it field by field, raising :class:`NcclLogError` for what cannot
be nccl-tests output and naming what makes a row unusable (NaN, infinity, a zero time) so that the
row is skipped with a warning rather than refusing the log. :class:`_RowTable` keeps the rows
accepted, column by column, with the rows skipped and those that report wrong elements.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from interconnect.io.nccl_tests.decode import _INT64_MAX, _MAX_INT_CHARS, _NA_TOKENS, _as_int, _is_number, _show
from interconnect.io.nccl_tests.layouts import _KNOWN_DTYPES, _KNOWN_REDOPS, _Layout
from interconnect.io.nccl_tests.run import NcclLogError

_ABSENT = (math.nan, math.nan, math.nan)  # time, algbw, busbw of a placement the row does not have


class _Row(NamedTuple):
    """One data row as read: size (B), count (elements), type, reduction, and each placement's values.

    ``out_values`` and ``in_values`` are (time µs, algbw GB/s, busbw GB/s), all NaN where absent.
    """

    size: int
    count: int
    dtype: str
    redop: str
    out_values: tuple[float, ...]
    in_values: tuple[float, ...]


def _is_row_start(tokens: list[str]) -> bool:
    """Say whether the tokens start a data row: ``size count type ...``, or a damaged row.

    A damaged row is an integer, a data type among the next two tokens and at least four
    numbers (reported as malformed rather than skipped).

    >>> _is_row_start("1048576 262144 float sum -1 8.52".split()), _is_row_start("# size count".split())
    (True, False)
    """
    if len(tokens) < 3 or not (tokens[0].isdecimal() or _as_int(tokens[0]) is not None):
        return False  # (a run of digits too long for _as_int is a row with a size too large)
    if tokens[2] in _KNOWN_DTYPES and tokens[1].isdecimal():
        return True
    if _as_int(tokens[1]) is not None and not _is_number(tokens[2]):
        return True
    return (tokens[1] in _KNOWN_DTYPES or tokens[2] in _KNOWN_DTYPES) and sum(map(_is_number, tokens)) >= 4


def _read_plain_row(tokens: list[str], layout: _Layout) -> _Row | None:
    """Read the common row by the fast path, or return None.

    Known type and reduction, whole numbers, positive finite values, #wrong 0 or N/A (any number
    in the old max-error column). Returns None for anything else; :func:`_read_row` then accepts
    it, skips it or says what is wrong.
    """
    dtype = tokens[2]
    redop = "none" if layout.i_redop is None else tokens[layout.i_redop]
    if dtype not in _KNOWN_DTYPES or redop not in _KNOWN_REDOPS:
        return None
    try:
        for i in layout.wrong_columns:
            wrong = tokens[i]
            if wrong == "0" or wrong in _NA_TOKENS:
                continue
            bare = wrong.rstrip("*")
            if layout.wrong_is_count or (layout.wrong_is_count is None and _as_int(bare) is not None):
                return None  # a count of wrong elements: the general path records the row
            float(bare)  # the old max-error column ("2e-07"): only needs to be a number
        size, count = int(tokens[0]), int(tokens[1])
        if layout.i_root is not None:
            int(tokens[layout.i_root])
        values = tuple(map(float, layout.get_values(tokens)))
    except ValueError:
        return None
    # NaN or an infinity makes the sum NaN or infinite; a huge finite sum that overflows only
    # sends the row to the slow path.
    if not (0 <= size <= _INT64_MAX and 0 <= count <= _INT64_MAX and sum(values) < math.inf and min(values) >= 0):
        return None
    if layout.time_scale_to_us != 1.0:
        scale = layout.time_scale_to_us
        values = tuple(v * scale if k % 3 == 0 else v for k, v in enumerate(values))
        if sum(values) == math.inf:
            return None
    if values[0] == 0 or (len(values) == 6 and values[3] == 0):
        return None
    if len(values) == 6:  # groups are ("out", "in") whenever there are two
        return _Row(size, count, dtype, redop, values[:3], values[3:])
    if layout.groups[0].placement == "out":
        return _Row(size, count, dtype, redop, values, _ABSENT)
    return _Row(size, count, dtype, redop, _ABSENT, values)


def _read_row(
    tokens: list[str], layout: _Layout, line_number: int, unknown_dtypes: set[str], warnings: list[str]
) -> tuple[_Row, bool, str | None]:
    """Read a row field by field: the row, whether it reports wrong elements, and why it is unusable.

    The third value is None for a usable row, else the first reason it cannot be used (a NaN or
    infinite number, a zero time); the caller skips such a row. Anything that cannot be nccl-tests
    output raises :class:`NcclLogError`. A data type not seen before is warned about once
    (``unknown_dtypes`` remembers those already named in ``warnings``).
    """
    unusable: list[str] = []  # non-finite numbers and zero times: the row is skipped, not fatal
    size = _int_field(tokens[layout.i_size], "size", line_number, unusable)
    count = _int_field(tokens[layout.i_count], "count", line_number, unusable)
    dtype = tokens[layout.i_type]
    if dtype not in _KNOWN_DTYPES:
        _check_dtype(dtype, line_number, unknown_dtypes, warnings)
    redop = "none"
    if layout.i_redop is not None:
        redop = tokens[layout.i_redop]
        if redop not in _KNOWN_REDOPS and _is_number(redop):
            raise NcclLogError(f"redop {_show(redop)} should be a reduction name such as sum", line_number)
    if layout.i_root is not None and _as_int(tokens[layout.i_root]) is None:
        raise NcclLogError(f"root {_show(tokens[layout.i_root])} is not a whole number", line_number)
    out_values = in_values = _ABSENT
    wrong = False
    for group in layout.groups:
        time_token = tokens[group.i_time]
        time_us = _float_field(time_token, "time", line_number, unusable) * layout.time_scale_to_us
        values = (
            time_us,
            _float_field(tokens[group.i_algbw], "algbw", line_number, unusable),
            _float_field(tokens[group.i_busbw], "busbw", line_number, unusable),
        )
        if time_us == 0:
            unusable.append(f"time {_show(time_token)} is zero")
        elif math.isinf(time_us) and not unusable:
            unusable.append(f"time {_show(time_token)} ms is out of range")
        if group.i_wrong is not None and _wrong_field(tokens[group.i_wrong], layout, line_number):
            wrong = True
        if group.placement == "out":
            out_values = values
        else:
            in_values = values
    return _Row(size, count, dtype, redop, out_values, in_values), wrong, (unusable[0] if unusable else None)


def _check_dtype(dtype: str, line_number: int, unknown_dtypes: set[str], warnings: list[str]) -> None:
    """Refuse a number or a reduction in the type column; warn once about a type name not known."""
    if _is_number(dtype):
        raise NcclLogError(f"type {_show(dtype)} should be a data type name such as float", line_number)
    if dtype in _KNOWN_REDOPS:
        raise NcclLogError(
            f"'{dtype}' is a reduction operation but sits in the type column; is a column missing?", line_number
        )
    if dtype not in unknown_dtypes:
        unknown_dtypes.add(dtype)
        warnings.append(f"line {line_number}: unfamiliar data type {_show(dtype)}")


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


class _RowTable:
    """The data rows read so far, column by column, and the rows skipped or flagged on the way.

    ``out_values`` and ``in_values`` are flat (time, algbw, busbw of each row in turn), for one
    reshape at the end.
    """

    def __init__(self) -> None:
        self.row_lines: list[int] = []
        self.sizes: list[int] = []
        self.counts: list[int] = []
        self.dtypes: list[str] = []
        self.redops: list[str] = []
        self.out_values: list[float] = []
        self.in_values: list[float] = []
        self.wrong_rows: list[int] = []  # lines of rows reporting wrong elements
        self.skipped_rows: list[tuple[int, str]] = []  # (line number, why the row cannot be used)
        self.skipped_sweep: list[tuple[int, str, str]] = []  # (size, type, redop) of rows skipped: the run reached them

    def append(self, line_number: int, row: _Row) -> None:
        """Keep one accepted data row: its line, size, count, type, operation and both placements' values."""
        size, count, dtype, redop, out_values, in_values = row  # unpacked: once per row of a long log
        self.row_lines.append(line_number)
        self.sizes.append(size)
        self.counts.append(count)
        self.dtypes.append(dtype)
        self.redops.append(redop)
        self.out_values.extend(out_values)
        self.in_values.extend(in_values)

    def skip(self, line_number: int, row: _Row, why: str) -> None:
        """Leave out a row that cannot be used (``why``), remembering that the run reached its size."""
        self.skipped_rows.append((line_number, why))
        self.skipped_sweep.append((row.size, row.dtype, row.redop))

    def keep_only(self, keep: np.ndarray) -> None:
        """Drop the accepted rows where ``keep`` is false; they count as reached for the sweep check.

        The flat value lists are left as they are: the caller has already filtered its arrays.
        """
        rows = zip(self.sizes, self.dtypes, self.redops, strict=True)
        self.skipped_sweep += [row for row, kept in zip(rows, keep, strict=True) if not kept]
        for name in ("row_lines", "sizes", "counts", "dtypes", "redops"):
            setattr(self, name, [value for value, kept in zip(getattr(self, name), keep, strict=True) if kept])
