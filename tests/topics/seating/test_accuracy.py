"""The seating chart's error band: every published run judged; neighbours by kind, precision, family, stack, scale."""

from __future__ import annotations

import dataclasses

from interconnect.hardware.accuracy import Criterion, Evaluated, coverage_neighbours, coverage_range, select_band
from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.accuracy import BAND_COVERAGE, case_band, evaluated, published_source, run_band
from interconnect.topics.seating.model import Workload, stack_workload
from interconnect.topics.seating.reference_runs import load_reference_runs, predict
from interconnect.workloads.presets import load_model_presets


def test_every_published_run_is_judged_by_the_live_model():
    cases = evaluated()
    runs = load_reference_runs()
    assert set(cases) == {run.id for run in runs}
    run = runs[0]
    assert cases[run.id].ratio == predict(run).ratio


def test_a_published_run_is_judged_without_any_run_of_its_source():
    for run in load_reference_runs():
        band = run_band(run)
        assert all(evaluated()[other].source != run.source for other in band.runs), run.id


def test_a_case_that_is_a_published_run_leaves_its_source_out_by_itself():
    run = next(r for r in load_reference_runs() if r.id == "llama3-405b-8k-16384")
    assert published_source(run.model(), run.cluster(), run.layout()) == "llama3"
    band = case_band(run.model(), run.cluster(), run.workload(), run.layout())
    assert band.basis.endswith("left out: source llama3")
    assert not any(other.startswith("llama3") for other in band.runs)
    # the same case without a layout is not recognised, and Llama 3's other runs count
    assert any(other.startswith("llama3") for other in case_band(run.model(), run.cluster(), run.workload()).runs)


def test_the_rules_read_kind_precision_family_and_scale():
    presets = load_model_presets()
    cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=64)
    band = case_band(presets["llama3-70b"], cluster, Workload())
    assert band.n >= 3 and band.basis.startswith("held: dense, 16-bit (BF16/FP16), NVIDIA Ampere, 64-4,096 GPUs")
    assert band.low <= band.median <= band.high


def test_the_stack_rule_keeps_runs_of_the_same_group_of_stacks():
    presets = load_model_presets()
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    runs = {run.id: run for run in load_reference_runs()}
    core = {run_id for run_id, run in runs.items() if run.megatron_core}
    plain = case_band(presets["llama3-70b"], cluster, Workload())  # no stack named: no stack rule
    nemo = case_band(presets["llama3-70b"], cluster, stack_workload(Workload(), "nemo"))
    titan = case_band(presets["llama3-70b"], cluster, stack_workload(Workload(), "torchtitan"))
    assert "stack" not in plain.basis
    assert "a Megatron-Core stack" in nemo.basis.split("; dropped")[0] and set(nemo.runs) <= core
    assert "a stack other than Megatron-Core's" in titan.basis.split("; dropped")[0]
    assert titan.runs and not set(titan.runs) & core
    # a published run is judged with its own stack's group: Megatron-Bridge's table among Megatron-Core's stacks
    run = runs["mbridge2511-qwen3-30b-h100-16"]
    assert run.workload().stack == "megatron-bridge" and set(run_band(run).runs) <= core


def test_moe_and_fp8_are_extrapolations_while_no_such_run_is_published():
    presets = load_model_presets()
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    moe = case_band(presets["mixtral-8x7b"], cluster, Workload())
    fp8 = case_band(presets["llama3-70b"], cluster, dataclasses.replace(Workload(), dtype_bytes=1))
    published_kinds = {(c.attrs["kind"], c.attrs["precision"]) for c in evaluated().values()}
    if ("MoE", "16-bit (BF16/FP16)") not in published_kinds:
        assert moe.extrapolation and moe.text() == "extrapolation: no published run like this"
    if not any(precision == "FP8" for _, precision in published_kinds):
        assert fp8.extrapolation and "FP8" in fp8.basis


def test_the_coverage_rule_in_closed_form():
    # n exchangeable ratios leave n + 1 equally likely gaps for the next one: smallest to largest holds it with
    # probability (n - 1) / (n + 1), so 80 % needs 9 (8 / 10) and 50 % needs 3 (2 / 4)
    assert coverage_neighbours(0.8) == 9 and coverage_neighbours(0.5) == 3
    ratios = [1.0 + 0.01 * i for i in range(19)]  # 19 ratios: k = 2 gives (20 - 4) / 20 = 80 % exactly
    assert coverage_range(ratios, 0.8) == (ratios[1], ratios[-2])
    assert coverage_range(ratios[:18], 0.8) == (ratios[0], ratios[17])  # 18: k = 2 would give 15 / 19 < 80 %
    # the same 19 ratios from 3 sources are 3 draws, not 19: smallest to largest
    assert coverage_range(ratios, 0.8, [f"s{i % 3}" for i in range(19)]) == (ratios[0], ratios[-1])
    assert coverage_range(ratios, 0.8, [f"s{i}" for i in range(19)]) == (ratios[1], ratios[-2])
    cases = [Evaluated(f"r{i}", f"s{i}", 1.0 + 0.1 * i, {"gpu": "x" if i < 3 else "y"}) for i in range(10)]
    gpu_x = Criterion("GPU x", lambda c: c.attrs["gpu"] == "x")
    old = select_band(cases, [gpu_x])
    new = select_band(cases, [gpu_x], coverage=0.8)
    assert old.n == 3 and new.n == 10 and new.basis.startswith("held: none; dropped: GPU x")
    assert (new.low, new.high) == (1.0, 1.9)


def test_training_bands_follow_the_coverage_rule():
    for run in load_reference_runs():
        band = run_band(run)
        if band.extrapolation:
            continue
        ratios = sorted(evaluated()[other].ratio for other in band.runs)
        # k counts the neighbours' sources, not their runs: a source's runs share its errors
        sources = {evaluated()[other].source for other in band.runs}
        k = min(max(1, (len(sources) + 1) // 10), (len(ratios) + 1) // 2)
        assert (band.low, band.high) == (ratios[k - 1], ratios[-k]), run.id
        # nine runs or more, unless only the hard rules (kind, precision) held and still left fewer
        held = band.basis.split("; dropped")[0]  # "held: dense, 16-bit (BF16/FP16)[, family[, scale]]"
        assert band.n >= 9 or held.count(",") == 1, run.id
    assert BAND_COVERAGE == 0.8
