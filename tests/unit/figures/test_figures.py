"""The Plotly builders: pure functions of core results, checked without Streamlit."""

import pytest

from interconnect.catalog import get_catalog
from interconnect.figures.allreduce import busbw_figure, node_count_figure, time_figure, traffic_figure
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
    assert set(annotations) == {"latency-bound", "bandwidth-bound"}
    assert all(annotation.xref == "x domain" for annotation in annotations.values())
    busbw = busbw_figure(view)
    assert any(trace.name.startswith("ring limit") for trace in busbw.data)
    nodes = node_count_figure(node_count_curve(cluster, 2**28), playbook_curve())
    assert any("Playbook" in trace.name for trace in nodes.data)
    traffic = traffic_figure(traffic_per_gpu(cluster, 2**28), 2**28)
    assert traffic.data[0].y[0] == pytest.approx(2 * 15 / 16)  # flat ring, 16 ranks: 2(n-1)/n
