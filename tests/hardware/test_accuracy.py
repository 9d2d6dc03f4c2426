"""Error bands: the arithmetic against closed forms, neighbour selection, leave-one-source-out, extrapolation."""

from __future__ import annotations

import math

import pytest

from interconnect.hardware.accuracy import (
    MIN_NEIGHBOURS,
    Criterion,
    Evaluated,
    Expected,
    band_from_ratios,
    expected_text,
    extrapolation,
    format_range,
    robust_range,
    select_band,
)
from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives.accuracy import (
    collective_band,
    size_band,
    source_key,
    table_band,
    table_evaluations,
)
from interconnect.topics.overlap.accuracy import overlap_band


def test_below_five_ratios_the_band_is_min_to_max():
    band = band_from_ratios([1.21, 0.92, 1.06, 1.0], basis="hand-made")
    assert (band.low, band.high, band.n) == (0.92, 1.21, 4)
    assert band.median == pytest.approx((1.0 + 1.06) / 2)
    assert band.text() == "published runs like this: the model reads -8 % to +21 % (4 runs, median +3 %)"


def test_from_five_ratios_the_band_is_the_10th_to_90th_percentile():
    # 1.0, 1.1, ..., 2.0 (11 values): linear interpolation puts the 10th percentile at index 1, the 90th at 9
    ratios = [1.0 + i / 10 for i in range(11)]
    assert robust_range(ratios) == pytest.approx((1.1, 1.9))
    # five values 1..5: the 10th percentile sits at index 0.4 -> 1.4, the 90th at 3.6 -> 4.6
    band = band_from_ratios([5.0, 1.0, 3.0, 2.0, 4.0], basis="hand-made")
    assert (band.low, band.high, band.median) == pytest.approx((1.4, 4.6, 3.0))
    assert band.contains(3.0) and not band.contains(1.2) and not band.contains(4.7)


def test_fewer_than_three_ratios_is_an_extrapolation():
    band = band_from_ratios([1.0, 1.1], basis="hand-made")
    assert band.extrapolation and band.n == 0 and band.low is None
    assert band.text() == "extrapolation: no published run like this"
    assert band.as_json() == {"low": None, "high": None, "median": None, "n": 0, "basis": band.basis,
                              "quantity": "", "runs": [], "coverage": None, "observed": None}


def test_inverting_a_band_swaps_its_ends():
    band = band_from_ratios([0.8, 1.0, 1.25], basis="x").inverted("time")
    assert (band.low, band.high, band.median) == pytest.approx((0.8, 1.25, 1.0))
    assert band.quantity == "time"


# --- the band read the other way: what a measurement would likely read ---------------------------------------------


def test_a_throughput_band_divides_the_estimate_by_its_ratios():
    # model / measured in 0.8 .. 1.25 (median 1.0): the model reading 100 TFLOP/s means 100 / 1.25 = 80 to
    # 100 / 0.8 = 125 measured; a band that only over-reads (1.06 .. 1.32, median 1.15) puts every reading below
    band = band_from_ratios([0.8, 1.0, 1.25], basis="x")
    assert band.expected(100.0, "TFLOP/s") == Expected(80.0, 100.0, 125.0, "TFLOP/s", "")
    over = band_from_ratios([1.06, 1.15, 1.32], basis="x", quantity="MFU")
    got = over.expected(0.570)
    assert (got.low, got.central, got.high) == pytest.approx((0.570 / 1.32, 0.570 / 1.15, 0.570 / 1.06))
    assert got.high < 0.570 and got.quantity == "MFU"


