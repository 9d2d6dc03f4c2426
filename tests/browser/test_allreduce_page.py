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
    wait_for_first_chart,
    widget,
)

pytestmark = pytest.mark.browser


def test_cold_deep_link_with_protocol_and_hop_latency(cold_server, page):
    params = {"gpu": "h100-sxm", "gpn": "8", "nodes": "4", "lat": "25 us", "proto": "ll128", "size": "64 MiB",
              "view": "time"}
    open_cold(page, cold_server, "/All_reduce?" + urlencode(params))
    assert_healthy(page, cold_server)
    wait_for_charts(page, minimum=1)  # the live chart and the one further chart the link asks for
    assert widget(page, "allreduce.proto").get_by_role("combobox").input_value() == "LL128"
    assert widget(page, "allreduce.lat").locator("input").input_value() == "25 us"
    assert page.get_by_text("Algorithm · LL128").count() == 1
    # The link's values stay, the protocol spelled as the page spells it.
    settled = poll(page, lambda: query_of(page.url) if query_of(page.url).get("proto") == "LL128" else None)
    assert settled["lat"] == "25 us" and settled["nodes"] == "4"


def test_fragment_control_updates_the_url_and_the_playbook_button(streamlit_server, page):
    open_page(page, streamlit_server, "/All_reduce?nodes=2&view=nodes")
    wait_for_charts(page, minimum=1)
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


def test_a_pasted_log_calibrates_the_model_through_the_link(streamlit_server, page):
    from pathlib import Path

    log = (Path(__file__).resolve().parents[1] / "unit" / "data" / "nccl_logs" / "h100-2node-unidentified.txt")
    open_page(page, streamlit_server, "/All_reduce?gpu=h100-sxm&gpn=8&nodes=2")
    wait_for_first_chart(page)  # the live chart alone: view=auto
    page.get_by_text("Compare your own nccl-tests output").click()
    widget(page, "allreduce.paste").locator("textarea").fill(log.read_text())
    page.keyboard.press("Control+Enter")
    assert poll(page, lambda: page.get_by_text("What the log says about this system").count() == 1 or None,
                timeout_s=30)
    page.get_by_role("button", name="Use my measurement").click()
    settled = poll(page, lambda: query_of(page.url) if query_of(page.url).get("cal") == "1" else None, timeout_s=20)
    assert float(settled["net_eff"]) > 0 and settled["nic"] == "auto", settled  # the hardware stays the catalog's
    assert poll(page, lambda: page.get_by_text("This calibration is in use").count() == 1 or None, timeout_s=20)
    assert_healthy(page, streamlit_server)
