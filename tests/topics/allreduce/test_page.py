"""AppTest of the All-reduce page: defaults, every parameter from the link, uploads, hostile input."""

from pathlib import Path

import pytest

from interconnect.catalog import get_catalog
from interconnect.hardware.cluster import resolve_cluster
from interconnect.hardware.collectives import (
    allreduce,
    apply_calibration,
    calibrate,
    collective,
    compare_collective,
    load_measurements,
)
from interconnect.io.nccl_tests import parse_nccl_tests
from tests.app.conftest import chart_specs, live_charts, run_page

PAGE = "pages/2_All_reduce.py"
LOGS = Path(__file__).resolve().parents[2] / "unit" / "data" / "nccl_logs"


def values(array):
    """A Plotly JSON array: a plain list, or the typed-array form {"dtype", "bdata"} of plotly 6."""
    if isinstance(array, dict):
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_defaults_render_the_live_chart_alone_and_write_the_url():
    at = run_page(PAGE)
    assert not at.exception and not at.warning
    assert len(live_charts(at)) == 1 and len(at.get("plotly_chart")) == 0  # view=auto: no further chart
    assert "view" not in at.query_params  # auto is never written: links made before the key keep their form
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
             "proto": "LL128", "overlay": "none", "cal": "1", "net_eff": "80", "up_eff": "0", "xlat": "5",
             "procs": "single-process", "coll": "all_reduce", "view": "time"}
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
    # The typed latency is the cluster's own: the model's time is the CLI's with --hop-latency 25 us; the
    # calibration and the launch mode in the link are applied as the CLI's --net-efficiency 80% --extra-latency
    # '5 us' --procs single-process apply them.
    cluster, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=2, nic="100 Gbit/s", nics_per_node=16,
                                 fabric="roce", scaleup_domain=8, hop_latency="25 us")
    cluster = apply_calibration(cluster, network_efficiency=0.8, extra_latency_us=5.0, launch="single-process")
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
        at = run_page(PAGE, {"nodes": nodes, "view": "nodes"})
        chart = chart_specs(at)[0]
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
    assert "µs" in metric(at, "Latency floor")
    assert "B/s" in metric(at, "Plateau busbw")
    assert any("Read: all-reduce" in m.value for m in at.markdown)
    names = [trace.get("name", "") for trace in chart_specs(at)[0]["data"]]
    assert "your log" in names
    assert any(name.startswith("your latency floor") for name in names)
    assert [chart.key for chart in at.get("plotly_chart")] == ["allreduce-time"]  # a log shows the time chart
    at.radio(key="allreduce.view").set_value("busbw").run()
    assert any(name.startswith("your plateau busbw") for name in
               [trace.get("name", "") for trace in chart_specs(at)[0]["data"]])
    assert not any("cannot reach the measured" in m.value for m in [*at.markdown, *at.caption])
    assert "nccl" not in [w.value for w in at.warning]
    # Results table in readable units: "49.2 µs", not "49.2004"; busbw with a unit, not "0.000002".
    table = at.dataframe[0].value
    assert list(table.columns[:3]) == ["size", "measured time", "model time"]
    assert all(cell.endswith(("ns", "µs", "ms", " s")) for cell in table["measured time"])
    assert all(cell.endswith("B/s") for cell in table["measured busbw"])
    assert all(len(cell.split()[0].replace(".", "")) <= 4 for cell in table["measured time"])


def test_use_my_measurement_calibrates_without_inventing_hardware():
    text = (LOGS / "h100-2node-unidentified.txt").read_text()
    at = run_page(PAGE, {"gpu": "h100-sxm", "gpn": "8", "nodes": "2"})
    at.text_area(key="allreduce.paste").input(text).run()
    at.button(key="allreduce.use_measurement").click().run()
    assert not at.exception
    # The hardware stays the catalog's: no custom NIC; the calibration travels in the link.
    assert at.query_params["nic"] == "auto" and at.query_params["cal"] == "1"
    run = parse_nccl_tests(text.encode())
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    calibration = calibrate(cluster, run.size_bytes, run.time_us)
    link = calibration.link_values()
    assert float(at.query_params["xlat"]) == pytest.approx(link["xlat"])
    assert float(at.query_params["net_eff"]) == pytest.approx(link["net_eff"])
    # The page's table is now the calibrated model, and its error on the log is the calibration's.
    table = at.dataframe[0].value
    ratios = [float(r) for r in table["model ÷ measured"]]
    calibrated = compare_collective(
        apply_calibration(cluster, network_efficiency=calibration.wire_efficiency,
                          extra_latency_us=calibration.extra_latency_us), "all_reduce", run.size_bytes, run.time_us)
    assert ratios == pytest.approx(calibrated.time_ratio.tolist(), abs=0.006)
    assert any("in use" in c.value for c in at.caption)


