"""The Reach figures: what they draw follows the model, and they read on a projector."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from interconnect.catalog import get_catalog
from interconnect.figures.theme import LAYER_LEGEND_NAMES
from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.reach.figures import (
    _label_positions,
    leash_figure,
    reach_figure,
    timeout_figure,
    training_figure,
)
from interconnect.topics.reach.model import (
    PROPAGATION,
    TIMEOUTS,
    LinkReach,
    fastest_reaching,
    leash_steps,
    media_with_reach,
    two_site_allreduce,
)

CATALOG = get_catalog()
MEDIA = media_with_reach(CATALOG.links.values(), CATALOG)


def row(link_id: str, rate_gbps: float, reach_m: float, layer: str = "cable") -> LinkReach:
    return LinkReach(link_id, link_id.upper(), layer, rate_gbps, reach_m, "spec", "fibre", False, 4.9e-9)


SYNTHETIC = [row("nvl", 900.0, 2.0, "scale-up"), row("dac", 50.0, 1.5), row("sr", 50.0, 100.0),
             row("zr", 100.0, 120e3, "long-reach"), row("lpt", 1.2e-5, 15.0, "historical"),
             row("new", 10.0, 3e3, "a-layer-the-theme-does-not-know")]


def readable(figure) -> None:
    """Projector rules: 14 px or larger chart text, the legend under the plot, ticks in words."""
    assert figure.layout.font.size >= 16
    for trace in figure.data:
        if trace.textfont is not None and trace.textfont.size is not None:
            assert trace.textfont.size >= 14
    for annotation in figure.layout.annotations:
        assert annotation.font.size is None or annotation.font.size >= 14
    assert figure.layout.legend.y < 0  # under the plot: the title above never touches it
    for axis in (figure.layout.xaxis, figure.layout.yaxis):
        assert axis.type == "log"
        assert axis.ticktext and not any(re.search(r"e[+-]\d", text) for text in axis.ticktext)


def distance_line(figure) -> float:
    lines = [shape for shape in figure.layout.shapes if shape.yref == "paper"]
    assert len(lines) == 1
    assert lines[0].x0 == lines[0].x1
    return lines[0].x0


@pytest.mark.parametrize("distance", [0.1, 1.5, 11.0, 30.0, 50e3, 2e7])
def test_leash_figure_splits_links_by_reach_at_the_distance(distance):
    figure = leash_figure(SYNTHETIC, distance)
    readable(figure)
    assert distance_line(figure) == distance
    reaching = next((t for t in figure.data if t.name.startswith("Reaches")), None)
    not_reaching = next((t for t in figure.data if t.name.startswith("Cannot reach")), None)
    expected = sorted((r.reach_m, r.rate_gbps) for r in SYNTHETIC if r.reaches(distance))
    drawn = sorted(zip(reaching.x, reaching.y, strict=True)) if reaching else []
    assert drawn == expected
    others = sorted(zip(not_reaching.x, not_reaching.y, strict=True)) if not_reaching else []
    assert len(drawn) + len(others) == len(SYNTHETIC)
    best = fastest_reaching(SYNTHETIC, distance)
    ring = next((t for t in figure.data if t.name == "Fastest that still reaches"), None)
    if best is None:
        assert ring is None
    else:
        assert (ring.x[0], ring.y[0]) == (best.reach_m, best.rate_gbps)


def test_leash_line_follows_the_envelope():
    figure = leash_figure(SYNTHETIC, 11.0)
    leash = next(t for t in figure.data if t.name.startswith("The leash"))
    levels = sorted(set(leash.y), reverse=True)
    assert levels == [step.link.rate_gbps for step in leash_steps(SYNTHETIC)]
    assert max(leash.x) == max(r.reach_m for r in SYNTHETIC)


def test_leash_figure_of_the_packaged_catalog_and_an_empty_one():
    figure = leash_figure(MEDIA, 11.0)
    readable(figure)
    points = sum(len(t.x) for t in figure.data if t.name.startswith(("Reaches", "Cannot")))
    assert points == len({(r.reach_m, r.rate_gbps, r.reaches(11.0)) for r in MEDIA})
    empty = leash_figure([], 11.0)
    assert distance_line(empty) == 11.0


def test_labels_avoid_each_other():
    points = [(2.0, 50.0), (2.0, 25.0), (120e3, 100.0), (120e3, 50.0)]
    texts = ["InfiniBand NDR", "InfiniBand HDR", "800ZR coherent optics", "400ZR coherent optics"]
    positions = _label_positions(points, texts, [-1.1, 7.4], [-5.4, 3.4])
    assert positions[0] != positions[1] and positions[2] != positions[3]
    # A lone point keeps its label on the right.
    assert _label_positions([(10.0, 1.0)], ["alone"], [-1.1, 7.4], [-5.4, 3.4]) == ["middle right"]
    # A crowd: the first labels take the free places, the rest are left off rather than drawn over them.
    crowd = _label_positions([(10.0 * (1 + i / 100), 1.0) for i in range(12)], ["a long link name"] * 12,
                             [-1.1, 7.4], [-5.4, 3.4])
    assert crowd[0] is not None and None in crowd
    assert len({position for position in crowd if position}) == len([p for p in crowd if p])


def test_leash_labels_never_overlap_and_every_point_keeps_its_name_on_hover():
    crowded = [row(f"a-rather-long-link-name-{i}", 50.0, 2.0 * 1.5**i) for i in range(15)]
    figure = leash_figure(crowded, 11.0)
    for trace in figure.data:
        if trace.name.startswith(("Reaches", "Cannot")):
            assert all(trace.hovertext)
            assert "" in trace.text  # fifteen long names on one row cannot all be written


def test_the_leash_in_presentation_mode_gets_labels_placed_for_its_larger_text():
    from interconnect.figures.theme import presentation_figure

    normal = leash_figure(MEDIA, 11.0)
    shown = presentation_figure(normal)
    for before, after in zip(normal.data, shown.data, strict=True):
        if before.name.startswith(("Reaches", "Cannot")):
            assert list(before.hovertext) == list(after.hovertext)  # every point keeps its name on hover
            assert list(after.text) == list(before.meta["projector_labels"]["text"])
    # At 20 px on the shorter first-screen chart some names are left off rather than drawn over
    # another; the ringed fastest link that still reaches 11 m keeps its name.
    best = next(t for t in shown.data if t.name == "Fastest that still reaches")
    reaching = next(t for t in shown.data if t.name.startswith("Reaches"))
    spot = list(zip(reaching.x, reaching.y, strict=True)).index((best.x[0], best.y[0]))
    assert reaching.text[spot] == reaching.hovertext[spot]
    assert sum(bool(text) for t in shown.data if t.mode == "markers+text" for text in t.text) >= 8


def test_timeout_figure_draws_each_timeout_and_the_round_trips_at_the_distance():
    media = [PROPAGATION[key] for key in ("copper-cable", "fibre", "vacuum")]
    figure = timeout_figure(11.0, media, TIMEOUTS)
    readable(figure)
    assert distance_line(figure) == 11.0
    levels = sorted(shape.y0 for shape in figure.layout.shapes if shape.xref == "paper")
    assert levels == sorted(case.timeout_s for case in TIMEOUTS)
    here = next(t for t in figure.data if t.name.startswith("Round trip at"))
    np.testing.assert_allclose(here.y, [2 * 11.0 * m.delay_s_per_m for m in media])
    for medium, trace in zip(media, figure.data, strict=False):
        assert trace.y[1] / trace.x[1] == pytest.approx(2 * medium.delay_s_per_m)  # RTT = 2 d tau
    # The y axis reaches up to the longest timeout.
    assert figure.layout.yaxis.range[1] >= math.log10(max(case.timeout_s for case in TIMEOUTS))
    # Without a distance the chart is the same at every distance: no line, no markers.
    static = timeout_figure(None, media, TIMEOUTS)
    assert not [shape for shape in static.layout.shapes if shape.yref == "paper"]
    assert not any(trace.name.startswith("Round trip at") for trace in static.data)
    assert len(static.data) == len(media)


def test_training_figure_shows_the_three_schemes_at_the_distance():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    distances = np.geomspace(0.1, 2e7, 64)
    result = two_site_allreduce(cluster, 2**30, distances, sync_every=100)
    figure = training_figure(result, 1e6)
    readable(figure)
    assert distance_line(figure) == 1e6
    names = [t.name for t in figure.data if t.showlegend is not False]
    assert names[0].startswith("Ring") and "62 steps" in names[0]
    assert names[1].startswith("Hierarchical") and "every 100 steps" in names[2]
    np.testing.assert_allclose(figure.data[0].y, result.ring_us * 1e-6)
    markers = figure.data[-1]
    expected = np.interp(6.0, np.log10(distances), result.hierarchical_us * 1e-6)
    assert markers.y[1] == pytest.approx(expected)
    # Without periodic sync there is no third line.
    once = two_site_allreduce(cluster, 2**30, distances, sync_every=1)
    assert len([t for t in training_figure(once, 11.0).data if t.showlegend is not False]) == 2


def test_home_map_keeps_working_with_an_unknown_layer():
    links = list(CATALOG.links.values())
    figure = reach_figure(links)
    assert sum(len(t.x) for t in figure.data) == len({(round(float(link.reach.quantity.to("m").magnitude), 9),
                                                       link.layer, float(link.bandwidth.per_direction().to(
                                                           "GB/s").magnitude)) for link in links if link.reach})
    from dataclasses import replace

    odd = replace(next(link for link in links if link.reach), id="odd", layer="a-layer-nobody-knows-yet")
    names = {t.name for t in reach_figure([*links, odd]).data}
    assert "a-layer-nobody-knows-yet" in names or odd.name.split(" (")[0] in names


def test_home_map_draws_the_media_and_names_every_point():
    from interconnect.topics.reach.model import reach_rows

    rows = reach_rows()
    figure = reach_figure(rows)
    spots = {(row.layer, row.reach_m, row.rate_gbps) for row in rows}
    assert sum(len(t.x) for t in figure.data) == len(spots)
    labels = {a.text for a in figure.layout.annotations}
    legend_only = [t for t in figure.data if t.name not in LAYER_LEGEND_NAMES.values()]
    assert all(len(t.x) == 1 for t in legend_only)
    assert len(labels) + len(legend_only) == len(spots)  # each point: a label beside it or its own legend entry
    assert "SR8 multimode" in labels  # NVIDIA's 800G 2xSR4 ('SR8'), 50 m: the 11 m answer
