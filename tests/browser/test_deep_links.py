"""Deep links in a real browser against a freshly started server.

The first request a server ever receives decides how Streamlit routes the app's pages, so the
key test opens a deep link with non-default parameters as that very first request and checks the
page is the one asked for, in the state asked for, and that the URL keeps that state.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_helpers import (
    ALERT,
    CHART,
    CHART_SVG,
    EXCEPTION,
    METRIC_VALUE,
    REPO_ROOT,
    assert_healthy,
    open_cold,
    open_page,
    poll,
    query_of,
    wait_for_charts,
    wait_for_first_chart,
    wait_for_run,
    widget,
)

from interconnect.catalog import LAYER_TITLES, get_catalog
from interconnect.inputs.params import to_query
from interconnect.topics.cliff.inputs import cliff_specs
from interconnect.topics.cliff.model import cliff_summary
from interconnect.units import format_bandwidth

pytestmark = pytest.mark.browser

CLIFF_DEFAULTS = to_query(cliff_specs(), {})  # every parameter in use at its default


def non_default_gpu() -> str:
    """The GPU for the deep link: B200 when the catalog has it, else any non-default one, else the default."""
    gpus = list(get_catalog().gpus)
    if "b200" in gpus:
        return "b200"
    others = [gpu for gpu in gpus if gpu != CLIFF_DEFAULTS["gpu"]]
    return others[0] if others else gpus[0]


def axis_ticks(page) -> list[str]:
    """The first chart's x tick labels: the cliff labels its log axis in the chosen unit (1 Gbit/s, 1 Tbit/s)."""
    return page.locator(CHART).first.locator(".xtick").all_text_contents()


def test_cold_deep_link_to_cliff_page_keeps_its_state(cold_server, page, blocked_requests):
    gpu_id = non_default_gpu()
    params = {"gpu": gpu_id, "nic": "ib-ndr", "dir": "both", "unit": "Gbitps", "basis": "spec", "nics": "4"}
    open_cold(page, cold_server, "/Bandwidth_cliff?" + urlencode(params))

    assert_healthy(page, cold_server)
    wait_for_charts(page, minimum=1)  # the bars: view=auto shows them for a direction or unit off its default
    assert page.locator(CHART_SVG).first.is_visible()
    assert page.locator(EXCEPTION).count() == 0
    assert page.locator("h1").first.inner_text() == "The bandwidth cliff"

    catalog = get_catalog()
    summary = cliff_summary(catalog, gpu_id, "ib-ndr", nics_per_node=4)
    metrics = page.locator(METRIC_VALUE).all_inner_texts()
    assert metrics[0] == f"{summary.ratio_like_for_like:.3g} : 1", metrics
    assert metrics[1] == f"{summary.ratio_as_quoted:.3g} : 1", metrics
    # nics=4, unit=Gbitps and dir=both all reach this one: 4 NICs, both directions summed, formatted in bits.
    assert format_bandwidth(summary.node_egress_per_direction * 2, "bit/s") in metrics, metrics
    assert widget(page, "cliff.gpu").get_by_role("combobox").input_value() == catalog.gpus[gpu_id].name

    assert any("Gbit/s" in tick for tick in axis_ticks(page)), axis_ticks(page)
    assert "both directions added up" in page.locator(f"{CHART} .gtitle").first.text_content()
    assert widget(page, "cliff.dir").get_by_role("radio", name="Both directions summed").is_checked()

    # The page writes its state back to the URL; once settled it must still be the state of the link.
    page.wait_for_timeout(500)  # a stray rewrite (st.query_params) would land within this
    assert query_of(page.url) == params, page.url
    assert page.url.split("?")[0].endswith("/Bandwidth_cliff")
    # The multipage app was recognised on the cold start: the sidebar links to the other pages.
    hrefs = [href.split("?")[0].rstrip("/") for href in
             page.get_by_test_id("stSidebar").locator("a[href]").evaluate_all("els => els.map(e => e.href)")]
    assert any(href.endswith("/Catalog") for href in hrefs), hrefs
    assert any(href.endswith("/Bandwidth_cliff") for href in hrefs), hrefs
    assert blocked_requests == [], f"the page tried to reach the internet: {blocked_requests}"


def test_changing_a_control_updates_the_url(streamlit_server, page):
    open_page(page, streamlit_server, "/Bandwidth_cliff?view=bars")
    assert_healthy(page, streamlit_server)
    wait_for_charts(page, minimum=1)
    assert poll(page, lambda: query_of(page.url).get("dir") == "per"), page.url

    widget(page, "cliff.dir").get_by_text("Both directions summed").click()
    assert poll(page, lambda: query_of(page.url).get("dir") == "both"), page.url

    widget(page, "cliff.unit").get_by_text("Gbit/s").click()
    assert poll(page, lambda: query_of(page.url).get("unit") == "Gbitps"), page.url
    assert poll(page, lambda: any("Gbit/s" in tick for tick in axis_ticks(page))), axis_ticks(page)
    assert query_of(page.url)["dir"] == "both", "changing the unit lost the direction"

    others = [gpu for gpu in get_catalog().gpus if gpu != CLIFF_DEFAULTS["gpu"]]
    if others:  # the GPU selectbox, once the catalog has a second GPU
        widget(page, "cliff.gpu").get_by_role("combobox").click()
        page.get_by_role("option", name=get_catalog().gpus[others[0]].name, exact=True).click()
        assert poll(page, lambda: query_of(page.url).get("gpu") == others[0]), page.url
    assert_healthy(page, streamlit_server)

    # The address bar is a link to this view: a new session opened from it shows the same state.
    shared = page.context.new_page()
    open_page(shared, streamlit_server, page.url.removeprefix(streamlit_server.base_url))
    wait_for_charts(shared, minimum=1)
    assert widget(shared, "cliff.dir").get_by_role("radio", name="Both directions summed").is_checked()
    assert widget(shared, "cliff.unit").get_by_role("radio", name="Gbit/s").is_checked()
    assert query_of(shared.url) == query_of(page.url)


