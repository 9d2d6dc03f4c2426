"""AppTest of the Bandwidth cliff page: defaults, every parameter, and hostile links."""

import re

import pytest

from interconnect.catalog import get_catalog
from interconnect.topics.cliff.model import cliff_summary
from tests.app.conftest import chart_specs, live_charts, run_page

PAGE = "pages/1_Bandwidth_cliff.py"
CATALOG = get_catalog()


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def headline_box(at) -> str:
    return next(block.value for block in at.markdown if block.value.startswith("**Often quoted:**"))


def bar(chart: dict, label_part: str) -> tuple[float, str]:
    """The value and text of the cliff chart's bar whose label contains ``label_part``."""
    for trace in chart["data"]:
        for label, x, text in zip(trace["y"], trace["x"], trace["text"], strict=True):
            if label_part in label:
                return x, text
    raise AssertionError(f"no bar labelled like {label_part!r}")


def test_defaults_show_h100_against_ndr():
    at = run_page(PAGE)
    assert not at.exception
    assert not at.warning
    assert metric(at, "Like for like") == "9 : 1"
    assert metric(at, "As often quoted") == "18 : 1"
    assert metric(at, "Whole server out") == "400 GB/s"  # DGX H100: 8 x 400 Gbit/s
    assert len(live_charts(at)) == 1 and len(at.get("plotly_chart")) == 0  # view=auto at defaults: no further chart
    assert dict(at.query_params) == {"gpu": "h100-sxm", "nic": "auto", "nics": "auto", "dir": "per",
                                     "unit": "GBps", "basis": "spec"}


@pytest.mark.parametrize("gpu_id", sorted(CATALOG.gpus))
def test_every_gpu_from_the_link(gpu_id):
    at = run_page(PAGE, {"gpu": gpu_id})
    assert not at.exception and not at.warning
    assert at.selectbox(key="cliff.gpu").value == gpu_id
    expected = cliff_summary(CATALOG, gpu_id)  # its own reference server's NICs
    assert metric(at, "Like for like") == f"{expected.ratio_like_for_like:.3g} : 1"
    gpu = CATALOG.gpu(gpu_id)
    # The headline (metrics and the "often quoted / corrected" box) in the maker's own words.
    words = headline_box(at) + " ".join(m.label for m in at.metric)
    assert gpu.scaleup_brand.name in words and gpu.collective_library.name in words
    if gpu.vendor != "NVIDIA":  # each maker's own words, never NVIDIA's
        assert "NVLink" not in words and "NCCL" not in words, gpu_id


def test_gaudi3_gets_its_own_servers_nics():
    # HLS-3: 24 on-chip 200 GbE ports for 8 cards (Intel's network configuration page): 75 GB/s per card.
    at = run_page(PAGE, {"gpu": "gaudi3", "view": "bars"})
    assert not at.exception and not at.warning
    assert metric(at, "Like for like") == "7 : 1"  # 525 / 75, as in the generations chart
    assert metric(at, "Whole server out") == "600 GB/s"
    assert metric(at, "What HCCL achieves") == "n/a"
    assert at.selectbox(key="cliff.nic").value == "auto"
    assert at.number_input(key="cliff.nics").value is None  # empty: as the server has
    cliff = chart_specs(at)[0]
    assert bar(cliff, "Server out")[0] == pytest.approx(600.0)
    assert bar(cliff, "One GPU's NICs: 3 × RoCE v2 over 200 GbE")[0] == pytest.approx(75.0)
    at.radio(key="cliff.view").set_value("generations").run()
    assert at.query_params["view"] == "generations"
    generations = chart_specs(at)[0]["data"][0]
    assert generations["text"][[t.split(" · ")[0] for t in generations["y"]].index("Gaudi 3")] == "7:1"


def test_gb200_gets_its_own_racks_nics():
    # GB200 NVL72: 72 GPUs and 72 ConnectX-7 ports of 400 Gbit/s in one NVLink domain.
    at = run_page(PAGE, {"gpu": "gb200"})
    assert not at.exception and not at.warning
    assert metric(at, "Like for like") == "18 : 1"
    assert metric(at, "Whole rack out") == "3.6 TB/s"
    box = headline_box(at)
    assert "72 × InfiniBand NDR for its 72 GPUs" in box
    assert "through 8 of them" not in box


