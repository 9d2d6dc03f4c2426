"""Reading a distance the user types, and the landmark nearest to it.

Linear-time parsing through the unit registry; a clear message for nonsense, negatives and absurd values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interconnect.topics.reach.model.propagation import MAX_DISTANCE_M, MIN_DISTANCE_M
from interconnect.units import QuantityInputError, expects, parse_quantity

__all__ = [
    "DistanceReading",
    "LANDMARKS",
    "Landmark",
    "distance_text",
    "nearest_landmark",
    "read_distance",
]


@dataclass(frozen=True)
class DistanceReading:
    """A distance read from text: the metres used, the text to show, and why it was changed (if)."""

    distance_m: float
    text: str
    warning: str = ""


@expects(distance_m="m")
def distance_text(distance_m: float) -> str:
    """Write a distance as a person would: ``11 m``, ``2.5 km``, ``30 cm``.

    Parameters
    ----------
    distance_m : float
        Distance in m (or a length Quantity).

    Returns
    -------
    str
        Four significant figures at most, in cm below 1 m and km from 1 km.

    Examples
    --------
    >>> distance_text(11), distance_text(0.3), distance_text(2_000_000), distance_text(1.5)
    ('11 m', '30 cm', '2000 km', '1.5 m')
    >>> from interconnect.units import Q_
    >>> distance_text(20_000_000), distance_text(Q_(3, "ft"))
    ('20000 km', '91.44 cm')
    """
    if distance_m >= 1000:
        value, unit = distance_m / 1000, "km"
    elif distance_m < 1:
        value, unit = distance_m * 100, "cm"
    else:
        value, unit = distance_m, "m"
    return f"{float(f'{value:.4g}'):g} {unit}"


def read_distance(text: object) -> DistanceReading:
    """Read a typed distance with the project's strict parser and clamp it to 10 cm .. 20,000 km.

    Parameters
    ----------
    text : str
        What the person typed (``"11 m"``, ``"3 ft"``, ``"2 light-seconds"``).

    Returns
    -------
    DistanceReading
        The distance used in m, the text to show and a warning when it was clamped.

    Raises
    ------
    interconnect.units.QuantityInputError
        When the text is not a length; the message says what was expected and what arrived.

    Notes
    -----
    Zero, negative and astronomical lengths are clamped, with a warning in our own formatting
    (typed text is never echoed).

    Examples
    --------
    >>> read_distance("11 m")
    DistanceReading(distance_m=11.0, text='11 m', warning='')
    >>> f"{read_distance('3 ft').distance_m:.4f} m"
    '0.9144 m'
    >>> read_distance("2 light-seconds").warning
    '599585 km is beyond 20,000 km, about half way round the planet; using 20000 km'
    >>> read_distance("-5 m").text
    '10 cm'
    >>> read_distance("5 cm").warning
    "5 cm is below this page's scale, which starts at 10 cm; using 10 cm"
    """
    if not isinstance(text, str):
        raise QuantityInputError("expected a length like '3 m', got nothing usable")
    stripped = " ".join(text.split())
    negative = stripped.startswith("-")
    parsed = parse_quantity(stripped[1:] if negative else stripped, "length", allow_zero=True)
    metres = float(parsed.quantity.to("m").magnitude)
    shown = stripped
    if negative and metres > 0:
        return DistanceReading(MIN_DISTANCE_M, distance_text(MIN_DISTANCE_M),
                               f"a distance cannot be negative (-{distance_text(metres)}); "
                               f"using {distance_text(MIN_DISTANCE_M)}")
    if metres < MIN_DISTANCE_M:
        what = "a distance of zero" if metres == 0 else distance_text(metres)
        return DistanceReading(MIN_DISTANCE_M, distance_text(MIN_DISTANCE_M),
                               f"{what} is below this page's scale, which starts at {distance_text(MIN_DISTANCE_M)}; "
                               f"using {distance_text(MIN_DISTANCE_M)}")
    if metres > MAX_DISTANCE_M:
        return DistanceReading(
            MAX_DISTANCE_M, distance_text(MAX_DISTANCE_M),
            f"{metres / 1000:.6g} km is beyond 20,000 km, about half way round the planet; "
            f"using {distance_text(MAX_DISTANCE_M)}",
        )
    return DistanceReading(metres, shown, parsed.note)


@dataclass(frozen=True)
class Landmark:
    """A familiar distance on the slider, for orientation (not a hardware figure)."""

    distance_m: float
    label: str
    note: str = ""


#: Orientation marks for the log slider. They are rough scales, not specifications, except where a
#: note gives a source.
LANDMARKS: tuple[Landmark, ...] = (
    Landmark(0.3, "across a board", "GPUs on one baseboard sit tens of centimetres apart"),
    Landmark(2.0, "across a rack", "GB200 NVL72's NVLink copper runs stay inside one rack, about 1-2 m"),
    Landmark(20.0, "along a row of racks"),
    Landmark(200.0, "across a building"),
    Landmark(2_000.0, "across a campus", "the reach of 400G FR4 single-mode optics"),
    Landmark(40_000.0, "across a metro area", "the reach NVIDIA gives for MetroX InfiniBand"),
    Landmark(500_000.0, "across a region"),
    Landmark(3_965_000.0, "across a continent",
             "New York to Los Angeles, great circle (https://blog.wesleyac.com/posts/ping-lightspeed)"),
    Landmark(MAX_DISTANCE_M, "half way round the planet",
             "half of the equator's 40,075 km (https://nssdc.gsfc.nasa.gov/planetary/factsheet/earthfact.html)"),
)


@expects(distance_m="m")
def nearest_landmark(distance_m: float) -> Landmark:
    r"""Find the landmark closest to a distance on a log scale.

    Parameters
    ----------
    distance_m : float
        Distance in m (or a length Quantity).

    Returns
    -------
    Landmark
        The entry of :data:`LANDMARKS` nearest in :math:`\log_{10} d`.

    Examples
    --------
    >>> nearest_landmark(11).label
    'along a row of racks'
    >>> from interconnect.units import Q_
    >>> nearest_landmark(Q_(4000, "km")).label
    'across a continent'
    """
    return min(LANDMARKS, key=lambda mark: abs(math.log10(mark.distance_m) - math.log10(max(distance_m, 1e-9))))
