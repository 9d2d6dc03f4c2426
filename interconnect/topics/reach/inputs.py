"""The reach page's inputs: its link parameters, declared once (key, default, label, bounds), and its
views. The page's widgets, its link and its CLI defaults read them from here."""

from __future__ import annotations

import functools as _functools

from interconnect.inputs.cluster import CLUSTER_KEYS, cluster_specs
from interconnect.inputs.links import PageViews, view_spec
from interconnect.inputs.params import (
    ChoiceParam,
    IntParam,
    RememberedQuantityParam,
    remembered,
)

REACH_VIEWS = PageViews({"leash": "Rate against reach", "training": "Training across the gap", "timeouts": "Timeouts"},
                        {"leash": ("reach-leash",), "training": ("reach-training",), "timeouts": ("reach-timeouts",)},
                        {"training": ("size", "h", "medium", *CLUSTER_KEYS)})


class DistanceParam(RememberedQuantityParam):
    """A typed distance (``d=11 m``): any length, clamped to 10 cm .. 20,000 km with a warning.

    Unlike a plain :class:`QuantityParam` an out-of-scale value is clamped (``d=-5 m`` opens at
    10 cm and says so) rather than replaced by the default.
    """

    def parse(self, raw: str) -> tuple[str, str | None]:
        return _remembered_distance(self, raw)


@_functools.lru_cache(maxsize=512)
def _remembered_distance(spec: DistanceParam, raw: str) -> tuple[str, str | None]:
    from interconnect.topics.reach.model import read_distance
    from interconnect.units import QuantityInputError

    try:
        reading = read_distance(raw)
    except QuantityInputError as exc:
        return spec.default, str(exc)
    # The warning says what was used; the link warning adds that itself.
    return reading.text, reading.warning.rsplit("; using ", 1)[0] or None


def reach_specs() -> list:
    """The Reach page: distance, message size, sync interval, the gap's medium, and the shared cluster."""
    from interconnect.topics.reach.model import DEFAULT_DISTANCE, GAP_MEDIA

    return [
        DistanceParam("d", DEFAULT_DISTANCE, "Distance", dimension="length"),
        RememberedQuantityParam("size", "1 GiB", "Message size", dimension="size", minimum="1 KiB",
                                 maximum="1 TiB"),
        IntParam("h", 100, "Synchronise every H steps", minimum=1, maximum=100_000),
        ChoiceParam("medium", "fibre", "Between the sites", choices=tuple(GAP_MEDIA)),
        *[remembered(spec) for spec in cluster_specs()],
        view_spec(REACH_VIEWS),
    ]
