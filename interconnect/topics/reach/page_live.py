"""The Reach page's live chart: drag the distance, and the kinds of link it has passed turn grey at once.

The family over every distance the slider offers is computed once per distance in use (cached,
shared between sessions); the browser redraws from it while the slider moves. When the movement
ends, the chosen distance is written into the page's distance box and slider, so the metrics, the
tables and the link all follow.
"""

from __future__ import annotations

import streamlit as st

from interconnect.catalog import get_catalog
from interconnect.hardware.wires import get_wires
from interconnect.inputs.params import FloatParam
from interconnect.topics.reach.live_figure import reach_family_spec
from interconnect.topics.reach.model import MAX_DISTANCE_M, MIN_DISTANCE_M, distance_text, propagation_for, reach_rows
from interconnect.topics.reach.sweep import live_distances, reach_family
from interconnect.ui.live_control import LiveControl, presenting

__all__ = ["LIVE_DISTANCE", "live_reach"]

#: The slider's value is read in metres, on this page's scale: 10 cm to 20,000 km, as the link's ``d`` is.
LIVE_DISTANCE = LiveControl(
    "reach.live_distance", "d",
    reader=FloatParam("d", 1.0, "Distance", minimum=MIN_DISTANCE_M, maximum=MAX_DISTANCE_M),
    reading="Each bar is one kind of link at one rate, out to the farthest that rate reaches; a kind whose fastest "
            "member stops before a slower one has a bar per rate (*: no maker gives a reach; the figure is our "
            "estimate). Blue while the kind still reaches the red distance at that rate, grey once the distance has "
            "passed it. Past its reach a link does not slow down; it stops.")


@st.cache_resource(max_entries=64, show_spinner=False)
def _spec(distance_m: float, present: bool) -> dict:
    wires, catalog = get_wires(), get_catalog()
    family = reach_family(reach_rows(wires, catalog), {medium.id: medium.kind for medium in wires.media.values()},
                          live_distances(distance_m), propagation_for("fibre", catalog))
    return reach_family_spec(family, distance_m, present=present)


def live_reach(distance_m: float, set_distance) -> None:
    """The live chart under the distance box; ``set_distance(text, metres)`` takes the distance chosen (the box
    holds text, so the page writes it into both its box and its value)."""

    def chosen(metres: float) -> None:
        set_distance(distance_text(metres), float(metres))

    LIVE_DISTANCE.show(_spec(float(distance_m), presenting()), on_value=chosen)
    LIVE_DISTANCE.caption()