def test_changing_the_gpu_follows_its_server_until_the_nic_is_chosen():
    at = run_page(PAGE)
    at.selectbox(key="cliff.gpu").set_value("gaudi3").run()
    assert metric(at, "Whole server out") == "600 GB/s"
    at.selectbox(key="cliff.nic").set_value("ib-ndr").run()  # a card of the viewer's choosing: one per GPU
    assert metric(at, "Whole server out") == "400 GB/s"
    assert metric(at, "Like for like") == "10.5 : 1"  # 525 / 50
    at.number_input(key="cliff.nics").set_value(16).run()
    assert metric(at, "Whole server out") == "800 GB/s"
    assert at.query_params["nic"] == "ib-ndr" and at.query_params["nics"] == "16"


def test_an_old_link_with_an_explicit_nic_keeps_its_meaning():
    # Every link written before "auto" carried nic and nics: they still mean 8 x NDR, for any GPU.
    at = run_page(PAGE, {"gpu": "gaudi3", "nic": "ib-ndr", "nics": "8"})
    assert not at.exception and not at.warning
    assert metric(at, "Whole server out") == "400 GB/s"
    assert metric(at, "Like for like") == "10.5 : 1"
    assert (at.query_params["nic"], at.query_params["nics"]) == ("ib-ndr", "8")
    auto = run_page(PAGE, {"gpu": "gaudi3", "nic": "auto", "nics": "auto"})
    assert not auto.warning and metric(auto, "Whole server out") == "600 GB/s"


def test_mi300x_says_what_one_peer_gets():
    # AMD: 7 Infinity Fabric links of 64 GB/s per direction, one per peer (amd-mi300x-platform).
    at = run_page(PAGE, {"gpu": "mi300x", "view": "bars"})
    box = headline_box(at)
    assert "A mesh, not a switch" in box and "64 GB/s per direction" in box and "all 7 peers" in box
    cliff = chart_specs(at)[0]
    assert bar(cliff, "Infinity Fabric: one peer")[0] == pytest.approx(64.0)
    assert bar(cliff, "Infinity Fabric: all 7 peers")[0] == pytest.approx(448.0)


def test_direction_unit_basis_and_nics_from_the_link():
    at = run_page(PAGE, {"dir": "both", "unit": "Gbitps", "basis": "achieved", "nics": "4"})
    assert not at.exception and not at.warning
    cliff = chart_specs(at)[0]
    assert "both directions" in cliff["layout"]["title"]["text"]
    assert "1 Gbit/s" in cliff["layout"]["xaxis"]["ticktext"]
    assert metric(at, "Whole server out") == "3.07 Tbit/s"  # 4 x 384 Gbit/s achieved, both directions
    assert bar(cliff, "GPU to GPU")[0] == pytest.approx(370.8 * 2 * 8)  # achieved, both directions, in Gbit/s
    # FCC benchmark 100/20 Mbit/s (benton-fcc): both directions is 120, not 200.
    assert bar(cliff, "Home broadband") == (pytest.approx(0.12), "120 Mbit/s (100 down + 20 up) (spec)")


def test_bluray_unit():
    at = run_page(PAGE, {"unit": "bluray"})
    cliff = chart_specs(at)[0]
    assert bar(cliff, "GPU to GPU")[0] == pytest.approx(9.0)  # 450 GB/s / 50 GB per disc
    assert bar(cliff, "LapLink")[1] == "1 Blu-ray every 11.6 days"  # 50 kB/s


def test_fp16_gpus_say_so_where_they_show_compute():
    from interconnect.ui.sources import figure_label

    assert figure_label(CATALOG.gpu("v100"), "bf16_dense") == "FP16 dense"
    assert figure_label(CATALOG.gpu("h100-sxm"), "bf16_dense") == "BF16 dense"


def test_widget_change_reruns_with_new_state():
    at = run_page(PAGE)
    at.selectbox(key="cliff.gpu").set_value("b200").run()
    assert metric(at, "Like for like") == "18 : 1"
    at.radio(key="cliff.dir").set_value("both").run()
    assert "both directions" in chart_specs(at)[0]["layout"]["title"]["text"]
    assert at.query_params["gpu"] == "b200"
    assert at.query_params["dir"] == "both"


