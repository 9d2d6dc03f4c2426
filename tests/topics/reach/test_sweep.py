"""The Reach page's live family: at every slider distance, what the page's own scalar reach functions say."""

from __future__ import annotations

import math

import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.wires import get_wires
from interconnect.topics.reach.model import (
    LANDMARKS,
    fastest_by_kind,
    fastest_reaching,
    kind_key,
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


def test_groups_are_each_kinds_rate_steps_shortest_reach_first():
    # One row per kind and rate step, so a row's label never keeps a rate that no longer reaches (issue:
    # "Old PC cables, 2.5 MB/s" drawn at 11 m though the 2.5 MB/s port stops at 10 m).
    groups = reach_groups(ROWS, KINDS)
    assert [g.reach_m for g in groups] == sorted(g.reach_m for g in groups)
    by_id = {row.id: row for row in ROWS}
    keys = {kind_key(row, KINDS) for row in ROWS}
    assert {g.key for g in groups} == keys
    for key in keys:
        steps = [g for g in groups if g.key == key]
        members = [row for row in ROWS if kind_key(row, KINDS) == key]
        assert steps[0].id == key and steps[-1].reach_m == max(row.reach_m for row in members)
        assert steps[0].rate_gbps == max(row.rate_gbps for row in members)
        for inner, outer in zip(steps, steps[1:], strict=False):
            assert inner.rate_gbps > outer.rate_gbps and inner.reach_m < outer.reach_m
        for step in steps:  # the step's rate is what the kind's fastest gives just inside its end, and not beyond
            assert fastest_by_kind(ROWS, step.reach_m, KINDS)[key].rate_gbps == step.rate_gbps
            beyond = fastest_by_kind(ROWS, step.reach_m * 1.001, KINDS)[key]
            assert beyond is None or beyond.rate_gbps < step.rate_gbps
            assert all(by_id[m].rate_gbps == step.rate_gbps for m in step.member_ids)
    assert {g.id for g in groups} >= {"nvlink-copper", "dac", "acc", "aoc", "multimode", "single-mode", "coherent",
                                      "historical"}


def test_the_slider_offers_the_stops_the_landmarks_and_the_pages_distance():
    assert {mark.distance_m for mark in LANDMARKS} <= set(DISTANCE_STOPS_M)
    assert 11.0 in DISTANCE_STOPS_M and list(DISTANCE_STOPS_M) == sorted(DISTANCE_STOPS_M)
    assert live_distances(1.5) == tuple(sorted({*DISTANCE_STOPS_M, 1.5}))
    assert live_distances(-3.0)[0] == 0.1 and live_distances(1e30)[-1] == 20_000_000.0
