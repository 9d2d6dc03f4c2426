"""The Reach model: closed forms of propagation, round trip and BDP, reach boundaries, the timeout
story's numbers (each against its source), the typed distance, and the two-site all-reduce.

Synthetic links stand in where the catalog may not hold a medium yet, so the tests hold whatever
the packaged catalog contains today.
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import pairwise
from types import SimpleNamespace

import numpy as np
import pytest

from interconnect.catalog import Figure, Link, get_catalog
from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import allreduce
from interconnect.topics.reach.model import (
    BLURAY_BYTES,
    EPISODE,
    IEEE1284_CABLE_M,
    INTERLNK_TAPE_BACKUP_BYTES_PER_S,
    LANDMARKS,
    LAPLINK_CONDUCTORS,
    MAX_DISTANCE_M,
    MIN_DISTANCE_M,
    NCCL_BUFFSIZE_BYTES,
    NCCL_IB_RETRY_CNT_DEFAULT,
    NCCL_IB_TIMEOUT_DEFAULT,
    NET_HOP_US,
    PLIP_RANGE_M,
    PROPAGATION,
    SPEED_OF_LIGHT_M_PER_S,
    TIMEOUTS,
    bdp_bytes,
    bdp_in_words,
    distance_at_timeout_m,
    distance_text,
    fastest_reaching,
    handshake_limited_rate_bytes_per_s,
    ib_ack_timeout_s,
    leash_steps,
    links_without_reach,
    media_with_reach,
    nearest_landmark,
    one_way_delay_s,
    propagation_for,
    propagation_medium_of,
    read_distance,
    round_trip_s,
    two_site_allreduce,
    two_site_cluster,
    window_limited_rate_bytes_per_s,
)
from interconnect.units import Q_, QuantityInputError

CATALOG = get_catalog()
FIBRE = PROPAGATION["fibre"].delay_s_per_m


def _figure(value: str, direction: str = "n/a", note: str = "") -> Figure:
    return Figure(Q_(value), direction, "spec", ("linux-plip",), note)


def synthetic_link(link_id: str, rate: str, reach: str | None, *, layer: str = "cable", medium: str = "",
                   note: str = "") -> Link:
    """A catalog-shaped link, for media the packaged catalog may not hold yet."""
    return Link(id=link_id, name=link_id.upper(), layer=layer, family="test", vendor="test", summary="test",
                medium=medium, switched=False, duplex="full", bandwidth=_figure(rate, "per_direction"),
                reach=_figure(reach, note=note) if reach else None)


# --- propagation, round trip, bandwidth-delay product (closed forms) ----------------------------


def test_fibre_is_about_4_9_us_per_km():
    # MapYourTech "5 microsecond rule": 4.897 us/km at 1550 nm, 204,190 km/s (68 % of c).
    assert FIBRE * 1e3 * 1e6 == pytest.approx(4.897, abs=0.001)
    assert PROPAGATION["fibre"].velocity_m_per_s / 1e3 == pytest.approx(204_190, rel=1e-3)
    assert PROPAGATION["fibre"].velocity_factor == pytest.approx(0.681, abs=0.001)
    assert PROPAGATION["fibre"].group_index == pytest.approx(1.468)


def test_thousand_km_of_fibre_is_4_9_ms_one_way_and_twice_that_round_trip():
    # The check: 1,000 km of fibre is about 4.9 ms one way.
    assert one_way_delay_s(1e6, FIBRE) == pytest.approx(4.897e-3, rel=1e-3)
    assert round_trip_s(1e6, FIBRE) == pytest.approx(2 * one_way_delay_s(1e6, FIBRE))
    distances = np.array([0.1, 11.0, 1e6])
    # media.toml holds 1.468 / c to seven figures (4.896721 us/km).
    np.testing.assert_allclose(one_way_delay_s(distances, FIBRE), distances * 1.468 / SPEED_OF_LIGHT_M_PER_S,
                               rtol=1e-6)


def test_the_fibre_figure_lives_in_the_data_with_its_source():
    fibre = CATALOG.media["fibre"]
    assert PROPAGATION["fibre"].delay_s_per_m == pytest.approx(float(fibre.delay.quantity.to("s/m").magnitude))
    assert fibre.delay.source_ids[0] == "hnkoptic-fibre"  # the fibre maker's data sheet: n_g = 1.468
    assert "1.468" in fibre.delay.note
    assert "hnkoptic.com" in PROPAGATION["fibre"].source
    assert PROPAGATION["copper-cable"].basis == "estimate"


def test_copper_and_vacuum_delays():
    # NVIDIA LinkX MCP4Y10 DAC specification: propagation delay at most 4.5 ns/m.
    assert one_way_delay_s(2.0, PROPAGATION["copper-twinax"].delay_s_per_m) == pytest.approx(9e-9)
    assert PROPAGATION["copper-twinax"].velocity_factor == pytest.approx(0.741, abs=0.001)
    # Light crosses one light-second of vacuum in exactly one second (SI definition of the metre).
    assert one_way_delay_s(SPEED_OF_LIGHT_M_PER_S, PROPAGATION["vacuum"].delay_s_per_m) == pytest.approx(1.0)
    # Copper is not slower than fibre: every medium here is between half and all of c.
    for medium in PROPAGATION.values():
        assert 0.5 < medium.velocity_factor <= 1.0 + 1e-9  # vacuum: 1 / c to ten figures


def test_bandwidth_delay_product_closed_form():
    rtt = round_trip_s(1e6, FIBRE)
    assert bdp_bytes(50e9, rtt) == pytest.approx(50e9 * 2 * 1e6 * 1.468 / SPEED_OF_LIGHT_M_PER_S)
    assert bdp_bytes(50e9, rtt) / 1e6 == pytest.approx(489.7, abs=0.1)  # 400 Gbit/s x 9.79 ms
    np.testing.assert_allclose(bdp_bytes(np.array([1e9, 2e9]), 0.01), [1e7, 2e7])


def test_bdp_in_human_terms():
    assert bdp_in_words(1.2e9) == "1.2 GB in flight: a Blu-ray every 42 round trips"  # 50 / 1.2 = 41.7
    assert bdp_in_words(BLURAY_BYTES * 3) == "150 GB in flight: 3 Blu-rays on the way at any moment"
    assert "billion round trips" in bdp_in_words(10)
    assert bdp_in_words(0) == "nothing in flight"


def test_window_and_handshake_limits():
    rtt = round_trip_s(1e6, FIBRE)
    # NCCL_BUFFSIZE default 4 MiB (NCCL env.rst): at most 4 MiB per round trip on one connection.
    assert window_limited_rate_bytes_per_s(NCCL_BUFFSIZE_BYTES, rtt) == pytest.approx(4 * 2**20 / rtt)
    assert NCCL_BUFFSIZE_BYTES == 4_194_304
    assert window_limited_rate_bytes_per_s(1.0, 0.0) == math.inf
    # PLIP mode 0 moves a nibble per handshake: half a byte per round trip.
    assert handshake_limited_rate_bytes_per_s(0.5, 1e-6) == pytest.approx(5e5)


def test_catalog_media_figure_wins_over_the_built_in_table():
    fake = SimpleNamespace(media={"fibre": SimpleNamespace(name="Fibre from the catalog",
                                                           delay=_figure("5 us/km"))})
    medium = propagation_for("fibre", fake)
    assert medium.delay_s_per_m == pytest.approx(5e-9)
    assert medium.name == "Fibre from the catalog"
    # No media table, an unknown id, or a figure in the wrong dimension: the built-in table.
    assert propagation_for("fibre") == PROPAGATION["fibre"]
    assert propagation_for("no-such-medium").id == "fibre"
    wrong = SimpleNamespace(media={"vacuum": SimpleNamespace(name="x", delay=_figure("3 m"))})
    assert propagation_for("vacuum", wrong) == PROPAGATION["vacuum"]


# --- which links reach ----------------------------------------------------------------------------


def test_a_short_passive_dac_reaches_1_5_m_not_30_m():
    dac = synthetic_link("dac", "400 Gbit/s", "1.5 m", medium="twinax copper, passive DAC")
    rows = media_with_reach([dac])
    assert rows[0].reaches(1.5) and not rows[0].reaches(30)
    assert rows[0].medium_id == "copper-twinax"
    # The packaged catalog's passive 400G DAC reaches 3 m at 100G-PAM4 (NVIDIA LinkX overview), not 30 m.
    dac = next(row for row in media_with_reach(CATALOG.links.values()) if row.id == "dac-400g-passive")
    assert dac.reaches(1.5) and dac.reaches(3) and not dac.reaches(30)


def test_reach_boundary_is_inclusive_and_ordering_is_by_reach():
    rows = media_with_reach([synthetic_link("far", "1 GB/s", "10 km"), synthetic_link("near", "100 GB/s", "2 m")])
    assert [row.id for row in rows] == ["near", "far"]
    assert rows[1].reaches(10_000.0) and not rows[1].reaches(10_000.1)


def test_fastest_reaching_and_nothing_beyond_every_reach():
    links = [synthetic_link("nvl", "900 GB/s", "2 m", medium="copper cable cartridges"),
             synthetic_link("sr", "50 GB/s", "100 m", medium="multimode fibre"),
             synthetic_link("zr", "100 GB/s", "120 km", medium="coherent DWDM")]
    rows = media_with_reach(links)
    assert fastest_reaching(rows, 1.0).id == "nvl"
    assert fastest_reaching(rows, 11.0).id == "zr"  # the 800ZR-like link also reaches 11 m, and is faster
    assert fastest_reaching(rows, 200_000.0) is None


def test_links_without_reach_are_left_out_not_guessed():
    links = [synthetic_link("pcie", "64 GB/s", None), synthetic_link("dac", "50 GB/s", "2 m")]
    assert [row.id for row in media_with_reach(links)] == ["dac"]
    assert [link.id for link in links_without_reach(links)] == ["pcie"]
    # Every catalog link is either placed or listed as without reach.
    placed = {row.id for row in media_with_reach(CATALOG.links.values())}
    missing = {link.id for link in links_without_reach(CATALOG.links.values())}
    assert placed | missing == set(CATALOG.links) and not placed & missing


def test_media_of_the_packaged_catalog():
    rows = {row.id: row for row in media_with_reach(CATALOG.links.values(), CATALOG)}
    for row in rows.values():
        assert row.rate_gbps > 0 and row.reach_m > 0 and row.delay_s_per_m > 0
    if "400zr" in rows:  # OIF 400ZR: 'distances up to 120 km'
        assert rows["400zr"].reach_m == pytest.approx(120_000) and rows["400zr"].medium_id == "fibre"
    if "laplink-parallel" in rows:  # Linux plip.rst: 'Limited range, 15 m'
        assert rows["laplink-parallel"].reach_m == pytest.approx(15)
        assert rows["laplink-parallel"].medium_id.startswith("copper")


def test_medium_is_read_from_the_link_or_its_text():
    assert propagation_medium_of(SimpleNamespace(propagation_medium="vacuum", reach=None, medium="fibre")) == (
        "vacuum", False)
    dac_first = synthetic_link("x", "1 GB/s", "2 m", medium="copper DAC up to 2 m, optics beyond")
    assert propagation_medium_of(dac_first) == ("copper-twinax", True)
    optics_note = synthetic_link("y", "1 GB/s", "100 m", medium="copper DAC within a rack, optics beyond",
                                 note="400GBASE-SR8 on OM4 multimode fibre")
    assert propagation_medium_of(optics_note) == ("fibre", True)
    assert propagation_medium_of(synthetic_link("z", "1 GB/s", "15 m", medium="25-wire parallel cable")) == (
        "copper-cable", True)
    assert propagation_medium_of(synthetic_link("w", "1 GB/s", "1 km", medium="cloud provider network")) == (
        "fibre", True)


def test_unknown_layer_and_odd_figures_do_not_break_the_list():
    odd = synthetic_link("odd", "1 GB/s", "1 m", layer="a-new-layer")
    assert media_with_reach([odd])[0].layer == "a-new-layer"
    wrong_dimension = replace(odd, id="wrong", reach=_figure("5 s"))
    assert media_with_reach([wrong_dimension]) == []


def test_leash_is_the_envelope_of_the_fastest_link_that_reaches():
    rng = np.random.default_rng(7)
    links = [synthetic_link(f"l{i}", f"{10 ** rng.uniform(-5, 3):.6g} GB/s", f"{10 ** rng.uniform(-0.5, 6.5):.6g} m")
             for i in range(25)]
    rows = media_with_reach(links)
    steps = leash_steps(rows)
    assert all(a.reach_m < b.reach_m and a.link.rate_gbps > b.link.rate_gbps for a, b in pairwise(steps))
    assert steps[-1].reach_m == max(row.reach_m for row in rows)
    for distance in np.geomspace(0.1, 2e7, 200):
        best = fastest_reaching(rows, distance)
        step = next((s for s in steps if distance <= s.reach_m * (1 + 1e-9)), None)
        assert (best is None) == (step is None)
        if best is not None:
            assert best.rate_gbps == step.link.rate_gbps
    assert steps[0].lost_factor == 1.0
    for inner, outer in pairwise(steps):
        assert outer.lost_factor == pytest.approx(inner.link.rate_gbps / outer.link.rate_gbps)


# --- the typed distance ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "metres"), [("11 m", 11.0), ("3 ft", 0.9144), ("1000 km", 1e6),
                                               ("30 cm", 0.3), ("1,600 m", 1600.0)])
def test_distances_typed_with_units(text, metres):
    reading = read_distance(text)
    assert reading.distance_m == pytest.approx(metres)
    assert not reading.warning


def test_two_light_seconds_is_read_then_clamped_with_a_warning():
    reading = read_distance("2 light-seconds")
    assert reading.distance_m == MAX_DISTANCE_M
    assert "599585 km" in reading.warning and "20000 km" in reading.warning  # 2 x 299,792.458 km


@pytest.mark.parametrize(("text", "word"), [("5 kg", "a mass"), ("3 s", "a time"), ("400 Gbit/s", "a bandwidth"),
                                            ("12", "a number without a unit")])
def test_not_a_length_gives_a_clear_message(text, word):
    with pytest.raises(QuantityInputError, match=word) as raised:
        read_distance(text)
    assert "a length" in str(raised.value)


@pytest.mark.parametrize(("text", "metres", "phrase"), [("-5 m", MIN_DISTANCE_M, "negative"),
                                                         ("0 m", MIN_DISTANCE_M, "zero"),
                                                         ("1 mm", MIN_DISTANCE_M,
                                                          "0.1 cm is below this page's scale, which starts at 10 cm"),
                                                         ("1e30 m", MAX_DISTANCE_M, "beyond 20,000 km"),
                                                         ("4 light_year", MAX_DISTANCE_M, "beyond")])
def test_out_of_scale_distances_are_clamped_with_a_warning(text, metres, phrase):
    reading = read_distance(text)
    assert reading.distance_m == metres
    assert phrase in reading.warning
    assert read_distance(reading.text).distance_m == pytest.approx(metres)  # the shown text reads back


@pytest.mark.parametrize("text", ["9^9^8 m", "1e999 m", "10 m; drop", "", "x" * 500, None])
def test_hostile_distances_raise_the_input_error_only(text):
    with pytest.raises(QuantityInputError):
        read_distance(text)


def test_distance_text_reads_back():
    for metres in (0.1, 0.3, 1.5, 11.0, 250.0, 2_000.0, 3_965_000.0, MAX_DISTANCE_M):
        assert read_distance(distance_text(metres)).distance_m == pytest.approx(metres, rel=1e-3)


def test_landmarks_span_the_slider_in_order():
    distances = [mark.distance_m for mark in LANDMARKS]
    assert distances == sorted(distances)
    assert MIN_DISTANCE_M <= distances[0] and distances[-1] == MAX_DISTANCE_M
    assert nearest_landmark(2.2).label == "across a rack"
    assert nearest_landmark(1e7).label == "half way round the planet"


# --- the timeout story ----------------------------------------------------------------------------


@pytest.mark.parametrize(("exponent", "seconds"), [(14, 0.0671), (17, 0.5369), (18, 1.1), (19, 2.1), (20, 4.3),
                                                   (22, 17.2), (23, 34.4), (25, 2.3 * 60)])
def test_ib_ack_timeout_matches_nccls_table(exponent, seconds):
    # NCCL docs/userguide/source/env.rst, NCCL_IB_TIMEOUT table: 4.096 us x 2^t.
    assert ib_ack_timeout_s(exponent) == pytest.approx(seconds, rel=0.03)
    assert ib_ack_timeout_s(exponent) == pytest.approx(4.096e-6 * 2**exponent)


def test_nccls_default_timeout_is_about_4_3_s_and_30_s_with_retries():
    # NCCL env.rst: default NCCL_IB_TIMEOUT 20 (since 2.23), NCCL_IB_RETRY_CNT 7, "approximately 30 seconds".
    assert NCCL_IB_TIMEOUT_DEFAULT == 20 and NCCL_IB_RETRY_CNT_DEFAULT == 7
    assert ib_ack_timeout_s(20) == pytest.approx(4.294967296)
    assert NCCL_IB_RETRY_CNT_DEFAULT * ib_ack_timeout_s(20) == pytest.approx(30, abs=0.1)
    assert ib_ack_timeout_s(0) == math.inf and ib_ack_timeout_s(32) == math.inf


def test_plip_timeouts_and_the_distance_propagation_alone_would_need():
    # Linux drivers/net/plip/plip.c: PLIP_TRIGGER_WAIT 500 and PLIP_NIBBLE_WAIT 3000 (us).
    cases = {case.id: case for case in TIMEOUTS}
    assert cases["plip-trigger"].timeout_s == pytest.approx(500e-6)
    assert cases["plip-nibble"].timeout_s == pytest.approx(3000e-6)
    copper = PROPAGATION["copper-cable"].delay_s_per_m
    assert distance_at_timeout_m(500e-6, copper) == pytest.approx(500e-6 / (2 * copper))
    assert distance_at_timeout_m(500e-6, copper) == pytest.approx(50_000)
    # At the episode's 11 m the round trip is thousands of times shorter than the 500 us timeout.
    assert 500e-6 / round_trip_s(EPISODE.distance_m, copper) > 4000
    assert distance_at_timeout_m(math.inf, FIBRE) == math.inf


def test_nccl_default_would_need_a_link_beyond_the_moon():
    # The Moon is about 384,400 km away (NASA Moon fact sheet): fibre round trips that long fit in 4.3 s.
    assert distance_at_timeout_m(ib_ack_timeout_s(20), FIBRE) > 384_400e3
    # NCCL's default before 2.14 (t = 14, 67 ms) would already fire across about 6,850 km of fibre.
    assert distance_at_timeout_m(ib_ack_timeout_s(14), FIBRE) / 1e3 == pytest.approx(6_853, rel=1e-3)


def test_the_episodes_figures_are_labelled_and_differ_from_the_sources():
    # The episode: 'rated for three metres', 'maybe sixty kilobytes a second', 11 m apart.
    assert (EPISODE.rated_length_m, EPISODE.rate_bytes_per_s, EPISODE.distance_m) == (3.0, 60e3, 11.0)
    # IEEE 1284 cables: AB 6 m, CC 10 m (connectworld); PLIP: 15 m (plip.rst).
    assert sorted(IEEE1284_CABLE_M.values()) == [6.0, 10.0]
    assert PLIP_RANGE_M == 15.0
    assert EPISODE.rated_length_m < min(IEEE1284_CABLE_M.values())
    # freeholdcomputer.com: a compressed backup to tape over DOS 6 INTERLNK, '700K per minute' (12 kB/s);
    # a speed of the tape, not of the LapLink cable.
    assert INTERLNK_TAPE_BACKUP_BYTES_PER_S == pytest.approx(11_667, rel=1e-3)
    # A null-printer cable needs 12 conductors (plip.rst pin table): more than a four-core cable has.
    assert LAPLINK_CONDUCTORS == 12


# --- two sites ------------------------------------------------------------------------------------


def cluster(**kwargs):
    built, warnings = resolve_cluster(kwargs.pop("gpu", "h100-sxm"), **kwargs)
    assert not warnings
    return built


def test_two_site_penalties_are_the_closed_forms():
    c = cluster(gpus_per_node=8, nodes=4)
    size = 2**30
    distances = np.array([0.0, 11.0, 40e3, 1e6])
    result = two_site_allreduce(c, size, distances, sync_every=100)
    delay_us = distances * FIBRE * 1e6
    n = c.ranks
    np.testing.assert_allclose(result.ring_us - result.ring_local_us, 2 * (n - 1) * delay_us)
    np.testing.assert_allclose(result.hierarchical_us - result.hierarchical_local_us, 2 * delay_us)
    np.testing.assert_allclose(result.periodic_us, result.hierarchical_us / 100)
    np.testing.assert_allclose(result.gap_delay_us, delay_us)
    # The local ring is the collective model's NCCL ring on the same cluster.
    assert result.ring_local_us == pytest.approx(float(allreduce(c, [size], "ring").time_us[0]))
    # The cross-site phase is a two-rank ring on each GPU's shard: 2 alpha + (S/n_site) / B_nic.
    n_site = result.ranks_per_site
    alpha = NET_HOP_US + c.net_hop_latency_us
    assert result.cross_local_us == pytest.approx(2 * alpha + size / n_site / (c.nic_bw_per_gpu_gbps * 1e3))
    assert result.hierarchical_local_us == pytest.approx(result.site_us + result.cross_local_us)
    assert (result.ranks, result.ranks_per_site, result.ring_gap_steps, result.hierarchical_gap_steps) == (
        32, 16, 62, 2)
    for index, distance in enumerate(distances):
        assert result.at_distance(distance) == pytest.approx(result.at(index))


def test_distance_makes_the_ring_lose_to_hierarchical_and_periodic_sync_wins():
    result = two_site_allreduce(cluster(gpus_per_node=8, nodes=4), 2**30, [11.0, 1e6], sync_every=50)
    near, far = result.at(0), result.at(1)
    assert far["ring"] > far["hierarchical"] > far["periodic"]
    assert far["ring"] - near["ring"] > 100 * 1e3  # 62 steps x 4.9 ms: about 0.3 s more per step
    assert near["ring"] == pytest.approx(result.ring_local_us, rel=1e-3)  # 11 m: 62 x 54 ns, nothing


def test_other_media_change_the_gap_only_by_their_delay():
    c = cluster(gpus_per_node=8, nodes=2)
    fibre = two_site_allreduce(c, 2**20, [1e6], medium_id="fibre")
    vacuum = two_site_allreduce(c, 2**20, [1e6], medium_id="vacuum")
    ratio = (fibre.hierarchical_us[0] - fibre.hierarchical_local_us) / (
        vacuum.hierarchical_us[0] - vacuum.hierarchical_local_us)
    assert ratio == pytest.approx(1.468)


def test_two_sites_never_share_an_nvlink_domain():
    split, note = two_site_cluster(cluster(gpus_per_node=8, nodes=1))
    assert split.nodes == 2 and split.domains == 2 and "2 nodes" in note
    split, note = two_site_cluster(cluster(gpus_per_node=8, nodes=5))
    assert split.nodes == 6 and "6 nodes (3 per site)" in note
    same, note = two_site_cluster(cluster(gpus_per_node=8, nodes=4))
    assert same.nodes == 4 and note == ""
    # A rack-scale NVLink domain bigger than one site's GPUs is cut at the site boundary.
    rack = cluster(gpu="gb200", gpus_per_node=4, nodes=4, scaleup_domain=72)
    split, note = two_site_cluster(rack)
    assert split.domain_size == 8 and split.domains == 2 and "NVLink does not cross" in note


def test_two_site_inputs_are_checked():
    c = cluster(gpus_per_node=8, nodes=2)
    with pytest.raises(ValueError):
        two_site_allreduce(c, 0, [1.0])
    assert two_site_allreduce(c, 1e6, 5.0, sync_every=0).sync_every == 1
