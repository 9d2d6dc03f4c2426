"""The Plotly builders: pure functions of core results, checked without Streamlit."""

import math

import numpy as np
import pytest

from interconnect.catalog import get_catalog
from interconnect.figures.allreduce import (
    SHORT_NAMES,
    busbw_figure,
    choice_label,
    node_count_figure,
    time_figure,
    traffic_figure,
)
from interconnect.figures.cliff import cliff_figure, generation_figure, short_gpu_name
from interconnect.figures.reach import reach_figure
from interconnect.models.allreduce_view import allreduce_view, node_count_curve, playbook_curve, traffic_per_gpu
from interconnect.models.cliff import cliff_bars, generation_ratios
from interconnect.models.cluster import resolve_cluster

CATALOG = get_catalog()


def test_cliff_figure_has_one_bar_per_link_on_a_log_axis_in_the_chosen_unit():
    bars = cliff_bars(CATALOG, "h100-sxm", "ib-ndr")
    figure = cliff_figure(bars, "Gbitps")
    assert [trace.y[0] for trace in figure.data] == [bar.label for bar in bars]
    assert figure.layout.xaxis.type == "log"
    nic = next(trace for trace in figure.data if "one GPU's NIC" in trace.y[0])
    assert nic.x[0] == pytest.approx(400.0)  # 400 Gbit/s per direction
    assert nic.text[0] == "400 Gbit/s"


def test_cliff_figure_marks_bars_whose_basis_differs():
    bars = cliff_bars(CATALOG, "h100-sxm", "ib-ndr", basis="achieved")
    figure = cliff_figure(bars, "GBps", basis="achieved")
    texts = {trace.y[0]: trace.text[0] for trace in figure.data}
    assert not any("(achieved)" in text for text in texts.values())
    assert any("(spec)" in text for text in texts.values())  # HBM has no achieved figure


def test_generation_and_reach_figures():
    figure = generation_figure(generation_ratios(CATALOG))
    assert len(figure.data[0].x) == len(CATALOG.gpus)
    reach = reach_figure(list(CATALOG.links.values()))
    assert reach.layout.xaxis.type == "log" and reach.layout.yaxis.type == "log"
    assert short_gpu_name("NVIDIA H100 SXM5 80GB") == "H100 SXM5"


def test_allreduce_figures_label_regions_and_limits():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    view = allreduce_view(cluster)
    time = time_figure(view)
    annotations = {annotation.text: annotation for annotation in time.layout.annotations}
    regions = {"latency-bound", "bandwidth-bound"}
    assert regions <= set(annotations)
    assert all(annotations[text].xref == "x domain" for text in regions)
    busbw = busbw_figure(view)
    assert any(trace.name.startswith("ring limit") for trace in busbw.data)
    # Issue 8: the "above the wire rate" triangles are gone; the page explains instead.
    assert not any(getattr(trace.marker, "symbol", None) == "triangle-up" for trace in busbw.data)
    nodes = node_count_figure(node_count_curve(cluster, 2**28), playbook_curve())
    assert any("Playbook" in trace.name for trace in nodes.data)
    traffic = traffic_figure(traffic_per_gpu(cluster, 2**28), 2**28)
    assert traffic.data[0].y[0] == pytest.approx(2 * 15 / 16)  # flat ring, 16 ranks: 2(n-1)/n


def test_allreduce_pick_changes_are_marked_on_the_time_chart():
    # 4 x 8 H100 on InfiniBand: Ring LL, Tree LL128, then NVLSTree from 8 MiB (NCCL 2.19-2.27 tuner).
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    view = allreduce_view(cluster)
    figure = time_figure(view)
    labels = [a.text for a in figure.layout.annotations if a.text.startswith("→")]
    assert labels == [f"→ {SHORT_NAMES[c.algorithm]} {c.protocol}" for c in view.pick_changes]
    assert "→ NVLSTree Simple" in labels
    lines = [shape for shape in figure.layout.shapes if shape.type == "line"]
    assert [line.x0 for line in lines] == [c.size_bytes for c in view.pick_changes]


@pytest.mark.parametrize("nodes", [1, 4, 64])
def test_allreduce_axes_have_readable_decade_ticks_only(nodes):
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=nodes)
    view = allreduce_view(cluster)
    for figure, unit_words in ((time_figure(view), ("ns", "µs", "ms", " s")), (busbw_figure(view), ("B/s",))):
        axis = figure.layout.yaxis
        ticks = list(axis.tickvals)
        assert ticks and all(math.log10(v) == round(math.log10(v)) for v in ticks)  # decades only
        assert all(text.endswith(unit_words) for text in axis.ticktext)  # "1 ms", not "1M µs" or "2"
        assert not any(text.startswith(("1M", "1k")) for text in axis.ticktext)
        assert axis.minor.ticks == ""
    busbw = busbw_figure(view).layout.yaxis
    peak = float(np.nanmax(view.chosen.busbw_gbps))
    assert 10 ** busbw.range[0] >= peak * 1e-3 * 0.99  # no empty decades of µGB/s below the curve
    assert 10 ** busbw.range[1] >= peak


def test_forced_choice_is_named_and_fastest_line_only_when_faster():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    view = allreduce_view(cluster, "ring", "Simple")
    figure = time_figure(view, chosen_label=choice_label("ring", "Simple"))
    names = [trace.name for trace in figure.data]
    assert "Forced: Ring, Simple" in names
    assert ("fastest the model knows (NCCL does not pick it)" in names) == view.fastest_differs
