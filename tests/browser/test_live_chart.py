"""The live chart in a real browser: the slider redraws at once, matches the core, and sets the link.

These run on the shared server: what a cold deep link to each of these pages does is checked by the
page's own browser test (test_allreduce_page, test_overlap_page, test_crossdc_page, test_deep_links).
"""

from __future__ import annotations

import pytest
from browser_helpers import assert_healthy, open_page, poll, query_of, widget

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.allreduce.sweep import live_node_counts
from interconnect.topics.allreduce.view import node_count_curve
from interconnect.units import Q_, format_bandwidth

pytestmark = pytest.mark.browser

SLIDER = ".live-chart input[type=range]"
#: A page's first run on a server, on a busy machine, can take this long to draw.
LOAD_TIMEOUT_MS = 90_000


def _shown(page) -> tuple[str, str, str]:
    live = page.locator(".live-chart").first
    return (live.locator(".live-value").inner_text(), live.locator(".live-readout").inner_text(),
            " ".join(path.get_attribute("d") or "" for path in live.locator("path").all()))


def test_keys_move_the_chart_in_the_browser_and_the_link_follows(streamlit_server, page):
    open_page(page, streamlit_server, "/All_reduce?nodes=4&size=256+MiB")
    slider = page.locator(SLIDER).first
    slider.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
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
        # the line is redrawn (a server rerun landing in between may redraw it once more: read it again)
        redrawn = poll(page, lambda before=path: (lambda d: d if d != before else None)(_shown(page)[2]), timeout_s=5)
        path_now = redrawn or path_now
        assert path_now != path
        assert readout_now in (slider.get_attribute("aria-valuetext") or "")
        path = path_now

    # When the keys pause, the value reaches the server: the cluster box and the link follow.
    assert poll(page, lambda: query_of(page.url).get("nodes") == "16" or None, timeout_s=40), page.url
    assert poll(page, lambda: widget(page, "allreduce.nodes").locator("input").input_value() == "16" or None)
    assert_healthy(page, streamlit_server)

    # The link reopens the same view, the slider where it was left.
    page.goto(page.url)
    page.locator(SLIDER).first.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    assert poll(page, lambda: _shown(page)[0] == "16 nodes" or None)
    assert_healthy(page, streamlit_server)


def _says(readout: str, expected: str | tuple[str, ...]) -> bool:
    """The readout starts with ``expected`` (or its first part) and holds each further part."""
    parts = (expected,) if isinstance(expected, str) else expected
    return readout.startswith(parts[0]) and all(part in readout for part in parts[1:])


def _walk(page, server, link: str, label: str, positions: list[tuple[str, str | tuple[str, ...]]], url_key: str,
          widget_key: str, url_value: str) -> None:
    """Open ``link``, then check the live chart position by position: ``positions[0]`` is what it shows
    first, and each arrow key shows the next one at once (value, readout, its announcement and a redrawn
    line), each readout starting with the core's own sentence (and holding its further parts, if a tuple).
    Then the link and the page's widget follow the last value, and reopening the link shows it again."""
    open_page(page, server, link)
    slider = page.locator(SLIDER).first
    slider.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    assert slider.get_attribute("aria-label") == label
    value, readout, path = _shown(page)
    assert value == positions[0][0]
    assert _says(readout, positions[0][1]), readout
    slider.focus()
    for shown, expected in positions[1:]:
        page.keyboard.press("ArrowRight")
        value_now, readout_now, path_now = _shown(page)
        assert value_now == shown
        assert _says(readout_now, expected), readout_now
        # the line is redrawn (a server rerun landing in between may redraw it once more: read it again)
        redrawn = poll(page, lambda before=path: (lambda d: d if d != before else None)(_shown(page)[2]), timeout_s=5)
        path_now = redrawn or path_now
        assert path_now != path
        assert readout_now in (slider.get_attribute("aria-valuetext") or "")
        path = path_now
    assert poll(page, lambda: query_of(page.url).get(url_key) == url_value or None, timeout_s=40), page.url
    assert poll(page, lambda: widget(page, widget_key).locator("input").input_value() == url_value or None)
    assert_healthy(page, server)
    page.goto(page.url)
    page.locator(SLIDER).first.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    assert poll(page, lambda: _shown(page)[0] == positions[-1][0] or None)
    assert_healthy(page, server)


def _overlap_expected(tokens: int) -> str:
    """What the Overlap page's live readout says at ``tokens``, from the core's own schedule of that step."""
    from interconnect.topics.overlap.model import ModelShape, load_bucket_costs, step_schedule
    from interconnect.units import format_seconds
    from interconnect.workloads.presets import load_model_presets

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    costs = load_bucket_costs()
    step = step_schedule(cluster, ModelShape.from_preset(load_model_presets()["llama3-8b"]), tokens,
                         bucket_bytes=25 * 2**20, sm_contention=costs.contention, bucket_launch_s=costs.launch_s,
                         speed_spread=costs.spread)
    return (f"{tokens:,} tokens per GPU: step {format_seconds(step.step_s)}, {format_seconds(step.exposed_comm_s)} "
            f"of it exposed communication; compute share {step.compute_utilization:.0%}")


