"""The Reach page's live chart: each kind of link as a bar out to its reach, as the distance is dragged.

One row per kind of link and rate step (:func:`~interconnect.topics.reach.sweep.reach_groups`),
shortest reach at the top, on the page's distance axis (10 cm to 20,000 km, log). A bar runs from
the left edge to the farthest the kind reaches at the row's rate: blue while the kind's fastest
member that reaches the distance on the slider
(:func:`~interconnect.topics.reach.model.fastest_by_kind`) runs at that rate or faster, grey once
the distance has passed it. A kind whose rate steps down has a row per step (single-mode optics at
100 GB/s to 2 km, at 50 GB/s to 10 km), so a blue row's label is a rate that reaches. A red line marks the distance. The
sentence beside the slider says how many links still reach, the fastest and its round trip, and
the delay in fibre.
"""

from __future__ import annotations

import math

import numpy as np

from interconnect.figures.live import LiveAxis, LiveSeries, live_spec
from interconnect.hardware.wires import KIND_LABELS
from interconnect.topics.reach.model import KIND_NAMES, LANDMARKS, MAX_DISTANCE_M, MIN_DISTANCE_M, distance_text
from interconnect.topics.reach.sweep import ReachFamily, ReachGroup
from interconnect.units import Q_, format_bandwidth, format_duration, format_quantity

__all__ = ["distance_label", "group_label", "reach_family_spec"]

_OUT = "#c4c9d2"
_REACHES = "#1565c0"
_DISTANCE = "#c62828"
#: Row names a reader knows the kinds by (the catalog's full names are in the page's table).
_ROW_NAMES = KIND_NAMES
_MARKS = {mark.distance_m: mark.label for mark in LANDMARKS}
#: The distance axis, padded a little beyond 10 cm .. 20,000 km.
_X_LOW, _X_HIGH = MIN_DISTANCE_M / 1.4, MAX_DISTANCE_M * 1.4


def distance_label(metres: float) -> str:
    """A slider position as the page's distance slider writes it: ``2 m · across a rack``.

    >>> distance_label(2.0), distance_label(11.0)
    ('2 m · across a rack', '11 m')
    """
    text = distance_text(metres)
    return f"{text} · {_MARKS[metres]}" if metres in _MARKS else text


def group_label(group: ReachGroup) -> str:
    """A row's kind and rate, and a star where its reach is our estimate rather than a sourced figure.

    >>> group_label(ReachGroup("dac", "dac", "cable", ("d",), ("DAC",), 100.0, 3.0, "spec"))
    'Passive copper (DAC) · 100 GB/s'
    >>> group_label(ReachGroup("board", "board", "scale-up", ("b",), ("Board",), 900.0, 0.5, "estimate"))
    'Baseboard NVLink · 900 GB/s *'
    """
    name = _ROW_NAMES.get(group.key) or KIND_LABELS.get(group.kind or "") or group.member_names[0].split(" (")[0]
    star = " *" if group.reach_basis == "estimate" else ""
    return f"{name} · {format_bandwidth(Q_(group.rate_gbps, 'GB/s'))}{star}"


def _margin_px(names: list[str]) -> int:
    """Room for the longest row name at the chart's 15-unit text (about 0.56 of the size per character)."""
    return int(24 + 0.56 * 15 * max((len(name) for name in names), default=10))


def _time(seconds: float) -> str:
    return format_duration(Q_(float(seconds), "s"))


def _readout(family: ReachFamily, i: int) -> str:
    d = float(family.distances_m[i])
    kinds = int(family.kinds_reaching[i].sum())
    head = (f"{distance_text(d)}: {int(family.links_reaching[i])} of {family.links_total} links still reach "
            f"({kinds} of {len(family.kind_ids)} kinds).")
    fibre = f"In fibre: {_time(family.fibre_one_way_s[i])} one way, {_time(family.fibre_rtt_s[i])} round trip."
    name = family.fastest_names[i]
    if name is None:
        return f"{head} Nothing catalogued reaches this far on its own. {fibre}"
    return (f"{head} Fastest: {name.split(' (')[0]}, {format_bandwidth(Q_(float(family.fastest_rate_gbps[i]), 'GB/s'))}"
            f" per direction; its round trip {_time(family.fastest_rtt_s[i])} keeps "
            f"{format_quantity(Q_(float(family.fastest_bdp_bytes[i]), 'B'))} in flight. {fibre}")


