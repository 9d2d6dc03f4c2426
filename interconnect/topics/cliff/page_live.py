"""The Bandwidth cliff page's live chart: drag the NICs per server and the time to send data out follows at once.

The family over every offered NIC count is computed once per GPU and NIC (cached, shared between
sessions); the browser redraws from it while the slider moves. When the movement ends, the chosen
count becomes the page's ``nics`` value, so the headline ratios, the bars and the link all follow.
"""

from __future__ import annotations

import streamlit as st

from interconnect.catalog import Catalog
from interconnect.inputs.params import IntParam
from interconnect.topics.cliff.inputs import NICS_PER_SERVER
from interconnect.topics.cliff.live_figure import nic_family_spec
from interconnect.topics.cliff.model import CliffSummary, short_link_name
from interconnect.topics.cliff.sweep import NicFamily, live_nic_counts, nic_family
from interconnect.ui.live_control import LiveControl, presenting
from interconnect.ui.state import PageState

__all__ = ["LIVE_NICS_PER_SERVER", "live_caption", "live_nics"]

#: The slider sets the page's NICs per server; its value is read in that record's range, but as a number
#: (the slider never sends ``auto``).
LIVE_NICS_PER_SERVER = LiveControl(
    "cliff.live_nics", NICS_PER_SERVER.key,
    reader=IntParam(NICS_PER_SERVER.key, 8, NICS_PER_SERVER.label, minimum=NICS_PER_SERVER.minimum,
                    maximum=NICS_PER_SERVER.maximum))


@st.cache_resource(max_entries=32, show_spinner=False)
def _family(key: tuple, _catalog: Catalog, gpu_id: str, nic_id: str, counts: tuple[int, ...], direction: str,
            basis: str) -> NicFamily:
    return nic_family(_catalog, gpu_id, nic_id, counts, direction=direction, basis=basis)


@st.cache_resource(max_entries=64, show_spinner=False)
def _spec(key: tuple, nics: int, unit: str, present: bool, _family: NicFamily, _catalog: Catalog,
          _summary: CliffSummary) -> dict:
    """The chart's numbers at the page's NIC count: built once per family, count and unit. ``key`` (the family's:
    the GPU, the NIC, the grid, the direction and the basis) determines ``_family`` and the names on the chart."""
    gpu, nic = _summary.gpu, _summary.nic
    return nic_family_spec(_family, nics, short_link_name(gpu.scaleup_brand.name),
                           short_link_name(_catalog.link(gpu.host_link).name), short_link_name(nic.name),
                           present=present, unit=unit, library=gpu.collective_library.name)


def live_nics(state: PageState, catalog: Catalog, summary: CliffSummary, custom_key: tuple = (), *,
              direction: str = "per_direction", unit: str = "B/s", basis: str = "spec") -> None:
    """The live chart under the page's controls, in the page's direction, unit and basis; its slider sets the
    page's NICs per server."""
    gpu, nic = summary.gpu, summary.nic
    counts = live_nic_counts(summary.nics_per_node)
    family = _family(custom_key, catalog, gpu.id, nic.id, counts, direction, basis)
    key = (custom_key, gpu.id, nic.id, counts, direction, basis)
    LIVE_NICS_PER_SERVER.show(_spec(key, summary.nics_per_node, unit, presenting(), family, catalog, summary), state)


def live_caption(basis: str = "spec", direction: str = "per_direction", library: str = "NCCL") -> None:
    """How to use the live chart, drawn under it (it depends on nothing the slider changes)."""
    figures = f"what {library} achieves" if basis == "achieved" else "spec figures"
    rates = ("the readout's rates have both directions summed, but a transfer runs one way, so the times use one "
             "direction's rate" if direction == "both_directions" else "every line is one direction's rate")
    LIVE_NICS_PER_SERVER.caption(f"The figures are {figures}; {rates}. The gap between the red line and the blue "
                                 "one is the cliff.")
