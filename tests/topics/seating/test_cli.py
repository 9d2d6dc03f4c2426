"""``python -m interconnect plan``: the bill per dimension, --search, JSON keys, one-line errors."""

from __future__ import annotations

import functools
import json

import pytest

from interconnect.cli import main


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, argv):
    code, out, err = _run(capsys, [*argv, "--json"])
    assert code == 0, err
    return json.loads(out)


BASE = ["plan", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus-per-node", "8", "--nodes", "2", "--pp", "1"]


def test_json_has_the_keys_the_issue_lists(capsys):
    payload = _json(capsys, [*BASE, "--tp", "8", "--pp", "1", "--dp", "2", "--zero", "1"])
    for key in ("step_time", "exposed_comm", "memory_per_gpu"):
        assert set(payload[key]) == {"value", "unit"} and payload[key]["value"] > 0
    assert payload["step_time"]["unit"] == "s" and payload["memory_per_gpu"]["unit"] == "GB"
    assert isinstance(payload["fits"], bool)
    assert payload["layout"] == {"tp": 8, "pp": 1, "dp": 2, "cp": 1, "ep": 1, "zero": 1}
    rows = {row["dimension"]: row for row in payload["dimensions"]}
    assert rows["tp"]["tier"] == "NVLink" and rows["dp"]["tier"] == "network (NIC)"
    assert rows["tp"]["bytes_per_step"]["unit"] == "B" and rows["tp"]["exposed"]["unit"] == "ms"


def test_tp_across_nodes_costs_more_exposed_time(capsys):
    inside = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--zero", "3"])
    across = _json(capsys, [*BASE, "--tp", "16", "--dp", "1", "--zero", "3"])
    tp_across = next(r for r in across["dimensions"] if r["dimension"] == "tp")
    assert tp_across["tier"] == "network (NIC)" and tp_across["domains_spanned"] == 2
    assert across["exposed_comm"]["value"] > 2 * inside["exposed_comm"]["value"]


def test_search_returns_a_fitting_layout_with_tp_inside_the_node(capsys):
    payload = _json(capsys, ["plan", "--model", "llama3-70b", "--nodes", "8", "--search"])
    assert payload["fits"] is True
    assert payload["layout"]["tp"] <= 8
    assert payload["search"]["fitting"] >= 1
    code, out, _ = _run(capsys, ["plan", "--model", "llama3-70b", "--nodes", "8", "--search"])
    assert code == 0 and out.startswith("fastest of")


def test_search_that_finds_nothing_says_so(capsys):
    payload = _json(capsys, ["plan", "--model", "llama3-405b", "--nodes", "1", "--global-batch", "8", "--search"])
    assert payload["fits"] is False and payload["layout"] is None and "No layout" in payload["message"]
    assert "in memory" in payload["message"] and payload["search"]["valid"] > 0


def test_search_names_the_batch_when_no_layout_can_run(capsys):
    # issue: 800,000 GPUs for DeepSeek-V3 at a global batch of 256 were said not to fit in memory; no layout
    # can run at all, as 256 sequences do not split over 25,000 or more replicas
    payload = _json(capsys, ["plan", "--model", "deepseek-v3", "--gpus-per-node", "8", "--nodes", "100000",
                             "--search"])
    assert payload["layout"] is None and payload["search"]["valid"] == 0
    assert "memory" not in payload["message"], payload["message"]
    assert "can run DeepSeek-V3" in payload["message"] and "global batch: 256 sequences" in payload["message"]
    assert payload["search"]["rejected"]["batch"] > 0


def test_text_output_marks_a_layout_that_does_not_fit(capsys):
    code, out, _ = _run(capsys, [*BASE, "--tp", "8", "--dp", "2", "--zero", "0"])
    assert code == 0
    assert "GB per GPU, does not fit" in out and "Tensor (TP)" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tp", "3"], "does not divide the model's 64 attention heads"),
        (["--tp", "8", "--dp", "4"], "must multiply to the GPU count"),
        (["--tp", "8", "--dp", "2", "--ep", "2"], "needs a mixture-of-experts model"),
        (["--model", "gpt-9"], "unknown model 'gpt-9'"),
        (["--tp", "0"], "must be at least 1"),
        (["--nic", "5 parsecs"], "--nic"),
    ],
)
def test_errors_are_one_line_with_status_2(capsys, extra, message):
    code, _, err = _run(capsys, [*BASE, *extra])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_defaults_are_the_pages():
    # issue 22: the CLI and the page share every default (the page's link keys at their defaults)
    from interconnect.topics.seating.inputs import seating_specs
    from interconnect.topics.seating.model import PLAN_DEFAULTS

    specs = {spec.key: spec.default for spec in seating_specs()}
    assert (specs["model"], specs["gpu"], specs["nodes"]) == (PLAN_DEFAULTS["model"], PLAN_DEFAULTS["gpu"],
                                                              PLAN_DEFAULTS["nodes"])
    assert (specs["tp"], specs["pp"], specs["cp"], specs["ep"], specs["zero"]) == tuple(
        PLAN_DEFAULTS[k] for k in ("tp", "pp", "cp", "ep", "zero"))
    assert (specs["mb"], specs["gb"], specs["recompute"], specs["sp"], specs["sched"], specs["vs"], specs["attn"],
            specs["dtype"]) == tuple(PLAN_DEFAULTS[k] for k in ("micro_batch", "global_batch", "recompute",
                                                                "sequence_parallel", "schedule", "virtual_stages",
                                                                "attention", "dtype"))
    assert (specs["stack"], specs["tpov"]) == (PLAN_DEFAULTS["stack"], PLAN_DEFAULTS["tp_overlap"])


