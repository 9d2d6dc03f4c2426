"""AppTest of the home page and the Catalog page, including hostile links."""

import re

import pytest

from interconnect.catalog import LAYERS, get_catalog
from interconnect.figures.theme import LAYER_LEGEND_NAMES
from interconnect.topics.reach.model import reach_rows
from tests.app.conftest import chart_specs, run_page

CATALOG = get_catalog()
CATALOG_PAGE = "pages/9_Catalog.py"


def test_home_page_draws_the_layers_picture_alone_by_default():
    at = run_page()
    assert not at.exception and not at.warning
    assert [str(chart.key) for chart in at.get("plotly_chart")] == ["layers-chart"]
    assert at.radio(key="home.view").value == "auto" and dict(at.query_params) == {}


def test_home_page_shows_layers_and_the_reach_chart():
    at = run_page(None, {"view": "reach"})
    assert not at.exception
    assert at.query_params["view"] == "reach"
    text = " ".join(block.value for block in [*at.markdown, *at.caption])
    for word in ("NVLink", "InfiniBand", "wide-area"):
        assert word in text
    layers, reach = chart_specs(at)[:2]  # the layers picture, then the reach map
    pictured = " ".join(annotation["text"] for annotation in layers["layout"]["annotations"])
    for words in ("Inside the server", "Between servers", "Between buildings", "NVLink 4", "InfiniBand NDR",
                  "Another building"):
        assert words in pictured
    labels = {annotation["text"] for annotation in reach["layout"]["annotations"]}
    assert {"NVLink copper spine", "SR8 multimode", "LapLink cable"} <= labels
    plotted = " / ".join(row[0] for trace in reach["data"] for row in trace["customdata"])  # hover names
    assert all(row.name in plotted for row in reach_rows())
    # Every point is named: beside it, or (where no label fits) by its own legend entry.
    layer_names = set(LAYER_LEGEND_NAMES.values())
    for trace in reach["data"]:
        if trace["name"] not in layer_names:
            assert len(trace["x"]) == 1
    # Each maker's scale-up, not only NVIDIA's.
    assert "Infinity Fabric" in text and "Gaudi" in text


def test_home_page_sends_the_layers_sources_only_while_their_pop_over_is_open():
    # issue 26: a first look does not send the pop-over's text
    at = run_page()
    assert not at.exception
    assert not [block for block in at.markdown if "· id `" in block.value]
    at.session_state["home-sources"] = True  # AppTest's pop-over has no open(): set its key as a click would
    at.run()
    assert not at.exception
    ids = " ".join(block.value for block in at.markdown if "· id `" in block.value)
    assert "NVLink" in ids and "InfiniBand" in ids
    assert dict(at.query_params) == {}  # the pop-over is no setting: the link stays plain


def test_home_page_opens_with_a_way_into_every_page():
    at = run_page()
    main = [element for element in at.main]
    # The entry cards come first on the page, before the introduction.
    first_text = next(i for i, element in enumerate(main)
                      if str(getattr(element, "value", "") or "").startswith("Training"))
    keys = [getattr(element, "key", None) or "" for element in main[:first_text]]
    cards = [key for key in keys if key.startswith("explore-")]
    from interconnect.ui.pages import PAGES, page_exists

    assert cards == [f"explore-{name}" for name in PAGES if name != "home" and page_exists(name)]
    from interconnect.site import TOPICS

    assert len(cards) == len(TOPICS) == 11  # one card for each topic of the list (Explain my run is the 11th)


def test_home_page_cleans_a_stray_query_string_and_says_so():
    at = run_page(None, {"gpu": "<script>", "x<b>": "y" * 5000})
    assert not at.exception
    assert len(at.warning) == 1 and "x<b>" in at.warning[0].value  # shown inside a code span
    assert "`gpu`" not in at.warning[0].value  # a key another page uses is not called unknown
    assert dict(at.query_params) == {}  # the address bar is cleaned like every other page's


@pytest.mark.parametrize("kind", ["gpu", "node", *LAYERS])
def test_catalog_page_each_kind(kind):
    at = run_page(CATALOG_PAGE, {"kind": kind})
    assert not at.exception and not at.warning
    assert at.radio(key="catalog.kind").value == kind
    table = at.dataframe[0].value
    assert len(table) > 0
    plain = {"per direction", "both directions summed", "shared by both directions", "—"}
    assert all(direction in plain or direction.startswith("per direction, down and up differ")
               for direction in table["Direction"])


def test_catalog_page_shows_asymmetric_links_with_both_rates():
    # FCC 2024 benchmark (benton-fcc): 100 Mbit/s down, 20 up; both directions together 120.
    at = run_page(CATALOG_PAGE, {"kind": "everyday", "entry": "home-broadband"})
    assert not at.exception and not at.warning
    row = at.dataframe[0].value.iloc[0]
    assert row["Value"] == "12.5 MB/s down, 2.5 MB/s up"  # the catalog shows bytes throughout
    assert row["Direction"] == "per direction, down and up differ (15 MB/s = 120 Mbit/s both directions together)"


