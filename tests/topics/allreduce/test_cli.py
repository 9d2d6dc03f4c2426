"""``python -m interconnect allreduce`` and ``compare``: JSON fields, text output, one-line errors."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

from interconnect.cli import main
from interconnect.hardware.collectives import load_measurements

DATA = Path(__file__).resolve().parents[2] / "unit" / "data" / "nccl_logs"

HEADER = (
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 30 agg iters: 1 "
    "validation: 1 graph: 0\n"
) + """#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
"""

LOG_FIXTURES = Path(__file__).resolve().parents[2] / "unit" / "data" / "nccl_logs"


@pytest.fixture
def two_node_log(tmp_path):
    """A public 2 x 8 H100 sweep (a parser fixture; its repository was never identified, so it is no longer a
    packaged measurement) with an nccl-tests header in front."""
    rows = (LOG_FIXTURES / "h100-2node-unidentified.txt").read_text(encoding="utf-8")
    path = tmp_path / "all_reduce_2x8xH100.log"
    path.write_text(HEADER + rows + "# Avg bus bandwidth    : 70.7\n", encoding="utf-8")
    return path


def _json(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def _error(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interconnect: error: "), err
    return lines[0]


def test_allreduce_json_fields(capsys):
    payload, _ = _json(capsys, ["allreduce", "--gpu", "h100-sxm", "--gpus-per-node", "8", "--nodes", "2",
                                "--size", "256 MiB", "--json"])
    assert payload["cluster"]["ranks"] == 16 and payload["cluster"]["gpu"] == "h100-sxm"
    assert payload["size"] == {"value": 268435456.0, "unit": "B"}
    for key in ("time", "algbw", "busbw"):
        assert set(payload[key]) == {"value", "unit"} and payload[key]["value"] > 0
    assert payload["time"]["unit"] == "us" and payload["busbw"]["unit"] == "GB/s"
    assert payload["algorithm"] in ("ring", "tree", "nvls_tree")
    assert payload["busbw"]["value"] == pytest.approx(payload["algbw"]["value"] * 2 * 15 / 16, rel=1e-5)
    assert payload["warnings"] == [] and len(payload["results"]) == 1


def test_allreduce_sweep_and_forced_algorithm(capsys):
    payload, _ = _json(capsys, ["allreduce", "--gpu", "mi300x", "--size", "sweep", "--algorithm", "ring", "--json"])
    assert len(payload["results"]) == 31  # 8 B .. 8 GiB
    assert {r["algorithm"] for r in payload["results"]} == {"ring"}
    times = [r["time"]["value"] for r in payload["results"]]
    assert times == sorted(times)


@pytest.mark.parametrize("fabric", ["infiniband", "roce", "ethernet", "efa"])
def test_fabric_choices(capsys, fabric):
    payload, _ = _json(capsys, ["allreduce", "--gpu", "h100-sxm", "--nodes", "2", "--nic", "200 Gbit/s",
                                "--fabric", fabric, "--json"])
    assert payload["cluster"]["fabric"] == fabric


def test_allreduce_text_output(capsys):
    assert main(["allreduce", "--gpu", "a100-sxm", "--gpus-per-node", "8", "--nodes", "2", "--nic", "100 Gbit/s",
                 "--nics-per-node", "16", "--fabric", "roce"]) == 0
    out = capsys.readouterr().out
    assert "16 x 100 Gbit/s RoCE" in out and "busbw" in out and "256 MiB" in out


def test_clamped_values_warn_on_stderr(capsys):
    assert main(["allreduce", "--gpus-per-node", "100000", "--size", "1 MiB"]) == 0
    captured = capsys.readouterr()
    assert "interconnect: warning: gpus_per_node" in captured.err


def test_compare_json_rows(capsys, two_node_log):
    payload, _ = _json(capsys, ["compare", str(two_node_log), "--gpu", "h100-sxm", "--gpus-per-node", "8",
                                "--nodes", "2", "--nic", "100 Gbit/s", "--nics-per-node", "8",
                                "--fabric", "ethernet", "--json"])
    rows = payload["rows"]
    assert len(rows) == 31 and payload["ranks"] == 16
    required = {"size_bytes", "measured_time_us", "model_time_us", "measured_busbw_gbps", "model_busbw_gbps",
                "algorithm"}
    assert all(required <= set(row) for row in rows)
    assert rows[0]["size_bytes"] == 8 and rows[0]["measured_time_us"] == 62.35  # first row of §9.G
    assert rows[-1]["measured_busbw_gbps"] == 219.51
    assert payload["fitted_latency_us"] > 0 and payload["fitted_bandwidth_gbps"] > 0
    assert 0.5 < payload["summary"]["geomean_time_ratio"] < 2
    assert payload["geomean_time_ratio"] == payload["summary"]["geomean_time_ratio"]
    assert not any("ranks:" in w for w in payload["warnings"])


def test_compare_warns_when_ranks_disagree(capsys, two_node_log):
    payload, _ = _json(capsys, ["compare", str(two_node_log), "--gpu", "h100-sxm", "--gpus-per-node", "8",
                                "--nodes", "4", "--json"])
    assert payload["cluster"]["ranks"] == 32 and payload["ranks"] == 16
    assert any(w.startswith("ranks: the log has 16 ranks") for w in payload["warnings"])


def test_compare_takes_nodes_from_the_log(capsys, two_node_log):
    payload, _ = _json(capsys, ["compare", str(two_node_log), "--gpu", "h100-sxm", "--json"])
    assert payload["cluster"]["nodes"] == 2 and payload["cluster"]["ranks"] == 16


def test_compare_text_output(capsys, two_node_log):
    assert main(["compare", str(two_node_log), "--gpu", "h100-sxm", "--nodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "fit of the measured rows" in out and "geometric mean" in out


@pytest.mark.parametrize(("argv", "fragment"), [
    (["allreduce", "--gpu", "h9000"], "unknown GPU id 'h9000'"),
    (["allreduce", "--nic", "5 parsecs"], "got a length"),
    (["allreduce", "--nic", "ib-zdr"], "unknown NIC id 'ib-zdr'"),
    (["allreduce", "--nic", "nvlink4"], "not a NIC"),
    (["allreduce", "--size", "fast"], "--size"),
    (["allreduce", "--size", "9^9^8 B"], "no arithmetic"),
    (["allreduce", "--size", "10^400 B"], "no arithmetic"),
    (["allreduce", "--size", "1e400 B"], "not finite"),
    (["allreduce", "--nic", "2**9**9 Gbit/s"], "no arithmetic"),
    (["allreduce", "--nodes", "0"], "must be at least 1"),
    (["allreduce", "--fabric", "pigeon"], "invalid choice"),
    (["allreduce", "--algorithm", "magic"], "invalid choice"),
    (["compare", "/nonexistent/all_reduce.log"], "no such file"),
])
def test_errors_are_one_line_with_status_2(capsys, argv, fragment):
    assert fragment in _error(capsys, argv)


def test_compare_rejects_an_unreadable_log(capsys, tmp_path):
    garbage = tmp_path / "notes.txt"
    garbage.write_text("this is not nccl-tests output\njust words\n", encoding="utf-8")
    assert str(garbage) in _error(capsys, ["compare", str(garbage)])
    binary = tmp_path / "core.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    assert "core.bin" in _error(capsys, ["compare", str(binary)])
    assert "directory" in _error(capsys, ["compare", str(tmp_path)])


@pytest.mark.parametrize("table", load_measurements("calibration"), ids=lambda m: m.id)
def test_compare_reads_every_calibration_table(capsys, table):
    # headerless rows as published (the calibration tables); the rank count comes from busbw/algbw
    flags = [f"--{key.replace('_', '-')}" if not isinstance(value, bool) else "--sharp"
             for key, value in table.cluster_inputs.items()]
    argv = ["compare", str(table.path), "--json"]
    for flag, value in zip(flags, table.cluster_inputs.values(), strict=True):
        argv += [flag] if isinstance(value, bool) else [flag, str(value)]
    payload, _ = _json(capsys, argv)
    assert len(payload["rows"]) == table.size_bytes.size
    # our cluster flags match the log's rank count (inferred from busbw/algbw, so approximate at 1440)
    assert payload["ranks"] == pytest.approx(payload["cluster"]["ranks"], rel=0.01)


@pytest.mark.parametrize("spelling", ["ll128", "LL128", "Ll128"])
def test_allreduce_protocol_in_any_case(capsys, spelling):
    payload, _ = _json(capsys, ["allreduce", "--nodes", "4", "--protocol", spelling, "--size", "sweep", "--json"])
    assert payload["protocol_requested"] == "LL128"
    assert {row["protocol"] for row in payload["results"]} == {"LL128"}


def test_allreduce_forced_algorithm_and_protocol_match_the_model(capsys):
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.hardware.collectives import allreduce

    payload, _ = _json(capsys, ["allreduce", "--nodes", "2", "--algorithm", "ring", "--protocol", "simple",
                                "--size", "25 MB", "--json"])
    cluster, _ = resolve_cluster("h100-sxm", nodes=2)
    expected = allreduce(cluster, [25e6], "ring", protocol="Simple")
    assert payload["algorithm"] == "ring" and payload["protocol"] == "Simple"
    assert payload["time"]["value"] == pytest.approx(expected.time_us[0], rel=1e-6)  # JSON rounds


def test_unavailable_forced_choice_is_one_line_error(capsys):
    line = _error(capsys, ["allreduce", "--nodes", "1", "--algorithm", "nvls", "--protocol", "LL"])
    assert "--algorithm nvls with --protocol LL" in line and "Simple" in line
    assert "--protocol" in _error(capsys, ["allreduce", "--protocol", "quantum"])
    assert "--hop-latency" in _error(capsys, ["allreduce", "--nodes", "2", "--hop-latency", "5 parsecs"])


def test_hop_latency_flag_is_the_clusters_own(capsys):
    slow, _ = _json(capsys, ["allreduce", "--nodes", "2", "--size", "8 B", "--hop-latency", "100 us", "--json"])
    fast, _ = _json(capsys, ["allreduce", "--nodes", "2", "--size", "8 B", "--hop-latency", "0 us", "--json"])
    assert slow["cluster"]["hop_latency_extra_us"] == 100.0 and slow["cluster"]["hop_latency_source"] == "user"
    assert slow["time"]["value"] > fast["time"]["value"] + 150  # a 2-node tree crosses the network 2 x log2(2)
    # times up and back: at least 2 x 100 us more, less whatever the tuner now picks instead


def test_compare_reports_a_calibration_without_a_nic_rate_of_its_own(capsys, two_node_log):
    payload, _ = _json(capsys, ["compare", str(two_node_log), "--json"])
    assert "measured_cluster" not in payload
    calibration = payload["calibration"]
    assert calibration["wire"] == "network"
    assert not any("nic" in key for key in calibration)
    assert set(calibration["link"]) == {"net_eff", "up_eff", "xlat"}
    # The calibrated model is never worse on the run it was fitted to, and today's figures stay beside it.
    assert payload["calibrated"]["geomean_error_factor"] <= payload["summary"]["geomean_error_factor"]
    assert payload["calibrated"]["geomean_time_ratio"] > 0 and payload["geomean_time_ratio"] > 0
    assert calibration["geomean_error_factor_after"] == payload["calibrated"]["geomean_error_factor"]


def test_the_calibration_flags_give_the_calibrated_model(capsys, two_node_log):
    first, _ = _json(capsys, ["compare", str(two_node_log), "--json"])
    link = first["calibration"]["link"]
    flags = [f for flag, key, unit in (("--net-efficiency", "net_eff", "%"), ("--extra-latency", "xlat", " us"))
             if link[key] for f in (flag, f"{link[key]:g}{unit}")]
    again, _ = _json(capsys, ["compare", str(two_node_log), *flags, "--json"])
    assert again["geomean_time_ratio"] == pytest.approx(first["calibrated"]["geomean_time_ratio"], abs=2e-4)


def test_compare_reads_the_launch_mode_from_the_header(capsys):
    log = DATA / "rccl-tests-all_reduce-8xMI300X.log"  # nThread 1 nGpus 8: one process drives all eight
    auto, _ = _json(capsys, ["compare", str(log), "--gpu", "mi300x", "--json"])
    assert auto["launch"]["mode"] == "single-process" and "nGpus" in auto["launch"]["source"]
    assert auto["library"] == "RCCL"
    forced, _ = _json(capsys, ["compare", str(log), "--gpu", "mi300x", "--procs", "process-per-gpu", "--json"])
    # One thread issues the call to all eight GPUs: 8 x 4.21 = 33.7 µs per call (nccl-tests issue 123), which
    # back-to-back calls overlap with the GPUs' own time, so each call takes the longer of the two.
    assert (auto["launch"]["overhead_us"], auto["launch"]["host_issue_us"]) == (0.0, pytest.approx(33.7, abs=1e-3))
    one = np.array([row["model_time_us"] for row in forced["rows"]])
    driven = np.array([row["model_time_us"] for row in auto["rows"]])
    assert driven == pytest.approx(np.maximum(one, 33.7), abs=2e-3)
    assert one[0] < 33.7 < one[-1]  # the host sets the small rows, the GPUs the large ones


def test_compare_picks_a_run_of_a_file_holding_several(capsys, tmp_path):
    path = tmp_path / "two.log"
    path.write_text((DATA / "rccl-tests-all_reduce-8xMI300X.log").read_text() + "\n"
                    + (DATA / "nccl-tests-2.19-all_gather-2node-socket.log").read_text())
    first, err = _json(capsys, ["compare", str(path), "--gpu", "mi300x", "--json"])
    assert first["log"]["runs"] == 2 and first["collective"] == "all_reduce"
    assert any("holds 2 runs" in w for w in first["warnings"])
    second, _ = _json(capsys, ["compare", str(path), "--run", "2", "--gpus-per-node", "1", "--json"])
    assert second["collective"] == "all_gather"
    message = _error(capsys, ["compare", str(path), "--run", "3"])
    assert "holds 2 result tables, not 3" in message


# --- a custom GPU, as the pages' gpu=custom link describes one -----------------------------------------------------

ONE_NODE_1GIB = ["allreduce", "--gpus-per-node", "8", "--size", "1 GiB", "--json"]


def test_custom_gpu_with_its_bases_bandwidth_is_the_base(capsys):
    # H100's NVLink 4: 900 GB/s both directions = 450 GB/s per direction (the catalog's h100-sxm entry).
    base, _ = _json(capsys, ["allreduce", "--gpu", "h100-sxm", *ONE_NODE_1GIB[1:]])
    custom, _ = _json(capsys, ["allreduce", "--gpu", "custom", "--gpu-bw", "450 GB/s", *ONE_NODE_1GIB[1:]])
    assert custom["cluster"]["gpu_custom"] is True and custom["cluster"]["gpu_name"] == "Custom GPU"
    assert custom["time"]["value"] == pytest.approx(base["time"]["value"], rel=1e-9)


def test_custom_gpu_twice_the_scale_up_halves_a_bandwidth_bound_all_reduce(capsys):
    # 1 GiB on one 8-GPU node is bandwidth-bound: time = latency + 2(n-1)/n * S / busbw, and the latency
    # term is microseconds against milliseconds, so doubling the scale-up very nearly halves the time.
    slow, _ = _json(capsys, ["allreduce", "--gpu", "custom", "--gpu-bw", "450 GB/s", *ONE_NODE_1GIB[1:]])
    fast, _ = _json(capsys, ["allreduce", "--gpu", "custom", "--gpu-bw", "7200 Gbit/s", "--gpu-name", "Next",
                             *ONE_NODE_1GIB[1:]])
    assert fast["cluster"]["gpu_name"] == "Next"
    assert fast["time"]["value"] / slow["time"]["value"] == pytest.approx(0.5, rel=0.02)


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--gpu", "custom"], "--gpu custom needs --gpu-bw"),
    (["--gpu-bw", "3 TB/s"], "--gpu-bw describes a custom GPU"),
    (["--gpu", "custom", "--gpu-bw", "9^9^8 B"], "no arithmetic"),
    (["--gpu", "custom", "--gpu-bw", "5 parsecs"], "--gpu-bw"),
    (["--gpu", "custom", "--gpu-bw", "3 TB/s", "--gpu-base", "nope"], "unknown GPU id 'nope'"),
    (["--gpu", "custom", "--gpu-bw", "3 TB/s", "--gpu-name", "<b>x</b>"], "--gpu-name: only letters"),
])
def test_custom_gpu_flags_are_checked_strictly(capsys, argv, fragment):
    assert fragment in _error(capsys, ["allreduce", *argv])


def test_an_amd_cluster_is_described_in_amds_words(capsys):
    message = _error(capsys, ["allreduce", "--gpu", "mi300x", "--algorithm", "nvls"])
    assert "RCCL has no algorithm" in message and "NCCL has" not in message
    payload, _ = _json(capsys, ["compare", str(DATA / "rccl-tests-all_reduce-8xMI300X.log"), "--gpu", "mi300x",
                                "--json"])
    assert payload["library"] == "RCCL" and "Infinity Fabric" in payload["description"]


BAND_KEYS = {"low", "high", "median", "n", "basis", "quantity", "runs", "coverage", "observed", "expected"}


def test_allreduce_json_and_text_carry_the_error_band(capsys):
    payload, _ = _json(capsys, ["allreduce", "--gpu", "h100-sxm", "--nodes", "2", "--json"])
    band = payload["error_band"]
    assert set(band) == BAND_KEYS and band == payload["results"][0]["error_band"]
    assert band["n"] >= 3 and band["low"] <= band["median"] <= band["high"]
    sweep, _ = _json(capsys, ["allreduce", "--gpu", "h100-sxm", "--nodes", "2", "--size", "sweep", "--json"])
    bases = {row["error_band"]["basis"].split(";")[0] for row in sweep["results"]}
    assert len(bases) == 3  # one per size band
    code = main(["allreduce", "--gpu", "h100-sxm", "--nodes", "2"])
    out = capsys.readouterr().out
    assert code == 0 and sum("error band" in line for line in out.splitlines()) == 1
    assert sum("a measurement would likely read" in line for line in out.splitlines()) == 1


def test_allreduce_json_reads_the_band_the_other_way(capsys):
    # The band is of time, model / measured: a measured time would likely read time / high .. time / low, and
    # busbw (the inverse quantity) busbw x low .. busbw x high.
    payload, _ = _json(capsys, ["allreduce", "--gpu", "h100-sxm", "--nodes", "2", "--json"])
    band, expected = payload["error_band"], payload["error_band"]["expected"]
    time, busbw = payload["time"]["value"], payload["busbw"]["value"]
    close = functools.partial(pytest.approx, rel=1e-3)
    assert expected["time"]["unit"] == "us" and expected["busbw"]["unit"] == "GB/s"
    assert (expected["time"]["low"], expected["time"]["central"], expected["time"]["high"]) == close(
        (time / band["high"], time / band["median"], time / band["low"]))
    assert (expected["busbw"]["low"], expected["busbw"]["central"], expected["busbw"]["high"]) == close(
        (busbw * band["low"], busbw * band["median"], busbw * band["high"]))


def test_compare_json_and_text_carry_the_error_band(capsys, two_node_log):
    payload, _ = _json(capsys, ["compare", str(two_node_log), "--gpu", "h100-sxm", "--json"])
    band = payload["error_band"]
    assert set(band) == BAND_KEYS and band["n"] >= 3 and "every size of the sweep" in band["basis"]
    # Each row's model time read through the whole-sweep band; a measured time is inside its row's range exactly
    # when its model / measured ratio lies in the band.
    rows, expected = payload["rows"], band["expected"]
    assert len(expected["time"]["low"]) == len(rows) == expected["measured_inside"]["of"]
    assert expected["time"]["high"] == [pytest.approx(r["model_time_us"] / band["low"], rel=1e-3) for r in rows]
    inside = sum(band["low"] <= r["model_time_us"] / r["measured_time_us"] <= band["high"] for r in rows)
    assert expected["measured_inside"]["rows"] == inside
    code = main(["compare", str(two_node_log), "--gpu", "h100-sxm"])
    out = capsys.readouterr().out
    assert code == 0 and sum(line.startswith("error band") for line in out.splitlines()) == 1


# --- compare reads a log with the parser's cap: never the whole of a huge file or an endless stream -------------


def test_compare_refuses_a_huge_file_from_its_size_before_reading_it(capsys, tmp_path):
    import tracemalloc

    big = tmp_path / "huge.log"
    with big.open("wb") as handle:  # sparse: 400 MB on paper, nothing on disk
        handle.truncate(400 * 2**20)
    tracemalloc.start()
    try:
        assert "the log is 400 MiB; the limit is 5 MiB" in _error(capsys, ["compare", str(big)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20  # it was the whole file, 400 MiB and more


class _Endless:
    """A standard input that never ends (``yes | interconnect compare -``), counting what was asked of it."""

    def __init__(self) -> None:
        self.given = 0

    def read(self, size: int = -1) -> bytes:
        assert 0 < size <= 2**20, "the reader must ask for a bounded amount"
        self.given += size
        assert self.given < 7 * 2**20, "read far past the limit"
        return b"#" * size


def test_compare_refuses_an_endless_stdin_after_the_limit(capsys, monkeypatch):
    from interconnect.io.nccl_tests import MAX_LOG_BYTES

    endless = _Endless()
    monkeypatch.setattr("sys.stdin", type("Stdin", (), {"buffer": endless})())
    assert "<stdin>: the log is more than 5 MiB; the limit is 5 MiB" in _error(capsys, ["compare", "-"])
    assert endless.given == MAX_LOG_BYTES + 1


def test_compare_refuses_a_device_that_never_ends(capsys):
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    assert "the log is more than 5 MiB" in _error(capsys, ["compare", "/dev/zero"])


def test_compare_reads_a_log_of_exactly_the_limit(capsys, tmp_path, two_node_log):
    from interconnect.io.nccl_tests import MAX_LOG_BYTES, read_capped

    text = two_node_log.read_bytes()
    padded = text + b"#" * (MAX_LOG_BYTES - len(text))
    import io

    assert read_capped(io.BytesIO(padded)) == padded
    with pytest.raises(Exception, match="more than 5 MiB"):
        read_capped(io.BytesIO(padded + b"#"))
