"""Reading the values of nccl-tests' ``-J`` JSON file: the document itself, numbers, names and the size sweep.

:func:`_load_json` parses the text (repairing the bare ``inf`` nccl-tests prints, naming the line
of a number too long for Python's json); :func:`_json_float`, :func:`_json_int` and
:func:`_json_label` read one value each with a message that names where it sits
(``results[3].out_of_place.time``); :func:`_json_sweep` reads the size sweep from ``config``.
The document's structure is :mod:`.json_file`'s.
"""

from __future__ import annotations

import json
import math
import re
import sys

from interconnect.io.nccl_tests.decode import _INT64_MAX, _SHOWN_CHARS, _as_int, _show
from interconnect.io.nccl_tests.layouts import _Sweep
from interconnect.io.nccl_tests.run import NcclLogError

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
    """Read a whole number in 0..2^63-1 from JSON (an integer, an integral float, or a numeric string)."""
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
