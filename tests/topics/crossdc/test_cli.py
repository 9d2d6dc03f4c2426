"""``python -m interconnect crossdc``: JSON fields with units, text output, one-line errors."""

from __future__ import annotations

import json

import pytest

from interconnect.cli import main
from interconnect.topics.crossdc.model import get_crossdc_data


def _json(capsys, argv):
    code = main(["crossdc", *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _error(capsys, argv):
    code = main(["crossdc", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interconnect: error: "), err
    return lines[0]


def test_dense_diloco_between_two_sites_json(capsys):
    # 1e9 parameters at 16 bits: a 2 GB pseudo-gradient per sync; two sites send one payload each way.
    payload = _json(capsys, ["--params", "1e9", "--sites", "2", "--method", "diloco", "--bits", "16",
                             "--step-time", "1 s", "--wan-bandwidth", "10 Gbit/s", "--rtt", "20 ms"])
    assert payload["bytes_per_sync"] == {"value": 2.0, "unit": "GB"}
    assert payload["wan_bytes_per_sync"] == {"value": 2.0, "unit": "GB"}
    assert payload["inner_steps"] == 500  # DiLoCo's H (arXiv 2311.08105 §3)
    for key in ("compute_utilization", "compute_utilization_with_overlap", "compute_utilization_without_overlap"):
        assert payload[key]["unit"] == "%" and 0 < payload[key]["value"] <= 100
    assert payload["required_wan_bandwidth"]["unit"] == "Gbit/s"
    assert payload["required_wan_bandwidth"]["value"] > 0
    assert payload["step_time"] == {"value": 1.0, "unit": "s"} and payload["step_time_from"] == "typed"


def test_sparseloco_json_has_0_21875_bits_per_parameter(capsys):
    # Covenant-72B §2.1: 64 of 4096 values, 2-bit values, 12-bit indices.
    payload = _json(capsys, ["--params", "72B", "--sites", "20", "--method", "sparseloco"])
    assert payload["bits_per_param"] == 0.21875
    assert payload["topology"] == "allgather"
    assert payload["bytes_per_sync"]["value"] == pytest.approx(1.96875)
    assert payload["wan_bytes_per_sync"]["value"] == pytest.approx(19 * 1.96875)  # every other peer's payload


def test_without_overlap_uses_the_blocking_figures(capsys):
    payload = _json(capsys, ["--method", "dp", "--no-overlap", "--wan-bandwidth", "100 Gbit/s"])
    assert payload["overlap"] is False
    assert payload["compute_utilization"] == payload["compute_utilization_without_overlap"]
    assert payload["required_wan_bandwidth"] == payload["required_wan_bandwidth_without_overlap"]
    assert payload["exposed_time_per_round"] == payload["exposed_time_per_round_without_overlap"]


def test_step_time_derived_from_tokens_and_the_gpus_flops(capsys):
    # 6 N D / (G F MFU): 1e9 x 1e6 tokens on 8 H100 (989.4 TFLOP/s dense BF16) at 40 % MFU = 1.895 s.
    payload = _json(capsys, ["--params", "1e9", "--tokens-per-step", "1e6", "--gpus-per-site", "8", "--mfu", "0.4"])
    assert payload["step_time"]["value"] == pytest.approx(6e15 / (8 * 989.4e12 * 0.4), rel=1e-5)
    assert payload["step_time_from"].startswith("derived")


def test_network_preset_sets_bandwidth_and_rtt_unless_given(capsys):
    # CrossPipe §2.3: same-region cloud about 1 ms and 11.3 Gbit/s (the preset's RTT is twice the latency).
    payload = _json(capsys, ["--network", "same-region"])
    assert payload["wan_bandwidth"] == {"value": 11.3, "unit": "Gbit/s"}
    assert payload["rtt"] == {"value": 2.0, "unit": "ms"}
    payload = _json(capsys, ["--network", "same-region", "--wan-bandwidth", "40 Gbit/s"])
    assert payload["wan_bandwidth"]["value"] == 40.0 and payload["rtt"]["value"] == 2.0


def test_unreachable_target_is_null_with_its_unit(capsys):
    payload = _json(capsys, ["--method", "dp", "--step-time", "10 ms", "--rtt", "1 s"])
    assert payload["required_wan_bandwidth"] == {"value": None, "unit": "Gbit/s"}


def test_text_output(capsys):
    assert main(["crossdc", "--method", "streaming-diloco", "--params", "1e9"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Streaming DiLoCo: 1e+09 parameters, 2 sites")
    assert "one of 8 fragments" in out and "WAN needed for 95%" in out


@pytest.mark.parametrize("method", list(get_crossdc_data().methods))
def test_every_method_runs(capsys, method):
    assert _json(capsys, ["--method", method])["method"] == method


@pytest.mark.parametrize(("argv", "message"), [
    (["--sites", "-3"], "sites must be from 2"),
    (["--inner-steps", "0"], "inner steps H must be from 1"),
    (["--wan-bandwidth", "5 km"], "--wan-bandwidth: expected a bandwidth like '400 Gbit/s', got a length"),
    (["--params", "9^9^8"], "--params: parameters: expected a count like '1e9' or '7B'"),
    (["--params", "1e999"], "parameters must be from"),
    (["--target-utilization", "95"], "a fraction: 0.95, not 95"),
    (["--step-time", "1 s", "--tokens-per-step", "1e6"], "not both"),
    (["--gpu", "h9000"], "--gpu: unknown GPU id 'h9000'"),
    (["--method", "telepathy"], "invalid choice: 'telepathy'"),
    (["--method", "dp", "--inner-steps", "8"], "data parallel synchronises every step"),
    (["--rtt", "-5 ms"], "--rtt: expected a positive time"),
    (["--tokens-per-step", "1e6", "--mfu", "3"], "MFU must lie in (0, 1]"),
    (["--sites", "two"], "expected a whole number, got 'two'"),
    (["--method", "crosspipe", "--micro-batches", "0"], "micro-batches must be from 1"),
    (["--method", "crosspipe", "--inner-steps", "10"], "a pipeline exchanges activations every step"),
    (["--method", "diloco", "--micro-batches", "8"], "micro-batches apply to crosspipe only"),
    (["--method", "diloco", "--hidden", "8192"], "--hidden applies to crosspipe only"),
    (["--method", "crosspipe", "--hidden", "-1"], "hidden size must be from 0"),
    (["--method", "mt-dao", "--fragments", "4"], "fragments apply to streaming-diloco and cocodc only"),
    (["--target-steps", "0"], "--target-steps: must be from 1"),
])
def test_hostile_arguments_give_one_line(capsys, argv, message):
    assert message in _error(capsys, argv)


def test_new_methods_carry_steps_and_wall_clock_to_target(capsys):
    # 1e9 parameters, 2 sites of 1 GPU, 1 s steps, 10 Gbit/s, no round trip, blocking syncs; data parallel
    # takes 1,000 steps to its loss.
    base = ["--params", "1e9", "--sites", "2", "--gpus-per-site", "1", "--step-time", "1 s", "--wan-bandwidth",
            "10 Gbit/s", "--rtt", "0 s", "--no-overlap", "--target-steps", "1000"]
    dp = _json(capsys, [*base, "--method", "dp"])
    # By hand: 2 GB of gradient over 1.25 GB/s = 1.6 s per 1 s step: 2.6 s x 1,000 steps = 0.7222 h.
    assert dp["steps_to_target_ratio"] == 1.0
    assert dp["wall_clock_to_target"] == {"value": pytest.approx(2600 / 3600, abs=1e-6), "unit": "h"}
    mt = _json(capsys, [*base, "--method", "mt-dao"])
    # MT-DAO: 3 tensors x 16 bits = 6 GB every 32 steps, 4.8 s per 32 s; 0.76 x 1,000 steps ("24 % fewer
    # steps" at 720M, arXiv 2510.05361 abstract) x 36.8/32 s = 874 s.
    assert mt["bits_per_param"] == 48.0 and mt["inner_steps"] == 32 and mt["bytes_per_sync"]["value"] == 6.0
    assert mt["steps_to_target_ratio"] == 0.76
    assert mt["wall_clock_to_target"]["value"] == pytest.approx(760 * 36.8 / 32 / 3600, abs=1e-6)
    co = _json(capsys, [*base, "--method", "cocodc"])
    # CoCoDC: Streaming DiLoCo's wire (1e9 x 4 bits / 8 fragments = 62.5 MB) at 0.79 of its steps ("up to
    # 21.0 % fewer", arXiv 2504.17672 abstract).
    assert co["bytes_per_sync"]["value"] == pytest.approx(0.0625) and co["steps_to_target_ratio"] == 0.79
    cp = _json(capsys, [*base, "--method", "crosspipe", "--hidden", "2048", "--micro-batches", "8"])
    # CrossPipe: 2 sites x 1M tokens in 8 micro-batches of 250,000 tokens x 2048 x 2 bytes = 1,024 MB each way,
    # 0.8192 s on the wire per micro-batch; blocking: (8 + 1) x 0.125 s + 2 x 8 x 0.8192 s = 14.2322 s per step.
    assert cp["pipeline"]["message_per_micro_batch"] == {"value": 1024.0, "unit": "MB"}
    assert cp["pipeline"]["wall_clock_per_step"]["value"] == pytest.approx(14.2322, abs=1e-4)
    assert cp["steps_to_target_ratio"] == 1.0 and cp["time_to_target"]["crosspipe"]["basis"] == "exact"
    assert cp["wall_clock_to_target"]["value"] == pytest.approx(14232.2 / 3600, abs=1e-4)
    for payload in (dp, mt, co, cp):
        assert set(payload["time_to_target"]) == set(get_crossdc_data().methods)
        for row in payload["time_to_target"].values():
            assert row["steps_to_target_ratio"] > 0 and row["time_to_target"]["unit"] == "h"
