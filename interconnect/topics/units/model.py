"""The unit traps of interconnect figures, as arithmetic: direction, bits against bytes, GiB against GB.

:func:`read_rate` takes what people paste ("900 GB/s bidirectional", "400 Gbps", "3.2 Tbit/s each
way") and returns the same figure per direction and both directions, in bytes and bits, with a
note on every interpretation it made. It never evaluates text: the number and unit go through
:func:`interconnect.units.parse_quantity` (a strict grammar), the direction words through a fixed list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pint

from interconnect.units import QuantityInputError, format_bandwidth, format_size, parse_quantity

__all__ = ["DIRECTION_PHRASES", "RateReading", "SizeReading", "read_rate", "read_size"]

#: Words that say which direction a rate is quoted in, and what they mean.
DIRECTION_PHRASES: dict[str, str] = {
    "bidirectional": "both", "bi-directional": "both", "bidir": "both", "both directions": "both",
    "aggregate": "both", "total": "both", "full duplex": "both", "duplex": "both",
    "per direction": "per", "each way": "per", "each direction": "per", "unidirectional": "per",
    "one way": "per", "one direction": "per", "uni": "per",
}
_PHRASE_RE = re.compile(
    r"\b(" + "|".join(sorted((re.escape(p) for p in DIRECTION_PHRASES), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RateReading:
    """A link rate read from text, in both directions' conventions.

    Attributes
    ----------
    per_direction : pint.Quantity
        What one direction carries (bandwidth).
    both_directions : pint.Quantity
        The two directions added up, as NVLink is usually quoted.
    quoted_as : str
        ``"per"`` or ``"both"``: how the text quoted it (``"per"`` when it did not say).
    notes : tuple of str
        Every interpretation made (shorthand read, direction assumed).
    """

    per_direction: pint.Quantity
    both_directions: pint.Quantity
    quoted_as: str
    notes: tuple[str, ...]

    def lines(self) -> list[str]:
        """Write the reading in the units people mix up: GB/s and Gbit/s, per direction and both.

        Returns
        -------
        list of str
            Three lines of text.

        Examples
        --------
        >>> read_rate("400 Gbps").lines()[0]
        'per direction: 50 GB/s = 400 Gbit/s'
        """
        return [
            f"per direction: {format_bandwidth(self.per_direction, 'B/s')} = "
            f"{format_bandwidth(self.per_direction, 'bit/s')}",
            f"both directions: {format_bandwidth(self.both_directions, 'B/s')} = "
            f"{format_bandwidth(self.both_directions, 'bit/s')}",
            f"in binary units: {self.per_direction.to('GiB/s').magnitude:.4g} GiB/s per direction",
        ]


def read_rate(text: str) -> RateReading:
    r"""Read a link rate with an optional direction phrase.

    Parameters
    ----------
    text : str
        For example ``"900 GB/s bidirectional"`` or ``"400 Gbps"``.

    Returns
    -------
    RateReading
        The rate per direction and both directions, as Quantities in GB/s, with the notes.

    Raises
    ------
    interconnect.units.QuantityInputError
        If the text is not a bandwidth (the message says what it was and the accepted form), or
        names both conventions.

    Notes
    -----
    .. math::

        B_{per\,direction} = B_{both} / 2, \qquad 1\ \mathrm{GB/s} = 8\ \mathrm{Gbit/s}

    NVLink is quoted as both directions summed ("900 GB/s is the sum of both directions",
    ``nccl-issue-1442``); network ports are quoted per direction (``nccl-tests-319``), so a rate
    with no direction phrase is read as per direction and the note says so.

    Examples
    --------
    >>> reading = read_rate("900 GB/s bidirectional")
    >>> reading.per_direction.to("Gbit/s")
    <Quantity(3600.0, 'gigabit / second')>
    >>> read_rate("400 Gbps").both_directions.to("GB/s")
    <Quantity(100.0, 'gigabyte / second')>
    """
    if not isinstance(text, str):
        raise QuantityInputError("expected a bandwidth like '900 GB/s bidirectional', got nothing usable")
    phrases = [match.group(1).lower() for match in _PHRASE_RE.finditer(text[:200])]
    meanings = {DIRECTION_PHRASES[p] for p in phrases}
    if len(meanings) > 1:
        raise QuantityInputError(f"'{text[:60]}' says both 'per direction' and 'both directions': pick one")
    rest = " ".join(_PHRASE_RE.sub(" ", text[:200]).split())
    parsed = parse_quantity(rest, "bandwidth")
    notes = [parsed.note] if parsed.note else []
    quoted_as = meanings.pop() if meanings else "per"
    if not phrases:
        notes.append("no direction given: read as per direction, as network ports are quoted")
    rate = parsed.quantity.to("GB/s")
    per = rate / 2 if quoted_as == "both" else rate
    return RateReading(per, per * 2, quoted_as, tuple(notes))


@dataclass(frozen=True)
class SizeReading:
    """A data size in decimal and binary units (the GB against GiB trap)."""

    size: pint.Quantity
    notes: tuple[str, ...]

    def lines(self) -> list[str]:
        """Write the size in decimal bytes, binary bytes and bits.

        Returns
        -------
        list of str
            Three lines of text.

        Examples
        --------
        >>> read_size("1 GiB").lines()
        ['decimal: 1.07374 GB', 'binary: 1 GiB (1 GiB)', 'bits: 8.58993 Gbit']
        """
        bytes_ = float(self.size.to("B").magnitude)
        return [f"decimal: {bytes_ / 1e9:.6g} GB", f"binary: {format_size(self.size)} ({bytes_ / 2**30:.6g} GiB)",
                f"bits: {bytes_ * 8 / 1e9:.6g} Gbit"]


def read_size(text: str) -> SizeReading:
    r"""Read a data size, to show it in GB, GiB and Gbit.

    Parameters
    ----------
    text : str
        For example ``"256 MiB"`` or ``"25 MB"``.

    Returns
    -------
    SizeReading
        The size as a Quantity, with the parser's note (if any).

    Raises
    ------
    interconnect.units.QuantityInputError
        If the text is not a data size.

    Notes
    -----
    .. math:: 1\ \mathrm{GiB} = 2^{30}\ \mathrm{B} = 1.0737\ \mathrm{GB}, \qquad 1\ \mathrm{B} = 8\ \mathrm{bit}

    IEC binary prefixes (IEC 80000-13:2008; https://physics.nist.gov/cuu/Units/binary.html).

    Examples
    --------
    >>> read_size("256 MiB").size.to("MB")
    <Quantity(268.435456, 'megabyte')>
    """
    parsed = parse_quantity(text, "size")
    return SizeReading(parsed.quantity, (parsed.note,) if parsed.note else ())