def test_the_reciprocal_quantity_multiplies_and_matches_the_inverted_band():
    # a step time from the same throughput band: 2 s x 1.06 .. 2 s x 1.32, about 2 s x 1.15 (the model, reading
    # too fast a throughput, reads too short a time)
    band = band_from_ratios([1.06, 1.15, 1.32], basis="x")
    got = band.expected(2.0, "s", reciprocal=True)
    assert (got.low, got.central, got.high) == pytest.approx((2.12, 2.30, 2.64))
    flipped = band.inverted("time").expected(2.0, "s")
    assert (flipped.low, flipped.central, flipped.high) == pytest.approx((got.low, got.central, got.high))
    # and back: a throughput from the time band reads as from the throughput band
    again = band.inverted("time").expected(100.0, reciprocal=True)
    assert (again.low, again.high) == pytest.approx((100.0 / 1.32, 100.0 / 1.06))


def test_an_extrapolation_expects_nothing_and_a_non_finite_estimate_is_refused():
    assert extrapolation("none near").expected(1.0) is None
    assert band_from_ratios([1.0, 1.1], basis="x").expected(5.0, reciprocal=True) is None
    with pytest.raises(ValueError, match="finite"):
        band_from_ratios([0.9, 1.0, 1.1], basis="x").expected(math.inf)


def test_the_expected_range_in_words_and_json():
    step = Expected(9.06, 10.0, 11.44, "s", "step time")
    assert step.text(lambda x: f"{x:.1f} s", "per step") == "9.1–11.4 s per step (about 10.0 s)"
    assert step.plus(1.0) == Expected(10.06, 11.0, 12.44, "s", "step time")
    assert step.as_json() == {"low": 9.06, "central": 10.0, "high": 11.44, "unit": "s", "quantity": "step time"}
    assert Expected(123456.7, 2.0, 3.0).as_json()["low"] == 123500.0  # four significant figures
    # the unit once where both ends share it; both written where they do not
    assert format_range(0.9, 1.1, lambda x: f"{x * 1e3:.0f} µs" if x < 1 else f"{x:.1f} ms") == "900 µs–1.1 ms"
    assert format_range(0.43, 0.54, lambda x: f"{x:.0%}") == "43–54%"
    assert format_range(1.0, 1.0, lambda x: f"{x:g} s") == "1 s"
    assert expected_text((None, str, "MFU")) == ""
    mfu = Expected(0.43, 0.50, 0.54)
    assert expected_text((mfu, lambda x: f"{x:.0%}", "MFU"), (step, lambda x: f"{x:.0f} s", "")) \
        == "a measurement would likely read 43–54% MFU (about 50%), 9–11 s (about 10 s)"


def _cases():
    rows = [("a", 1.00, "x", 8), ("a", 1.02, "x", 16), ("b", 1.10, "x", 8), ("c", 1.20, "x", 512),
            ("d", 0.90, "y", 8), ("e", 3.00, "x", 8)]
    return [Evaluated(f"{src}{i}", src, ratio, {"gpu": gpu, "gpus": n}) for i, (src, ratio, gpu, n) in enumerate(rows)]


GPU_X = Criterion("GPU x", lambda c: c.attrs["gpu"] == "x")
SMALL = Criterion("up to 64 GPUs", lambda c: c.attrs["gpus"] <= 64)


def test_soft_criteria_are_dropped_weakest_first_until_three_are_left():
    band = select_band(_cases(), [GPU_X, SMALL])
    assert set(band.runs) == {"a0", "a1", "b2", "e5"}  # both held: four runs
    assert band.basis == "held: GPU x, up to 64 GPUs; dropped: none"
    band = select_band(_cases(), [GPU_X, SMALL], leave_out="a")
    assert set(band.runs) == {"b2", "c3", "e5"}  # scale dropped first, GPU kept
    assert band.basis == "held: GPU x; dropped: up to 64 GPUs; left out: source a"


def test_leaving_a_source_out_removes_every_one_of_its_cases():
    # source e's 3.00 would set the band's top; left out, it must not be in the band at all
    with_e = select_band(_cases(), [GPU_X, SMALL])
    without_e = select_band(_cases(), [GPU_X, SMALL], leave_out="e")
    assert with_e.high == pytest.approx(3.0)
    assert "e5" not in without_e.runs and without_e.high < 3.0
    assert all(not run.startswith("e") for run in without_e.runs)


