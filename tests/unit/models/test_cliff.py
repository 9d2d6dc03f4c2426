"""The cliff model and its CLI, against the catalog's sourced figures (sources.toml ids beside each check)."""

import json

import pytest

from interconnect.catalog import get_catalog
from interconnect.cli import main
from interconnect.models.cliff import cliff_bars, cliff_summary, generation_ratios, quoted_claims, transfer_time
from interconnect.units import Q_

CATALOG = get_catalog()


def test_h100_like_for_like_is_9_and_as_quoted_is_18():
    # nvidia-h100-page: NVLink4 900 GB/s both ways = 450 per direction; a 400 Gbit/s NDR port = 50 GB/s -> 9:1;
    # the popular 18:1 divides the 900 GB/s both-directions figure by the one-direction NIC rate.
    summary = cliff_summary(CATALOG, "h100-sxm", "ib-ndr")
    assert summary.ratio_like_for_like == pytest.approx(9.0)
    assert summary.ratio_as_quoted == pytest.approx(18.0)
    assert summary.node_egress_per_direction.to("GB/s").magnitude == pytest.approx(400.0)


def test_b200_like_for_like_is_18():
    # mle-network (Stas Bekman on P6-B200): 900 GB/s NVLink 5 per direction vs 50 GB/s -> 18x.
    summary = cliff_summary(CATALOG, "b200", "ib-ndr")
    assert summary.ratio_like_for_like == pytest.approx(18.0)
    assert summary.ratio_as_quoted == pytest.approx(36.0)


def test_achieved_ratio_uses_nccl_figures():
    # NCCL plans 18 x 20.6 GB/s for H100 (topo.h); NVIDIA quotes ~48 GB/s per NDR NIC (nccl-tests #267).
    summary = cliff_summary(CATALOG, "h100-sxm", "ib-ndr")
    expected = 18 * 20.6 / summary.nic_achieved_per_direction.to("GB/s").magnitude
    assert summary.ratio_achieved == pytest.approx(expected)
    assert summary.ratio_achieved < summary.ratio_like_for_like


def test_bars_follow_direction_and_basis():
    per = {bar.key: bar for bar in cliff_bars(CATALOG, "h100-sxm", "ib-ndr", "per_direction", "spec")}
    both = {bar.key: bar for bar in cliff_bars(CATALOG, "h100-sxm", "ib-ndr", "both_directions", "spec")}
    assert per["scaleup"].bandwidth_gbytes_per_s == pytest.approx(450)
    assert both["scaleup"].bandwidth_gbytes_per_s == pytest.approx(900)
    assert per["nic"].bandwidth_gbytes_per_s == pytest.approx(50)
    assert both["nic"].bandwidth_gbytes_per_s == pytest.approx(100)
    # HBM is one shared pipe: summing "both directions" must not double it.
    assert both["hbm"].bandwidth_gbytes_per_s == pytest.approx(per["hbm"].bandwidth_gbytes_per_s)
    achieved = {bar.key: bar for bar in cliff_bars(CATALOG, "h100-sxm", "ib-ndr", "per_direction", "achieved")}
    assert achieved["scaleup"].basis == "achieved"
    assert achieved["scaleup"].bandwidth_gbytes_per_s == pytest.approx(370.8)


def test_bars_run_from_fastest_inside_to_slowest_outside():
    bars = cliff_bars(CATALOG, "h100-sxm", "ib-ndr")
    keys = [bar.key for bar in bars]
    assert keys[:5] == ["hbm", "scaleup", "host", "node", "nic"]
    assert bars[keys.index("scaleup")].bandwidth > bars[keys.index("nic")].bandwidth


def test_bad_arguments_raise():
    with pytest.raises(KeyError, match="unknown GPU id 'h1000'"):
        cliff_summary(CATALOG, "h1000", "ib-ndr")
    with pytest.raises(ValueError):
        cliff_bars(CATALOG, "h100-sxm", "ib-ndr", direction="sideways")


def test_generation_ratios_cover_every_gpu():
    rows = generation_ratios(CATALOG)
    assert {row.gpu.id for row in rows} == set(CATALOG.gpus)
    for row in rows:
        assert row.ratio_as_quoted == pytest.approx(2 * row.ratio_like_for_like)


def test_transfer_time_of_a_bluray():
    assert transfer_time(Q_("450 GB/s")).to("ms").magnitude == pytest.approx(50 / 450 * 1000)


def _cli_json(capsys, *args):
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("gpu", "like", "quoted"), [("h100-sxm", 9, 18), ("b200", 18, 36)])
def test_cli_cliff_json(capsys, gpu, like, quoted):
    payload = _cli_json(capsys, "cliff", "--gpu", gpu, "--nic", "ib-ndr", "--json")
    assert payload["ratio_like_for_like"] == pytest.approx(like)
    assert payload["ratio_as_quoted"] == pytest.approx(quoted)
    assert payload["scaleout"]["per_direction"] == {"value": 50.0, "unit": "GB/s"}
    assert payload["scaleout"]["both_directions"] == {"value": 100.0, "unit": "GB/s"}
    up = payload["scaleup"]
    assert up["both_directions"]["value"] == pytest.approx(2 * up["per_direction"]["value"])


def test_cli_cliff_text(capsys):
    assert main(["cliff", "--gpu", "h100-sxm", "--nic", "ib-ndr"]) == 0
    out = capsys.readouterr().out
    assert "like for like    : 9 : 1" in out and "18 : 1" in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [(["cliff", "--gpu", "h1000"], "unknown GPU id 'h1000'"),
     (["cliff", "--gpu", "h100-sxm", "--nic", "carrier-pigeon"], "unknown NIC id"),
     (["cliff"], "--gpu"),
     (["cliff", "--gpu", "h100-sxm", "--nics-per-node", "0"], "between 1 and 1024"),
     (["catalog", "--kind", "spaceship"], "invalid choice"),
     (["teleport"], "invalid choice")],
)
def test_cli_errors_are_one_line_on_stderr_with_status_2(capsys, args, fragment):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert fragment in captured.err
    assert captured.err.count("\n") == 1


def test_cli_catalog_json_lists_every_entry_with_sources(capsys):
    payload = _cli_json(capsys, "catalog", "--json")
    assert {entry["id"] for entry in payload} == {entry.id for entry in CATALOG.entries()}
    for entry in payload:
        for figure in entry.get("figures", {}).values():
            assert figure["direction"] and figure["sources"] and figure["sources"][0]["url"].startswith("http")


def test_cli_catalog_kind_filter(capsys):
    payload = _cli_json(capsys, "catalog", "--kind", "nic", "--json")
    assert {entry["layer"] for entry in payload} == {"scale-out"}
    assert main(["catalog", "--kind", "gpu"]) == 0
    assert "h100-sxm" in capsys.readouterr().out


def test_module_entry_point_runs():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "interconnect", "cliff", "--gpu", "h100-sxm", "--json"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ratio_like_for_like"] == pytest.approx(9)


def test_quoted_claims_come_with_corrections():
    # The episode's "18 to 1" for H100 and its LapLink figures are checked claims (data/claims/episode.toml).
    bars = cliff_bars(CATALOG, "h100-sxm", "ib-ndr")
    claims = quoted_claims(CATALOG, bars)
    texts = " ".join(claim["claim"] + claim["correction"] for _, claim in claims)
    assert "18" in texts and "9:1" in texts.replace(" : ", ":").replace(" to ", ":")
    assert any("LapLink" in name or "parallel" in name.lower() for name, _ in claims)
    assert all(claim["correction"] for _, claim in claims)
