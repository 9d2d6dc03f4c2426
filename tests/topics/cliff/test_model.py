"""The cliff model and its CLI, against the makers' figures (catalog source ids beside each expected value)."""

import json

import pytest

from interconnect.catalog import get_catalog
from interconnect.cli import main
from interconnect.testing import assert_quantity_close
from interconnect.topics.cliff.model import (
    cliff_bars,
    cliff_summary,
    generation_ratios,
    quoted_claims,
    server_nics,
    transfer_time,
)
from interconnect.units import Q_

CATALOG = get_catalog()


def test_h100_like_for_like_is_9_and_as_quoted_is_18():
    # nvidia-h100-page, nccl-issue-1442: NVLink 4 is 900 GB/s both directions = 450 per direction; an NDR port
    # is 400 Gbit/s = 50 GB/s per direction (mle-network) -> 9:1;
    # the popular 18:1 divides the 900 GB/s both-directions figure by the one-direction NIC rate.
    summary = cliff_summary(CATALOG, "h100-sxm", "ib-ndr")
    assert summary.ratio_like_for_like == pytest.approx(9.0)
    assert summary.ratio_as_quoted == pytest.approx(18.0)
    assert_quantity_close(summary.node_egress_per_direction, Q_(400.0, "GB/s"))


def test_b200_like_for_like_is_18():
    # nvidia-nvlink-page: NVLink 5 is 1.8 TB/s both directions = 900 per direction, against 50 GB/s -> 18x.
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
    assert_quantity_close(transfer_time(Q_("450 GB/s")), Q_(50 / 450 * 1000, "ms"))


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
    from interconnect.hardware.fabric import get_fabric_data

    # every catalog entry and, since --kind all lists them too, every switch of the Fabric page
    assert {entry["id"] for entry in payload} == ({entry.id for entry in CATALOG.entries()}
                                                  | set(get_fabric_data().switches))
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


# --- each GPU in its own server (issue: the cliff defaulted to 8 x NDR for every GPU) -------------


def test_server_nics_default_to_the_reference_server():
    # Intel's network configuration page (habana-network-config): 3 scale-out 200 GbE ports per Gaudi 3,
    # 24 per 8-card server. NVIDIA's GB200 NVL72 (nvidia-gb200-nvl72-page, setloop-nvl72): one 400G port per GPU.
    assert server_nics(CATALOG, "gaudi3")[:3] == ("roce-200g", 24, 8)
    assert server_nics(CATALOG, "gb200")[:3] == ("ib-ndr", 72, 72)
    assert server_nics(CATALOG, "gb200").word == "rack" and server_nics(CATALOG, "h100-sxm").word == "server"
    # DGX-1 (P100): four EDR cards for eight GPUs.
    assert server_nics(CATALOG, "p100")[:3] == ("ib-edr", 4, 8)


def test_a_chosen_nic_or_count_wins_over_the_reference_server():
    # Another card than the server's own: one per GPU. An explicit count: exactly that count.
    assert server_nics(CATALOG, "gaudi3", "ib-ndr")[:3] == ("ib-ndr", 8, 8)
    assert server_nics(CATALOG, "gaudi3", None, 8)[:3] == ("roce-200g", 8, 8)
    assert server_nics(CATALOG, "h100-sxm", "ib-ndr", 8).is_reference
    assert not server_nics(CATALOG, "gaudi3", "roce-200g", 8).is_reference


def test_gaudi3_and_gb200_headlines_use_their_own_servers():
    # Gaudi 3: 21 x 200 GbE inside the box = 525 GB/s per direction; 3 x 200 GbE out = 75 GB/s -> 7:1.
    gaudi = cliff_summary(CATALOG, "gaudi3")
    assert_quantity_close(gaudi.network_per_gpu_per_direction, Q_(75.0, "GB/s"))
    assert gaudi.ratio_like_for_like == pytest.approx(7.0)
    assert_quantity_close(gaudi.node_egress_per_direction, Q_(600.0, "GB/s"))  # 4.8 Tbit/s per server
    # GB200 NVL72: 72 x 400G for 72 GPUs: 900 / 50 = 18:1, and the rack sends 3.6 TB/s per direction.
    gb200 = cliff_summary(CATALOG, "gb200")
    assert gb200.ratio_like_for_like == pytest.approx(18.0)
    assert (gb200.nics_per_node, gb200.gpus_per_node) == (72, 72)
    assert_quantity_close(gb200.node_egress_per_direction, Q_(3.6, "TB/s"))


