"""The Plotly builders: pure functions of core results, checked without Streamlit."""

import math

import numpy as np
import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.allreduce.figures import (
    SHORT_NAMES,
    busbw_figure,
    choice_label,
    node_count_figure,
    time_figure,
    traffic_figure,
)
from interconnect.topics.allreduce.view import allreduce_view, node_count_curve, playbook_curve, traffic_per_gpu
from interconnect.topics.cliff.figures import cliff_figure, generation_figure, short_gpu_name
from interconnect.topics.cliff.model import cliff_bars, generation_ratios
from interconnect.topics.reach.figures import (
    _MAP_WIDTHS_PX,
    _map_box,
    _map_offset,
    _map_overlaps,
    _map_place_labels,
    _map_point_px,
    reach_figure,
)

CATALOG = get_catalog()


def bars_by_label(figure):
    """Every bar of the cliff chart (one trace per layer) as label -> (value, text)."""
    return {label: (x, text) for trace in figure.data for label, x, text in zip(trace.y, trace.x, trace.text,
                                                                              strict=True)}


def test_cliff_figure_has_one_bar_per_link_on_a_log_axis_in_the_chosen_unit():
    bars = cliff_bars(CATALOG, "h100-sxm", "ib-ndr")
    figure = cliff_figure(bars, "Gbitps")
    drawn = bars_by_label(figure)
    assert list(drawn) == [bar.label for bar in bars]  # layers keep the bars' order
    assert len(figure.data) == len({bar.layer for bar in bars})  # one trace per layer
    assert figure.layout.xaxis.type == "log"
    assert drawn["One GPU's NIC: InfiniBand NDR"] == (pytest.approx(400.0), "400 Gbit/s")  # per direction
    # The edge of the chassis has its own empty row between the last bar inside and the first outside.
    rows = list(figure.layout.yaxis.categoryarray)[::-1]
    assert rows.index(" ") == [bar.key for bar in bars].index("node")
    # Its words start at the plot's left edge, so no width cuts them off at the right (issue 23).
    edge = next(a for a in figure.layout.annotations if a.text.startswith("edge of the chassis"))
    assert (edge.xref, edge.xanchor) == ("paper", "left") and 0 < edge.x <= 0.05
    assert edge.text.isascii()  # no fallback-font glyphs whose width Plotly mis-measures


def test_cliff_figure_marks_bars_whose_basis_differs():
    bars = cliff_bars(CATALOG, "h100-sxm", "ib-ndr", basis="achieved")
    figure = cliff_figure(bars, "GBps", basis="achieved")
    texts = [text for _, text in bars_by_label(figure).values()]
    assert not any("(achieved)" in text for text in texts)
    assert any("(spec)" in text for text in texts)  # HBM has no achieved figure


def test_cliff_axis_reads_in_real_units():
    figure = cliff_figure(cliff_bars(CATALOG, "h100-sxm"), "GBps")
    assert list(figure.layout.xaxis.ticktext) == ["1 MB/s", "1 GB/s", "1 TB/s"]
    bits = cliff_figure(cliff_bars(CATALOG, "h100-sxm"), "Gbitps")
    assert "1 Gbit/s" in bits.layout.xaxis.ticktext
    discs = cliff_figure(cliff_bars(CATALOG, "h100-sxm"), "bluray")
    assert "1 a second" in discs.layout.xaxis.ticktext and "1 an hour" in discs.layout.xaxis.ticktext


def test_blu_ray_labels_read_as_a_time_per_disc():
    # 100 Mbit/s = 12.5 MB/s: a 50 GB disc takes 4000 s = 1.11 h.
    texts = bars_by_label(cliff_figure(cliff_bars(CATALOG, "h100-sxm"), "bluray"))
    assert texts["Home broadband"][1] == "1 Blu-ray every 1.11 h (down)"
    assert texts["NVLink: GPU to GPU"][1] == "9 Blu-rays/s"  # 450 GB/s / 50 GB
    assert not any("e-0" in text for _, text in texts.values())


def test_asymmetric_link_shows_both_rates():
    per = bars_by_label(cliff_figure(cliff_bars(CATALOG, "h100-sxm"), "Gbitps"))
    assert per["Home broadband"][1] == "100 Mbit/s down, 20 Mbit/s up"
    both = bars_by_label(cliff_figure(cliff_bars(CATALOG, "h100-sxm", direction="both_directions"), "Gbitps",
                                      direction="both_directions"))
    assert both["Home broadband"] == (pytest.approx(0.12), "120 Mbit/s (100 down + 20 up)")