def test_hostile_deep_link_warns_and_still_renders(streamlit_server, page):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    query = urlencode({"gpu": "<script>alert(1)</script>", "nics": "-5", "unit": "parsec", "nic": "x" * 3000,
                       "view": "<b>bars</b>"})
    open_page(page, streamlit_server, "/Bandwidth_cliff?" + query)

    assert_healthy(page, streamlit_server)
    wait_for_first_chart(page)  # the live chart: the bad view falls back to auto
    warnings = page.locator(ALERT).all_inner_texts()
    text = "\n".join(warnings)
    for key in ("gpu", "nics", "unit", "nic", "view"):
        assert f"(link parameter {key}):" in text, (key, warnings)  # named by its label, then its key
    assert "too long" in text
    assert "x" * 100 not in text, "the 3,000-character value was echoed in full"
    # The script tag is shown as text, never run or inserted as an element.
    assert page.locator("script", has_text="alert(1)").count() == 0 and page.locator("main b").count() == 0
    page.wait_for_timeout(500)  # give a would-be alert() its chance to fire
    assert dialogs == []
    # The URL is rewritten to the values actually used (defaults, and nics clamped to 1).
    expected = {**CLIFF_DEFAULTS, "nics": "1"}
    assert poll(page, lambda: query_of(page.url) == expected), page.url


def test_cold_deep_link_to_catalog_page(cold_server, page):
    open_cold(page, cold_server, "/Catalog?kind=scale-out")
    assert_healthy(page, cold_server)
    assert page.locator("h1").first.inner_text() == "Catalog and sources"
    page.get_by_test_id("stDataFrame").first.wait_for(state="visible")
    assert widget(page, "catalog.kind").get_by_role("radio", name=LAYER_TITLES["scale-out"]).is_checked()
    assert poll(page, lambda: query_of(page.url).get("kind") == "scale-out"), page.url
    assert page.url.split("?")[0].endswith("/Catalog")


def test_home_page_links_to_the_cliff_page(streamlit_server, page):
    open_page(page, streamlit_server, "/")
    assert_healthy(page, streamlit_server)
    link = page.get_by_test_id("stMain").get_by_test_id("stPageLink-NavLink").filter(has_text="The bandwidth cliff")
    assert link.get_attribute("href").split("?")[0].rstrip("/").endswith("Bandwidth_cliff")
    link.wait_for(state="visible")
    link.click()
    # the home page draws a chart of its own: wait for the address to change before waiting for the cliff's chart
    assert poll(page, lambda: page.url.split("?")[0].endswith("/Bandwidth_cliff") or None, timeout_s=30), page.url
    wait_for_first_chart(page)
    assert_healthy(page, streamlit_server)
    assert page.locator("h1").first.inner_text() == "The bandwidth cliff"


def test_cold_deep_link_to_all_reduce_page(cold_server, page):
    params = {"gpu": "a100-sxm", "gpn": "8", "nodes": "2", "nic": "custom", "nic_bw": "100 Gbit/s", "nics": "16",
              "fabric": "roce", "size": "64 MiB", "algo": "auto", "overlay": "none"}
    open_cold(page, cold_server, "/All_reduce?" + urlencode(params))
    assert_healthy(page, cold_server)
    wait_for_first_chart(page)
    assert page.url.split("?")[0].endswith("/All_reduce")
    assert page.locator(METRIC_VALUE).first.inner_text().strip() == "16"  # 2 nodes x 8 GPUs
    assert "RoCE" in page.get_by_text("x 100 Gbit/s").first.inner_text()
    url_query = poll(page, lambda: query_of(page.url) if query_of(page.url).get("fabric") == "roce" else None)
    for key, value in params.items():
        assert url_query[key] == value


def test_all_reduce_controls_update_the_url_and_a_log_uploads(streamlit_server, page, tmp_path):
    open_page(page, streamlit_server, "/All_reduce?nodes=2")
    wait_for_first_chart(page)
    nodes = widget(page, "allreduce.nodes").locator("input")
    nodes.fill("16")
    nodes.press("Enter")
    assert poll(page, lambda: query_of(page.url).get("nodes") == "16" or None)
    wait_for_run(page, streamlit_server)
    assert page.locator(METRIC_VALUE).first.inner_text().strip() == "128"

    log = tmp_path / "all_reduce.log"
    log.write_text((REPO_ROOT / "tests" / "unit" / "data" / "nccl_logs" / "h100-2node-unidentified.txt").read_text())
    page.get_by_text("Compare your own nccl-tests").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(log))
    poll(page, lambda: page.get_by_text("Rows read").count() > 0 or None, timeout_s=20)
    assert page.get_by_text("16 ranks").count() >= 1  # the log's rank count differs from the 128 set above
    assert_healthy(page, streamlit_server)
