"""Training across data centres: closed forms, and the published figures the model must reproduce.

Every expected value from a paper has its source beside it; the figures themselves are read from
interconnect/data/crossdc.toml, so the test and the page show the same numbers.
"""

from __future__ import annotations

import math
import shutil
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from interconnect.catalog import get_catalog
from interconnect.topics.crossdc.model import (
    METHODS,
    CrossDCDataError,
    CrossDCInputError,
    Scenario,
    default_layers,
    evaluate,
    exposed_time_s,
    get_crossdc_data,
    load_crossdc_data,
    make_method,
    method_scenarios,
    payload_bytes,
    required_bandwidth,
    required_bandwidth_curve,
    site_allreduce_algbw,
    step_time_s,
    sync_time_s,
    utilization,
    utilization_curve,
    wan_traffic,
)
from interconnect.topics.crossdc.view import TABLE4_VARIANTS, PageInputs, crossdc_view, table4_check

DATA = get_crossdc_data()
GBIT = 1e9 / 8  # bytes/s in one Gbit/s

#: The tolerance the simple model allows against Table 4. The table's bandwidths are grid points
#: about 1.207x apart (the first grid value that reaches the target), its simulator orders every
#: layer's gradient in a DAG, and the model keeps only the last layer's share exposed: the model
#: lands within ±20 % of every cell up to 95 % utilisation, and within ±30 % at 99 % except where noted.
TABLE4_TOLERANCE = 0.30


def table4_model_gbit_per_s(row, utilization_target: float) -> float:
    _, method_id, knobs = TABLE4_VARIANTS[row.variant]
    scenario = Scenario(row.params, DATA.table4.sites, row.step_s, wan_bytes_per_s=1e9, rtt_s=0.0,
                        method=make_method(method_id, **knobs), layers=row.layers, overlap=True,
                        target_utilization=utilization_target)
    return evaluate(scenario).required_bytes_per_s / GBIT


# --- the data file --------------------------------------------------------------------------------


def test_data_file_loads_with_every_method_and_network_class():
    assert set(DATA.methods) == set(METHODS)
    assert set(DATA.networks) == {"same-campus", "cross-campus", "same-region", "cross-region"}
    assert len(DATA.table4.rows) == 15 and DATA.table4.utilization == (0.5, 0.8, 0.9, 0.95, 0.99)
    assert {card.work for card in DATA.reported} >= {"DiLoCo", "Streaming DiLoCo", "SparseLoCo", "CrossPipe",
                                                      "CoCoDC", "MT-DAO", "StreamRL", "INTELLECT-1"}


def test_every_cited_source_exists_in_the_catalog():
    sources = get_catalog().sources
    for card in DATA.reported:
        assert card.sources and all(s in sources for s in card.sources), card.id
        assert sources[card.sources[0]].url.startswith("https://arxiv.org/abs/"), card.id


def test_crosspipe_network_classes():
    # CrossPipe §2.3 (arXiv 2507.00217): same-region cloud ~1 ms and ~11.3 Gbit/s; cross-region 30-100 ms and
    # 1.4-5.0 Gbit/s; cross-campus (<= 40 km) 10-200 µs and 200 Gbit/s per port; same campus 800 Gbit/s per port.
    nets = DATA.networks
    assert nets["same-region"].bandwidth_bytes_per_s == pytest.approx(11.3 * GBIT)
    assert nets["same-region"].rtt_s == pytest.approx(2e-3)
    assert 1.4 * GBIT <= nets["cross-region"].bandwidth_bytes_per_s <= 5.0 * GBIT
    assert 30e-3 <= nets["cross-region"].latency_s <= 100e-3
    assert 10e-6 <= nets["cross-campus"].latency_s <= 200e-6 and nets["cross-campus"].per_port
    assert nets["same-campus"].bandwidth_bytes_per_s == pytest.approx(800 * GBIT)