@pytest.mark.parametrize(
    "query",
    [
        {"gpu": "<script>alert(1)</script>"},
        {"nic": "x" * 10_000},
        {"nics": "-5"},
        {"nics": "1e12"},
        {"nics": "NaN"},
        {"dir": "sideways", "unit": "parsec", "basis": "vibes"},
        {"gpu": "h100\u202e\u0000", "nic": "ib-ndr\n<img src=x onerror=alert(1)>"},
        {"gpu": "🚀" * 50},
    ],
)
def test_hostile_links_warn_and_render(query):
    at = run_page(PAGE, {**query, "view": "bars"})
    assert not at.exception
    assert len(at.warning) >= 1
    assert len(at.warning) == 1  # every problem of a link in one box
    for warning in at.warning:
        assert "(link parameter `" in warning.value  # named by the control's label, then its URL key
        outside_code = re.sub(r"`[^`]*`", "", warning.value)
        assert "<" not in outside_code and ">" not in outside_code  # user text only inside code spans
    assert len(live_charts(at)) == 1 and [chart.key for chart in at.get("plotly_chart")] == ["cliff-chart"]
    assert metric(at, "Like for like")


def test_bar_sources_are_drawn_only_while_their_expander_is_open():
    # issue 26: a first look and a change of the NIC count do not send every bar's sources
    def bar_sources(at) -> list[str]:
        return [block.value for block in at.markdown if "as published" in block.value]

    at = run_page(PAGE)
    assert not at.exception and not bar_sources(at)
    at.session_state["cliff-sources"] = True  # AppTest's expander has no open(): set its key as a click would
    at.run()
    assert not at.exception
    (text,) = bar_sources(at)
    assert "catalog id `h100-sxm`" in text
    at.number_input(key="cliff.nics").set_value(4).run()
    assert not at.exception
    assert len(bar_sources(at)) == 1  # still drawn, by the NIC count's own fragment
    assert at.query_params["nics"] == "4"
    at.session_state["cliff-sources"] = False
    at.run()
    assert not at.exception and not bar_sources(at)
    assert at.query_params["nics"] == "4"


def _tree(at) -> list:
    """Every element of the page in reading order, as (type, text) pairs."""
    order = []

    def walk(node) -> None:
        kind = getattr(node, "type", None)
        order.append((kind, str(getattr(node, "value", "")) if kind in ("markdown", "metric") else ""))
        for key in sorted(getattr(node, "children", None) or {}):
            walk(node.children[key])

    walk(at.main)
    return order


def test_every_figure_follows_direction_unit_and_basis():
    # issue: the live chart stayed per direction and spec, and "Whole server out" said 3.2 Tbit/s while the bar
    # read 6.14 Tbit/s (both directions, achieved); the 9:1 / 18:1 box sat below the live chart
    import json

    from tests.app.conftest import live_charts

    at = run_page(PAGE, {"gpu": "h100-sxm", "dir": "both", "unit": "Gbitps", "basis": "achieved"})
    assert not at.exception
    assert metric(at, "Whole server out") == "6.14 Tbit/s"
    assert bar(chart_specs(run_page(PAGE, {"gpu": "h100-sxm", "dir": "both", "unit": "Gbitps", "basis": "achieved",
                                           "view": "bars"}))[0], "Server out")[0] == pytest.approx(6144.0)
    spec = json.loads(live_charts(at)[0].proto.json)
    readout = spec["readouts"][spec["slider"]["index"]]
    assert "768 Gbit/s per GPU, both directions summed, against 5.93 Tbit/s" in readout
    assert f"{metric(at, 'What NCCL achieves').split(' ')[0]} to 1" in readout
    assert "achieves" in spec["title"] and all("achieved" in line["name"] for line in spec["series"])
    order = _tree(at)
    box = next(i for i, (kind, text) in enumerate(order) if text.startswith("**Often quoted:**"))
    live = next(i for i, (kind, _) in enumerate(order) if kind == "bidi_component")
    assert box < live  # the 9:1 / 18:1 box above the live chart, on the first screen