def test_custom_model_schedule_and_uneven_stages(capsys):
    # GPT-3 175B as Korthikanti et al. 2022 ran it (TP 8 x PP 8 on 64 A100), and Llama 3's 126 layers on 16 stages
    payload = _json(capsys, ["plan", "--model", "custom", "--params", "175e9", "--layers", "96", "--hidden", "12288",
                             "--heads", "96", "--vocab", "51200", "--seq-len", "2048", "--gpu", "a100-sxm",
                             "--nodes", "8", "--tp", "8", "--pp", "8", "--global-batch", "64",
                             "--schedule", "interleaved", "--virtual-stages", "2", "--attention", "unfused"])
    assert payload["layout"]["pp"] == 8 and payload["schedule"]["virtual_stages"] == 2
    assert payload["tflops_per_gpu"]["unit"] == "TFLOP/s" and payload["tflops_per_gpu"]["value"] > 0
    assert payload["hardware_tflops_per_gpu"]["value"] >= payload["tflops_per_gpu"]["value"]
    uneven = _json(capsys, ["plan", "--model", "llama3-405b", "--nodes", "16", "--tp", "8", "--pp", "16",
                            "--global-batch", "64", "--lighter-ends", "--recompute", "full"])
    assert uneven["stage_layers"] == {"fullest": 8, "last": 7}
    code, _, err = _run(capsys, ["plan", "--model", "custom", "--layers", "8"])
    assert code == 2 and "--params" in err


def test_plan_describes_a_published_run_as_the_reference_model_does(capsys):
    # MT-NLG 530B on 2,240 A100 (DeepSpeed's pipeline engine and its ZeRO-1 accumulating through autograd, rule
    # R36, no SP, full recomputation) and Llama 3 405B at 128K
    # (all-gathered CP, FP32 gradients reduced per layer): plan gives the reference model's TFLOP/s per GPU (MT-NLG's
    # within 1 %: the paper counts with Narayanan et al.'s eq. 3, plan's hardware figure adds recomputation to PaLM's)
    from interconnect.topics.seating.reference_runs import load_reference_runs, predict

    runs = {run.id: run for run in load_reference_runs()}
    mtnlg = _json(capsys, ["plan", "--model", "custom", "--params", "530e9", "--layers", "105", "--hidden", "20480",
                           "--heads", "128", "--vocab", "51200", "--seq-len", "2048", "--gpu", "a100-sxm",
                           "--nic", "ib-hdr", "--nodes", "280", "--tp", "8", "--pp", "35", "--dp", "8",
                           "--zero", "1", "--global-batch", "1920", "--recompute", "full", "--no-sequence-parallel",
                           "--attention", "unfused", "--dropout", "--pipeline-engine", "deepspeed",
                           "--grad-accumulation", "autograd"])
    assert mtnlg["workload"]["pipeline_engine"] == "deepspeed"
    assert mtnlg["workload"]["grad_accumulation"] == "autograd"
    run = runs["mtnlg-530b-2240"]
    assert mtnlg["hardware_tflops_per_gpu"]["value"] == pytest.approx(predict(run).tflops, rel=0.01)
    llama = _json(capsys, ["plan", "--model", "custom", "--params", "405e9", "--layers", "126", "--hidden", "16384",
                           "--heads", "128", "--kv-heads", "8", "--ffn", "53248", "--vocab", "128256",
                           "--seq-len", "131072", "--gpu", "h100-sxm", "--nic", "roce-400g", "--nodes", "2048",
                           "--tp", "8", "--cp", "16", "--pp", "16", "--dp", "8", "--zero", "2",
                           "--global-batch", "128", "--recompute", "none", "--schedule", "interleaved",
                           "--lighter-ends", "--context-parallel", "all-gather", "--fp32-gradients",
                           "--dp-bucket", "layer", "--attention", "flash2"])
    assert llama["workload"]["grad_bytes"] == 4 and llama["workload"]["dp_bucket"] == "layer"
    assert llama["tflops_per_gpu"]["value"] == pytest.approx(predict(runs["llama3-405b-128k-16384"]).tflops,
                                                             rel=1e-3)


