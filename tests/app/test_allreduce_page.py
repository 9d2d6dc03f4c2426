"""AppTest of the All-reduce page: defaults, every parameter from the link, uploads, hostile input."""

from pathlib import Path

import pytest

from interconnect.catalog import get_catalog
from interconnect.io.nccl_tests import parse_nccl_tests
from interconnect.models.cluster import resolve_cluster
from interconnect.models.collectives import allreduce, fit_alpha_beta, load_measurements
from tests.app.conftest import chart_specs, run_page

PAGE = "pages/2_All_reduce.py"
LOGS = Path(__file__).resolve().parents[1] / "unit" / "data" / "nccl_logs"


def values(array):
    """A Plotly JSON array: a plain list, or the typed-array form {"dtype", "bdata"} of plotly 6."""
    if isinstance(array, dict):
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_defaults_render_four_charts_and_write_the_url():
    at = run_page(PAGE)
    assert not at.exception and not at.warning
    assert len(at.get("plotly_chart")) == 4
    assert metric(at, "GPUs (ranks)") == "32"
    assert at.query_params["gpu"] == "h100-sxm" and at.query_params["nodes"] == "4"
    assert at.query_params["size"] == "256 MiB"


def test_single_h100_node_picks_nvls_for_large_messages():
    # ml-engineering network/README.md, nccl-tests#212: on 8 x H100 NCCL uses NVLS (in-switch reduction) for
    # big messages.
    at = run_page(PAGE, {"gpu": "h100-sxm", "gpn": "8", "nodes": "1", "size": "1 GiB"})
    assert not at.exception
    assert metric(at, "Algorithm") == "NVLS"
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    expected = allreduce(cluster, [2**30]).busbw_gbps[0]
    assert metric(at, "busbw") == f"{expected:.0f} GB/s"


def test_every_parameter_from_the_link():
    query = {"gpu": "a100-sxm", "gpn": "8", "nodes": "2", "nic": "custom", "nic_bw": "100 Gbit/s", "nics": "16",
             "fabric": "roce", "domain": "8", "sharp": "0", "lat": "25 us", "size": "64 MiB", "algo": "ring",
             "proto": "LL128", "overlay": "none"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning
    assert dict(at.query_params) == query
    assert at.selectbox(key="allreduce.fabric").value == "roce"
    assert at.text_input(key="allreduce.nic_bw").value == "100 Gbit/s"
    assert at.text_input(key="allreduce.lat").value == "25 us"
    assert at.selectbox(key="allreduce.proto").value == "LL128"
    assert metric(at, "GPUs (ranks)") == "16"
    assert metric(at, "Algorithm") == "Ring"
    assert metric(at, "Algorithm ·").startswith("Ring") and any(m.label == "Algorithm · LL128" for m in at.metric)
    time_chart = chart_specs(at)[0]
    assert "time" in time_chart["layout"]["title"]["text"]
    # The typed latency is the cluster's own: the model's time is the CLI's with --hop-latency 25 us.
    cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=2, nic="100 Gbit/s", nics_per_node=16,
                                 fabric="roce", scaleup_domain=8, hop_latency="25 us")
    expected = allreduce(cluster, [64 * 2**20], "ring", protocol="LL128").busbw_gbps[0]
    assert metric(at, "busbw") == f"{expected:.0f} GB/s"


def test_protocol_in_any_case_from_the_link():
    at = run_page(PAGE, {"proto": "simple", "nodes": "2"})
    assert not at.exception and not at.warning
    assert at.query_params["proto"] == "Simple"
    assert any(m.label == "Algorithm · Simple" for m in at.metric)


def test_headline_and_cluster_size_chart_agree():
    # Issue 8, fault 1: one NCCL-like choice everywhere. The thick line of the cluster-size chart at
    # this cluster's node count is the headline's busbw (and the CLI's).
    for nodes in ("4", "64"):
        at = run_page(PAGE, {"nodes": nodes})
        chart = chart_specs(at)[2]
        chosen = next(trace for trace in chart["data"] if trace.get("name") == "NCCL's pick")
        y = dict(zip(values(chosen["x"]), values(chosen["y"]), strict=True))[int(nodes)]
        assert metric(at, "busbw") == f"{y:.0f} GB/s"
        cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=int(nodes))
        assert y == pytest.approx(allreduce(cluster, [2**28]).busbw_gbps[0])


