"""The Across-sites live chart: every slider position is what the page's own view computes for that bandwidth."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from interconnect.topics.crossdc.live_figure import bandwidth_family_spec, bandwidth_label
from interconnect.topics.crossdc.model import METHODS, evaluate, make_method
from interconnect.topics.crossdc.sweep import (
    BANDWIDTH_STEPS_BYTES_PER_S,
    INNER_STEPS_GRID,
    bandwidth_family,
    live_bandwidths,
    live_inner_steps,
)
from interconnect.topics.crossdc.view import PageInputs, crossdc_view


def test_the_grids_always_hold_the_pages_own_values():
    assert live_bandwidths(1.25e9) == BANDWIDTH_STEPS_BYTES_PER_S
    assert 3e9 / 8 in live_bandwidths(3e9 / 8) and 1e3 in live_bandwidths(1e3)
    assert live_inner_steps(100) == INNER_STEPS_GRID  # on the grid already
    assert 500 in live_inner_steps(500) and live_inner_steps(0)[0] == 1
    assert [bandwidth_label(b) for b in BANDWIDTH_STEPS_BYTES_PER_S[:4]] == ["10 Mbit/s", "20 Mbit/s", "50 Mbit/s",
                                                                            "100 Mbit/s"]


@pytest.mark.parametrize("inputs", [
    PageInputs(1e9, 2, 8, "h100-sxm", "diloco", wan_bytes_per_s=1.25e9, rtt_s=0.02),
    PageInputs(70e9, 4, 64, "h100-sxm", "streaming-diloco", wan_bytes_per_s=3e9 / 8, rtt_s=0.05, inner_steps=30,
               overlap_steps=2, bits=4),
    PageInputs(8e9, 3, 8, "b200", "dp", wan_bytes_per_s=1e11 / 8, rtt_s=0.001, overlap=False),
    PageInputs(1e10, 2, 8, "h100-sxm", "sparseloco", wan_bytes_per_s=1e8 / 8, rtt_s=0.08, step_mode="derived"),
])
def test_every_position_equals_the_pages_own_view_at_that_bandwidth(inputs):
    """The sentence beside the slider and the thick line at the page's H are, at each bandwidth, the
    utilisation the page's view (and its metric) computes with that bandwidth typed in the box."""
    view = crossdc_view(inputs)
    h = view.scenario.method.inner_steps
    bandwidths = live_bandwidths(inputs.wan_bytes_per_s)
    family = bandwidth_family(view.scenario, bandwidths, live_inner_steps(h))
    spec = bandwidth_family_spec(family, inputs.wan_bytes_per_s, inputs.method, h, view.labels)
    assert spec["slider"]["values"] == list(bandwidths)
    assert spec["slider"]["values"][spec["slider"]["index"]] == inputs.wan_bytes_per_s
    thick = next(series for series in spec["series"] if series["width"] == 4.0)
    dp = next(series["name"] for series in spec["series"] if series["name"].startswith(view.labels["dp"]))
    assert dp.endswith("(syncs gradients every step, so H does not apply)") and "H = 1" not in dp
    x = spec["x"]["values"].index(float(h))
    assert spec["markers"][0]["x"] == float(h)
    for position, bandwidth in enumerate(bandwidths):
        there = crossdc_view(replace(inputs, wan_bytes_per_s=bandwidth))
        expected = there.result.utilization
        readout = spec["readouts"][position]
        assert readout.startswith(f"{bandwidth_label(bandwidth)} per site: {view.labels[inputs.method]} at H = {h:,} "
                                  f"keeps the GPUs {expected:.1%} busy"), readout
        assert math.isclose(thick["y"][position][x], expected, rel_tol=1e-12)
        if inputs.method != "dp":
            assert f"data parallel {there.results['dp'].utilization:.1%}" in readout


def test_other_methods_and_values_of_h_match_the_core_too():
    view = crossdc_view(PageInputs(1e9, 2, 8, "h100-sxm", "diloco", wan_bytes_per_s=1.25e9, rtt_s=0.02))
    family = bandwidth_family(view.scenario, (1.25e8, 1.25e10), (1, 7, 300))
    for method_id in METHODS:
        for i, bandwidth in enumerate((1.25e8, 1.25e10)):
            for j, h in enumerate((1, 7, 300)):
                # Data parallel and the pipeline exchange every step: their level is the same at every H.
                method = (make_method(method_id) if method_id in ("dp", "crosspipe")
                          else make_method(method_id, inner_steps=h))
                scenario = replace(view.scenario, wan_bytes_per_s=bandwidth, method=method)
                assert math.isclose(family.utilization[method_id][i, j], evaluate(scenario).utilization,
                                    rel_tol=1e-12), (method_id, bandwidth, h)


def test_present_mode_enlarges_the_text():
    view = crossdc_view(PageInputs(1e9, 2, 8, "h100-sxm", "diloco", wan_bytes_per_s=1.25e9, rtt_s=0.02))
    family = bandwidth_family(view.scenario, (1.25e9,), (500,))
    assert bandwidth_family_spec(family, 1.25e9, "diloco", 500, view.labels, present=True)["font_scale"] > 1


def test_an_h_beyond_the_grid_widens_the_axis_and_its_ticks():
    view = crossdc_view(PageInputs(1e9, 2, 8, "h100-sxm", "diloco", wan_bytes_per_s=1.25e9, rtt_s=0.02,
                                   inner_steps=1_000_000))
    family = bandwidth_family(view.scenario, (1.25e9,), live_inner_steps(1_000_000))
    spec = bandwidth_family_spec(family, 1.25e9, "diloco", 1_000_000, view.labels)
    assert spec["x"]["ticks"][-1]["text"] == "1,000,000"
    assert spec["markers"][0]["x"] == 1e6
    assert spec["readouts"][0].startswith("10 Gbit/s per site: DiLoCo at H = 1,000,000")
