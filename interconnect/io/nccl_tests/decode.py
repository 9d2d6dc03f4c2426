"""From what the user gave to text: bytes and encodings, size limits, and turning single tokens into numbers."""

from __future__ import annotations

import math
import re
from typing import BinaryIO

from interconnect.io.nccl_tests.run import _BINARY_MESSAGE, MAX_LOG_BYTES, NcclLogError
from interconnect.units import IntegerInputError, expects, read_int

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


#: How much :func:`read_capped` asks a stream for at a time.
_READ_CHUNK = 1 << 20


@expects(max_bytes="B")
def read_capped(stream: BinaryIO, max_bytes: int = MAX_LOG_BYTES, *, size: int | None = None) -> bytes:
    """Read a log from ``stream`` without ever holding more than ``max_bytes + 1`` bytes of it.

    A file of 400 MB, ``/dev/zero`` or a standard input that never ends is refused once one byte past
    the limit has arrived (``size``, a regular file's size when known, refuses it before any read), with
    the same :class:`NcclLogError` as :func:`parse_nccl_runs` gives a log too large.

    >>> import io
    >>> read_capped(io.BytesIO(b"12345"), 5)
    b'12345'
    >>> try:
    ...     read_capped(io.BytesIO(b"123456"), 5)
    ... except NcclLogError as exc:
    ...     print(exc)
    the log is more than 5 bytes; the limit is 5 bytes
    """
    if size is not None and size > max_bytes:
        raise _too_large(size, max_bytes)
    chunks, total = [], 0
    while total <= max_bytes:
        chunk = stream.read(min(_READ_CHUNK, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > max_bytes:
        limit_text = _format_bytes(max_bytes)
        raise NcclLogError(f"the log is more than {limit_text}; the limit is {limit_text}")
    return b"".join(chunks)


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