def test_set_the_cluster_to_the_playbooks():
    at = run_page(PAGE)
    at.button(key="allreduce.playbook").click().run()
    assert not at.exception
    assert at.query_params["nic"] == "efa-v2" and at.query_params["nics"] == "32"
    assert at.query_params["fabric"] == "efa" and at.query_params["size"] == "256 MB"
    assert metric(at, "Server egress (achievable)") == "368 GB/s"  # 32 x 100 Gbit/s x 0.92
    text = " ".join(m.value for m in at.markdown)
    # The page says plainly that two publications on p5 disagree, and what the AWS tuner's picks would change:
    # Ultra-Scale Playbook 436 -> 32.9 GB/s (1 -> 64 nodes); Smol Training Playbook 320-350 GB/s from 3 to 16 nodes.
    assert "Two publications" in text and "436 GB/s" in text and "32.9 GB/s" in text and "320-350 GB/s" in text
    assert "nccl_ofi_regions.cpp" in text and "4 nodes NVLSTree/Simple" in text


def test_gb200_rack_is_one_nvlink_domain():
    at = run_page(PAGE, {"gpu": "gb200", "gpn": "72", "nodes": "1"})
    assert not at.exception
    assert metric(at, "GPUs (ranks)") == "72"


@pytest.mark.parametrize("measurement", [m.id for m in load_measurements("calibration")])
def test_each_published_overlay(measurement):
    at = run_page(PAGE, {"overlay": measurement})
    assert not at.exception and not at.warning
    names = [trace.get("name", "") for trace in chart_specs(at)[0]["data"]]
    assert any(name.startswith("measured:") for name in names)


def test_set_cluster_to_the_overlay_system():
    at = run_page(PAGE, {"overlay": "h100-ib-sharp-96rank"})
    at.button[0].click().run()
    assert not at.exception
    assert metric(at, "GPUs (ranks)") == "96"
    assert at.query_params["sharp"] == "1"


def test_pasted_log_is_compared_with_the_model():
    text = (LOGS / "h100-2node-unidentified.txt").read_text()
    at = run_page(PAGE, {"gpu": "h100-sxm", "gpn": "8", "nodes": "2"})
    at.text_area(key="allreduce.paste").input(text).run()
    assert not at.exception
    assert metric(at, "Rows read") == "31"
    assert "µs" in metric(at, "Fitted latency")
    names = [trace.get("name", "") for trace in chart_specs(at)[0]["data"]]
    assert "your log" in names
    assert "nccl" not in [w.value for w in at.warning]
    # Results table in readable units: "49.2 µs", not "49.2004"; busbw with a unit, not "0.000002".
    table = at.dataframe[0].value
    assert list(table.columns[:3]) == ["size", "measured time", "model time"]
    assert all(cell.endswith(("ns", "µs", "ms", " s")) for cell in table["measured time"])
    assert all(cell.endswith("B/s") for cell in table["measured busbw"])
    assert all(len(cell.split()[0].replace(".", "")) <= 4 for cell in table["measured time"])


def test_use_my_measurement_makes_the_fit_the_clusters_own():
    text = (LOGS / "h100-2node-unidentified.txt").read_text()
    at = run_page(PAGE, {"gpu": "h100-sxm", "gpn": "8", "nodes": "2", "fabric": "ethernet"})
    at.text_area(key="allreduce.paste").input(text).run()
    at.button(key="allreduce.use_measurement").click().run()
    assert not at.exception
    assert at.query_params["nic"] == "custom"
    assert at.query_params["nic_bw"].endswith("Gbit/s") and at.query_params["lat"].endswith("us")
    # The cluster now reproduces the log's fitted line (t = a + S/B) at both ends of its sweep: the
    # model's time at 8 B and 8 GiB is the fit's there.
    run = parse_nccl_tests(text.encode())
    fit = fit_alpha_beta(run.size_bytes, run.time_us)
    table = at.dataframe[0].value
    ratios = [float(r) for r in table["model ÷ measured"]]
    fit_ratio = fit.time_us([run.size_bytes[0], run.size_bytes[-1]]) / run.time_us[[0, -1]]
    assert ratios[0] == pytest.approx(fit_ratio[0], rel=0.05) and ratios[-1] == pytest.approx(fit_ratio[1], rel=0.05)


def row_1mib(time_us: str, algbw: str, busbw: str) -> str:
    """The 1 MiB row of the 8 x H100 log with its two times, algbw and busbw replaced."""
    return (f"     1048576        262144     float     sum      -1    {time_us}   {algbw}   {busbw}       0    "
            f"{time_us}   {algbw}   {busbw}       0")