def test_the_headline_and_the_generations_chart_agree_for_every_gpu():
    for row in generation_ratios(CATALOG):
        summary = cliff_summary(CATALOG, row.gpu.id)
        assert row.ratio_like_for_like == pytest.approx(summary.ratio_like_for_like), row.gpu.id
        assert row.ratio_as_quoted == pytest.approx(summary.ratio_as_quoted), row.gpu.id
        assert row.nic.id == row.gpu.typical_nic and row.nics_per_gpu == pytest.approx(row.gpu.typical_nics_per_gpu)


def test_generations_in_release_order():
    rows = generation_ratios(CATALOG)
    years = [row.gpu.year for row in rows]
    assert years == sorted(years)
    ids = [row.gpu.id for row in rows]
    assert ids.index("h100-sxm") < ids.index("h200") < ids.index("b200") < ids.index("gb200") < ids.index("b300")
    assert ids.index("mi300x") < ids.index("mi325x") < ids.index("mi355x")


def test_a_mesh_says_what_one_peer_gets():
    # AMD's MI300X platform page: 7 Infinity Fabric links, one per peer, 64 GB/s each way (amd-mi300x-platform).
    bars = {bar.key: bar for bar in cliff_bars(CATALOG, "mi300x")}
    assert bars["scaleup"].bandwidth_gbytes_per_s == pytest.approx(448.0)
    assert bars["peer"].bandwidth_gbytes_per_s == pytest.approx(64.0)
    assert "all 7 peers" in bars["scaleup"].label and "one peer" in bars["peer"].label
    assert "Infinity Fabric" in bars["scaleup"].label and "NVLink" not in bars["scaleup"].label
    summary = cliff_summary(CATALOG, "mi300x")
    assert summary.ratio_one_peer == pytest.approx(64 / 50)  # one 400 Gbit/s NIC per GPU
    # A switched GPU gets no second bar: any one peer gets all of it.
    assert "peer" not in {bar.key for bar in cliff_bars(CATALOG, "h100-sxm")}
    assert cliff_summary(CATALOG, "h100-sxm").ratio_one_peer == pytest.approx(9.0)


def test_each_maker_names_its_own_scale_up_link():
    labels = {gpu: cliff_bars(CATALOG, gpu)[1].label for gpu in ("h100-sxm", "mi300x", "gaudi3")}
    assert labels["h100-sxm"].startswith("NVLink")
    assert labels["mi300x"].startswith("Infinity Fabric")
    assert labels["gaudi3"].startswith("Gaudi on-chip RoCE")


def test_home_broadband_both_directions_is_down_plus_up():
    # The FCC's 2024 benchmark is 100 Mbit/s down and 20 up (benton-fcc): both directions carry 120, not 200.
    both = {bar.key: bar for bar in cliff_bars(CATALOG, "h100-sxm", direction="both_directions")}
    per = {bar.key: bar for bar in cliff_bars(CATALOG, "h100-sxm", direction="per_direction")}
    assert_quantity_close(both["home"].bandwidth, Q_(120.0, "Mbit/s"))
    assert_quantity_close(per["home"].bandwidth, Q_(100.0, "Mbit/s"))


def test_cli_cliff_defaults_to_the_reference_server(capsys):
    payload = _cli_json(capsys, "cliff", "--gpu", "gaudi3", "--json")
    assert payload["nic"] == "roce-200g" and payload["nics_per_node"] == 24 and payload["gpus_per_node"] == 8
    assert payload["ratio_like_for_like"] == pytest.approx(7.0)
    assert payload["network_per_gpu_per_direction"] == {"value": 75.0, "unit": "GB/s"}
    explicit = _cli_json(capsys, "cliff", "--gpu", "gaudi3", "--nic", "ib-ndr", "--nics-per-node", "8", "--json")
    assert explicit["ratio_like_for_like"] == pytest.approx(525 / 50)
