"""The reach page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

from interconnect.inputs.cluster import CLUSTER_KEYS, cluster_specs
from interconnect.inputs.links import PageViews, view_spec
from interconnect.inputs.params import (
    ChoiceParam,
    IntParam,
    QuantityParam,
)

REACH_VIEWS = PageViews({"leash": "Rate against reach", "training": "Training across the gap", "timeouts": "Timeouts"},
                        {"leash": ("reach-leash",), "training": ("reach-training",), "timeouts": ("reach-timeouts",)},
                        {"training": ("size", "h", "medium", *CLUSTER_KEYS)})


class DistanceParam(QuantityParam):
    """A typed distance (``d=11 m``): any length, clamped to 10 cm .. 20,000 km with a warning.

    Unlike a plain :class:`QuantityParam` an out-of-scale value is clamped (``d=-5 m`` opens at
    10 cm and says so) rather than replaced by the default. The value is the text shown, carrying the
    metres it was read as (:func:`distance_value`).
    """

    def parse(self, raw: str) -> tuple[object, str | None]:
        from interconnect.topics.reach.model import read_distance
        from interconnect.units import QuantityInputError

        try:
            reading = read_distance(raw)
        except QuantityInputError as exc:
            return self.default_value, str(exc)
        # The warning says what was used; the link warning adds that itself.
        return distance_value(reading.text, reading.distance_m), reading.warning.rsplit("; using ", 1)[0] or None


def distance_value(text: str, metres: float):
    """The page's distance value: ``text`` as shown and linked, carrying ``metres`` (never parsed again).

    >>> distance_value("11 m", 11.0).magnitude("cm")
    1100.0
    """
    from interconnect.units import Q_, QuantityText

    return QuantityText(text, Q_(metres, "m"), "length")


def reach_specs() -> list:
    """The Reach page: distance, message size, sync interval, the gap's medium, and the shared cluster."""
    from interconnect.topics.reach.model import DEFAULT_DISTANCE, GAP_MEDIA

    return [
        DistanceParam("d", DEFAULT_DISTANCE, "Distance", dimension="length"),
        QuantityParam("size", "1 GiB", "Message size", dimension="size", minimum="1 KiB", maximum="1 TiB"),
        IntParam("h", 100, "Synchronise every H steps", minimum=1, maximum=100_000),
        ChoiceParam("medium", "fibre", "Between the sites", choices=tuple(GAP_MEDIA)),
        *cluster_specs(),
        view_spec(REACH_VIEWS),
    ]