def test_cliff_figure_fits_the_projector_and_has_room_for_its_labels():
    for gpu in CATALOG.gpus:
        for unit in ("GBps", "Gbitps", "bluray"):
            figure = cliff_figure(cliff_bars(CATALOG, gpu, direction="both_directions"), unit,
                                  direction="both_directions")
            assert figure.layout.height <= 660, (gpu, unit)  # 720 px window less Streamlit's header
            assert all(trace.textfont.size >= 14 for trace in figure.data)
            high = figure.layout.xaxis.range[1]
            assert high > max(math.log10(x) for trace in figure.data for x in trace.x) + 0.3


def test_generation_figure_in_release_order_with_readable_labels():
    rows = generation_ratios(CATALOG)
    figure = generation_figure(rows)
    like = figure.data[0]
    assert len(like.y) == len(CATALOG.gpus) and like.orientation == "h"  # one line per GPU, however many
    assert list(figure.layout.yaxis.categoryarray) == list(like.y)[::-1]  # release order, top down
    years = [int(tick.split(" · ")[1]) for tick in like.y]
    assert years == sorted(years)
    assert all(trace.textfont.size is None or trace.textfont.size >= 14 for trace in figure.data)
    assert figure.layout.yaxis.tickfont.size >= 14
    gaudi = next(i for i, row in enumerate(rows) if row.gpu.id == "gaudi3")
    assert like.text[gaudi] == "7:1"  # 525 / (3 x 25) GB/s, as on the page's headline


def test_reach_map_labels_fit_and_axes_read_in_units():
    reach = reach_figure(list(CATALOG.links.values()))
    assert reach.layout.xaxis.type == "log" and reach.layout.yaxis.type == "log"
    assert "1 m" in reach.layout.xaxis.ticktext and "1 km" in reach.layout.xaxis.ticktext
    assert "1 GB/s" in reach.layout.yaxis.ticktext and "1 kB/s" in reach.layout.yaxis.ticktext
    labels = [annotation.text for annotation in reach.layout.annotations]
    assert not any("…" in label for label in labels)
    assert {"NVLink 5", "NVLink 4", "LapLink cable", "400ZR"} <= set(labels)
    assert all(annotation.font.size >= 14 for annotation in reach.layout.annotations)
    # Every link with a reach is on the map (and named in its hover box), labelled or not.
    names = " / ".join(row[0] for trace in reach.data for row in trace.customdata)
    assert all(link.name in names for link in CATALOG.links.values() if link.reach is not None)
    assert short_gpu_name("NVIDIA H100 SXM5 80GB") == "H100 SXM5"


def test_reach_map_label_boxes_do_not_overlap_at_the_widths_it_is_laid_out_for():
    spots = [(0.5, 450.0, "NVLink 4"), (2.0, 900.0, "NVLink 5"), (2.0, 50.0, "InfiniBand NDR"),
             (3.0, 50.0, "Copper DAC"), (5.0, 50.0, "Active copper")]
    positions = _map_place_labels(spots)
    for width in _MAP_WIDTHS_PX:
        boxes = []
        for (x, y, text), position in zip(spots, positions, strict=True):
            if position is None:
                continue
            px, py = _map_point_px(x, y, width)
            dx, dy = _map_offset(position, text)
            boxes.append(_map_box((px + dx, py + dy), text))
        for i, first in enumerate(boxes):
            assert not any(_map_overlaps(first, second, pad=0) for second in boxes[i + 1:])
    assert positions[0] is not None and positions[1] is not None


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


@pytest.mark.parametrize("extreme", [1e308, 1.7e308, 5e-324, 1e-320, 1e-30])
def test_allreduce_figures_never_raise_on_finite_extremes(extreme):
    # Issue 21: one log row timed at 1e308 us overflowed the time axis's decade ticks (10.0**309).
    from interconnect.topics.allreduce.figures import Overlay, decade_ticks

    view = allreduce_view(resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)[0])
    sizes = np.array([1024.0, 1048576.0, 268435456.0])
    overlay = Overlay("your log", sizes, np.array([10.0, extreme, 1000.0]), np.array([1.0, extreme, 300.0]))
    time, busbw = time_figure(view, [overlay]), busbw_figure(view, [overlay])
    for figure in (time, busbw):
        ticks = figure.layout.yaxis.tickvals or ()
        assert all(math.isfinite(v) and v > 0 for v in ticks)
    assert decade_ticks(1e307, 1.6e308, str)[0][-1] == 1e308
