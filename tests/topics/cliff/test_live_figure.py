"""The Bandwidth cliff's live chart: every slider position is the page's own cliff summary at that NIC count."""

from __future__ import annotations

import math

import pytest

from interconnect.catalog import get_catalog
from interconnect.topics.cliff.live_figure import BLURAY_BYTES, nic_family_spec
from interconnect.topics.cliff.model import cliff_summary, short_link_name, transfer_time
from interconnect.topics.cliff.sweep import NIC_COUNTS, live_nic_counts, nic_family
from interconnect.units import Q_, format_bandwidth, format_seconds


def test_the_slider_always_holds_the_pages_own_count():
    assert live_nic_counts(8) == NIC_COUNTS
    assert 3 in live_nic_counts(3) and 144 in live_nic_counts(500)
    assert live_nic_counts(0)[0] == 1


@pytest.mark.parametrize("gpu, nic", [("h100-sxm", "ib-ndr"), ("gaudi3", None), ("mi300x", None), ("b200", None)])
def test_every_position_equals_the_cliff_summary_at_that_count(gpu, nic):
    """The sentence beside the slider and the red line are, at each NIC count, what the page's headline
    ratio (cliff_summary) and its Blu-ray table (transfer_time) give with that count typed in."""
    catalog = get_catalog()
    auto = cliff_summary(catalog, gpu, nic)
    counts = live_nic_counts(auto.nics_per_node)
    family = nic_family(catalog, gpu, nic, counts)
    nic_name = short_link_name(auto.nic.name)
    spec = nic_family_spec(family, auto.nics_per_node, "up", "host", nic_name)
    assert spec["slider"]["values"][spec["slider"]["index"]] == auto.nics_per_node
    red = spec["series"][-1]
    x = min(range(len(spec["x"]["values"])), key=lambda k: abs(math.log(spec["x"]["values"][k] / 1e9)))
    for position, count in enumerate(counts):
        summary = cliff_summary(catalog, gpu, nic, nics_per_node=count)
        share = summary.network_per_gpu_per_direction
        out = transfer_time(share, Q_(BLURAY_BYTES, "B")).to("s").magnitude
        readout = spec["readouts"][position]
        assert readout.startswith(f"{count} {nic_name} NIC{'s' if count != 1 else ''} for {summary.gpus_per_node} "
                                  f"GPUs: {format_bandwidth(share)} per GPU per direction"), readout
        assert f", {summary.ratio_like_for_like:.3g} to 1." in readout
        assert f"leaves the server in {format_seconds(float(out))}" in readout
        payload = spec["x"]["values"][x]
        expected = transfer_time(share, Q_(payload, "B")).to("s").magnitude
        assert math.isclose(red["y"][position][x], float(expected), rel_tol=1e-12)


def test_present_mode_enlarges_the_text():
    family = nic_family(get_catalog(), "h100-sxm", None, (8,))
    assert nic_family_spec(family, 8, "a", "b", "c", present=True)["font_scale"] > 1
