"""The Reach page's live family: at every slider distance, what the page's own scalar reach functions say."""

from __future__ import annotations

import math

import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.wires import get_wires
from interconnect.topics.reach.model import (
    LANDMARKS,
    fastest_reaching,
    one_way_delay_s,
    propagation_for,
    reach_rows,
    round_trip_s,
)
from interconnect.topics.reach.sweep import DISTANCE_STOPS_M, live_distances, reach_family, reach_groups

ROWS = reach_rows()
KINDS = {medium.id: medium.kind for medium in get_wires().media.values()}
FIBRE = propagation_for("fibre", get_catalog())


@pytest.mark.parametrize("current_m", [11.0, 1.5, 333_000.0, 0.1, 20_000_000.0])
def test_every_position_is_what_the_scalar_functions_say_at_that_distance(current_m):
    distances = live_distances(current_m)
    family = reach_family(ROWS, KINDS, distances, FIBRE)
    for i, d in enumerate(distances):
        reaching = [row for row in ROWS if row.reaches(d)]
        assert family.links_reaching[i] == len(reaching)
        for k, group in enumerate(family.groups):
            expected = any(row.id in group.member_ids for row in reaching)
            assert bool(family.group_reaches[i, k]) == expected, (d, group.id)
        best = fastest_reaching(ROWS, d)
        assert family.fastest_ids[i] == (best.id if best else None)
        if best is None:
            assert math.isnan(family.fastest_rate_gbps[i]) and math.isnan(family.fastest_bdp_bytes[i])
        else:
            assert family.fastest_names[i] == best.name
            assert family.fastest_rate_gbps[i] == best.rate_gbps
            assert family.fastest_rtt_s[i] == pytest.approx(best.rtt_s(d), rel=1e-12)
            assert family.fastest_bdp_bytes[i] == pytest.approx(best.bdp_bytes(d), rel=1e-12)
        assert family.fibre_one_way_s[i] == pytest.approx(float(one_way_delay_s(d, FIBRE.delay_s_per_m)), rel=1e-12)
        assert family.fibre_rtt_s[i] == pytest.approx(float(round_trip_s(d, FIBRE.delay_s_per_m)), rel=1e-12)


def test_known_distances():
    # wires.toml: NVIDIA's 100G-PAM4 DAC reaches 3 m, its active copper 5 m; the 2xSR4 multimode twin port 50 m
    family = reach_family(ROWS, KINDS, [3.0, 4.0, 30.0, 31.0], FIBRE)
    column = {group.id: k for k, group in enumerate(family.groups)}
    assert family.group_reaches[0, column["dac"]] and not family.group_reaches[1, column["dac"]]  # the boundary counts
    assert family.group_reaches[1, column["acc"]]
    assert family.group_reaches[2, column["aoc"]] and not family.group_reaches[3, column["aoc"]]  # AOC: 30 m
    assert family.fastest_ids[2] == "sr8-800g"
    # 11 m of fibre at 4.897 ns/m (the Reach page's own metric: 53.9 ns one way)
    assert reach_family(ROWS, KINDS, [11.0], FIBRE).fibre_one_way_s[0] == pytest.approx(53.9e-9, rel=1e-3)


def test_groups_cover_every_row_once_shortest_reach_first():
    groups = reach_groups(ROWS, KINDS)
    members = [member for group in groups for member in group.member_ids]
    assert sorted(members) == sorted(row.id for row in ROWS)
    assert [g.reach_m for g in groups] == sorted(g.reach_m for g in groups)
    by_id = {row.id: row for row in ROWS}
    for group in groups:
        assert group.reach_m == max(by_id[m].reach_m for m in group.member_ids)
        assert group.rate_gbps == max(by_id[m].rate_gbps for m in group.member_ids)
    assert {g.id for g in groups} >= {"nvlink-copper", "dac", "acc", "aoc", "multimode", "single-mode", "coherent",
                                      "historical"}


def test_the_slider_offers_the_stops_the_landmarks_and_the_pages_distance():
    assert {mark.distance_m for mark in LANDMARKS} <= set(DISTANCE_STOPS_M)
    assert 11.0 in DISTANCE_STOPS_M and list(DISTANCE_STOPS_M) == sorted(DISTANCE_STOPS_M)
    assert live_distances(1.5) == tuple(sorted({*DISTANCE_STOPS_M, 1.5}))
    assert live_distances(-3.0)[0] == 0.1 and live_distances(1e30)[-1] == 20_000_000.0
