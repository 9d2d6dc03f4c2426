"""Every control inside a fragment, across its range, in a real browser.

AppTest reruns the whole page on every change, so it never runs a fragment alone. A fragment rerun
has rules of its own: it may only write to a container made outside it if it wrote there in the
last full run. A page that writes conditionally into such a place broke on one arrow key (the
All-reduce page at 2 nodes: the caption on busbw above the ring limit). These tests move each live
slider from one end to the other, key by key, and type each fragment's number input at its bounds
and a few values between, from several starting links, and check the page after every step.
"""

from __future__ import annotations

import pytest
from browser_helpers import assert_healthy, open_page, poll, query_of, wait_settled, widget

pytestmark = pytest.mark.browser

SLIDER = ".live-chart input[type=range]"
LOAD_TIMEOUT_MS = 90_000


def _settle_on(page, server, key: str, expected: str) -> None:
    """Wait until the link holds ``key=expected`` and the script is idle; then the page must be healthy."""
    assert poll(page, lambda: query_of(page.url).get(key) == expected or None, timeout_s=30), (key, expected, page.url)
    wait_settled(page)
    assert_healthy(page, server)


def _sweep_slider(page, server, key: str) -> list[str]:
    """Step the live chart's slider down to its first stop, then up to its last, one key and one server run
    at a time (the page idle before each key, as a person waits for the chart); return the link values seen."""
    slider = page.locator(SLIDER).first
    slider.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    seen = []
    for direction in ("ArrowLeft", "ArrowRight"):
        while True:
            wait_settled(page)
            before, linked = slider.input_value(), query_of(page.url).get(key)
            slider.focus()
            page.keyboard.press(direction)
            if slider.input_value() == before:
                break  # at the end of the range
            value = poll(page, lambda linked=linked: (lambda now: now if now not in (None, linked) else None)(
                query_of(page.url).get(key)), timeout_s=30)
            assert value, (key, direction, linked, page.url)
            wait_settled(page)
            assert_healthy(page, server)
            seen.append(value)
    return seen


@pytest.mark.parametrize("start", [
    "/All_reduce",
    "/All_reduce?view=nodes",
    "/All_reduce?view=time&algo=tree",
    "/All_reduce?coll=all_gather",
])
def test_all_reduce_node_slider_end_to_end(streamlit_server, page, start):
    open_page(page, streamlit_server, start)
    seen = _sweep_slider(page, streamlit_server, "nodes")
    assert "1" in seen and "2" in seen, seen  # the counts that broke the page were reached


@pytest.mark.parametrize("start", ["/All_reduce", "/All_reduce?view=nodes"])
def test_all_reduce_node_count_typed_at_bounds(streamlit_server, page, start):
    open_page(page, streamlit_server, start)
    field = widget(page, "allreduce.nodes").locator("input").first
    field.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    for nodes in (2, 1, 3, 100_000, 7, 1):
        field.fill(str(nodes))
        field.press("Enter")
        _settle_on(page, streamlit_server, "nodes", str(nodes))


@pytest.mark.parametrize("path,key", [
    ("/Bandwidth_cliff", "nics"),
    ("/Overlap", "tokens"),
    ("/Across_sites", "bw"),
    ("/Seating_chart", "nodes"),
    ("/Reach", "d"),
])
def test_other_live_sliders_end_to_end(streamlit_server, page, path, key):
    open_page(page, streamlit_server, path)
    assert len(_sweep_slider(page, streamlit_server, key)) >= 2


@pytest.mark.parametrize("path,key,values", [
    ("/Overlap", "overlap.nodes", (1, 2, 100_000, 3)),
    ("/Seating_chart", "seating.nodes", (1, 2, 3, 16)),
    ("/Across_sites", "crossdc.sites", (2, 10_000, 3)),
    ("/Reach", "reach.h", (1, 100_000, 7)),
])
def test_fragment_number_inputs_at_their_bounds(streamlit_server, page, path, key, values):
    open_page(page, streamlit_server, path)
    field = widget(page, key).locator("input").first
    field.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    link_key = key.split(".", 1)[1]
    for value in values:
        field.fill(str(value))
        field.press("Enter")
        _settle_on(page, streamlit_server, link_key, str(value))
