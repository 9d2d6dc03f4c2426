"""A pipeline across sites: closed-form cases, CrossPipe's published cases (crossdc_pipeline.toml), the
worked case of docs/crossdc-pipeline.md and the model's rules."""

from __future__ import annotations

import math

import pytest

from interconnect.topics.crossdc.data import get_pipeline_cases
from interconnect.topics.crossdc.model import CrossDCInputError
from interconnect.topics.crossdc.model.pipeline import (
    PipelineScenario,
    bubble_fraction,
    compare,
    evaluate_pipeline,
    in_flight_extra,
    message_bytes,
    pipeline_step_s,
    stage_time_s,
)
from interconnect.units import Q_

CASES = get_pipeline_cases()
TOLERANCE = 0.20


def _message(i) -> float:
    return float(message_bytes(i["micro_batch"], i["seq_len"], i["hidden"], i["bytes_per_value"], i["pipelines"]))


def predict(case) -> float:
    """The model's value for a case's quantity, from the case's inputs only."""
    i = case.inputs
    if case.quantity == "message_bytes":
        return _message(i)
    if case.quantity == "transfer_over_forward":
        return _message(i) / i["wan_bytes_per_s"] / i["forward_s"]
    if case.quantity == "latency_over_forward":
        return i["latency_s"] / i["forward_s"]
    if case.quantity == "latency_step_ratio":
        args = (3 * i["forward_s"], i["stages"], i["micro_batches"], i["sites"], _message(i), i["wan_bytes_per_s"])
        return float(pipeline_step_s(*args, i["latency_high_s"]) / pipeline_step_s(*args, i["latency_low_s"]))
    if case.quantity == "runtime_per_micro_batch":  # rule 6: 1F1B with latency hidden, per micro-batch
        forward = i["forward_s"]
        step = pipeline_step_s(3 * forward, i["stages"], i["micro_batches"], i["sites"],
                               i["transfer_over_forward"] * forward * 1e9, 1e9, i["latency_over_forward"] * forward)
        return float(step) / i["micro_batches"]
    raise AssertionError(f"{case.id}: no prediction for {case.quantity}")


# --- CrossPipe's published cases ------------------------------------------------------------------------

def test_enough_cases_compared_and_every_one_left_out_says_why():
    assert len([c for c in CASES if c.compared]) >= 5
    for c in CASES:
        assert c.compared or len(c.pending) > 40, c.id


@pytest.mark.parametrize("case", [c for c in CASES if c.compared], ids=lambda c: c.id)
def test_model_within_20_percent_of_each_published_case(case):
    ratio = predict(case) / case.published
    assert abs(ratio - 1) <= TOLERANCE, f"{case.id}: model / published = {ratio:.3f}"


def test_the_ratios_recorded_in_the_report():
    ratios = {c.id: round(predict(c) / c.published, 3) for c in CASES if c.compared}
    assert ratios == {"m70-message": 1.074, "m70-bandwidth-ratio-2": 1.076, "m70-bandwidth-ratio-half": 1.074,
                      "m70-latency-ratio-2": 1.0, "llama405b-latency": 1.002,
                      # arXiv 2507.00217 Table 5, CrossUD, case 1 (0.137, 0.142, 0.177, 0.153, 0.196 s per micro-batch)
                      "m70-crossud-lat0-bw0": 1.196, "m70-crossud-lat0p25-bw0p25": 1.171,
                      "m70-crossud-lat0p25-bw2": 0.986, "m70-crossud-lat2-bw0p25": 1.141,
                      "m70-crossud-lat2-bw2": 0.933}


def test_every_input_is_marked_stated_or_inferred():
    for c in CASES:
        assert set(c.inputs) == set(c.how) and set(c.how.values()) <= {"stated", "inferred"}, c.id


# --- Closed forms ----------------------------------------------------------------------------------------

def test_message_is_b_s_d_v_ndp():
    assert message_bytes(2, 4096, 8192, 2, 4) == 2 * 4096 * 8192 * 2 * 4
    assert message_bytes(1, 1, 1, Q_(1, "kB")) == 1000


def test_stage_time_is_6nbs_over_p_g_f_mfu():
    assert stage_time_s(1e9, 1, 1000, 4, 2, 1e12, 0.5) == pytest.approx(6e12 / 4e12)


