"""The live chart in a real browser: the slider redraws at once, matches the core, and sets the link."""

from __future__ import annotations

import pytest
from browser_helpers import assert_healthy, open_cold, poll, query_of, widget

from interconnect.models.allreduce_family import live_node_counts
from interconnect.models.allreduce_view import node_count_curve
from interconnect.models.cluster import resolve_cluster
from interconnect.units import Q_, format_bandwidth

pytestmark = pytest.mark.browser

SLIDER = "input[type=range]"


def _shown(page) -> tuple[str, str, str]:
    live = page.locator(".live-chart").first
    return (live.locator(".live-value").inner_text(), live.locator(".live-readout").inner_text(),
            live.locator("path").last.get_attribute("d") or "")


def test_keys_move_the_chart_in_the_browser_and_the_link_follows(cold_server, page):
    open_cold(page, cold_server, "/All_reduce?nodes=4&size=256+MiB")
    slider = page.locator(SLIDER).first
    slider.wait_for(state="visible")
    assert slider.get_attribute("aria-label") == "Nodes"
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    counts = live_node_counts(4)
    busbw = node_count_curve(cluster, 2**28, counts).busbw_chosen
    value, readout, path = _shown(page)
    assert value == "4 nodes"
    assert f"busbw {format_bandwidth(Q_(float(busbw[counts.index(4)]), 'GB/s'))}" in readout

    # Each arrow key redraws from the numbers the browser already holds: the value, the sentence,
    # its announcement and the thick line change at once, and each equals the core's figure.
    slider.focus()
    for nodes in (8, 16):
        page.keyboard.press("ArrowRight")
        value_now, readout_now, path_now = _shown(page)
        assert value_now == f"{nodes} nodes"
        assert f"busbw {format_bandwidth(Q_(float(busbw[counts.index(nodes)]), 'GB/s'))}" in readout_now
        assert path_now != path
        assert readout_now in (slider.get_attribute("aria-valuetext") or "")
        path = path_now

    # When the keys pause, the value reaches the server: the cluster box and the link follow.
    assert poll(page, lambda: query_of(page.url).get("nodes") == "16" or None, timeout_s=20), page.url
    assert poll(page, lambda: widget(page, "allreduce.nodes").locator("input").input_value() == "16" or None)
    assert_healthy(page, cold_server)

    # The link reopens the same view, the slider where it was left.
    page.goto(page.url)
    page.locator(SLIDER).first.wait_for(state="visible")
    assert poll(page, lambda: _shown(page)[0] == "16 nodes" or None)
    assert_healthy(page, cold_server)