def test_hard_criteria_are_never_dropped():
    band = select_band(_cases(), [Criterion("GPU y", lambda c: c.attrs["gpu"] == "y", hard=True)])
    assert band.extrapolation
    assert band.basis.startswith("extrapolation: no published run like this (1 published run with GPU y")
    assert MIN_NEIGHBOURS == 3


# --- collectives ---------------------------------------------------------------------------------


def test_every_table_band_leaves_its_own_source_out():
    tables = {t.id: t for t in table_evaluations()}
    checked = 0
    for table in tables.values():
        for band_name in ("small", "middle", "large"):
            if band_name not in table.ratios:
                continue
            band = table_band(table, band_name)
            assert all(tables[other].source != table.source for other in band.runs), (table.id, band.runs)
            checked += not band.extrapolation
    assert checked > 30


def test_leaving_the_source_out_changes_the_band_of_a_published_table():
    # the 8-node nccl-tests#309 cluster: its own issue thread holds five more tables of the same machines
    table = next(t for t in table_evaluations() if t.id == "h100-8node-ib")
    cluster = table.measurement.cluster()
    kept = collective_band(cluster, "all_reduce", 2**30)
    left = collective_band(cluster, "all_reduce", 2**30, leave_out=table.source)
    assert {"h100-8node-ib", "h100-4of8node-ib"} <= set(kept.runs)
    assert not {"h100-8node-ib", "h100-4of8node-ib"} & set(left.runs)


def test_a_copy_engine_table_is_judged_but_is_never_a_neighbour():
    # nccl-2169's -R2 -x2 run moved its all-to-all with the copy engines (NCCL_CTA_POLICY_ZERO), a path the model
    # does not describe; its default-path sibling of the same thread is an ordinary table
    tables = {t.id: t for t in table_evaluations()}
    engine, default = tables["nccl-2169-alltoall-4xh100"], tables["nccl-2169-alltoall-4xh100-default"]
    assert engine.measurement.data_path == "copy-engine" and default.measurement.data_path == "sm"
    assert engine.ratios["large"] < 0.5 < default.ratios["large"]  # both still evaluated
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    # without the copy-engine table only two all-to-all tables are 256 MiB and up: too few for a band
    assert collective_band(cluster, "alltoall", 2**30).extrapolation
    for table in tables.values():
        for band_name in ("small", "middle", "large"):
            if band_name in table.ratios:
                assert engine.id not in table_band(table, band_name).runs


def test_sources_are_the_repository_or_the_issue_thread():
    keys = {t.id: t.source for t in table_evaluations()}
    assert keys["h100-8node-ib"] == "github.com/NVIDIA/nccl-tests/issues/309"
    assert keys["h100-128node-roce-ring-ll128"] == "github.com/NVIDIA/nccl-tests/issues/322"
    assert keys["gb200-nvl72-1rack"] == keys["gb200-nvl72-20rack"] == "github.com/coreweave/nccl-tests"
    assert keys["mle-8xh200-allgather"] == keys["mle-8xa100"] == "github.com/stas00/ml-engineering"
    assert source_key(next(t for t in table_evaluations() if t.id == "nccl-2409-alltoall").measurement) \
        == "github.com/NVIDIA/nccl/issues/2409"


def test_size_bands_and_a_collective_without_tables():
    assert [size_band(s) for s in (64 * 1024, 64 * 1024 + 1, 256 * 2**20 - 1, 256 * 2**20)] == \
        ["small", "middle", "middle", "large"]
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    band = collective_band(cluster, "sendrecv", 2**20)
    assert band.extrapolation and band.text() == "extrapolation: no published run like this"
    band = collective_band(cluster, "all_reduce", 2**30)
    assert band.n >= 3 and band.noun == "tables" and math.isfinite(band.median)
    assert band.basis.startswith("held: all-reduce, 256 MiB and up (bandwidth-bound), 2-8 nodes")