def test_bubble_is_p_minus_1_over_m():
    assert bubble_fraction(4, 8) == pytest.approx(3 / 8)
    assert bubble_fraction(1, 8) == 0


def test_one_site_is_plain_1f1b():
    assert pipeline_step_s(1.0, 4, 8, 1, 1e12, 1.0, 10.0) == pytest.approx(11.0)  # the WAN is not used


def test_latency_paid_in_fill_and_drain_only():
    assert pipeline_step_s(1.0, 4, 8, 2, 0.0, 1e9, 0.5) == pytest.approx(11.0 + 2 * 0.5)
    assert pipeline_step_s(1.0, 6, 8, 3, 0.0, 1e9, 0.5) == pytest.approx(13.0 + 4 * 0.5)


def test_wan_sets_the_pace_when_slower_than_a_stage():
    # 2 s per message against 1 s per micro-batch: 8 x 2 + 3 x 1 + 2 x 2
    assert pipeline_step_s(1.0, 4, 8, 2, 2e9, 1e9, 0.0) == pytest.approx(23.0)


def test_in_flight_extra_covers_the_round_trip():
    assert in_flight_extra(1.0, 0.0, 1.0, 0.5) == 1
    assert in_flight_extra(1.0, 1e9, 1e9, 0.5) == 3


@pytest.mark.parametrize("kw", [{"sites": 3, "stages": 8}, {"sites": 9, "stages": 8}, {"mfu": 1.5},
                                {"latency_s": -1.0}, {"wan_bytes_per_s": 0.0}, {"micro_batches": 0}])
def test_bad_scenarios_raise(kw):
    with pytest.raises(CrossDCInputError):
        PipelineScenario(70e9, 8192, **kw)


def test_comparison_needs_two_sites():
    with pytest.raises(CrossDCInputError):
        compare(PipelineScenario(70e9, 8192, sites=1))


# --- The worked case of docs/crossdc-pipeline.md ---------------------------------------------------------

def doc_case(**kw) -> PipelineScenario:
    return PipelineScenario(70e9, 8192, **{"seq_len": 4096, "micro_batch": 1, "micro_batches": 32, "stages": 8,
                                           "gpus_per_stage": 8, "pipelines": 1, "sites": 2,
                                           "wan_bytes_per_s": 100e9 / 8, "latency_s": 0.010,
                                           "peak_flops_per_s": 989.4e12, "mfu": 0.4, **kw})


def test_doc_case_70b_on_two_sites_over_100_gbit():
    r, alternatives = compare(doc_case())
    assert round(r.stage_s * 1e3, 1) == 67.9 and round(r.forward_s * 1e3, 1) == 22.6
    assert r.message_bytes == 4096 * 8192 * 2  # 67.1 MB
    assert round(r.transfer_s * 1e3, 2) == 5.37 and not r.wan_bound
    assert r.bubble_fraction == pytest.approx(7 / 32)
    assert round(r.one_site_step_s, 3) == 2.649
    assert round(r.step_s, 3) == 2.680
    assert round((r.slowdown - 1) * 100, 1) == 1.2
    assert r.in_flight_extra == 1
    assert round(r.wan_bytes_per_step / 1e9, 2) == 4.29
    by_id = {a.id: a for a in alternatives}
    assert round(by_id["dp"].step_s, 2) == 11.94 and round(by_id["dp"].vs_pipeline, 2) == 4.46
    assert round(by_id["diloco"].step_s, 2) == 2.19 and round(by_id["diloco"].vs_pipeline, 2) == 0.82


def test_doc_case_at_1_gbit_the_wan_sets_the_pace():
    r = evaluate_pipeline(doc_case(wan_bytes_per_s=1e9 / 8))
    assert r.wan_bound and round(r.transfer_s, 3) == 0.537
    assert round(r.step_s, 2) == round(32 * 0.537 + 7 * r.stage_s + 2 * (0.010 + 0.537), 2) == 18.75


def test_latency_barely_matters_when_a_forward_pass_is_long():
    low, high = (evaluate_pipeline(doc_case(latency_s=t)).step_s for t in (0.004, 0.128))
    assert high / low < 1.1
    assert math.isclose(high - low, 2 * (0.128 - 0.004))