def _copy_data(tmp_path: Path) -> Path:
    source = Path(str(resources.files("interconnect").joinpath("data", "crossdc.toml")))
    target = tmp_path / "crossdc.toml"
    shutil.copy(source, target)
    return target


@pytest.mark.parametrize(("old", "new", "message"), [
    ('id = "dp"\n', 'id = "dp"\ncolour = "red"\n', r"method 'dp': unknown key\(s\) colour"),
    ('inner_steps = 500\n', '', r"method 'diloco': missing key\(s\) inner_steps"),
    ('latency = "50 ms"', 'latency = "50 km"', r"network 'cross-region': 'latency': expected a time"),
    ('per_port = true\nsources = ["arxiv-crosspipe"]', 'per_port = true\nsources = ["no-such-paper"]',
     r"network 'same-campus': 'sources'"),
    ('micro_batches = 32\n', 'micro_batches = 0\n', r"method 'crosspipe' exchanges every step"),
    ('states = 3\n', 'states = 0\n', r"method 'mt-dao': 'states' must be at least 1"),
    ('[[quoted]]', '[[rumour]]\n[[quoted]]', r"unknown table\(s\) rumour"),
    ('confidence = "medium"\nparams', 'confidence = "sure"\nparams', r"\[intellect1\]: 'confidence' must be"),
    ('variant = "data-parallel"\nrequired_gbit_per_s = [86.8, 152.6, 184.2, 222.3, 569.0]',
     'variant = "data-parallel"\nrequired_gbit_per_s = [86.8]', r"row 1B data-parallel: needs one positive"),
])
def test_loader_refuses_a_broken_file_naming_the_table(tmp_path, old, new, message):
    path = _copy_data(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(CrossDCDataError, match=message):
        load_crossdc_data(path)


# --- payloads ------------------------------------------------------------------------------------


def test_dense_diloco_16_bit_between_two_sites_moves_2_gb():
    # 1e9 parameters x 16 bits = 2 GB; a two-site ring sends 2(M-1)/M = 1 payload each way.
    method = make_method("diloco", bits=16)
    assert float(payload_bytes(method, 1e9)) == pytest.approx(2e9)
    result = evaluate(Scenario(1e9, 2, step_s=1.0, wan_bytes_per_s=10 * GBIT, rtt_s=0.02, method=method))
    assert result.payload_bytes == pytest.approx(2e9)
    assert result.wan_bytes_per_sync == pytest.approx(2e9)
    assert result.bytes_per_step == pytest.approx(2e9 / 500)  # DiLoCo's H = 500 (arXiv 2311.08105 §3)


def test_sparseloco_encoding_is_0_21875_bits_per_parameter_and_146x_smaller_than_fp32():
    # Covenant-72B §2.1 and §4.1 (arXiv 2603.08163): C = 4096, k = 64, 2-bit values, 12-bit indices,
    # "more than 146x" against dense FP32.
    encoding = DATA.sparseloco
    method = make_method("sparseloco")
    assert (method.chunk, method.topk, method.bits, method.index_bits) == (
        encoding.chunk, encoding.topk, encoding.value_bits, encoding.index_bits)
    assert method.bits_per_param == 0.21875
    ratio = 32 / method.bits_per_param
    assert ratio == pytest.approx(146.29, abs=0.01)
    assert ratio > encoding.compression_vs_fp32_at_least
    assert float(payload_bytes(method, 72e9)) == pytest.approx(1.96875e9)  # ~1.97 GB per peer at 72B


def test_sparseloco_index_lower_bound_is_log2_binomial_over_k():
    # Covenant-72B §2.1: the information-theoretic index cost log2(C choose k)/k is about 7.36 bits per value.
    bound = math.log2(math.comb(4096, 64)) / 64
    assert bound == pytest.approx(DATA.sparseloco.index_bits_lower_bound, abs=0.005)


def test_streaming_fp4_and_int8_diloco_against_data_parallel():
    # Streaming DiLoCo Table 1: 441 TB for data parallel (16-bit) against 1.10 TB (4-bit, H = 100): 400x.
    dp, streaming = make_method("dp"), make_method("streaming-diloco")
    per_step = {m.id: m.bits_per_param / m.inner_steps for m in (dp, streaming)}
    assert per_step["dp"] / per_step["streaming-diloco"] == 400
    assert 441 / 1.10 == pytest.approx(400, rel=0.01)
    # INTELLECT-1 abstract: "400x" less bandwidth than data parallel = H x 32/8 (FP32 gradients, int8, H = 100).
    int8 = make_method("diloco-int8")
    assert (32 / 1) / (int8.bits_per_param / int8.inner_steps) == 400


def test_streaming_fragments_follow_three_layer_fragments():
    # Streaming DiLoCo §2: 3-layer fragments give 8, 16 and 36 fragments for 24, 48 and 108 layers.
    method = make_method("streaming-diloco")
    assert method.fragments_for([24, 48, 108]).tolist() == [8, 16, 36]
    assert make_method("streaming-diloco", fragments=4).fragments_for(24).item() == 4


# --- traffic and time ---------------------------------------------------------------------------


@pytest.mark.parametrize(("topology", "sites", "gpus", "factor", "steps"), [
    ("hierarchical", 2, 8, 1.0, 2),
    ("hierarchical", 4, 8, 1.5, 6),
    ("ring", 4, 1, 1.5, 6),
    ("ring", 2, 8, 1.875, 30),
    ("allgather", 20, 8, 19.0, 19),
])
def test_wan_traffic_closed_forms(topology, sites, gpus, factor, steps):
    assert wan_traffic(topology, sites, gpus) == (pytest.approx(factor), steps)


def test_sync_time_is_latency_plus_bytes_over_bandwidth():
    # 4 sites, hierarchical: 6 steps x RTT/2 + 1.5 x 4 GB / 1.25 GB/s + 4 GB / 100 GB/s inside the site.
    time = sync_time_s(4e9, sites=4, wan_bytes_per_s=1.25e9, rtt_s=0.05, topology="hierarchical",
                       site_algbw_bytes_per_s=100e9)
    assert float(time) == pytest.approx(6 * 0.025 + 1.5 * 4e9 / 1.25e9 + 0.04)


def test_exposed_time_with_and_without_overlap():
    dp = make_method("dp")
    common = {"method": dp, "step_s": 0.3, "layers": 10, "backward_fraction": 2 / 3}
    assert float(exposed_time_s(0.5, overlap=False, **common)) == pytest.approx(0.5)
    # overlap: 0.5 - 0.2 (the backward two thirds of 0.3 s) = 0.3 s
    assert float(exposed_time_s(0.5, overlap=True, **common)) == pytest.approx(0.3)
    # a short sync hides except the last layer's share: 0.15 / 10
    assert float(exposed_time_s(0.15, overlap=True, **common)) == pytest.approx(0.015)


def test_streaming_overlap_hides_a_fragment_behind_tau_steps_until_the_link_saturates():
    method = make_method("streaming-diloco", overlap_steps=2, fragments=4)  # H = 100
    common = {"method": method, "step_s": 1.0, "layers": 24, "backward_fraction": 2 / 3, "overlap": True}
    assert float(exposed_time_s(2.5, **common)) == 0  # 2.5 s < 2 steps + 2/3 of a step
    assert float(exposed_time_s(3.0, **common)) == pytest.approx(4 * (3.0 - 8 / 3))
    # 4 fragments x 30 s of link time = 120 s per 100 s of compute: at least 20 s exposed
    assert float(exposed_time_s(30.0, **common)) == pytest.approx(4 * (30 - 8 / 3))
    assert float(exposed_time_s(26.0, **{**common, "method": make_method("streaming-diloco", overlap_steps=100,
                                                                           fragments=4)})) == pytest.approx(4.0)


def test_required_bandwidth_inverts_the_exposed_time():
    # At the required bandwidth the utilisation is exactly the target, for every method and overlap mode.
    for method_id in METHODS:
        for overlap in (False, True):
            scenario = Scenario(7e9, 3, step_s=2.0, wan_bytes_per_s=1e9, rtt_s=0.01, method=make_method(method_id),
                                gpus_per_site=16, overlap=overlap, target_utilization=0.9,
                                site_algbw_bytes_per_s=1e12)
            needed = evaluate(scenario).required_bytes_per_s
            if method_id == "crosspipe" and not overlap:
                # A static schedule pays the 10 ms round trip on each of 32 micro-batches: 0.64 s of a 0.22 s
                # allowance (2 s / 0.9 - 33/32 x 2 s... the bubble takes most), so no bandwidth reaches 90 %.
                assert math.isinf(needed)
                continue
            assert math.isfinite(needed), (method_id, overlap)
            at_needed = evaluate(Scenario(**{**scenario.__dict__, "wan_bytes_per_s": needed}))
            assert at_needed.utilization == pytest.approx(0.9, abs=1e-9), (method_id, overlap)


def test_required_bandwidth_is_infinite_when_latency_alone_is_too_long():
    # DP every 10 ms step across 2 sites with a 1 s round trip cannot be 95 % busy at any bandwidth.
    dp = make_method("dp")
    needed = required_bandwidth(2e9, target_utilization=0.95, method=dp, step_s=0.01, layers=24, overlap=True,
                                backward_fraction=2 / 3, sites=2, rtt_s=1.0, topology="hierarchical")
    assert math.isinf(float(needed))


def test_diloco_required_bandwidth_closed_form():
    # B = S / (H t (1/U - 1)): 10B, 16-bit, H = 100, 0.8 s steps, 90 % -> 18.0 Gbit/s (no overlap).
    method = make_method("diloco", inner_steps=100, bits=16)
    needed = required_bandwidth(2e10, target_utilization=0.9, method=method, step_s=0.8, layers=48, overlap=False,
                                backward_fraction=2 / 3, sites=2, rtt_s=0.0, topology="hierarchical")
    assert float(needed) / GBIT == pytest.approx(18.0)


# --- published utilisation and bandwidths ---------------------------------------------------------


@pytest.mark.parametrize("span", DATA.intellect1.spans, ids=lambda s: s.name)
def test_intellect1_utilisation_from_its_allreduce_times(span):
    # INTELLECT-1 Table 2 (arXiv 2412.01152): 100 inner steps = 38 min; median all-reduce 103 / 382 / 469 s
    # -> 95.7 / 85.6 / 83.0 %. The last computes to 82.94 %: the paper rounds up (its 38 min is rounded too).
    value = float(utilization(DATA.intellect1.compute_s, span.allreduce_s)) * 100
    assert value == pytest.approx(span.utilization_percent, abs=0.1)


@pytest.mark.parametrize("row", [r for r in DATA.table4.rows if r.variant in ("data-parallel", "vanilla-diloco")],
                         ids=lambda r: f"{r.model}-{r.variant}")
def test_streaming_diloco_table4_dp_and_diloco_at_95_percent(row):
    # Streaming DiLoCo Table 4 (arXiv 2501.18512): data parallel needs 222.3 / 268.3 / 390.7 Gbit/s and vanilla
    # DiLoCo 23.3 / 33.9 / 49.4 Gbit/s for 95 % compute utilisation at 1B / 10B / 100B.
    index = DATA.table4.utilization.index(0.95)
    model = table4_model_gbit_per_s(row, 0.95)
    assert model == pytest.approx(row.required_gbit_per_s[index], rel=TABLE4_TOLERANCE)


#: Cells where the simple model misses by more than the tolerance, and why: at 99 % the exposed time
#: left for a 100B model's 36 fragments is 0.14 s each, and the simulator's layer-by-layer DAG keeps more
#: of each fragment's exchange exposed than "hidden behind the backward pass" (model 13.1 against 19.3).
TABLE4_WIDER = {("100B", "streaming", 0.99): 0.35}


@pytest.mark.parametrize("row", DATA.table4.rows, ids=lambda r: f"{r.model}-{r.variant}")
def test_streaming_diloco_table4_every_cell(row):
    for target, paper in zip(DATA.table4.utilization, row.required_gbit_per_s, strict=True):
        tolerance = TABLE4_WIDER.get((row.model, row.variant, target), TABLE4_TOLERANCE)
        model = table4_model_gbit_per_s(row, target)
        assert model == pytest.approx(paper, rel=tolerance), (target, model, paper)


def test_table4_best_variant_beats_data_parallel_by_two_orders():
    # Table 4: the overlapped FP4 variant needs about 100-350x less bandwidth than data parallel at 95 %.
    rows = {(r.model, r.variant): r for r in DATA.table4.rows}
    for model in ("1B", "10B", "100B"):
        ratio = table4_model_gbit_per_s(rows[model, "data-parallel"], 0.95) / table4_model_gbit_per_s(
            rows[model, "streaming-overlap-fp4"], 0.95)
        paper = rows[model, "data-parallel"].required_gbit_per_s[3] / rows[model, "streaming-overlap-fp4"]\
            .required_gbit_per_s[3]
        assert ratio == pytest.approx(paper, rel=0.3)


# --- step time, curves, inputs ----------------------------------------------------------------------


def test_step_time_from_flops():
    # 6 N D / (G F MFU): 1e9 params x 1M tokens on 8 x 989.4 TFLOP/s at 40 % = 1.895 s.
    assert step_time_s(1e9, 1e6, 8, 989.4e12, 0.4) == pytest.approx(6e15 / (8 * 989.4e12 * 0.4))
    with pytest.raises(CrossDCInputError, match="MFU"):
        step_time_s(1e9, 1e6, 8, 989.4e12, 1.5)


def test_default_layers_pass_through_the_papers_shapes():
    assert default_layers([1e9, 1e11]).tolist() == [24, 108]
    assert default_layers(1e8).item() >= 1


def test_curves_are_vectorised_and_monotone():
    scenario = Scenario(1e10, 2, step_s=1.0, wan_bytes_per_s=1e9, rtt_s=0.02, method=make_method("diloco"))
    bandwidths = np.geomspace(1e6, 1e13, 64)
    curve = utilization_curve(scenario, bandwidths)
    assert curve.shape == (64,) and np.all(np.diff(curve) >= 0) and 0 < curve[0] < curve[-1] < 1
    at_point = evaluate(scenario).utilization
    assert float(utilization_curve(scenario, [1e9])[0]) == pytest.approx(at_point)
    sizes = np.geomspace(1e8, 1e12, 64)
    needed = required_bandwidth_curve(scenario, sizes)
    assert needed.shape == (64,) and np.all(np.isfinite(needed))
    at_size = float(required_bandwidth_curve(scenario, [1e10])[0])
    assert at_size == pytest.approx(evaluate(scenario).required_bytes_per_s)


def test_method_scenarios_keep_the_chosen_knobs_and_default_the_rest():
    chosen = make_method("diloco", inner_steps=50, bits=32)
    scenarios = method_scenarios(Scenario(1e9, 2, 1.0, 1e9, 0.0, method=chosen))
    assert scenarios["diloco"].method == chosen
    assert scenarios["sparseloco"].method.topology == "allgather"
    assert set(scenarios) == set(METHODS)


def test_site_allreduce_rate_comes_from_the_collectives_model():
    assert math.isinf(site_allreduce_algbw("h100-sxm", 1))
    rate = site_allreduce_algbw("h100-sxm", 64)
    assert 10e9 < rate < 1000e9  # bytes/s: between one NIC and NVLink


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"method": "diloco", "inner_steps": 0}, "inner steps H must be from 1"),
    ({"method": "diloco", "inner_steps": -5}, "inner steps H must be from 1"),
    ({"method": "dp", "inner_steps": 10}, "data parallel synchronises every step"),
    ({"method": "diloco", "bits": 12}, "bits per value must be one of"),
    ({"method": "telepathy"}, "unknown method 'telepathy'"),
    ({"method": "diloco", "topology": "star"}, "unknown topology 'star'"),
    ({"method": "diloco", "fragments": 4}, "fragments apply to streaming-diloco and cocodc only"),
    ({"method": "mt-dao", "overlap_steps": 2}, "overlap steps \\(tau\\) apply to streaming-diloco and cocodc"),
    ({"method": "crosspipe", "inner_steps": 10}, "a pipeline exchanges activations every step"),
    ({"method": "crosspipe", "micro_batches": 0}, "micro-batches must be from 1"),
    ({"method": "crosspipe", "topology": "hierarchical"}, "a pipeline sends point to point"),
    ({"method": "diloco", "micro_batches": 8}, "micro-batches apply to crosspipe only"),
    ({"method": "sparseloco", "topk": 5000}, "top-k per chunk must be from 1 to 4,096"),
    ({"method": "sparseloco", "chunk": 8192}, "12-bit indices address 4,096 positions"),
    ({"method": "streaming-diloco", "overlap_steps": 101}, "overlap steps tau must be from 0 to 100"),
    ({"method": "diloco", "inner_steps": float("nan")}, "whole number"),
])
def test_hostile_method_knobs_give_clear_messages(kwargs, message):
    with pytest.raises(CrossDCInputError, match=message):
        make_method(**kwargs)