def test_an_all_gather_log_is_drawn_against_the_all_gather_model():
    text = (LOGS / "nccl-tests-2021-all_gather-8xV100-error-column.log").read_text()
    at = run_page(PAGE, {"gpu": "v100", "gpn": "8", "nodes": "1"})
    at.text_area(key="allreduce.paste").input(text).run()
    assert not at.exception
    assert any("Read: all-gather" in m.value for m in at.markdown)
    at.button(key="allreduce.show_collective").click().run()
    assert not at.exception and at.query_params["coll"] == "all_gather"
    specs = chart_specs(at)
    assert specs[0]["layout"]["title"]["text"].startswith("All-gather time")
    assert "your log" in [trace.get("name", "") for trace in specs[0]["data"]]
    # The header's nThread 1 nGpus 8: the page offers to model one process driving all eight GPUs.
    at.button(key="allreduce.set_launch").click().run()
    assert at.query_params["procs"] == "single-process"


@pytest.mark.parametrize("coll", ["all_gather", "reduce_scatter", "alltoall", "sendrecv"])
def test_every_collective_has_a_time_and_busbw_view(coll):
    at = run_page(PAGE, {"gpu": "h100-sxm", "gpn": "8", "nodes": "2", "coll": coll, "size": "64 MiB"})
    assert not at.exception and not at.warning
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    expected = collective(cluster, coll, [64 * 2**20]).busbw_gbps[0]
    assert metric(at, "busbw") == f"{expected:.0f} GB/s"
    specs = chart_specs(at)  # another collective: auto shows the time chart, where only it is drawn
    assert len(specs) == 1 and "time" in specs[0]["layout"]["title"]["text"]
    at.radio(key="allreduce.view").set_value("busbw").run()
    assert not at.exception and "bandwidth" in chart_specs(at)[0]["layout"]["title"]["text"]


def test_an_amd_cluster_speaks_rccl_and_infinity_fabric():
    at = run_page(PAGE, {"gpu": "mi300x", "gpn": "8", "nodes": "1", "view": "time"})
    assert not at.exception
    names = [trace.get("name", "") for trace in chart_specs(at)[0]["data"]]
    assert "RCCL's pick" in names and "NCCL's pick" not in names
    # The page's own words (source lists, which quote titles such as "NVLink, NIC and PCIe tables", aside).
    text = " ".join(m.value for m in [*at.markdown, *at.caption] if "](http" not in m.value)
    assert "NVLink" not in text.replace("NVLink SHARP", "") and "NCCL" not in text.replace("NCCL_PROTO", "")
    assert "Infinity Fabric" in text


@pytest.mark.parametrize("view", ["time", "busbw", "nodes", "traffic"])
def test_an_amd_cluster_gets_no_nccl_words_in_any_legend(view):
    # Issue "What the screen says, right", 7b: "NCCL Tree", "NCCL, node-aware" and "NCCL does not pick it"
    # reached AMD legends; every name and hover label now says RCCL.
    at = run_page(PAGE, {"gpu": "mi300x", "gpn": "8", "nodes": "4", "view": view})
    assert not at.exception
    specs = chart_specs(at)
    assert len(specs) == 1
    # A published NVIDIA measurement drawn for comparison keeps its own words (it was taken with nccl-tests).
    traces = [t for t in specs[0]["data"] if not str(t.get("name", "")).startswith("Smol Training Playbook")]
    words = [str(trace.get(key, "")) for trace in traces for key in ("name", "hovertemplate", "hovertext", "x")]
    words.append(specs[0]["layout"]["title"]["text"])
    assert not [w for w in words if "NCCL" in w or "nccl-tests" in w]
    if view in ("time", "busbw", "nodes"):
        assert any("RCCL" in w for w in words)


