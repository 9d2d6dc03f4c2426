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
])
def test_hostile_arguments_give_one_line(capsys, argv, message):
    assert message in _error(capsys, argv)