@pytest.mark.parametrize("row", [
    # Issue 21: one row at 1e308 us overflowed the time axis; the paste stayed, so every later run failed too.
    row_1mib("1e308", "1.00", "1.75"),
    row_1mib("1e-320", "1.00", "1.75"),
    row_1mib("22.56", "67.00", "0.00"),  # busbw 0 beside algbw 67 GB/s
])
def test_an_impossible_row_is_refused_by_name_and_the_next_change_draws_too(row):
    text = (LOGS / "nccl-tests-2.19-all_reduce-8xH100.log").read_text()
    original = row_1mib("22.56", "46.48", "81.34").replace("22.56   46.48   81.34       0    22.56   46.48   81.34",
                                                              "22.56   46.48   81.34       0    22.32   46.99   82.23")
    assert original in text
    at = run_page(PAGE, {"gpn": "8", "nodes": "1"})
    at.text_area(key="allreduce.paste").input(text.replace(original, row)).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 4
    assert any("refused" in w.value and "line 61" in w.value for w in at.warning)  # that row, named, and why
    assert metric(at, "Rows read") == "24"  # the log has 25 rows: the other 24 are still compared
    at.number_input(key="allreduce.nodes").set_value(2).run()  # the paste stays in the session
    assert not at.exception
    assert len(at.get("plotly_chart")) == 4


def test_log_with_other_rank_count_warns():
    text = (LOGS / "h100-2node-unidentified.txt").read_text()
    at = run_page(PAGE, {"nodes": "4"})
    at.text_area(key="allreduce.paste").input(text).run()
    assert any("16 ranks" in w.value for w in at.warning)


@pytest.mark.parametrize("junk", ["hello world", "\x00\x01binary", "# only a comment\n", "1 2 3 4 5 6 7 8 9"])
def test_malformed_paste_gives_one_clear_error(junk):
    at = run_page(PAGE)
    at.text_area(key="allreduce.paste").input(junk).run()
    assert not at.exception
    assert len(at.error) == 1
    assert at.error[0].value.startswith("Could not read this as nccl-tests output")
    assert len(at.get("plotly_chart")) == 4  # the rest of the page still renders


@pytest.mark.parametrize(
    "query",
    [
        {"nodes": "0", "gpn": "1e9"},
        {"nic": "<script>alert(1)</script>"},
        {"nic": "custom", "nic_bw": "5 parsecs"},
        {"size": "-3 GB", "algo": "quantum"},
        {"fabric": "carrier-pigeon", "sharp": "perhaps", "domain": "-1"},
        {"overlay": "x" * 10_000, "gpu": "h1000"},
        {"nodes": "100000", "gpn": "1024"},
        # A power in the size once froze the server for a minute (pint evaluated 9^9^8 exactly);
        # 10^400 overflowed a float and crashed the page. Both must be refused as text.
        {"size": "9^9^8 B"},
        {"size": "10^400 B"},
        {"size": "1e400 B"},
        {"nic": "custom", "nic_bw": "2**2**2**2**2 Gbit/s"},
        {"proto": "quantum", "lat": "5 parsecs"},
        {"lat": "-3 us", "proto": "<b>LL</b>"},
        {"lat": "1e9 s"},
    ],
)
def test_hostile_or_absurd_links_warn_and_render(query):
    at = run_page(PAGE, query)
    assert not at.exception
    assert len(at.warning) >= 1
    assert len(at.get("plotly_chart")) == 4


@pytest.mark.parametrize("gpu_id", sorted(get_catalog().gpus))
def test_every_gpu_on_one_and_many_nodes(gpu_id):
    for nodes in ("1", "64"):
        at = run_page(PAGE, {"gpu": gpu_id, "nodes": nodes})
        assert not at.exception
        assert len(at.get("plotly_chart")) == 4
        assert metric(at, "GPUs (ranks)") == f"{8 * int(nodes):,}"


@pytest.mark.parametrize("fabric", ["infiniband", "roce", "ethernet", "efa"])
def test_every_fabric(fabric):
    at = run_page(PAGE, {"nodes": "2", "fabric": fabric})
    assert not at.exception and not at.warning
    assert at.selectbox(key="allreduce.fabric").value == fabric


def test_cluster_chosen_here_is_where_the_next_page_starts_but_a_link_wins():
    at = run_page(PAGE, {"gpu": "b200", "nodes": "2"})
    for key in list(at.query_params):
        del at.query_params[key]
    at.switch_page("pages/1_Bandwidth_cliff.py")
    at.run()
    assert at.selectbox(key="cliff.gpu").value == "b200"  # carried by the session
    at.query_params["gpu"] = "a100-sxm"
    at.switch_page(PAGE)
    at.run()
    assert at.selectbox(key="allreduce.gpu").value == "a100-sxm"  # the link's own parameter wins
    assert at.number_input(key="allreduce.nodes").value == 2  # the rest comes from the session