def test_a_file_with_two_runs_offers_each():
    text = ((LOGS / "rccl-tests-all_reduce-8xMI300X.log").read_text() + "\n"
            + (LOGS / "nccl-tests-2021-all_gather-8xV100-error-column.log").read_text())
    at = run_page(PAGE, {"gpu": "mi300x", "gpn": "8", "nodes": "1"})
    at.text_area(key="allreduce.paste").input(text).run()
    assert not at.exception
    assert at.selectbox(key="allreduce.run").options == [
        "Run 1: collective not named, 28 rows, 8 ranks", "Run 2: all_gather_perf, 23 rows, 8 ranks"]
    at.selectbox(key="allreduce.run").select_index(1).run()
    assert any("Read: all-gather" in m.value for m in at.markdown)


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
    assert [chart.key for chart in at.get("plotly_chart")] == ["allreduce-time"]  # the log's chart
    assert any("refused" in w.value and "line 61" in w.value for w in at.warning)  # that row, named, and why
    assert metric(at, "Rows read") == "24"  # the log has 25 rows: the other 24 are still compared
    at.number_input(key="allreduce.nodes").set_value(2).run()  # the paste stays in the session
    assert not at.exception
    assert [chart.key for chart in at.get("plotly_chart")] == ["allreduce-time"]


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
    assert len(live_charts(at)) == 1  # the rest of the page still renders


VIEWS = ("time", "busbw", "nodes", "traffic")
HOSTILE = [
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
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_or_absurd_links_warn_and_render(query):
    view = VIEWS[HOSTILE.index(query) % len(VIEWS)]  # each further chart meets some of them
    at = run_page(PAGE, {**query, "view": view})
    assert not at.exception
    assert len(at.warning) >= 1
    assert len(live_charts(at)) == 1
    assert [chart.key for chart in at.get("plotly_chart")] == [f"allreduce-{view}"]


@pytest.mark.parametrize("gpu_id", sorted(get_catalog().gpus))
def test_every_gpu_on_one_and_many_nodes(gpu_id):
    for nodes, view in (("1", "time"), ("64", "nodes")):
        at = run_page(PAGE, {"gpu": gpu_id, "nodes": nodes, "view": view})
        assert not at.exception
        assert len(live_charts(at)) == 1 and [chart.key for chart in at.get("plotly_chart")] == [f"allreduce-{view}"]
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


@pytest.mark.parametrize(("page", "prefix"), [(PAGE, "allreduce"), ("pages/3_Overlap.py", "overlap")])
def test_cluster_more_settings_are_drawn_only_while_open_and_keep_their_values_closed(page, prefix):
    # issue 26: a plain link sends none of the cluster's "More settings" widgets (All-reduce and Overlap)
    at = run_page(page)
    assert not at.exception
    keys = {w.key for w in at.number_input} | {w.key for w in at.toggle} | {w.key for w in at.selectbox}
    assert not keys & {f"{prefix}.domain", f"{prefix}.sharp", f"{prefix}.lat"}, keys
    # a link that sets one opens the expander with the link's value
    at = run_page(page, {"domain": "16", "nodes": "4"})
    assert not at.exception and not at.error
    assert at.number_input(key=f"{prefix}.domain").value == 16
    # closed, the value stays in the link and in the cluster, through a node-count change
    at.session_state[f"{prefix}-cluster-more"] = False
    at.run()
    assert not [w for w in at.number_input if w.key == f"{prefix}.domain"]
    at.number_input(key=f"{prefix}.nodes").set_value(2).run()
    assert not at.exception
    assert at.query_params["nodes"] == "2" and at.query_params["domain"] == "16"
    assert any("16\\-GPU domains" in c.value for c in at.caption), [c.value for c in at.caption]  # the cluster line


def test_the_headline_time_says_how_right_it_is():
    at = run_page(PAGE)
    captions = [c.value for c in at.caption if c.value.startswith("**How right:**")]
    assert len(captions) == 1 and "published tables like this: the model reads" in captions[0]
    assert "a measurement would likely read" in captions[0] and "GB/s busbw" in captions[0]
    at = run_page(PAGE, {"coll": "sendrecv"})
    captions = [c.value for c in at.caption if c.value.startswith("**How right:**")]
    assert len(captions) == 1 and "extrapolation: no published run like this" in captions[0]
    assert "likely read" not in captions[0]
