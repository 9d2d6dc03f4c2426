"""The Reach page in a real browser: a cold deep link renders its charts in the linked state, and
the URL follows the distance when it is typed or moved on the live chart's slider (its step-by-step walk
is in test_live_chart)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_helpers import (
    CHART,
    EXCEPTION,
    METRIC_VALUE,
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

pytestmark = pytest.mark.browser


def test_cold_deep_link_to_reach_page(cold_server, page, blocked_requests):
    params = {"d": "1000 km", "size": "256 MiB", "h": "10", "medium": "vacuum"}
    open_cold(page, cold_server, "/Reach?" + urlencode(params))
    assert_healthy(page, cold_server)
    wait_for_charts(page, minimum=1)  # the training chart that the link's settings need (view=auto)
    live = page.locator(".live-chart").first  # and the live chart, at the link's distance
    assert poll(page, lambda: live.locator(".live-value").inner_text() == "1000 km" or None), \
        live.locator(".live-value").inner_text()
    assert page.locator(EXCEPTION).count() == 0
    assert page.locator("h1").first.inner_text().startswith("Reach")
    metrics = page.locator(METRIC_VALUE).all_inner_texts()
    assert "1000 km" in metrics and "4.9 ms" in metrics, metrics  # 1,000 km of fibre: 4.9 ms one way
    assert "1000 km" in page.locator(f"{CHART} .annotation-text").first.text_content()
    assert widget(page, "reach.medium").get_by_role("radio", name="Vacuum").is_checked()

    # The page writes its whole state back to the URL, and it is still the linked state.
    page.wait_for_timeout(500)
    settled = query_of(page.url)
    assert {key: settled.get(key) for key in params} == params, page.url
    assert page.url.split("?")[0].endswith("/Reach")

    # Typing a distance moves the URL, the metrics and the charts.
    box = widget(page, "reach.d_text").locator("input")
    box.fill("40 km")
    box.press("Enter")
    assert poll(page, lambda: query_of(page.url).get("d") == "40 km"), page.url
    wait_for_run(page, cold_server)
    assert poll(page, lambda: "196 µs" in page.locator(METRIC_VALUE).all_inner_texts())

    # Moving the live chart's slider (keyboard: one stop to the right) moves them again, box included.
    page.locator(".live-chart input[type=range]").first.press("ArrowRight")
    assert poll(page, lambda: query_of(page.url).get("d") == "50 km" or None, timeout_s=40), page.url
    wait_for_run(page, cold_server)
    assert poll(page, lambda: box.input_value() == "50 km" or None), box.input_value()
    assert_healthy(page, cold_server)
    assert page.locator(CHART).count() >= 1
    assert query_of(page.url)["medium"] == "vacuum", "moving the distance lost another control's state"

    # A distance between the slider's stops: the slider shows what the box says (issue 23: 1.5 m showed 2 m).
    box.fill("1.5 m")
    box.press("Enter")
    assert poll(page, lambda: query_of(page.url).get("d") == "1.5 m"), page.url
    wait_for_run(page, cold_server)
    value = page.locator(".live-chart .live-value").first
    assert poll(page, lambda: value.inner_text() == "1.5 m" or None), value.inner_text()
    assert blocked_requests == [], f"the page tried to reach the internet: {blocked_requests}"


def test_every_view_then_a_bad_distance_then_a_training_control(streamlit_server, page):
    """The training section is a fragment nested in the distance's: whatever the distance's part draws
    above it (a chosen chart, a warning), the next rerun of either must draw without an error. Choosing
    "Rate against reach" in a plain session used to end in Streamlit's layout error, which an AppTest
    (it reruns whole scripts) cannot see."""
    open_page(page, streamlit_server, "/Reach")
    wait_for_first_chart(page)
    picker = widget(page, "reach.view")
    for label, view in (("Rate against reach", "leash"), ("Training across the gap", "training"),
                        ("Timeouts", "timeouts"), ("None", "none"), ("Auto", None)):
        picker.get_by_text(label, exact=True).click()
        assert poll(page, lambda v=view: query_of(page.url).get("view") == v or None), (label, page.url)
        wait_for_run(page, streamlit_server)
        assert page.locator(EXCEPTION).count() == 0, (label, page.locator(EXCEPTION).all_inner_texts())
    picker.get_by_text("Rate against reach", exact=True).click()  # a chart above the training section again
    alerts = page.locator('[data-testid="stAlert"]')
    before = alerts.count()
    box = widget(page, "reach.d_text").locator("input")
    box.fill("5 parsecs")  # far beyond 20,000 km: a warning above the training section too
    box.press("Enter")
    assert poll(page, lambda: alerts.count() > before or None), alerts.all_inner_texts()
    size = widget(page, "reach.size").locator("input")
    size.fill("2 GiB")
    size.press("Enter")
    assert poll(page, lambda: query_of(page.url).get("size") == "2 GiB" or None), page.url
    wait_for_run(page, streamlit_server)
    assert page.locator(EXCEPTION).count() == 0, page.locator(EXCEPTION).all_inner_texts()
    assert_healthy(page, streamlit_server)