def reach_family_spec(family: ReachFamily, current_m: float, *, present: bool = False) -> dict:
    """The live chart of :func:`~interconnect.topics.reach.sweep.reach_family`.

    The x values hold, for each row, the left edge and the row's reach (then a gap), and for each
    slider distance a vertical pair (then a gap): every series picks its points among them by
    leaving the others empty, so the browser only chooses, position by position.

    >>> from interconnect.catalog import get_catalog
    >>> from interconnect.topics.reach.model import propagation_for, reach_rows
    >>> from interconnect.topics.reach.sweep import reach_family
    >>> from interconnect.hardware.wires import get_wires
    >>> kinds = {m.id: m.kind for m in get_wires().media.values()}
    >>> family = reach_family(reach_rows(), kinds, [2.0, 11.0], propagation_for("fibre", get_catalog()))
    >>> spec = reach_family_spec(family, 11.0)
    >>> spec["slider"]["labels"], spec["slider"]["index"]
    (['2 m · across a rack', '11 m'], 1)
    >>> spec["readouts"][1].split(".")[0]
    '11 m: 15 of 21 links still reach (7 of 11 kinds)'
    """
    distances = [float(d) for d in family.distances_m]
    index = int(np.argmin(np.abs(np.log(distances) - math.log(float(current_m)))))
    groups = family.groups
    rows, positions = len(groups), len(distances)
    gap = math.nan
    x_values: list[float] = []
    for group in groups:
        x_values += [_X_LOW, group.reach_m, gap]
    bars = 3 * rows
    for d in distances:  # one pair a position; the others are empty, so no gap is needed between them
        x_values += [d, d]
    width = len(x_values)
    top, bottom = -0.6, rows - 0.4

    def empty() -> np.ndarray:
        return np.full((positions, width), math.nan)

    reaching, out, line = empty(), empty(), empty()
    for i in range(positions):
        for k in range(rows):
            (reaching if family.group_reaches[i, k] else out)[i, 3 * k:3 * k + 2] = k
        line[i, bars + 2 * i:bars + 2 * i + 2] = (top, bottom)
    series = [LiveSeries("out of reach at this distance", _OUT, out, width=11.0),
              LiveSeries("still reaches", _REACHES, reaching, width=11.0),
              LiveSeries("the distance", _DISTANCE, line, width=2.5)]
    # every decade; every other one in presentation mode, whose larger text would run the labels together
    decades = [d for d in range(math.ceil(math.log10(_X_LOW)), math.floor(math.log10(_X_HIGH)) + 1)
               if not present or d % 2]
    x_ticks = tuple((10.0**d, format_quantity(Q_(10.0**d, "m"))) for d in decades)
    x_axis = LiveAxis("distance between the two GPUs (log scale)", True, _X_LOW, _X_HIGH, x_ticks)
    names = [group_label(g) for g in groups]
    y_axis = LiveAxis("", False, rows - 0.5, -0.5, tuple((float(k), name) for k, name in enumerate(names)))
    return live_spec(title="Each kind of link out to its reach, and the distance: the kinds it has passed are grey",
                     slider_label="Distance", slider_values=distances,
                     slider_labels=[distance_label(d) for d in distances], index=index, x_axis=x_axis,
                     x_values=x_values, y_axis=y_axis, series=series,
                     readouts=[_readout(family, i) for i in range(positions)], present=present,
                     height_px=16 + (30 if present else 22) * rows + 76, margin_left=_margin_px(names))
