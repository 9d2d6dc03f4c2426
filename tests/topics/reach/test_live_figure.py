"""The Reach live chart: each slider position draws what the page's own reach functions say at that distance."""

from __future__ import annotations

import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.wires import get_wires
from interconnect.topics.reach.live_figure import distance_label, reach_family_spec
from interconnect.topics.reach.model import distance_text, fastest_reaching, propagation_for, reach_rows
from interconnect.topics.reach.sweep import live_distances, reach_family
from interconnect.units import Q_, format_bandwidth, format_duration

ROWS = reach_rows()
KINDS = {medium.id: medium.kind for medium in get_wires().media.values()}
FIBRE = propagation_for("fibre", get_catalog())


@pytest.mark.parametrize("current_m", [11.0, 1.5, 40_000.0])
def test_every_position_draws_the_kinds_that_reach_and_says_the_cores_figures(current_m):
    distances = live_distances(current_m)
    family = reach_family(ROWS, KINDS, distances, FIBRE)
    spec = reach_family_spec(family, current_m)
    assert spec["slider"]["values"] == list(distances)
    assert spec["slider"]["values"][spec["slider"]["index"]] == current_m
    assert spec["slider"]["labels"] == [distance_label(d) for d in distances]
    series = {s["name"]: s for s in spec["series"]}
    x = spec["x"]["values"]
    for i, d in enumerate(distances):
        for k, group in enumerate(family.groups):
            reaches = any(row.reaches(d) for row in ROWS if row.id in group.member_ids)
            bar = slice(3 * k, 3 * k + 2)
            assert x[bar] == [pytest.approx(x[0]), group.reach_m]  # from the left edge to the kind's reach
            assert series["still reaches"]["y"][i][bar] == ([k, k] if reaches else [None, None])
            assert series["out of reach at this distance"]["y"][i][bar] == ([None, None] if reaches else [k, k])
        line = [j for j, y in enumerate(series["the distance"]["y"][i]) if y is not None]
        assert [x[j] for j in line] == [d, d]  # the red line stands at this position's distance only
        readout = spec["readouts"][i]
        reaching = sum(row.reaches(d) for row in ROWS)
        assert readout.startswith(f"{distance_text(d)}: {reaching} of {len(ROWS)} links still reach"), readout
        rtt = 2 * d * FIBRE.delay_s_per_m
        assert f"{format_duration(Q_(rtt, 's'))} round trip." in readout
        best = fastest_reaching(ROWS, d)
        if best is None:
            assert "Nothing catalogued reaches this far" in readout
        else:
            assert (f"Fastest: {best.name.split(' (')[0]}, {format_bandwidth(Q_(best.rate_gbps, 'GB/s'))} per "
                    f"direction; its round trip {format_duration(Q_(best.rtt_s(d), 's'))}") in readout


def test_rows_are_named_with_their_rate_and_nothing_is_left_unnamed():
    family = reach_family(ROWS, KINDS, [11.0], FIBRE)
    spec = reach_family_spec(family, 11.0, present=True)
    names = [tick["text"] for tick in spec["y"]["ticks"]]
    assert len(names) == len(family.groups) and all(" · " in name for name in names)
    # wires.toml, medium "board": 900 GB/s (NVLink 5 on an HGX B200 board), reach 0.5 m, our estimate
    assert names[0] == "Baseboard NVLink · 900 GB/s *"
    assert sum(name.endswith(" *") for name in names) == sum(g.reach_basis == "estimate" for g in family.groups)
    assert spec["font_scale"] > 1 and spec["margin_left"] > 96
    # presentation mode's larger text: a labelled tick every other decade (10 cm, 10 m, 1 km, 100 km, 10000 km)
    assert [tick["text"] for tick in spec["x"]["ticks"]] == ["10 cm", "10 m", "1 km", "100 km", "10000 km"]
