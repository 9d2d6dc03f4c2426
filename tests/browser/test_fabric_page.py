"""The Fabric page in a real browser: a cold deep link draws the fabric in the linked state, and the URL
and the picture follow the path chosen; the values in a closed "More settings" stay in the link."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_helpers import (
    CHART_TITLE,
    METRIC_VALUE,
    assert_healthy,
    check_closed_expander_keeps_link_values,
    open_cold,
    open_page,
    poll,
    query_of,
    wait_for_charts,
    widget,
)

pytestmark = pytest.mark.browser


def test_cold_deep_link_to_fabric_page(cold_server, page, blocked_requests):
    params = {"gpus": "4096", "server": "dgx-h100", "switch": "quantum-2-qm9700", "topo": "rail-leaf-spine",
              "path": "cross_pod"}
    open_cold(page, cold_server, "/Fabric?" + urlencode(params))
    assert_healthy(page, cold_server)
    wait_for_charts(page, minimum=1)
    assert page.url.split("?")[0].endswith("/Fabric")
    assert page.locator("h1").first.inner_text().startswith("Fabric")
    # 16 scalable units of 32 DGX H100: 128 leaves, 128 spines, 64 cores (NVIDIA's SuperPOD table).
    assert "320" in page.locator(METRIC_VALUE).all_inner_texts()
    title = page.locator(CHART_TITLE).first.text_content()
    assert "Other pod" in title and "5 switch hops" in title
    url = poll(page, lambda: query_of(page.url) if query_of(page.url).get("path") == "cross_pod" else None)
    for key, value in params.items():
        assert url[key] == value

    widget(page, "fabric.path").get_by_text("Same rail, same group").click()
    assert poll(page, lambda: query_of(page.url).get("path") == "same_rail" or None), page.url
    assert poll(page, lambda: "1 switch hop" in (page.locator(CHART_TITLE).first.text_content() or "")
                or None)
    assert query_of(page.url)["gpus"] == "4096", "changing the path lost the cluster"
    assert_healthy(page, cold_server)
    assert blocked_requests == [], f"the page tried to reach the internet: {blocked_requests}"


def test_closed_more_settings_keep_their_values_in_the_link_when_the_gpu_count_changes(streamlit_server, page):
    # issue 26: "More settings" is drawn only while open; its hidden values must stay in the link and the fabric.
    hidden = {"osub": "3", "tiers": "3", "rails": "4", "d1": "rack"}
    check_closed_expander_keeps_link_values(page, streamlit_server, "/Fabric", hidden, expander="fabric-more",
                                            probe=("fabric.rails", "4"), change=("fabric.gpus", "2048"))
    assert widget(page, "fabric.osub").locator("input").input_value() == "3.00"


def test_a_long_choice_shows_whole_and_would_end_in_an_ellipsis(streamlit_server, new_page):
    """At 1280x720 the Switch box is wide enough for "NVIDIA Quantum-2 QM9700" (a column holding a select box
    keeps at least 15rem and wraps to the next row instead); a choice still longer than its box would end in an
    ellipsis, not a cut letter that reads as another model ("QM970")."""
    page = new_page(1280, 720)
    open_page(page, streamlit_server, "/Fabric?switch=quantum-2-qm9700")
    field = widget(page, "fabric.switch").locator("input").first
    field.wait_for(state="visible")
    assert field.input_value() == "NVIDIA Quantum-2 QM9700"
    cut, overflow = field.evaluate("el => [el.scrollWidth > el.clientWidth, getComputedStyle(el).textOverflow]")
    assert not cut and overflow == "ellipsis"
