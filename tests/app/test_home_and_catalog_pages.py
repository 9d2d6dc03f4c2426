"""AppTest of the home page and the Catalog page, including hostile links."""

import re

import pytest

from interconnect.catalog import LAYERS, get_catalog
from tests.app.conftest import chart_specs, run_page

CATALOG = get_catalog()
CATALOG_PAGE = "pages/9_Catalog.py"


def test_home_page_shows_layers_and_the_reach_chart():
    at = run_page()
    assert not at.exception
    text = " ".join(block.value for block in at.markdown)
    for word in ("NVLink", "InfiniBand", "Wide-area"):
        assert word in text
    reach = chart_specs(at)[0]
    plotted = {name for trace in reach["data"] for name in trace["text"]}
    assert any("NVLink 5" in name for name in plotted)
    assert any("LapLink" in name for name in plotted)


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
    assert set(table["Direction"]) <= {"per direction", "both directions summed", "shared by both directions", "—"}


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