BAND_KEYS = {"low", "high", "median", "n", "basis", "quantity", "runs", "coverage", "observed", "expected"}


def test_plan_json_and_text_carry_the_error_band(capsys):
    payload = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--zero", "1"])
    band = payload["error_band"]
    assert set(band) == BAND_KEYS
    assert band["n"] >= 3 and band["low"] <= band["median"] <= band["high"]
    assert band["basis"].startswith("held: dense, 16-bit (BF16/FP16)")
    code, out, _ = _run(capsys, [*BASE, "--tp", "8", "--dp", "2", "--zero", "1"])
    lines = [line for line in out.splitlines() if line.startswith("error band")]
    assert code == 0 and len(lines) == 1 and "published runs like this: the model reads" in lines[0]


def test_plan_json_reads_the_band_the_other_way(capsys):
    # Ratios are model / measured, so a measurement of this case would likely read the model's TFLOP/s and MFU over
    # high .. low (about over median), and its step time (the inverse quantity) times low .. high.
    payload = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--zero", "1"])
    band, expected = payload["error_band"], payload["error_band"]["expected"]
    assert set(expected) == {"step_time", "tflops_per_gpu", "mfu"}
    mfu, tflops, step = expected["mfu"], expected["tflops_per_gpu"], expected["step_time"]
    assert set(mfu) == {"low", "central", "high", "unit", "quantity"}
    close = functools.partial(pytest.approx, rel=1e-3)
    assert (mfu["low"], mfu["central"], mfu["high"]) == close(
        (payload["mfu"] / band["high"], payload["mfu"] / band["median"], payload["mfu"] / band["low"]))
    value = payload["tflops_per_gpu"]["value"]
    assert (tflops["low"], tflops["high"], tflops["unit"]) == (close(value / band["high"]), close(value / band["low"]),
                                                              "TFLOP/s")
    value = payload["step_time"]["value"]
    assert (step["low"], step["central"], step["high"], step["unit"]) == (
        close(value * band["low"]), close(value * band["median"]), close(value * band["high"]), "s")
    code, out, _ = _run(capsys, [*BASE, "--tp", "8", "--dp", "2", "--zero", "1"])
    lines = [line for line in out.splitlines() if line.startswith("a measurement would likely read")]
    assert code == 0 and len(lines) == 1 and "TFLOP/s per GPU" in lines[0] and "MFU" in lines[0]
    # no published FP32 run: an extrapolation, with nothing to expect
    fp32 = [*BASE, "--tp", "8", "--dp", "2", "--dtype", "fp32"]
    assert _json(capsys, fp32)["error_band"] | {"basis": ""} == {
        "low": None, "high": None, "median": None, "n": 0, "basis": "", "quantity": band["quantity"], "runs": [],
        "coverage": None, "observed": None, "expected": None}
    code, out, _ = _run(capsys, fp32)
    assert code == 0 and "likely read" not in out