# --- overlap -------------------------------------------------------------------------------------


def test_overlap_band_only_near_the_ddp_benchmark():
    near, _ = resolve_cluster("v100", gpus_per_node=8, nodes=1)
    band = overlap_band(near, "overlap")
    assert band.n == 16 and "NVIDIA Volta" in band.basis and "dropped: none" in band.basis
    far, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=128)
    assert overlap_band(far, "overlap").extrapolation
    assert overlap_band(near, "ideal").extrapolation
    assert overlap_band(near, "overlap", leave_out="pytorch-ddp-benchmark").extrapolation


# --- the collective band rule: a 95 % prediction interval, at least nine tables from three publishers ------


def test_student_t_quantile_meets_its_closed_forms():
    from interconnect.hardware.accuracy import student_t_quantile

    for p in (0.9, 0.95, 0.975, 0.99):
        assert student_t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-6)  # Cauchy
        assert student_t_quantile(p, 2) == pytest.approx((2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p))), rel=1e-6)
    assert student_t_quantile(0.975, 100_000) == pytest.approx(1.959964, abs=1e-4)  # the normal's
    assert student_t_quantile(0.975, 10) == pytest.approx(2.228139, abs=1e-5)  # printed t tables
    with pytest.raises(ValueError):
        student_t_quantile(0.4, 3)
    with pytest.raises(ValueError):
        student_t_quantile(0.975, 0)


def _interval(ratios, n):
    from interconnect.hardware.accuracy import student_t_quantile

    logs = [math.log(r) for r in ratios]
    mean = sum(logs) / len(logs)
    s = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    half = student_t_quantile(0.975, n - 1) * s * math.sqrt(1 + 1 / n)
    return min(math.exp(mean - half), min(ratios)), max(math.exp(mean + half), max(ratios))


def test_prediction_range_closed_form():
    from interconnect.hardware.accuracy import prediction_range

    ratios = [0.8, 1.0, 1.25, 1.1, 0.95]
    assert prediction_range(ratios, 0.95) == pytest.approx(_interval(ratios, 5))
    # reaches past the smallest and largest seen, where the order statistics of five hold only 4 / 6
    low, high = prediction_range(ratios, 0.95)
    assert low < 0.8 and high > 1.25
    # publishers, not tables, give n: the same five ratios from three publishers widen it (t at 2 df)
    assert prediction_range(ratios, 0.95, ["a", "a", "b", "b", "c"]) == pytest.approx(_interval(ratios, 3))
    assert prediction_range(ratios, 0.95, ["a", "a", "b", "b", "c"])[1] > high
    # never short of what was read: one far reading lies past mean - t s, and the band still holds it
    far = [0.3, 1.0, 1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03]
    logs = [math.log(r) for r in far]
    mean = sum(logs) / 9
    s = math.sqrt(sum((x - mean) ** 2 for x in logs) / 8)
    assert math.exp(mean - 2.306 * s * math.sqrt(1 + 1 / 9)) > 0.3 == prediction_range(far, 0.95)[0]
    with pytest.raises(ValueError):
        prediction_range([1.0], 0.95)
    with pytest.raises(ValueError):
        prediction_range([1.0, 1.1], 0.95, ["a", "a"])


def test_a_collective_band_is_the_prediction_interval_of_its_publishers():
    from interconnect.hardware.collectives.accuracy import BAND_COVERAGE, BAND_PUBLISHERS, band_range

    assert BAND_COVERAGE == 0.95 and BAND_PUBLISHERS == 3
    by_id = {t.id: t for t in table_evaluations()}
    checked = 0
    for table in table_evaluations():
        for name in ("small", "middle", "large"):
            if name not in table.ratios or (band := table_band(table, name)).extrapolation:
                continue
            ratios = [by_id[i].ratios[name] for i in band.runs]
            publishers = {by_id[i].source for i in band.runs}
            assert len(publishers) >= BAND_PUBLISHERS and table.source not in publishers, (table.id, name)
            assert (band.low, band.high) == pytest.approx(_interval(ratios, len(publishers))), table.id
            assert (band.low, band.high) == band_range(ratios, [by_id[i].source for i in band.runs])
            assert band.observed == (min(ratios), max(ratios)) and band.coverage == 0.95
            checked += 1
    assert checked >= 90


