"""The Across-sites page's live chart: drag the WAN bandwidth and utilisation against H follows at once.

The family over every offered bandwidth is computed once per scenario (cached, shared between
sessions); the browser redraws from it while the slider moves. When the movement ends, the chosen
bandwidth is written into the page's bandwidth box, so the metrics, the other charts and the link
all follow.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from interconnect.inputs.params import FloatParam
from interconnect.topics.crossdc.live_figure import bandwidth_family_spec, bandwidth_label
from interconnect.topics.crossdc.model import Scenario
from interconnect.topics.crossdc.sweep import BandwidthFamily, bandwidth_family, live_bandwidths, live_inner_steps
from interconnect.topics.crossdc.view import CrossDCView, PageInputs
from interconnect.ui.live import live_chart
from interconnect.ui.state import PageState
from interconnect.ui.talk import talk_state

__all__ = ["live_bandwidth", "live_caption"]

#: How the slider's value (bytes per second) is read: in the range the link's ``bw`` allows, 1 kbit/s to 1000 Tbit/s.
_BANDWIDTH = FloatParam("bw", 1.25e9, "WAN bandwidth per site", minimum=1e3 / 8, maximum=1e18 / 8)


@st.cache_resource(max_entries=32, show_spinner=False)
def _family(key: tuple, _scenario: Scenario, bandwidths: tuple[float, ...], steps: tuple[int, ...]) -> BandwidthFamily:
    return bandwidth_family(_scenario, bandwidths, steps)


@st.cache_resource(max_entries=64, show_spinner=False)
def _spec(key: tuple, bandwidth: float, present: bool, _family: BandwidthFamily, _view: CrossDCView) -> dict:
    """The chart's numbers at the page's bandwidth: built once per family and bandwidth. ``key`` (the family's:
    every input but the bandwidth) determines ``_family`` and the view's method and labels."""
    method = _view.scenario.method
    return bandwidth_family_spec(_family, bandwidth, method.id, method.inner_steps, _view.labels, present=present)


def live_bandwidth(state: PageState, inputs: PageInputs, view: CrossDCView) -> None:
    """The live chart under the page's controls; its slider sets the WAN bandwidth box."""
    scenario = view.scenario
    bandwidths = live_bandwidths(inputs.wan_bytes_per_s)
    steps = live_inner_steps(scenario.method.inner_steps)
    # Keyed by everything but the bandwidth (the grid holds it): every bandwidth on the grid shares one family.
    key = (repr(replace(inputs, wan_bytes_per_s=1.0)), scenario.step_s)
    family = _family(key, scenario, bandwidths, steps)

    def set_bandwidth(chosen: float) -> None:
        st.session_state[state.key("bw")] = bandwidth_label(chosen)

    spec = _spec((key, bandwidths, steps), inputs.wan_bytes_per_s, talk_state().present, family, view)
    live_chart("crossdc.live_bandwidth", spec, set_bandwidth, _BANDWIDTH)


def live_caption() -> None:
    """How to use the live chart, drawn under it (it depends on nothing the slider or the main controls change)."""
    st.caption("Drag the slider, or focus it and use the arrow keys: the chart follows at once in your browser; the "
               "rest of the page and the link follow when you let go. Thick: the method as set above; dotted: the "
               "others with their papers' settings. Data parallel synchronises every step, so its line is a level.")