def test_the_search_shows_the_band_of_what_it_proposes(capsys):
    payload = _json(capsys, [*BASE, "--search"])
    assert payload["search"]["fitting"] > 0 and set(payload["error_band"]) == BAND_KEYS
    code, out, _ = _run(capsys, ["plan", "--model", "mixtral-8x7b", "--nodes", "8", "--search"])
    assert code == 0 and "error band" in out


def test_an_fp8_plan_is_judged_by_published_fp8_runs(capsys):
    # the precision class is a hard rule: an FP8 plan's band comes from FP8 runs only, never from 16-bit ones
    from interconnect.topics.seating.accuracy import evaluated

    payload = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--dtype", "fp8"])
    band = payload["error_band"]
    assert band["n"] >= 3 and len(band["runs"]) == band["n"]
    assert {evaluated()[run].attrs["precision"] for run in band["runs"]} == {"FP8"}
    assert band["low"] <= band["median"] <= band["high"] and band["expected"] is not None


def test_plan_names_the_published_runs_of_its_layout(capsys):
    # Llama 3 70B on 64 H100 at TP4 PP8 DP2 is Megatron-Bridge 25.11's FP8-CS run (781.8 TFLOP/s per GPU) and the
    # DGX Cloud recipe's FP8 run on NeMo 25.02.01 (9.86 s a step: 810.9 TFLOP/s per GPU; training-runs.toml): plan's
    # JSON lists both with the model's figure for each run as it ran; the text says them in one line; a layout nobody
    # published lists none
    from interconnect.topics.seating.reference_runs import load_reference_runs, predict

    runs = {r.id: r for r in load_reference_runs()}
    ids = ["mbridge2511-llama3-70b-h100-64", "dgxc2502-llama31-70b-fp8-64"]
    got = _json(capsys, ["plan", "--model", "llama3-70b", "--nodes", "8", "--tp", "4", "--pp", "8"])
    assert [row["id"] for row in got["published_runs"]] == ids
    for row, measured in zip(got["published_runs"], (781.8, 810.9), strict=True):
        run = runs[row["id"]]
        assert (row["precision"], row["measured_tflops"]) == ("FP8", measured)
        assert row["model_tflops"] == pytest.approx(predict(run).tflops, abs=0.05)
        assert row["ratio"] == pytest.approx(predict(run).ratio, abs=5e-4)
    assert main(["plan", "--model", "llama3-70b", "--nodes", "8", "--tp", "4", "--pp", "8"]) == 0
    out = capsys.readouterr().out
    assert "Published with this layout: Llama 3 70B, 64 H100 FP8-CS" in out
    assert "Llama 3.1 70B, 64 H100 FP8 (NeMo 25.02.01, DGX Cloud recipe)" in out
    assert _json(capsys, ["plan", "--model", "llama3-70b", "--nodes", "8"])["published_runs"] == []


def test_recompute_modules_lower_the_memory_and_are_refused_where_the_model_lacks_them(capsys):
    # DeepSeek-V3 as Megatron-Bridge 25.11 ran it on B200 (TP 1, PP 16, EP 8): the up-projections' outputs freed
    ds = ["plan", "--model", "deepseek-v3", "--gpu", "b200", "--gpus-per-node", "8", "--nodes", "32", "--tp", "1",
          "--pp", "16", "--dp", "16", "--ep", "8", "--global-batch", "2048", "--recompute", "none"]
    kept = _json(capsys, ds)
    freed = _json(capsys, [*ds, "--recompute-module", "mla_up_proj", "--recompute-module", "mla_up_proj"])
    assert kept["workload"]["recompute_modules"] == [] and freed["workload"]["recompute_modules"] == ["mla_up_proj"]
    assert freed["memory_per_gpu"]["value"] < kept["memory_per_gpu"]["value"]
    assert freed["step_time"]["value"] > kept["step_time"]["value"]     # the up-projections run again
    code, out, err = _run(capsys, [*BASE, "--recompute-module", "mla_up_proj"])
    assert code == 2 and "'mla_up_proj' needs multi-head latent attention" in err and len(err.strip().splitlines()) == 1


