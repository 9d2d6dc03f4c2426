"""The All-reduce page in a real browser: the protocol and hop-latency keys from a cold deep link,
a control inside the page's fragment updating the URL, and the one-click Playbook cluster."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_helpers import (
    METRIC_VALUE,
    assert_healthy,
    open_cold,
    open_page,
    open_select,
    poll,
    query_of,
    wait_for_charts,
    widget,
)

pytestmark = pytest.mark.browser


def test_cold_deep_link_with_protocol_and_hop_latency(cold_server, page):
    params = {"gpu": "h100-sxm", "gpn": "8", "nodes": "4", "lat": "25 us", "proto": "ll128", "size": "64 MiB"}
    open_cold(page, cold_server, "/All_reduce?" + urlencode(params))
    assert_healthy(page, cold_server)
    wait_for_charts(page, minimum=4)
    assert widget(page, "allreduce.proto").get_by_role("combobox").input_value() == "LL128"
    assert widget(page, "allreduce.lat").locator("input").input_value() == "25 us"
    assert page.get_by_text("Algorithm · LL128").count() == 1
    # The link's values stay, the protocol spelled as the page spells it.
    settled = poll(page, lambda: query_of(page.url) if query_of(page.url).get("proto") == "LL128" else None)
    assert settled["lat"] == "25 us" and settled["nodes"] == "4"


def test_fragment_control_updates_the_url_and_the_playbook_button(streamlit_server, page):
    open_page(page, streamlit_server, "/All_reduce?nodes=2")
    wait_for_charts(page, minimum=4)
    open_select(page, "allreduce.proto")
    page.get_by_role("option", name="Simple (bulk)", exact=True).click()
    assert poll(page, lambda: query_of(page.url).get("proto") == "Simple" or None), page.url
    assert poll(page, lambda: page.get_by_text("Algorithm · Simple").count() == 1 or None)
    assert query_of(page.url)["nodes"] == "2", "a control of the fragment lost the cluster"

    page.get_by_role("button", name="Set the cluster to the Playbook's").click()
    settled = poll(page, lambda: query_of(page.url) if query_of(page.url).get("nic") == "efa-v2" else None,
                   timeout_s=20)
    assert settled["nics"] == "32" and settled["fabric"] == "efa" and settled["size"] == "256 MB"
    assert poll(page, lambda: page.locator(METRIC_VALUE).first.inner_text().strip() == "64" or None)  # 8 x 8 GPUs
    assert_healthy(page, streamlit_server)