def test_a_collective_band_needs_three_publishers():
    from interconnect.hardware.collectives.accuracy import _select

    def tables(publishers):
        return [Evaluated(f"t{i}", p, 1.0 + i / 20, {}) for i, p in enumerate(publishers)]

    rule = [Criterion("all-reduce", lambda c: True, hard=True)]
    two = _select(tables(["a", "a", "b", "b", "b"]), rule, None)
    assert two.extrapolation and "5 published tables from 2 publishers" in two.basis
    assert "3 tables from 3 publishers" in two.basis
    three = _select(tables(["a", "a", "b", "b", "c"]), rule, None)
    assert not three.extrapolation and three.n == 5
    # leaving a publisher out can take a band below three
    assert _select(tables(["a", "a", "b", "b", "c"]), rule, "c").extrapolation
    # a soft rule is dropped when the tables it keeps come from fewer than three publishers, however many they
    # are: nine tables of two publishers would give t at one degree of freedom (12.7), a band of 0.01x to 46x
    near = [Evaluated(f"n{i}", "ab"[i % 2], 1.0 + i / 50, {"near": True}) for i in range(10)]
    far = [Evaluated(f"f{i}", f"p{i}", 0.9 + i / 50, {"near": False}) for i in range(4)]
    soft = [*rule, Criterion("near", lambda c: c.attrs["near"])]
    band = _select(near + far, soft, None)
    assert band.n == 14 and "dropped: near" in band.basis
    assert _select(near[:6] + [Evaluated(f"m{i}", f"q{i}", 1.0, {"near": True}) for i in range(3)] + far, soft,
                   None).n == 9  # nine near tables from five publishers keep the rule


def test_collective_bands_draw_on_nine_tables_when_the_hard_rules_allow():
    from interconnect.hardware.collectives.accuracy import BAND_TABLES

    assert BAND_TABLES == 9 and (BAND_TABLES - 1) / (BAND_TABLES + 1) >= 0.8 > (BAND_TABLES - 2) / BAND_TABLES
    for table in table_evaluations():
        for name in ("small", "middle", "large"):
            if name not in table.ratios:
                continue
            band = table_band(table, name)
            if band.extrapolation:
                continue
            # fewer than nine only when the collective and size band alone leave fewer: then all of those
            pool = {t.id for t in table_evaluations() if t.source != table.source and name in t.ratios
                    and t.measurement.collective == table.measurement.collective}
            assert band.n >= BAND_TABLES or set(band.runs) == pool, (table.id, name, band.basis)
            assert set(band.runs) <= pool


def _leave_one_source_out(collective=None):
    cases = [(t.ratios[n], table_band(t, n)) for t in table_evaluations()
             if collective is None or t.measurement.collective == collective
             for n in ("small", "middle", "large") if n in t.ratios]
    banded = [(r, b) for r, b in cases if not b.extrapolation]
    return sum(b.contains(r) for r, b in banded) / len(banded), len(banded)


def test_collective_bands_hold_the_published_tables_they_leave_out():
    # every packaged table at every size band it covers, judged by the band drawn with its own source left
    # out (benchmarks/error_bands.py prints them): 77 of 78 all-reduce cases (99 %), 91 of 93 over every
    # collective (98 %) with the 95 % prediction interval counting publishers; the 80 % order-statistic rule
    # before it held 69 of 78 / 82 of 97, the shared 10th-90th percentile rule 71 % / 63 %.
    share, n = _leave_one_source_out("all_reduce")
    assert n >= 75 and share >= 0.95
    share, n = _leave_one_source_out()
    assert n >= 90 and share >= 0.95