def test_ep_a2a_overlap_flag_hides_the_expert_all_to_alls_and_refuses_full_recomputation(capsys):
    # Mixtral 8x7B on one H100 node with EP 8: with Megatron-Core's overlap (rule R45) the all-to-alls of every
    # micro-batch but the first forward and the last backward hide beside the other micro-batch's compute
    mixtral = ["plan", "--model", "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus-per-node", "8", "--nodes", "1",
               "--tp", "1", "--pp", "1", "--dp", "8", "--ep", "8", "--global-batch", "64", "--recompute", "none"]
    off, on = _json(capsys, mixtral), _json(capsys, [*mixtral, "--ep-a2a-overlap"])
    assert (off["workload"]["ep_a2a_overlap"], on["workload"]["ep_a2a_overlap"]) == (False, True)
    assert on["step_time"]["value"] < off["step_time"]["value"]
    assert main([*mixtral, "--ep-a2a-overlap"]) == 0
    assert "expert all-to-alls overlapped" in capsys.readouterr().out
    code, out, err = _run(capsys, [*mixtral[:-1], "full", "--ep-a2a-overlap"])
    assert code == 2 and "full recomputation" in err and len(err.strip().splitlines()) == 1


def test_stack_and_tp_overlap_flags(capsys):
    # issue 41: TP overlap as an input, auto = the stack's default; the JSON and the text name both
    default = _json(capsys, [*BASE, "--tp", "8", "--dp", "2"])
    assert (default["workload"]["stack"], default["workload"]["tp_comm_overlap"]) == ("megatron-core", False)
    nemo = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--stack", "nemo"])
    forced = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--tp-overlap", "on"])
    assert nemo["workload"]["tp_comm_overlap"] and forced["workload"]["tp_comm_overlap"]
    assert nemo["step_time"] == forced["step_time"]
    assert forced["step_time"]["value"] < default["step_time"]["value"]
    tp = {row["dimension"]: row for row in forced["dimensions"]}["tp"]
    tp0 = {row["dimension"]: row for row in default["dimensions"]}["tp"]
    assert tp["exposed"]["value"] < tp0["exposed"]["value"]
    off = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--stack", "nemo", "--tp-overlap", "off"])
    assert off["step_time"] == default["step_time"] and not off["workload"]["tp_comm_overlap"]
    code, out, _ = _run(capsys, [*BASE, "--tp", "8", "--dp", "2", "--stack", "megatron-bridge"])
    assert code == 0
    assert "stack: Megatron-Bridge; TP communication overlapped with the GEMMs" in out


def test_tp_overlap_that_cannot_act_is_a_note_not_an_error(capsys):
    payload = _json(capsys, [*BASE, "--tp", "8", "--dp", "2", "--tp-overlap", "on", "--no-sequence-parallel"])
    assert not payload["workload"]["tp_comm_overlap"]
    assert any("needs sequence parallelism" in w for w in payload["warnings"])
    code, out, _ = _run(capsys, [*BASE, "--tp", "1", "--dp", "16", "--tp-overlap", "on"])
    assert code == 0 and "interconnect: note: TP-communication overlap (on) needs TP > 1" in out
    assert "TP communication not overlapped (--tp-overlap on)" in out


def test_the_stack_sets_what_no_flag_sets_and_flags_win(capsys):
    ds = _json(capsys, [*BASE, "--tp", "8", "--pp", "2", "--dp", "1", "--stack", "deepspeed"])
    assert ds["workload"]["pipeline_engine"] == "deepspeed"
    ours = _json(capsys, [*BASE, "--tp", "8", "--pp", "2", "--dp", "1", "--stack", "deepspeed",
                          "--pipeline-engine", "megatron"])
    assert ours["workload"]["pipeline_engine"] == "megatron"
    searched = _json(capsys, [*BASE, "--search", "--stack", "nemo"])
    plain = _json(capsys, [*BASE, "--search"])
    assert searched["workload"]["stack"] == "nemo" and searched["step_time"]["value"] < plain["step_time"]["value"]


@pytest.mark.parametrize(("flag", "value"), [("--stack", "nonsense"), ("--tp-overlap", "<script>"),
                                             ("--tp-overlap", "yes")])
def test_bad_stack_or_overlap_is_one_line_with_status_2(capsys, flag, value):
    code, _, err = _run(capsys, [*BASE, flag, value])
    assert code == 2
    assert f"argument {flag}: invalid choice" in err and len(err.strip().splitlines()) == 1
