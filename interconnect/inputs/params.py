"""Page state in the URL query string: typed parameters, validation and friendly warnings.

Every input that defines a view has a short key that is also its query parameter, so a pasted
link reopens the same view. Those keys are a public schema: renaming one breaks shared links.

This module is pure Python (no Streamlit) so it can be tested directly. Parsing never raises on
user input: a bad value becomes a :class:`ParamWarning` naming the parameter, a safe rendering of
what was received, and the value used instead.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from interconnect.units import IntegerInputError, QuantityInputError, QuantityText, read_int

__all__ = [
    "AutoIntParam",
    "BoolParam",
    "ChoiceParam",
    "FloatParam",
    "IntParam",
    "MAX_RAW_CHARS",
    "ParamWarning",
    "QuantityParam",
    "parse_state",
    "read_component_value",
    "read_value",
    "safe_echo",
    "to_query",
    "unknown_keys",
]

MAX_RAW_CHARS = 200  # longer query values are refused before any parsing
ECHO_CHARS = 40


def safe_echo(raw: object) -> str:
    """A short, inert rendering of a user-supplied value, safe inside a Markdown code span.

    Control and formatting characters become '?', backticks become quotes, and long values are
    cut with an ellipsis, so whatever arrives in a URL cannot change how a message renders.
    """
    text = raw if isinstance(raw, str) else repr(raw)
    cleaned = []
    for char in text[: ECHO_CHARS + 1]:
        category = unicodedata.category(char)
        if char == "`":
            cleaned.append("'")
        elif category.startswith("C") or category in ("Zl", "Zp"):
            cleaned.append("?")
        else:
            cleaned.append(char)
    out = "".join(cleaned)
    if len(text) > ECHO_CHARS:
        out = out[:ECHO_CHARS] + "…"
    return out


@dataclass(frozen=True)
class ParamWarning:
    """What was wrong with one query parameter and what the page used instead."""

    key: str
    received: str
    used: str
    reason: str
    label: str = ""

    def message(self) -> str:
        """One line: the control (by its label where it has one), the reason, what arrived, what was used."""
        name = f"{self.label} (link parameter `{self.key}`)" if self.label else f"Link parameter `{self.key}`"
        used = f"`{self.used}`" if self.used else "the default (none)"
        return f"{name}: {self.reason} (got `{self.received}`); using {used}."


@dataclass(frozen=True)
class _Param:
    key: str
    default: Any
    label: str = ""
    #: ``(key, value)``: the parameter is written to the link only while parameter ``key`` has ``value``
    #: (a custom GPU's bandwidth only with ``gpu=custom``); it is read from a link either way.
    when: tuple[str, str] | None = field(default=None, kw_only=True)
    #: Left out of the link while at its default: for keys added to a page after its links were
    #: published (the cluster's fabric topology), so every link written before keeps its exact form.
    quiet: bool = field(default=False, kw_only=True)

    def parse(self, raw: str) -> tuple[Any, str | None]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def default_value(self) -> Any:
        """The default as a value of this parameter (what :meth:`parse` gives: a typed quantity carries its reading)."""
        return self.default

    def to_text(self, value: Any) -> str:
        return str(value)

    def clean(self, value: Any) -> Any:
        """Coerce a widget value back into range (used before writing it to the URL)."""
        parsed, problem = self.parse(self.to_text(value))
        return self.default if problem else parsed


@dataclass(frozen=True)
class ChoiceParam(_Param):
    """One of a fixed set of ids (``gpu=h100-sxm``); matched case-insensitively."""

    choices: Sequence[str] = field(default_factory=tuple)
    aliases: Mapping[str, str] = field(default_factory=dict)

    def parse(self, raw: str) -> tuple[Any, str | None]:
        if raw.strip() in self.choices:
            return raw.strip(), None
        wanted = raw.strip().lower()
        lookup = {choice.lower(): choice for choice in self.choices}
        if wanted in lookup:
            return lookup[wanted], None
        if wanted in self.aliases:
            return self.aliases[wanted], None
        return self.default, "not a known choice"


@dataclass(frozen=True)
class IntParam(_Param):
    """A whole number within ``[minimum, maximum]``; out-of-range values are clamped."""

    minimum: int = 0
    maximum: int = 1_000_000

    def parse(self, raw: str) -> tuple[Any, str | None]:
        try:
            return read_int(raw, minimum=self.minimum, maximum=self.maximum), None
        except IntegerInputError as exc:  # out of range: the bound it broke; not a number: the default
            return (self.default if exc.nearest is None else exc.nearest), exc.reason


@dataclass(frozen=True)
class AutoIntParam(IntParam):
    """A whole number or ``auto`` (the value ``None``: the page works the number out itself).

    ``nics=auto`` on the Bandwidth cliff means "as many NICs as the GPU's own server has"; an
    explicit ``nics=8`` keeps meaning 8. An empty value is ``auto`` too.

    >>> spec = AutoIntParam("nics", None, "NICs per server", minimum=1, maximum=144)
    >>> spec.parse("auto"), spec.parse("24"), spec.to_text(None)
    ((None, None), (24, None), 'auto')
    """

    def parse(self, raw: str) -> tuple[Any, str | None]:
        if raw.strip().lower() in ("auto", "", "none"):
            return None, None
        return super().parse(raw)

    def to_text(self, value: Any) -> str:
        return "auto" if value is None else str(value)


@dataclass(frozen=True)
class FloatParam(_Param):
    """A number within ``[minimum, maximum]``; out-of-range values are clamped."""

    minimum: float = 0.0
    maximum: float = 1e9

    def parse(self, raw: str) -> tuple[Any, str | None]:
        try:
            number = float(raw.strip())
        except ValueError:
            return self.default, "not a number"
        if not math.isfinite(number):
            return self.default, "not a finite number"
        if number < self.minimum:
            return self.minimum, f"below the minimum {self.minimum:g}"
        if number > self.maximum:
            return self.maximum, f"above the maximum {self.maximum:g}"
        return number, None

    def to_text(self, value: Any) -> str:
        return f"{float(value):g}"


@dataclass(frozen=True)
class BoolParam(_Param):
    """``1/0``, ``true/false``, ``on/off``, ``yes/no``."""

    def parse(self, raw: str) -> tuple[Any, str | None]:
        text = raw.strip().lower()
        if text in ("1", "true", "on", "yes"):
            return True, None
        if text in ("0", "false", "off", "no"):
            return False, None
        return self.default, "not on/off"

    def to_text(self, value: Any) -> str:
        return "1" if value else "0"


@dataclass(frozen=True)
class QuantityParam(_Param):
    """A quantity typed as text (``nic_bw=200 Gbit/s``), checked for dimension and range.

    Its value is a :class:`~interconnect.units.QuantityText`: the text itself (so the URL shows what the
    person typed) carrying the quantity it was read as, so the code that uses the value never parses it again.
    ``minimum`` and ``maximum`` are quantity strings in the same dimension, read once per parameter. An
    ``optional`` parameter may be empty (the value is then ``""``).

    >>> QuantityParam("lat", "", dimension="time", optional=True).parse(" ")
    ('', None)
    >>> size, _ = QuantityParam("size", "1 MiB", dimension="size").parse("2  KiB")
    >>> size, size.magnitude("B")
    ('2 KiB', 2048.0)
    """

    dimension: str = "bandwidth"
    minimum: str | None = None
    maximum: str | None = None
    validator: Callable[[Any], str | None] | None = None
    #: An empty value is allowed and means "not set" (the default, ``""``, is then used silently).
    optional: bool = False
    #: Zero is a valid value (an extra latency of 0 µs); negative values are still refused.
    allow_zero: bool = False

    def parse(self, raw: str) -> tuple[Any, str | None]:
        if self.optional and raw.strip() == "":
            return "", None
        try:
            value = QuantityText.read(raw, self.dimension, allow_zero=self.allow_zero)
        except QuantityInputError as exc:
            return self.default_value, str(exc)
        return self._in_range(value)

    def clean(self, value: Any) -> Any:
        """A value this parameter read already (a :class:`QuantityText` of its dimension) is kept, range-checked;
        anything else is read from its text."""
        if isinstance(value, QuantityText) and value.dimension == self.dimension:
            checked, problem = self._in_range(value)
        else:
            checked, problem = self.parse(self.to_text(value))
        return self.default_value if problem else checked

    def _in_range(self, value: QuantityText) -> tuple[Any, str | None]:
        low, high = self._bounds
        if low is not None and value.quantity < low.quantity:
            return low, f"below the minimum {self.minimum}"
        if high is not None and value.quantity > high.quantity:
            return high, f"above the maximum {self.maximum}"
        return value, None

    @property
    def _bounds(self) -> tuple[QuantityText | None, QuantityText | None]:
        """The declared bounds as quantities."""
        return (None if self.minimum is None else _declared(self.minimum, self.dimension, self.allow_zero),
                None if self.maximum is None else _declared(self.maximum, self.dimension, self.allow_zero))

    @property
    def default_value(self) -> Any:
        """The default, read once (:func:`_declared`): a default is used without parsing it again."""
        if type(self).parse is not QuantityParam.parse or not isinstance(self.default, str) or \
                isinstance(self.default, QuantityText) or not self.default.strip():
            return self.default  # a subclass reads its own text (a name, a count, a distance) when it is used
        return _declared(self.default, self.dimension, True)


@functools.cache
def _declared(text: str, dimension: str, allow_zero: bool) -> QuantityText:
    """A bound or a default as declared in the code (a constant, never a visitor's text), read once per process:
    a page builds its parameters on every run."""
    return QuantityText.read(text, dimension, allow_zero=allow_zero)


Param = ChoiceParam | IntParam | FloatParam | BoolParam | QuantityParam


def _first(raw: object) -> str | None:
    if isinstance(raw, list | tuple):
        raw = raw[-1] if raw else None
    if raw is None:
        return None
    return raw if isinstance(raw, str) else str(raw)


def parse_state(specs: Sequence[Param], query: Mapping[str, object]) -> tuple[dict[str, Any], list[ParamWarning]]:
    """Read every parameter in ``specs`` from a query mapping; never raises on user input.

    Missing parameters take their defaults silently. Parameters not in ``specs`` are ignored.

    >>> specs = [IntParam("nodes", 8, "Nodes", minimum=1, maximum=1024)]
    >>> values, warnings = parse_state(specs, {"nodes": "0"})
    >>> values["nodes"], warnings[0].message()
    (1, 'Nodes (link parameter `nodes`): below the minimum 1 (got `0`); using `1`.')
    """
    values: dict[str, Any] = {}
    warnings: list[ParamWarning] = []
    for spec in specs:
        raw = _first(query.get(spec.key))
        if raw is None:
            values[spec.key] = spec.default_value
            continue
        values[spec.key], warning = read_value(spec, raw)
        if warning:
            warnings.append(warning)
    return values, warnings


def read_value(spec: Param, raw: str) -> tuple[Any, ParamWarning | None]:
    """One parameter's text, read as a link's value is: too long is refused unparsed, then ``spec.parse``.

    >>> read_value(IntParam("nodes", 8, minimum=1, maximum=64), "65")[0]
    64
    """
    if len(raw) > MAX_RAW_CHARS:
        reason = f"{len(raw):,} characters is too long for this parameter"
        return spec.default, ParamWarning(spec.key, safe_echo(raw), spec.to_text(spec.default), reason, spec.label)
    value, problem = spec.parse(raw)
    if problem:
        return value, ParamWarning(spec.key, safe_echo(raw), spec.to_text(value), problem, spec.label)
    return value, None


#: The reasons :meth:`IntParam.parse`, :meth:`FloatParam.parse` and :meth:`QuantityParam.parse` give for a value
#: that was a number but out of range (and so was clamped to the bound it broke).
_RANGE_REASONS = ("below the minimum", "above the maximum")


def read_component_value(spec: IntParam | FloatParam, raw: object) -> tuple[Any | None, ParamWarning | None]:
    """A number a browser component sent back (a live chart's slider), read by the same reader as a link's value.

    ``raw`` is what Streamlit decoded from the component's JSON state, so it may be anything a client
    chose to send: a float (NaN and infinity included: Python's JSON reads ``NaN``, ``Infinity`` and
    ``1e999``), an integer of thousands of digits, a string, a list, a mapping, ``true`` or ``null``.
    Only a JSON number is a component's value; it is written as text (an integer's size is checked
    before it is ever turned into text) and read by ``spec`` as a link's value would be. Returns the
    value to use and a warning: in range, ``(value, None)``; out of range, the bound it broke and a
    warning; not a usable number, ``(None, warning)``: the caller keeps the value it had.

    >>> nodes = IntParam("nodes", 8, "Nodes", minimum=1, maximum=1000)
    >>> read_component_value(nodes, 16), read_component_value(nodes, 16.0)
    ((16, None), (16, None))
    >>> read_component_value(nodes, 10**5)[0], read_component_value(nodes, float("nan"))[0]
    (1000, None)
    >>> read_component_value(nodes, 10**4300)[1].reason
    'a 4,301-digit number is too long for this value'
    """
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        kind = "text" if isinstance(raw, str) else "a list" if isinstance(raw, list) else \
            "a mapping" if isinstance(raw, dict) else "nothing" if raw is None else f"a {type(raw).__name__}"
        return None, ParamWarning(spec.key, safe_echo(raw), "", f"not a number ({kind})", spec.label)
    if isinstance(raw, int):
        # Never str() an integer of unknown size: over 4,300 digits Python refuses (ValueError), and far
        # below that a link's reader refuses it anyway. 3.33 bits a digit bounds its length from its bits.
        if raw.bit_length() > 3.33 * (MAX_RAW_CHARS + 1):
            digits = len(str(raw)) if raw.bit_length() < 14_000 else int(raw.bit_length() * math.log10(2)) + 1
            reason = f"a {digits:,}-digit number is too long for this value"
            return None, ParamWarning(spec.key, f"{'-' if raw < 0 else ''}{digits:,} digits", "", reason, spec.label)
        text = str(raw)
    elif not math.isfinite(raw):
        return None, ParamWarning(spec.key, safe_echo(repr(raw)), "", "not a finite number", spec.label)
    elif isinstance(spec, IntParam) and raw.is_integer():
        text = str(int(raw))
    else:
        text = repr(raw)
    value, warning = read_value(spec, text)
    if warning is None or warning.reason.startswith(_RANGE_REASONS):
        return value, warning
    return None, ParamWarning(spec.key, warning.received, "", warning.reason, spec.label)


def to_query(specs: Sequence[Param], values: Mapping[str, Any]) -> dict[str, str]:
    """The query-string form of a page's state (every parameter in use, in spec order).

    >>> specs = [ChoiceParam("gpu", "b200"), IntParam("up", 9, when=("gpu", "custom"))]
    >>> to_query(specs, {"gpu": "b200", "up": 5}), to_query(specs, {"gpu": "custom", "up": 5})
    ({'gpu': 'b200'}, {'gpu': 'custom', 'up': '5'})
    """
    full = {spec.key: values.get(spec.key, spec.default) for spec in specs}
    return {spec.key: spec.to_text(full[spec.key]) for spec in specs
            if (spec.when is None or full.get(spec.when[0]) == spec.when[1])
            and not (spec.quiet and full[spec.key] == spec.default)}


def unknown_keys(specs: Sequence[Param], query: Mapping[str, object], known: frozenset[str] = frozenset()) -> list[str]:
    """Query keys that neither this page's ``specs`` nor ``known`` (other pages' keys) use, safely echoed.

    >>> unknown_keys([IntParam("nodes", 8)], {"nodes": "2", "gpu": "b200", "<b>": "1"}, frozenset({"gpu"}))
    ['<b>']
    """
    mine = {spec.key for spec in specs}
    return [safe_echo(key) for key in query if key not in mine and key not in known]