# --- The command: python -m interconnect crossdc-pipeline ------------------------------------------------

def _cli_json(capsys, argv):
    import json

    from interconnect.cli import main

    code = main(["crossdc-pipeline", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_cli_json_is_the_doc_case(capsys):
    payload = _cli_json(capsys, ["--params", "70e9", "--hidden", "8192", "--seq-len", "4096", "--micro-batches", "32",
                                 "--stages", "8", "--gpus-per-stage", "8", "--sites", "2",
                                 "--wan-bandwidth", "100 Gbit/s", "--latency", "10 ms", "--mfu", "0.4"])
    assert payload["schedule"].startswith("1F1B")
    assert payload["message_per_micro_batch"] == {"value": pytest.approx(67.108864), "unit": "MB"}
    assert payload["stage_time"]["unit"] == "ms" and round(payload["stage_time"]["value"], 1) == 67.9
    assert payload["step_time"]["unit"] == "s" and round(payload["step_time"]["value"], 3) == 2.680
    assert payload["bubble"] == {"value": pytest.approx(21.875), "unit": "%"}
    assert payload["wan_bound"] is False and payload["extra_micro_batches_in_flight"] == 1
    assert set(payload["alternatives"]) == {"dp", "diloco", "streaming-diloco"}
    assert payload["alternatives"]["dp"]["vs_pipeline"] > 4  # the in-site all-reduce adds to the 4.46 of the doc
    assert payload["sources"] == ["arxiv-crosspipe"]


def test_cli_typed_stage_time(capsys):
    payload = _cli_json(capsys, ["--stage-time", "327 ms", "--params", "405e9", "--hidden", "16384",
                                 "--seq-len", "8192", "--stages", "16", "--wan-bandwidth", "4 GB/s"])
    assert payload["stage_time"] == {"value": pytest.approx(327.0), "unit": "ms"}
    assert payload["stage_time_from"] == "typed"
    assert round(payload["forward_time"]["value"]) == 109


@pytest.mark.parametrize("argv", [["--sites", "1"], ["--sites", "3"], ["--stages", "0"], ["--mfu", "40"],
                                  ["--latency", "fast"], ["--wan-bandwidth", "0 Gbit/s"], ["--gpu", "nope"],
                                  ["--params", "lots"], ["--precision", "fp4"], ["--stages", "x"]])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv):
    from interconnect.cli import main

    code = main(["crossdc-pipeline", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err


# --- The page section -------------------------------------------------------------------------------------

PAGE = "pages/6_Across_sites.py"
PP_QUERY = {"pp": "1", "ppparams": "70B", "pphidden": "8192", "ppseq": "4096", "ppmb": "1", "ppm": "32",
            "ppstages": "8", "ppgps": "8", "pplines": "1", "ppsites": "2", "ppprec": "bf16", "ppmfu": "40",
            "ppstage": "0 ms", "ppbw": "100 Gbit/s", "pplat": "10 ms"}


def test_section_is_closed_by_default():
    from tests.app.conftest import run_page

    at = run_page(PAGE)
    assert not at.exception
    assert not any(m.label == "Against one site" for m in at.metric)
    assert at.query_params.get("pp", "0") in ("0", "false")


def test_every_pipeline_input_round_trips_through_the_link():
    from tests.app.conftest import run_page

    at = run_page(PAGE, PP_QUERY)
    assert not at.exception and not at.warning
    assert {k: v for k, v in at.query_params.items() if k.startswith("pp")} == PP_QUERY
    assert at.toggle(key="crossdc.pp").value
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Step"].startswith("2.68")  # docs/crossdc-pipeline.md (H100 from the catalog)
    assert metrics["Bubble"] == "21.9%" and metrics["Against one site"] == "x1.012"


def test_a_bad_split_warns_in_one_line():
    from tests.app.conftest import run_page

    at = run_page(PAGE, {**PP_QUERY, "ppsites": "3"})
    assert not at.exception
    assert any("divide evenly" in w.value for w in at.warning)


# --- CrossPipe's §5 headline comparisons (rules 5 and 6 of crossdc_pipeline.toml) -------------------------

def test_crosspipe_405b_speedup_is_above_what_the_stated_traffic_allows():
    # arXiv 2507.00217 Appendix E: nTP 8, nPP 16, nDP 64, seq_len 8192, GBS = 2 nPP nDP (32 micro-batches per
    # pipeline), T_F about 109 ms (§5.2), DP cost 2α + 2Nβ not overlapped; message b·s·d·n_DP·2 (§2.4, §7.1).
    case = next(c for c in CASES if c.id == "llama405b-pp-vs-dp")
    i = case.inputs
    assert (i["pipelines"], i["stages"], i["micro_batches"], i["seq_len"], i["hidden"]) == (64, 16, 32, 8192, 16384)
    message = _message(i)
    assert message == pytest.approx(17.18e9, rel=1e-3)
    link_floor = i["micro_batches"] * message / i["wan_bytes_per_s"]  # any schedule: 32 messages each way
    # Appendix E: 2 x (α + 2 x (N/2) x β) = 2α + 2Nβ (two rounds, half the BF16 parameters each, β in s/B).
    dp_ceiling = i["micro_batches"] * 3 * i["forward_s"] + 2 * i["latency_s"] + 2 * i["params"] / i[
        "wan_bytes_per_s"]
    bound = dp_ceiling / link_floor
    assert link_floor == pytest.approx(137.4, abs=0.1) and dp_ceiling == pytest.approx(213.0, abs=0.1)
    assert bound == pytest.approx(1.55, abs=0.01)
    assert bound < case.published * (1 - TOLERANCE)  # 3.05 cannot be met within 20 % from these inputs
    # The model itself, at the stated inputs: 1.36x at 4 GB/s, 1.04x one site at 64 GB/s, 0.68x at 1024 GB/s.
    scenario = PipelineScenario(i["params"], int(i["hidden"]), seq_len=int(i["seq_len"]), micro_batch=1,
                                micro_batches=int(i["micro_batches"]), stages=int(i["stages"]),
                                pipelines=int(i["pipelines"]), sites=2, latency_s=i["latency_s"],
                                stage_s=3 * i["forward_s"], wan_bytes_per_s=4e9)
    assert compare(scenario, ("dp",))[1][0].vs_pipeline == pytest.approx(1.36, abs=0.005)
    at64 = evaluate_pipeline(PipelineScenario(**{**scenario.__dict__, "wan_bytes_per_s": 64e9}))
    assert at64.slowdown == pytest.approx(1.04, abs=0.005)
    at1024 = compare(PipelineScenario(**{**scenario.__dict__, "wan_bytes_per_s": 1024e9}), ("dp",))[1][0]
    assert at1024.vs_pipeline == pytest.approx(0.68, abs=0.005)
    for case_id in ("llama405b-pp-vs-dp", "llama405b-one-site-64", "llama405b-pp-vs-dp-1024"):
        assert next(c for c in CASES if c.id == case_id).pending.startswith("Not reproduced")


def test_crosspipe_schedule_gain_lies_under_the_models_bound():
    # M70 (arXiv 2507.00217 §7.1): T_F = 0.038 s, T_bw / T_F = 2, nPP = 8 over 2 DCs, GBS = 16 (16
    # micro-batches), all stated. Hiding the round trip against paying it on every micro-batch (rule 6):
    from interconnect.topics.crossdc.model.scenario import pipeline_wall_s

    forward = 0.038
    wire = 2 * forward
    t = 3 * forward
    gains = []
    for latency in (0.5 * forward, 2 * forward):
        hidden = float(pipeline_step_s(t, 8, 16, 2, wire * 1e9, 1e9, latency))
        static = (16 + 8 - 1) * t + 2 * 16 * (latency + wire)
        gains.append(1 - hidden / static)
        # one stage per site (the Across-sites method) agrees with the same closed form
        assert float(pipeline_wall_s(16 * t, 2, 16, wire * 1e9, 1e9, latency, overlap=False)) == pytest.approx(
            (16 + 1) * t + 2 * 16 * (latency + wire))
    assert gains == pytest.approx([0.503, 0.609], abs=0.001)
    published = next(c for c in CASES if c.id == "m70-schedule-gain").published
    assert 0 < published < min(gains)  # 33.6 % (abstract) lies inside the bound at both latencies