def test_catalog_page_says_fp16_for_gpus_without_bf16():
    # NVIDIA's P100 and V100 data sheets give FP16 (half precision) peaks: neither has BF16.
    at = run_page(CATALOG_PAGE, {"kind": "gpu"})
    table = at.dataframe[0].value
    dense = table[table["Figure"].str.endswith("dense")]
    compute = dense[dense["Figure"] != "FP8 dense"].set_index("id")["Figure"]
    assert compute["p100"] == "FP16 dense" and compute["v100"] == "FP16 dense"
    assert compute["h100-sxm"] == "BF16 dense"
    assert not any("bf16" in figure or "fp8" in figure for figure in table["Figure"])
    # FP8 tensor cores from Hopper on; A100 and older have none, so no FP8 row
    fp8 = set(dense[dense["Figure"] == "FP8 dense"]["id"])
    assert "h100-sxm" in fp8 and not fp8 & {"p100", "v100", "a100-sxm"}


def test_catalog_page_opens_one_entry_with_its_sources_and_claims():
    at = run_page(CATALOG_PAGE, {"kind": "scale-up", "entry": "nvlink4"})
    assert not at.exception
    assert at.selectbox(key="catalog.entry").value == "nvlink4"
    text = " ".join(block.value for block in at.markdown)
    assert "Often quoted" in text and "9:1" in text.replace(" : ", ":")
    assert re.search(r"\]\(https?://", text)  # sources are links


def test_catalog_entry_of_another_kind_opens_under_its_own_kind():
    at = run_page(CATALOG_PAGE, {"kind": "gpu", "entry": "ib-ndr"})
    assert not at.exception
    assert at.radio(key="catalog.kind").value == "scale-out"
    assert at.selectbox(key="catalog.entry").value == "ib-ndr"
    assert "listed under" in at.info[0].value
    assert set(at.dataframe[0].value["id"]) == {"ib-ndr"}  # choosing an entry filters the table


def test_catalog_bad_entry_says_what_it_used():
    at = run_page(CATALOG_PAGE, {"entry": "nope"})
    assert "using the default (none)" in at.warning[0].value


@pytest.mark.parametrize("query", [{"kind": "<img src=x onerror=alert(1)>"}, {"entry": "z" * 9000},
                                   {"kind": "\u0000\u202e"}])
def test_catalog_page_hostile_links(query):
    at = run_page(CATALOG_PAGE, query)
    assert not at.exception
    assert len(at.warning) == 1
    assert "(link parameter `" in at.warning[0].value


def test_catalog_page_lists_the_fabric_switches_with_their_sources():
    from interconnect.hardware.fabric import get_fabric_data

    switches = get_fabric_data().switches
    at = run_page(CATALOG_PAGE, {"kind": "switch"})
    assert not at.exception and not at.warning
    table = at.dataframe[0].value
    assert set(table["id"]) == set(switches)
    qm9700 = table[table["id"] == "quantum-2-qm9700"].set_index("Figure")["Value"]
    # NVIDIA's QM97xx manual: 32 OSFP cages of two 400 Gb/s NDR ports, 64 ports (25.6 Tb/s per direction).
    assert qm9700["ports"] == "64 (infiniband)" and qm9700["port rate"] == "50 GB/s (400 Gbit/s)"
    assert qm9700["switching capacity (ports × rate)"] == "3.2 TB/s"
    assert qm9700["power (without modules)"] == "not found"
    text = " ".join(block.value for block in at.markdown)
    assert "docs.nvidia.com/networking/display/QM97X0PUB" in text  # the sources are links
    # A link to one switch under another kind opens it under Switches, filtered.
    at = run_page(CATALOG_PAGE, {"kind": "gpu", "entry": "spectrum-4-sn5600"})
    assert not at.exception and at.radio(key="catalog.kind").value == "switch"
    assert set(at.dataframe[0].value["id"]) == {"spectrum-4-sn5600"}
    assert "listed under" in at.info[0].value


def test_catalog_page_shows_the_memory_the_driver_reports_beside_the_label():
    # Modal's table of NVML figures: an "80 GB" H100 reports 81,559 MiB = 85.5 GB, a "141 GB" H200 150.8 GB
    at = run_page(CATALOG_PAGE, {"kind": "gpu"})
    table = at.dataframe[0].value
    memory = table[table["Figure"].str.startswith("memory") & ~table["Figure"].str.contains("bandwidth")]
    values = {(row["id"], row["Figure"]): row["Value"] for _, row in memory.iterrows()}
    assert values[("h100-sxm", "memory")] == "80 GB" and values[("h100-sxm", "memory reported")] == "85.5 GB"
    assert values[("h200", "memory reported")] == "151 GB"
    assert ("mi300x", "memory reported") not in values  # no driver figure found: the label alone