@pytest.mark.parametrize(("changes", "message"), [
    ({"sites": -3}, "sites must be from 2"),
    ({"sites": 1}, "sites must be from 2"),
    ({"params": float("inf")}, "parameters must be from"),
    ({"params": 0.0}, "parameters must be from"),
    ({"wan_bytes_per_s": 0.0}, "WAN bandwidth must be positive"),
    ({"rtt_s": -1.0}, "round-trip time"),
    ({"target_utilization": 1.0}, "target utilisation"),
    ({"gpus_per_site": 0}, "GPUs per site"),
])
def test_hostile_scenarios_give_clear_messages(changes, message):
    base = {"params": 1e9, "sites": 2, "step_s": 1.0, "wan_bytes_per_s": 1e9, "rtt_s": 0.0,
            "method": make_method("diloco")}
    with pytest.raises(CrossDCInputError, match=message):
        Scenario(**{**base, **changes})


# --- the page's view --------------------------------------------------------------------------------


def test_table4_check_covers_every_cell_within_the_documented_tolerance():
    cells = table4_check()
    assert len(cells) == 75
    misses = [c for c in cells if abs(c.ratio - 1) > TABLE4_TOLERANCE]
    assert [(c.model, c.variant, c.utilization) for c in misses] == [("100B", "Streaming DiLoCo", 0.99)]


def test_view_drops_a_knob_that_does_not_fit_and_says_so():
    view = crossdc_view(PageInputs(1e9, 2, 8, "h100-sxm", "diloco", 1.25e9, 0.02, bits=2, inner_steps=100))
    assert view.scenario.method.bits == 16 and view.scenario.method.inner_steps == 100
    assert len(view.warnings) == 1 and view.warnings[0].startswith("Bits per value: bits per value must be one of")


def test_view_derives_the_step_time_from_the_gpus_flops():
    # 6 x 1e9 x 1e6 / (8 x 989.4 TFLOP/s x 0.4) for H100 (catalog bf16_dense).
    view = crossdc_view(PageInputs(1e9, 2, 8, "h100-sxm", "diloco", 1.25e9, 0.02, step_mode="derived",
                                   tokens_per_step=1e6, mfu=0.4))
    assert view.scenario.step_s == pytest.approx(6e15 / (8 * 989.4e12 * 0.4))
    assert "989" in view.step_note
    assert set(view.utilization_curves) == set(METHODS) == set(view.required_curves)
