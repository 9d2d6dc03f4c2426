"""The Seating chart's live chart in a real browser: the node slider redraws at once, matches the core, and
sets the page's nodes (and DP back to the rest) when the keys pause."""

from __future__ import annotations

import pytest
from browser_helpers import assert_healthy, open_page, poll, query_of, widget

from interconnect.figures.seating_live import seating_family_spec
from interconnect.models.cluster import resolve_cluster
from interconnect.models.parallelism import Layout, Workload
from interconnect.models.presets import load_model_presets
from interconnect.models.seating_family import BATCHES, live_seating_nodes, seating_family

pytestmark = pytest.mark.browser

SLIDER = ".live-chart input[type=range]"
LOAD_TIMEOUT_MS = 90_000


def _shown(page) -> tuple[str, str, str]:
    live = page.locator(".live-chart").first
    return (live.locator(".live-value").inner_text(), live.locator(".live-readout").inner_text(),
            " ".join(path.get_attribute("d") or "" for path in live.locator("path").all()))


def test_node_slider_moves_the_chart_at_once_and_the_page_follows(streamlit_server, page):
    # the page's defaults: Llama 3 70B, TP 8 x PP 4, DP the rest, ZeRO-1, global batch 256, on 8 x 8 H100
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    counts = live_seating_nodes(8)
    family = seating_family(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, pp=4, zero=1), Workload(),
                            counts, sorted({*BATCHES, 256}))
    readouts = seating_family_spec(family, 8, 256, 8, "1F1B")["readouts"]

    open_page(page, streamlit_server, "/Seating_chart?nodes=8")
    slider = page.locator(SLIDER).first
    slider.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    assert slider.get_attribute("aria-label") == "Nodes"
    value, readout, path = _shown(page)
    assert value == "8 nodes" and readout.startswith(readouts[counts.index(8)][:60]), readout

    # each arrow key redraws from the numbers the browser holds; each sentence is the core's own
    slider.focus()
    for nodes in (16, 32):
        page.keyboard.press("ArrowRight")
        value_now, readout_now, path_now = _shown(page)
        assert value_now == f"{nodes} nodes"
        assert readout_now == readouts[counts.index(nodes)], readout_now
        assert path_now != path
        assert readout_now in (slider.get_attribute("aria-valuetext") or "")
        path = path_now

    # when the keys pause, the page's node count and the link follow, and the layout with them
    assert poll(page, lambda: query_of(page.url).get("nodes") == "32" or None, timeout_s=20), page.url
    assert poll(page, lambda: widget(page, "seating.nodes").locator("input").input_value() == "32" or None)
    assert "TP8 × PP4 × DP8" in readouts[counts.index(32)]
    assert_healthy(page, streamlit_server)

    # the link reopens the same view, the slider where it was left
    page.goto(page.url)
    page.locator(SLIDER).first.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    assert poll(page, lambda: _shown(page)[0] == "32 nodes" or None)
    assert_healthy(page, streamlit_server)
