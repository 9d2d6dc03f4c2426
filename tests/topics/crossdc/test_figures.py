"""The Across-sites figures: one trace per method, log axes with readable ticks, gaps where out of reach."""

import math

import numpy as np
import pytest

from interconnect.topics.crossdc.figures import bytes_figure, required_bandwidth_figure, utilization_figure
from interconnect.topics.crossdc.model import METHODS
from interconnect.topics.crossdc.view import BANDWIDTH_GRID_BYTES_PER_S, PARAMS_GRID, PageInputs, crossdc_view

VIEW = crossdc_view(PageInputs(1e9, 2, 8, "h100-sxm", "diloco", 1.25e9, 0.02))


def test_utilization_figure_one_curve_per_method_chosen_thick():
    figure = utilization_figure(BANDWIDTH_GRID_BYTES_PER_S, VIEW.utilization_curves, VIEW.labels, "diloco", 1.25e9,
                                0.95, [("Same campus", 100e9)])
    assert [trace.name for trace in figure.data] == [VIEW.labels[m] for m in METHODS]
    widths = {trace.name: trace.line.width for trace in figure.data}
    assert widths["DiLoCo"] > widths["Data parallel"]
    assert figure.layout.xaxis.type == "log"
    assert figure.data[0].x[0] == pytest.approx(10e6)  # bit/s: the grid starts at 10 Mbit/s
    assert "10 Mbit/s" in figure.layout.xaxis.ticktext and "1 Tbit/s" in figure.layout.xaxis.ticktext
    assert max(max(trace.y) for trace in figure.data) <= 100
    assert figure.layout.font.size == 16


def test_bytes_figure_two_bars_per_method_on_a_log_axis():
    labels = [VIEW.labels[m] for m in METHODS]
    figure = bytes_figure(labels, [VIEW.results[m].payload_bytes for m in METHODS],
                          [VIEW.results[m].bytes_per_step for m in METHODS], chosen=1)
    assert len(figure.data) == 2 and len(figure.data[0].y) == len(METHODS)
    assert figure.layout.xaxis.type == "log"
    assert figure.data[0].y[1] == "<b>DiLoCo</b>"
    assert figure.data[0].text[1] == "2 GB"  # 1e9 parameters at 16 bits
    assert "1 GB" in figure.layout.xaxis.ticktext


def test_required_figure_leaves_gaps_where_out_of_reach():
    curves = {"dp": np.array([1e9, math.inf, 2e9]), "diloco": np.array([1e7, 2e7, 3e7])}
    figure = required_bandwidth_figure(np.array([1e9, 1e10, 1e11]), curves, {"dp": "DP", "diloco": "DiLoCo"},
                                       "diloco", 1e10, 0.95)
    assert figure.data[0].y[1] is None
    assert figure.layout.xaxis.ticktext == ("1B", "10B", "100B")
    assert figure.layout.yaxis.type == "log"
    assert "95%" in figure.layout.title.text


def test_required_figure_from_the_view_spans_the_grid():
    figure = required_bandwidth_figure(PARAMS_GRID, VIEW.required_curves, VIEW.labels, "diloco", 1e9, 0.95)
    assert len(figure.data) == len(METHODS) and len(figure.data[0].x) == 64
    assert figure.layout.xaxis.ticktext[0] == "100M" and figure.layout.xaxis.ticktext[-1] == "10T"
