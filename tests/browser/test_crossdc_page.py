"""The Across-sites page in a real browser: a cold deep link, then the URL following a control."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_helpers import (
    CHART_SVG,
    METRIC_VALUE,
    assert_healthy,
    open_cold,
    poll,
    query_of,
    wait_for_charts,
    wait_for_run,
    widget,
)

pytestmark = pytest.mark.browser


def test_cold_deep_link_to_across_sites_then_a_control_updates_the_url(cold_server, page):
    params = {"params": "10B", "sites": "4", "method": "streaming-diloco", "bits": "4", "tau": "2",
              "bw": "2.5 Gbit/s", "rtt": "100 ms", "target": "90", "view": "required"}
    open_cold(page, cold_server, "/Across_sites?" + urlencode(params))
    assert_healthy(page, cold_server)
    wait_for_charts(page, minimum=1)  # the live chart and the one further chart the link asks for
    assert page.locator(CHART_SVG).first.is_visible()
    assert page.url.split("?")[0].endswith("/Across_sites")
    assert page.locator("h1").first.inner_text().startswith("Across sites")
    url_query = poll(page, lambda: query_of(page.url) if query_of(page.url).get("method") == "streaming-diloco"
                     else None)
    for key, value in params.items():
        assert url_query[key] == value, key
    assert widget(page, "crossdc.method").get_by_role("combobox").input_value() == "Streaming DiLoCo"

    before = page.locator(METRIC_VALUE).all_inner_texts()
    sites = widget(page, "crossdc.sites").locator("input")
    sites.fill("8")
    sites.press("Enter")
    assert poll(page, lambda: query_of(page.url).get("sites") == "8" or None)
    wait_for_run(page, cold_server)
    assert_healthy(page, cold_server)
    assert poll(page, lambda: page.locator(METRIC_VALUE).all_inner_texts() != before or None)
    assert query_of(page.url)["method"] == "streaming-diloco"  # the rest of the state is kept

    page.get_by_role("button", name="Same-region cloud").click()
    assert poll(page, lambda: query_of(page.url).get("bw") == "11.3 Gbit/s" or None)
    assert query_of(page.url)["rtt"] == "2 ms"
