"""Log-axis ticks in units people read: ``1 MB/s``, ``1 Gbit/s``, ``1 a minute``, ``10 cm``, ``100 km``.

Plotly labels a log axis with bare SI-suffixed numbers ("100µ", "1M"): a projector audience reads
"100µ GB/s" as nonsense. These helpers return ``tickvals``/``ticktext`` for an axis whose data are
in a given unit, labelled by the project's own formatters, plus the decades in between for
unlabelled grid lines.
"""

from __future__ import annotations

import math

from interconnect.units import Q_, format_bandwidth, format_quantity

__all__ = ["bandwidth_ticks", "decades", "length_ticks", "log_axis", "powers_of_ten"]

#: The decades a float holds: ``10.0**309`` overflows and ``10.0**-324`` is zero.
_FIRST_DECADE, _LAST_DECADE = -323, 308

#: One Blu-ray per ... (seconds per disc) -> the words on the axis.
_BLURAY_RATES = (
    (86400.0, "1 a day"),
    (3600.0, "1 an hour"),
    (60.0, "1 a minute"),
    (1.0, "1 a second"),
    (0.01, "100 a second"),
)


def decades(low_log10: float, high_log10: float) -> list[int]:
    """The whole powers of ten inside ``[low_log10, high_log10]``.

    Only decades a float can hold, and none for a bound that is not finite (data of 1e308 with
    headroom): a figure builder never raises on finite data.

    >>> decades(-1.3, 2.5)
    [-1, 0, 1, 2]
    >>> decades(300, float("inf")), decades(306.5, 309.1)
    ([], [307, 308])
    """
    if not (math.isfinite(low_log10) and math.isfinite(high_log10)):
        return []
    return list(range(max(math.ceil(low_log10), _FIRST_DECADE), min(math.floor(high_log10), _LAST_DECADE) + 1))


def powers_of_ten(low: float, high: float) -> list[float]:
    """Every power of ten from the one at or below ``low`` to the one at or above ``high`` (data units).

    Empty unless ``0 < low <= high`` are finite; clipped to the powers a float holds, so 1e308 or
    5e-324 in the data gives ticks, never an OverflowError.

    >>> powers_of_ten(3.0, 2e3)
    [1.0, 10.0, 100.0, 1000.0, 10000.0]
    >>> powers_of_ten(1e307, 1.6e308), powers_of_ten(0.0, 1.0), len(powers_of_ten(5e-324, 1e-322))
    ([1e+307, 1e+308], [], 2)
    """
    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or high < low:
        return []
    first = max(math.floor(math.log10(low)), _FIRST_DECADE)
    last = min(math.ceil(math.log10(high)), _LAST_DECADE)
    return [10.0**p for p in range(first, last + 1)]


def bandwidth_ticks(low_log10: float, high_log10: float, unit: str) -> tuple[list[float], list[str]]:
    """Ticks for a log bandwidth axis whose data are in ``unit`` (``GB/s``, ``Gbit/s`` or ``bluray/s``).

    Bytes and bits are labelled at every factor of 1000 (``1 kB/s``, ``1 MB/s``, ...), or of 10
    when the axis spans five decades or fewer; Blu-ray discs per second as "1 a minute", "1 a second".

    >>> bandwidth_ticks(-4.5, 4.2, "GB/s")[1]
    ['1 MB/s', '1 GB/s', '1 TB/s']
    >>> bandwidth_ticks(-4, 0.5, "bluray/s")[1]
    ['1 an hour', '1 a minute', '1 a second']
    """
    if unit == "bluray/s":
        values = [1 / seconds for seconds, _ in _BLURAY_RATES]
        inside = [(v, text) for v, (_, text) in zip(values, _BLURAY_RATES, strict=True)
                  if low_log10 <= math.log10(v) <= high_log10]
        return [v for v, _ in inside], [text for _, text in inside]
    base = "B/s" if "B" in unit else "bit/s"
    step = 1 if high_log10 - low_log10 <= 5 else 3
    unit_in_base = float(Q_(1, unit).to(base).magnitude)
    # Label where the value in the base unit is a power of 1000 (1 MB/s, not 0.001 GB/s).
    offset = round(math.log10(unit_in_base))
    labelled = [d for d in decades(low_log10, high_log10) if (d + offset) % step == 0]
    return [10.0**d for d in labelled], [format_bandwidth(Q_(10.0**d, unit), base) for d in labelled]


def length_ticks(low_log10: float, high_log10: float) -> tuple[list[float], list[str]]:
    """Ticks for a log length axis in metres: ``1 cm``, ``10 cm``, ``1 m``, ... ``1000 km``.

    >>> length_ticks(-1.2, 3.1)[1]
    ['10 cm', '1 m', '10 m', '100 m', '1 km']
    """
    values = [10.0**d for d in decades(low_log10, high_log10)]
    return values, [format_quantity(Q_(v, "m")) for v in values]


def log_axis(tickvals: list[float], ticktext: list[str], low_log10: float, high_log10: float) -> dict:
    """Layout for a log axis with our labels and a light grid line at every decade.

    >>> axis = log_axis([1.0], ["1 GB/s"], -1, 1)
    >>> axis["tickvals"], axis["minor"]["tickvals"]
    ([1.0], [0.1, 1.0, 10.0])
    """
    return {
        "type": "log",
        "range": [low_log10, high_log10],
        "tickmode": "array",
        "tickvals": tickvals,
        "ticktext": ticktext,
        "showgrid": True,
        "gridcolor": "#d1d5db",
        "minor": {"tickmode": "array", "tickvals": [10.0**d for d in decades(low_log10, high_log10)],
                  "showgrid": True, "gridcolor": "#eef0f3", "ticks": ""},
    }