def test_overlap_tokens_move_the_chart_at_once_and_the_link_follows(streamlit_server, page):
    positions = [(f"{tokens:,} tokens", _overlap_expected(tokens)) for tokens in (4096, 6144, 8192)]
    _walk(page, streamlit_server, "/Overlap?nodes=4&tokens=4096&bucket=25+MiB", "Tokens per GPU", positions, "tokens",
          "overlap.tokens", "8192")


def _crossdc_expected(bandwidth_text: str) -> str:
    """What the Across-sites live readout says at a bandwidth: the page's own view with it typed in the box."""
    from interconnect.topics.crossdc.inputs import crossdc_inputs, crossdc_specs
    from interconnect.topics.crossdc.view import crossdc_view

    values = {spec.key: spec.default for spec in crossdc_specs()}
    view = crossdc_view(crossdc_inputs({**values, "bw": bandwidth_text}))
    return (f"{bandwidth_text} per site: {view.labels[view.inputs.method]} at H = "
            f"{view.scenario.method.inner_steps:,} keeps the GPUs {view.result.utilization:.1%} busy")


def test_crossdc_bandwidth_moves_the_chart_at_once_and_the_link_follows(streamlit_server, page):
    positions = [(text, _crossdc_expected(text)) for text in ("10 Gbit/s", "20 Gbit/s", "50 Gbit/s")]
    _walk(page, streamlit_server, "/Across_sites?bw=10+Gbit/s", "WAN bandwidth per site", positions, "bw", "crossdc.bw",
          "50 Gbit/s")


def _cliff_expected(nics: int) -> str:
    """What the cliff's live readout says at a NIC count: the page's own cliff summary with that count."""
    from interconnect.catalog import get_catalog
    from interconnect.topics.cliff.model import cliff_summary

    summary = cliff_summary(get_catalog(), "h100-sxm", "ib-ndr", nics_per_node=nics)
    return (f"{nics} InfiniBand NDR NICs for 8 GPUs: {format_bandwidth(summary.network_per_gpu_per_direction)} per "
            f"GPU per direction against 450 GB/s of NVLink, {summary.ratio_like_for_like:.3g} to 1.")


def test_cliff_nics_move_the_chart_at_once_and_the_link_follows(streamlit_server, page):
    positions = [(f"{nics} NICs", _cliff_expected(nics)) for nics in (8, 16, 24)]
    _walk(page, streamlit_server, "/Bandwidth_cliff?gpu=h100-sxm&nic=ib-ndr&nics=8", "NICs per server", positions,
          "nics", "cliff.nics", "24")


def _seating_expected(nodes: int) -> str:
    """What the Seating chart's live readout says at ``nodes``: the core's family at the page's defaults (Llama 3
    70B, TP 8 x PP 4, DP the rest, ZeRO-1, global batch 256 on 8-GPU H100 nodes)."""
    from interconnect.topics.seating.live_figure import seating_family_spec
    from interconnect.topics.seating.model import Layout, Workload
    from interconnect.topics.seating.sweep import BATCHES, live_seating_nodes, seating_family
    from interconnect.workloads.presets import load_model_presets

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
    counts = live_seating_nodes(8)
    family = seating_family(load_model_presets()["llama3-70b"], cluster, Layout(tp=8, pp=4, zero=1), Workload(),
                            counts, sorted({*BATCHES, 256}))
    return seating_family_spec(family, 8, 256, 8, "1F1B")["readouts"][counts.index(nodes)]


def test_seating_nodes_move_the_chart_at_once_and_the_layout_and_link_follow(streamlit_server, page):
    positions = [(f"{nodes} nodes", _seating_expected(nodes)) for nodes in (8, 16, 32)]
    assert "TP8 × PP4 × DP8" in positions[-1][1]  # the layout follows the node count: DP takes the rest
    _walk(page, streamlit_server, "/Seating_chart?nodes=8", "Nodes", positions, "nodes", "seating.nodes", "32")



def _reach_expected(metres: float) -> tuple[str, str, str]:
    """What the Reach live readout says at a distance, from the core's own rows (wires.toml and the catalog):
    how many links still reach, the fastest that does, and the round trip in fibre."""
    from interconnect.catalog import get_catalog
    from interconnect.topics.reach.model import distance_text, fastest_reaching, propagation_for, reach_rows
    from interconnect.units import format_duration

    rows = reach_rows()
    best = fastest_reaching(rows, metres)
    fibre_rtt_s = 2 * metres * propagation_for("fibre", get_catalog()).delay_s_per_m
    return (f"{distance_text(metres)}: {sum(row.reaches(metres) for row in rows)} of {len(rows)} links still reach",
            f"Fastest: {best.name.split(' (')[0]}, {format_bandwidth(Q_(best.rate_gbps, 'GB/s'))} per direction",
            f"{format_duration(Q_(fibre_rtt_s, 's'))} round trip.")


def test_reach_distance_moves_the_chart_at_once_and_the_link_follows(streamlit_server, page):
    # 11 m (the episode's cable), then the slider's next stops: 20 m (along a row of racks) and 50 m
    positions = [(label, _reach_expected(metres))
                 for label, metres in (("11 m", 11.0), ("20 m · along a row of racks", 20.0), ("50 m", 50.0))]
    assert positions[1][1][0] != positions[2][1][0]  # the active optical cable (30 m) drops out between them
    _walk(page, streamlit_server, "/Reach?d=11+m", "Distance", positions, "d", "reach.d_text", "50 m")
