"""Live charts: the family the browser picks from is the core's own numbers, position by position."""

from __future__ import annotations

import math

import numpy as np
import pytest

from interconnect.figures.live import LiveAxis, LiveMarker, LiveSeries, live_spec, log_axis_ticks
from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.allreduce.live_figure import node_family_spec
from interconnect.topics.allreduce.sweep import live_node_counts, node_family
from interconnect.topics.allreduce.view import node_count_curve
from interconnect.units import Q_, format_bandwidth

AXIS = LiveAxis("x", False, 0.0, 1.0, ((0.5, "half"),))


def _spec(**overrides):
    arguments = dict(title="t", slider_label="n", slider_values=[1, 2, 3], slider_labels=["a", "b", "c"], index=0,
                     x_axis=AXIS, x_values=[0.0, 1.0], y_axis=AXIS,
                     series=[LiveSeries("s", "#000", np.zeros((3, 2)))], readouts=["x", "y", "z"])
    arguments.update(overrides)
    return live_spec(**arguments)


def test_spec_refuses_shapes_that_disagree():
    with pytest.raises(ValueError, match="one entry per position"):
        _spec(readouts=["x"])
    with pytest.raises(ValueError, match="one entry per position"):
        _spec(index=3)
    with pytest.raises(ValueError, match="expected"):
        _spec(series=[LiveSeries("s", "#000", np.zeros((2, 2)))])


def test_spec_turns_non_finite_values_into_gaps_and_log_ranges_into_decades():
    spec = _spec(series=[LiveSeries("s", "#000", np.array([[np.nan, 1.0], [np.inf, -np.inf], [2.0, 3.0]]))])
    assert spec["series"][0]["y"] == [[None, 1.0], [None, None], [2.0, 3.0]]
    log = LiveAxis("y", True, 1.0, 1000.0, ())
    assert log.as_dict()["range"] == [0.0, 3.0]


def test_markers_inside_the_x_range_are_kept_and_the_others_left_out():
    spec = _spec(markers=[LiveMarker(0.25, "yours"), LiveMarker(2.0, "beyond"), LiveMarker(float("nan"), "none")])
    assert spec["markers"] == [{"x": 0.25, "text": "yours", "color": "#111827", "dash": "dash"}]
    assert _spec()["markers"] == []


def test_log_axis_ticks_keep_every_value_inside_and_label_decades():
    values = np.array([[0.02, 5.0], [np.nan, 900.0]])
    low, high, ticks = log_axis_ticks(values, lambda v: f"{v:g}")
    assert low < 0.02 and high > 900.0
    assert [text for _, text in ticks] == ["0.1", "1", "10", "100", "1000"]
    # Nothing finite: a default axis rather than an error.
    assert log_axis_ticks(np.array([np.nan, -1.0]), str)[:2] == (0.1, 10.0)
    # A floor drops the far corner from the range.
    assert log_axis_ticks(np.array([1e-9, 1.0, 10.0]), str, floor=1e-3)[0] > 1e-3 / 10


def test_live_node_counts_always_hold_the_pages_own_count():
    assert live_node_counts(3) == (1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    assert live_node_counts(0) == (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    assert live_node_counts(10**9, maximum=100_000)[-1] == 100_000


@pytest.mark.parametrize("gpu, nic", [("h100-sxm", None), ("a100-sxm", "200 Gbit/s")])
def test_every_position_equals_the_cluster_size_chart_of_the_core(gpu, nic):
    """The readout beside the slider at each node count is the node-count curve's busbw at 256 MiB:
    the same number the page's cluster-size chart and the command line give (no arithmetic in the
    browser, and none duplicated here)."""
    cluster, _ = resolve_cluster(gpu, gpus_per_node=8, nodes=4, **({"nic": nic} if nic else {}))
    counts = live_node_counts(cluster.nodes)
    spec = node_family_spec(node_family(cluster, counts), cluster.nodes, 2**28, "NCCL's pick")
    curve = node_count_curve(cluster, 2**28, counts)
    assert spec["slider"]["values"] == [float(n) for n in counts]
    assert spec["slider"]["index"] == counts.index(4)
    for position, busbw in enumerate(curve.busbw_chosen):
        assert f"busbw {format_bandwidth(Q_(float(busbw), 'GB/s'))}" in spec["readouts"][position]
    # The thick line's point at 256 MiB is the same busbw.
    x = spec["x"]["values"].index(float(2**28))
    chosen = spec["series"][-1]
    assert chosen["name"] == "NCCL's pick"
    for position, busbw in enumerate(curve.busbw_chosen):
        assert math.isclose(chosen["y"][position][x], float(busbw), rel_tol=1e-9)


def test_unavailable_algorithms_are_left_out_and_the_axes_are_fixed():
    cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=2)  # no NVLS before Hopper
    spec = node_family_spec(node_family(cluster, (1, 2, 4)), 2, 2**20, "NCCL's pick")
    names = [series["name"] for series in spec["series"]]
    assert "NVLS" not in names and "Ring" in names
    low, high = spec["y"]["range"]
    finite = [v for series in spec["series"] for row in series["y"] for v in row if v is not None]
    assert 10 ** high >= max(finite)
    assert spec["font_scale"] == 1.0
    assert node_family_spec(node_family(cluster, (1, 2)), 2, 2**20, "x", present=True)["font_scale"] > 1
