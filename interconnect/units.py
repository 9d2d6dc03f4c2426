"""The one unit registry of Interconnect Explorer, plus parsing and formatting helpers.

Every other module imports ``ureg`` and ``Q_`` from here. The registry is built from pint's own
``default_en.txt`` with one change: ``bit`` is a base dimension (``[information]``) instead of
dimensionless. Stock pint lets ``Q_("1 GB/s").to("GHz")`` succeed (giving 8 GHz), which is exactly
the confusion between a link rate and a clock rate this project exists to prevent.

Pitfall kept on purpose: ``Gb`` is pint's *gilbert* (magnetomotive force). Always write ``Gbit``.
The user-input parser :func:`parse_quantity` recognises the networking shorthand (``Gb/s``,
``Gbps``) and says what it read.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import pint

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "DIMENSIONS",
    "IntegerInputError",
    "InterconnectError",
    "MAX_INT_CHARS",
    "Q_",
    "QuantityInputError",
    "SECONDS_PER_UNIT",
    "UnitMismatchError",
    "expects",
    "ParsedQuantity",
    "QuantityText",
    "format_quantity",
    "format_bandwidth",
    "format_duration",
    "format_seconds",
    "format_size",
    "magnitude_in",
    "parse_quantity",
    "read_int",
    "read_quantity",
    "ureg",
]


def _build_registry() -> pint.UnitRegistry:
    pint_dir = Path(pint.__file__).parent
    default_text = (pint_dir / "default_en.txt").read_text(encoding="utf-8")
    constants_text = (pint_dir / "constants_en.txt").read_text(encoding="utf-8")
    lines = default_text.splitlines()
    # Fail loudly if a pint upgrade changes the line we rely on.
    if "bit = []" not in lines:
        raise RuntimeError("pint's default_en.txt no longer defines 'bit = []'; units.py needs updating")
    if "@import constants_en.txt" not in lines:
        raise RuntimeError("pint's default_en.txt no longer imports constants_en.txt")
    patched: list[str] = []
    for line in lines:
        if line == "bit = []":
            patched.append("bit = [information]")
        elif line == "@import constants_en.txt":
            patched.extend(constants_text.splitlines())
        else:
            patched.append(line)
    registry = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=True)
    registry.load_definitions(patched)
    project_units = resources.files("interconnect").joinpath("units.txt").read_text(encoding="utf-8")
    registry.load_definitions(project_units.splitlines())
    registry.formatter.default_format = "~P"
    return registry


ureg: pint.UnitRegistry = _build_registry()
# Required: st.cache_data pickles return values; without an application registry a cached
# Quantity comes back bound to a different registry and cannot be combined with ours.
pint.set_application_registry(ureg)
Q_ = ureg.Quantity

@functools.lru_cache(maxsize=512)
def _factor(units: pint.Unit, target: str) -> float:
    """How many ``target`` one of ``units`` is (pint parses ``target`` once per pair, not once per call)."""
    return float(Q_(1.0, units).to(target).magnitude)


def magnitude_in(quantity: pint.Quantity, target: str) -> float:
    """Return ``quantity``'s magnitude in ``target`` units, as a float.

    The same number as ``quantity.to(target).magnitude`` for the multiplicative units the catalog uses, with the
    unit conversion looked up once per pair of units: the layout search and the published runs convert the same
    few catalog figures thousands of times.

    >>> magnitude_in(Q_(989.4, "TFLOP/s"), "FLOP/s")
    989400000000000.0
    >>> magnitude_in(Q_(400, "Gbit/s"), "GB/s")
    50.0
    """
    return float(quantity.magnitude) * _factor(quantity.units, target)


#: Named dimensions that user input and catalog figures are checked against.
DIMENSIONS: dict[str, str] = {
    "bandwidth": "[information] / [time]",
    "size": "[information]",
    "length": "[length]",
    "time": "[time]",
    "flop_rate": "[compute] / [time]",
    "speed": "[length] / [time]",
    "dimensionless": "",
}

#: An example for each dimension, used in error messages that teach the expected form.
EXAMPLES: dict[str, str] = {
    "bandwidth": "400 Gbit/s",
    "size": "256 MiB",
    "length": "3 m",
    "time": "5 µs",
    "flop_rate": "989 TFLOP/s",
    "speed": "200000 km/s",
    "dimensionless": "0.8",
}

_DIMENSION_WORDS: dict[str, str] = {
    "[information] / [time]": "a bandwidth",
    "[information]": "a data size",
    "[length]": "a length",
    "[time]": "a time",
    "[compute] / [time]": "a compute rate",
    "[length] / [time]": "a speed",
    "[compute]": "an operation count",
    "1 / [time]": "a frequency (Hz is not a link rate)",
    "[mass]": "a mass",
    "": "a plain number",
}

#: The same examples keyed by pint dimensionality, for messages about a function's arguments.
EXAMPLE_BY_DIMENSION: dict[str, str] = {DIMENSIONS[key]: EXAMPLES[key] for key in DIMENSIONS if DIMENSIONS[key]}

MAX_INPUT_CHARS = 64

# Networking shorthand that pint would misread: Gb is the gilbert, and 'Gbps' is not a pint unit.
_SHORTHAND = [
    (re.compile(r"(?<![A-Za-z])([kKMGTP])b(?=/s\b|ps\b)"), r"\1bit"),
    (re.compile(r"(?<![A-Za-z])([kKMGTP]?)bit ?ps\b"), r"\1bit/s"),
    (re.compile(r"(?<![A-Za-z])([kKMGTP]?)bps\b"), r"\1bit/s"),
    (re.compile(r"(?<![A-Za-z])([kKMGTP]?)Bps\b"), r"\1B/s"),
]


class InterconnectError(Exception):
    """Base of every error this package raises on purpose (as pint's ``PintError``).

    Catch it to handle any input, catalog, log or command-line error in one place. Every subclass
    pickles and unpickles to an equal error, because ``st.cache_data`` pickles what it caches.
    """


class QuantityInputError(InterconnectError, ValueError):
    """A user-typed quantity could not be used; the message says why and what was expected."""


@dataclass(frozen=True)
class ParsedQuantity:
    """A parsed quantity and, where the text was reinterpreted, a note saying how."""

    quantity: pint.Quantity
    note: str = ""


def dimension_word(dimensionality: object) -> str:
    """Plain-English name of a pint dimensionality ('a length', 'a bandwidth', ...)."""
    key = str(dimensionality)
    if key in _DIMENSION_WORDS:
        return _DIMENSION_WORDS[key]
    if key == "dimensionless":
        return "a plain number"
    return f"something measured in {key}"


def _clean_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("μ", "u").replace("µ", "u")
    return text.strip()


# --- the strict "number unit" grammar ---------------------------------------------------------
#
# User text is never handed to pint's string parser: that parser is an expression evaluator, and
# ``Q_("9^9^8 B")`` computes the power as an exact Python integer (a minute of CPU for a nine-
# character link). Instead the text must match this grammar, in linear time, and the Quantity is
# built from a float and unit objects looked up by name:
#
#     quantity := number [unit]
#     number   := [+-] digits [. digits] [e [+-] digits]      (or digits grouped as 1,600)
#     unit     := name [exponent] { ("/" | "*" | " ") name [exponent] }
#     name     := a letter or µ, then letters, digits, "_" (a hyphen between letters reads as "_")
#     exponent := "^" or "**", then an optional sign and one digit (m^2, s^-1)

ACCEPTED_FORM = "a number and a unit, such as '400 Gbit/s', '25 MB', '3 m', '1.5e3 us'"

_NUMBER_RE = re.compile(
    r"(?P<number>[+-]?(?:\d{1,3}(?:,\d{3})+|\d{1,40})(?:\.\d{0,40})?(?:[eE][+-]?\d{1,5})?"
    r"|[+-]?\.\d{1,40}(?:[eE][+-]?\d{1,5})?)"
)
_NAME = r"[A-Za-z_\u00b5\u00b0\u03a9][A-Za-z0-9_]*"
_EXPONENT = r"(?:\^|\*\*)[+-]?\d"
_UNIT_RE = re.compile(
    rf"(?P<first>{_NAME})(?P<first_exp>{_EXPONENT})?"
    rf"(?P<rest>(?:\s*[/*]\s*{_NAME}(?:{_EXPONENT})?|\s+{_NAME}(?:{_EXPONENT})?)*)"
)
_UNIT_TERM_RE = re.compile(rf"(?P<op>\s*[/*]\s*|\s+)(?P<name>{_NAME})(?P<exp>{_EXPONENT})?")
_HYPHENATED_NAME_RE = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")


def _unit_factor(name: str, exponent_text: str | None, raw: str, want: str, example: str) -> pint.Unit:
    """Look up one unit name (already matched by the grammar) and raise it to its exponent."""
    try:
        unit = ureg.Unit(name)
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, ValueError) as exc:
        raise QuantityInputError(f"expected {want} like '{example}': unknown unit '{name}' in '{raw}'") from exc
    if exponent_text:
        unit = unit ** int(exponent_text.lstrip("^*"))
    return unit


def _build_quantity(text: str, raw: str, want: str, example: str) -> pint.Quantity:
    """Read ``text`` with the strict grammar above and build the Quantity; never evaluates anything."""
    text = _HYPHENATED_NAME_RE.sub("_", text)
    number_match = _NUMBER_RE.match(text)
    if number_match is None:
        if re.match(_NAME, text):
            raise QuantityInputError(
                f"expected {want} like '{example}': unknown unit in '{raw}' (it needs a number first: {ACCEPTED_FORM})"
            )
        raise QuantityInputError(f"expected {want} like '{example}', got characters that are not part of a quantity")
    number_text = number_match.group("number").replace(",", "")
    remainder = text[number_match.end():].strip()
    value = float(number_text)  # the grammar admits only float literals; 1e999 becomes inf, refused below
    if not remainder:
        return Q_(value)
    unit_match = _UNIT_RE.fullmatch(remainder)
    if unit_match is None:
        if re.search(r"[<>\"'`;{}\[\]\\]", remainder):
            raise QuantityInputError(
                f"expected {want} like '{example}', got characters that are not part of a quantity"
            )
        raise QuantityInputError(
            f"expected {want} like '{example}', could not read '{raw}': write {ACCEPTED_FORM} "
            "(no arithmetic such as 10^3 or 2*4)"
        )
    unit = _unit_factor(unit_match.group("first"), unit_match.group("first_exp"), raw, want, example)
    for term in _UNIT_TERM_RE.finditer(unit_match.group("rest")):
        factor = _unit_factor(term.group("name"), term.group("exp"), raw, want, example)
        unit = unit / factor if "/" in term.group("op") else unit * factor
    return Q_(value, unit)


def parse_quantity(text: object, expected: str, *, allow_zero: bool = False) -> ParsedQuantity:
    """Parse user input such as ``"400 Gbit/s"`` and check it has the ``expected`` dimension.

    ``expected`` is a key of :data:`DIMENSIONS`. Raises :class:`QuantityInputError` with a message
    a person can act on ("expected a bandwidth like '400 Gbit/s', got a length").

    >>> parse_quantity("400 Gbps", "bandwidth").quantity.to("GB/s")
    <Quantity(50.0, 'gigabyte / second')>
    """
    if expected not in DIMENSIONS:
        raise KeyError(f"unknown dimension name {expected!r}")
    example = EXAMPLES[expected]
    want = "a " + expected.replace("_", " ") if expected != "size" else "a data size"
    want = dimension_word(DIMENSIONS[expected]) if DIMENSIONS[expected] else want
    if not isinstance(text, str):
        raise QuantityInputError(f"expected {want} like '{example}', got nothing usable")
    raw = _clean_text(text)
    if not raw:
        raise QuantityInputError(f"expected {want} like '{example}', got an empty value")
    if len(raw) > MAX_INPUT_CHARS:
        raise QuantityInputError(f"expected {want} like '{example}', got {len(raw)} characters")
    note = ""
    rewritten = raw
    for pattern, replacement in _SHORTHAND:
        rewritten = pattern.sub(replacement, rewritten)
    if rewritten != raw:
        note = f"read '{raw}' as '{rewritten}'"
        if re.search(r"[kKMGTP]b/s", raw):
            note += " ('Gb' on its own is the gilbert, a magnetic unit; bits are written 'bit')"
    quantity = _build_quantity(rewritten, raw, want, example)
    if quantity.unitless and DIMENSIONS[expected]:
        raise QuantityInputError(f"expected {want} like '{example}', got a number without a unit")
    if str(quantity.dimensionality) != (DIMENSIONS[expected] or "dimensionless"):
        got = dimension_word(quantity.dimensionality)
        raise QuantityInputError(f"expected {want} like '{example}', got {got}")
    magnitude = float(quantity.magnitude)
    if not math.isfinite(magnitude):
        raise QuantityInputError(f"expected {want} like '{example}', got a value that is not finite")
    if magnitude < 0 or (magnitude == 0 and not allow_zero):
        raise QuantityInputError(f"expected a positive {want.split(' ', 1)[1]}, got {raw}")
    return ParsedQuantity(quantity, note)


class QuantityText(str):
    """A quantity a person typed, read once: the text (what a link and a widget keep) carrying the quantity
    it reads as (what the code computes with), so that no consumer parses the text again.

    It is the text in every way a string is (equal to it, hashed like it, written to a link as it); the
    quantity is :attr:`quantity`, in any unit with :meth:`magnitude`.

    >>> size = QuantityText.read(" 256  MiB", "size")
    >>> size, size.magnitude("B"), size == "256 MiB"
    ('256 MiB', 268435456.0, True)
    """

    quantity: pint.Quantity
    dimension: str

    def __new__(cls, text: str, quantity: pint.Quantity, dimension: str) -> QuantityText:
        value = super().__new__(cls, text)
        value.quantity = quantity
        value.dimension = dimension
        return value

    @classmethod
    def read(cls, text: str, dimension: str, *, allow_zero: bool = False) -> QuantityText:
        """Parse ``text`` (:func:`parse_quantity`, which raises :class:`QuantityInputError`); the text kept is
        ``text`` with its blanks collapsed."""
        return cls(" ".join(text.split()), parse_quantity(text, dimension, allow_zero=allow_zero).quantity, dimension)

    def magnitude(self, unit: str) -> float:
        """The quantity as a plain number in ``unit`` (``size.magnitude("B")``)."""
        return magnitude_in(self.quantity, unit)

    def __reduce__(self) -> tuple:  # a cached value is pickled with its quantity
        return (QuantityText, (str(self), self.quantity, self.dimension))


def read_quantity(value: object, expected: str, *, allow_zero: bool = False) -> pint.Quantity:
    """The quantity ``value`` stands for: a :class:`QuantityText`'s own when it was read as ``expected``
    (no second parse), else :func:`parse_quantity`'s reading of the text.

    >>> read_quantity(QuantityText.read("2 us", "time"), "time"), read_quantity("3 ms", "time")
    (<Quantity(2.0, 'microsecond')>, <Quantity(3.0, 'millisecond')>)
    """
    if isinstance(value, QuantityText) and value.dimension == expected:
        return value.quantity
    return parse_quantity(value, expected, allow_zero=allow_zero).quantity


# --- whole numbers typed by people (links, widgets, logs, the command line) ----------------

#: The longest whole number read (sign and separators included): more than any 64-bit count, far
#: below Python's 4,300-digit limit for ``int()``, so reading one is always short and linear.
MAX_INT_CHARS = 32
_ASCII_INT_RE = re.compile(r"[+-]?[0-9]+")
_GROUPED_INT_RE = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+")


class IntegerInputError(InterconnectError, ValueError):
    """Text that is not a usable whole number; ``nearest`` is the bound it broke (None if not a number)."""

    def __init__(self, reason: str, nearest: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.nearest = nearest


def read_int(text: object, *, minimum: int | None = None, maximum: int | None = None,
             max_chars: int = MAX_INT_CHARS) -> int:
    """The one strict reader of a whole number typed by a person or found in a file.

    ASCII digits only, with an optional sign, ``_`` between digits or ``,`` between groups of three
    (``1_000``, ``1,048,576``); surrounding blanks are ignored. Unicode digits (``²``, ``٣``, ``８``),
    decimals, exponents and text longer than ``max_chars`` are refused before ``int()`` sees them.
    Raises :class:`IntegerInputError` with a reason; out of range, its ``nearest`` is the bound.

    >>> read_int(" 1,048,576 "), read_int("-3"), read_int("1_000")
    (1048576, -3, 1000)
    >>> for bad in ("²", "8.0", "1e3", "9" * 4301):
    ...     try:
    ...         read_int(bad)
    ...     except IntegerInputError as exc:
    ...         print(exc)
    not a whole number (ASCII digits only)
    not a whole number (ASCII digits only)
    not a whole number (ASCII digits only)
    4,301 characters is too long for a whole number
    >>> try:
    ...     read_int("0", minimum=1)
    ... except IntegerInputError as exc:
    ...     print(exc, exc.nearest)
    below the minimum 1 1
    """
    raw = text if isinstance(text, str) else str(text)
    if len(raw) > max_chars * 4:  # not even stripped: a long text is refused in constant time
        raise IntegerInputError(f"{len(raw):,} characters is too long for a whole number")
    raw = raw.strip()
    if len(raw) > max_chars:
        raise IntegerInputError(f"{len(raw):,} characters is too long for a whole number")
    if _GROUPED_INT_RE.fullmatch(raw):
        raw = raw.replace(",", "")
    elif "_" in raw and not raw.startswith(("_", "+_", "-_")) and not raw.endswith("_") and "__" not in raw:
        raw = raw.replace("_", "")
    if not _ASCII_INT_RE.fullmatch(raw):
        raise IntegerInputError("not a whole number (ASCII digits only)")
    value = int(raw)
    if minimum is not None and value < minimum:
        raise IntegerInputError(f"below the minimum {minimum}", minimum)
    if maximum is not None and value > maximum:
        raise IntegerInputError(f"above the maximum {maximum}", maximum)
    return value


# --- units at the model boundary ---------------------------------------------------------


class UnitMismatchError(InterconnectError, TypeError):
    """A function of the core was called with a quantity of the wrong dimension."""


def expects(**units: str) -> Callable[[_F], _F]:
    """Decorator: the named arguments are in ``units`` (``size_bytes="B"``, ``time_us="us"``).

    A :class:`pint.Quantity` passed for such an argument is checked for its dimension and converted
    to the named unit, so the function body (the vectorized numpy fast path) sees plain numbers. A
    bare number or array is taken as already in that unit, as the argument's name says. The check
    is prepared once, at decoration time; a call that passes plain floats pays one dictionary look-up
    per argument.

    >>> @expects(size_bytes="B", bw_gbps="GB/s")
    ... def transfer_time_s(size_bytes, bw_gbps):
    ...     return size_bytes / (bw_gbps * 1e9)
    >>> transfer_time_s(Q_(1, "GB"), Q_(400, "Gbit/s"))
    0.02
    >>> transfer_time_s(1e9, 50.0)
    0.02
    >>> try:
    ...     transfer_time_s(Q_(3, "m"), 50.0)
    ... except UnitMismatchError as error:
    ...     print(error)
    transfer_time_s(size_bytes=...) expects a data size (in B), got a length (3 m); pass a Quantity such as \
Q_(256, 'MiB'), or a number in B
    """
    wanted = {name: (unit, ureg.Unit(unit).dimensionality) for name, unit in units.items()}

    def decorate(function: _F) -> _F:
        parameters = inspect.signature(function).parameters
        missing = set(wanted) - set(parameters)
        if missing:
            raise TypeError(f"@expects names {sorted(missing)}, which {function.__name__} does not take")
        positional = [name for name, p in parameters.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        # (name, position or a number past any call's arguments for keyword-only, unit, dimensionality)
        checks = tuple((name, positional.index(name) if name in positional else len(parameters) + 1, unit, dims)
                       for name, (unit, dims) in wanted.items())

        def convert(name: str, value: pint.Quantity, unit: str, dimensionality: Any) -> Any:
            if value.dimensionality != dimensionality:
                example = EXAMPLE_BY_DIMENSION.get(str(dimensionality), f"1 {unit}")
                number, _, example_unit = example.partition(" ")
                raise UnitMismatchError(
                    f"{function.__name__}({name}=...) expects {dimension_word(dimensionality)} (in {unit}), "
                    f"got {dimension_word(value.dimensionality)} ({value:~P}); pass a Quantity such as "
                    f"Q_({number}, '{example_unit}'), or a number in {unit}")
            return value.to(unit).magnitude

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            # The fast path: an index or a dictionary look-up and an isinstance per checked argument.
            converted: list[Any] | None = None
            for name, position, unit, dimensionality in checks:
                if position < len(args):
                    if isinstance(args[position], pint.Quantity):
                        converted = list(args) if converted is None else converted
                        converted[position] = convert(name, args[position], unit, dimensionality)
                elif isinstance(kwargs.get(name), pint.Quantity):
                    kwargs[name] = convert(name, kwargs[name], unit, dimensionality)
            return function(*(args if converted is None else converted), **kwargs)

        wrapper.__expects__ = dict(units)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


# --- formatting ---------------------------------------------------------------------------

_SI_PREFIXES = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]


def _three_significant(value: float) -> str:
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 100:
        text = f"{value:.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _with_prefix(value: float, unit: str) -> str:
    for factor, prefix in _SI_PREFIXES:
        if abs(value) >= factor:
            return f"{_three_significant(value / factor)} {prefix}{unit}"
    return f"{_three_significant(value)} {unit}"


def format_bandwidth(quantity: pint.Quantity, unit: str = "B/s") -> str:
    """Format a bandwidth with an SI prefix: ``450 GB/s``, ``400 Gbit/s``, ``12 kB/s``.

    ``unit`` is ``"B/s"``, ``"bit/s"`` or ``"bluray/s"``. Fewer than one 50 GB Blu-ray disc a
    second reads as the time one disc takes:

    >>> format_bandwidth(Q_(25, "MB/s"), "bluray/s"), format_bandwidth(Q_(450, "GB/s"), "bluray/s")
    ('1 Blu-ray every 33.3 min', '9 Blu-rays/s')
    """
    if unit == "bluray/s":
        value = float(quantity.to("bluray/s").magnitude)
        if value >= 1 or value <= 0:
            plural = "Blu-ray/s" if value == 1 else "Blu-rays/s"
            return f"{_three_significant(value)} {plural}"
        return f"1 Blu-ray every {format_duration(Q_(1 / value, 's'))}"
    base = quantity.to(unit).magnitude
    return _with_prefix(float(base), unit)


def format_size(quantity: pint.Quantity) -> str:
    """Format a data size with binary prefixes as nccl-tests users read them: ``256 MiB``."""
    value = float(quantity.to("B").magnitude)
    for factor, prefix in [(2**50, "Pi"), (2**40, "Ti"), (2**30, "Gi"), (2**20, "Mi"), (2**10, "Ki")]:
        if value >= factor:
            return f"{_three_significant(value / factor)} {prefix}B"
    return f"{_three_significant(value)} B"


def format_duration(quantity: pint.Quantity) -> str:
    """Format a time in the most readable unit: ``3.2 µs``, ``48 ms``, ``2.5 s``."""
    return format_seconds(float(quantity.to("s").magnitude))


#: Seconds in each unit a time is written in, largest first (:func:`format_seconds` and the ranges that keep its unit).
SECONDS_PER_UNIT = {"days": 86400.0, "h": 3600.0, "min": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9,
                    "ps": 1e-12}


def format_seconds(seconds: float) -> str:
    """:func:`format_duration` for a plain number of seconds (no pint conversion: for hot loops).

    >>> format_seconds(0.0123), format_seconds(34.4), format_seconds(2.5e-7), format_seconds(0.0)
    ('12.3 ms', '34.4 s', '250 ns', '0 s')
    """
    magnitude = abs(seconds)
    if magnitude == 0:  # nothing exposed, no wait: in seconds, not in the smallest unit there is
        return "0 s"
    for unit, factor in SECONDS_PER_UNIT.items():
        # days from two of them (36 h reads better than 1.5 days); the smallest unit takes whatever is left
        if magnitude >= (2 * factor if unit == "days" else factor) or unit == "ps":
            return f"{_three_significant(seconds / factor)} {unit}"
    raise AssertionError("unreachable")


def format_quantity(quantity: pint.Quantity) -> str:
    """Format any catalog quantity the way an engineer would write it."""
    dims = str(quantity.dimensionality)
    if dims == DIMENSIONS["bandwidth"]:
        return format_bandwidth(quantity, "B/s")
    if dims == DIMENSIONS["size"]:
        value = float(quantity.to("B").magnitude)
        return _with_prefix(value, "B")
    if dims == DIMENSIONS["time"]:
        return format_duration(quantity)
    if dims == DIMENSIONS["length"]:
        metres = float(quantity.to("m").magnitude)
        if metres >= 1000:
            return f"{_three_significant(metres / 1000)} km"
        if metres < 1:
            return f"{_three_significant(metres * 100)} cm"
        return f"{_three_significant(metres)} m"
    if dims == DIMENSIONS["flop_rate"]:
        return _with_prefix(float(quantity.to("FLOP/s").magnitude), "FLOP/s")
    return f"{quantity:~P}"
