"""AppTest of the Reach page: defaults, each control from the link and by hand, and hostile links."""

from __future__ import annotations

import json
import re

import pytest

from interconnect.hardware.wires import fastest_option
from interconnect.inputs.params import to_query
from interconnect.topics.reach.inputs import reach_specs
from interconnect.topics.reach.model import reach_rows
from interconnect.ui.markdown import escape_markdown
from tests.app.conftest import chart_specs, live_charts, run_page

PAGE = "pages/5_Reach.py"
DEFAULTS = to_query(reach_specs(), {})  # every parameter in use at its default
MEDIA = reach_rows()  # every medium of wires.toml, then the catalog's other links with a reach


def metric(at, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def distance_lines(at) -> list[float]:
    """The x of the dashed distance line in every chart."""
    return [shape["x0"] for spec in chart_specs(at) for shape in spec["layout"].get("shapes", [])
            if shape.get("yref") == "paper"]


def table_rows(at, header: str) -> dict[str, list[str]]:
    """The page's Markdown table with a column ``header``, as columns of plain text."""
    block = next(m.value for m in at.markdown if m.value.startswith("|") and f"| {header} |" in m.value.split("\n")[0])
    lines = block.splitlines()

    def cells(line: str) -> list[str]:
        return [re.sub(r"\\(.)", r"\1", cell.strip()) for cell in re.split(r"(?<!\\)\|", line)[1:-1]]

    headers, rows = cells(lines[0]), [cells(line) for line in lines[2:]]
    return {header: [row[i] for row in rows] for i, header in enumerate(headers)}


def assert_page_drawn(at) -> None:
    """The live chart first, then at most the one further chart the view asks for."""
    assert not at.exception
    keys = [chart.key for chart in at.get("plotly_chart")]
    assert len(live_charts(at)) == 1 and len(keys) <= 1, keys
    assert len(table_rows(at, "Link")["Link"]) == len(MEDIA)


def test_defaults():
    at = run_page(PAGE)
    assert_page_drawn(at)
    assert not at.warning and not at.error
    assert metric(at, "Distance") == "11 m"
    assert metric(at, "One way, in fibre") == "53.9 ns"  # 11 m x 4.897 ns/m
    assert metric(at, "Round trip") == "108 ns"
    assert dict(at.query_params) == DEFAULTS
    assert distance_lines(at) == []  # the live chart alone: view=auto draws no further chart at the defaults
    assert at.text_input(key="reach.d_text").value == "11 m"
    assert not at.select_slider and not at.slider  # the live chart's slider is the page's only one
    reaching = sum(row.reaches(11.0) for row in MEDIA)
    assert metric(at, "Links that still reach") == f"{reaching} of {len(MEDIA)}"
    text = " ".join(block.value for block in at.markdown)
    assert "Often quoted" in text and "What the sources say" in text and "the episode" in text
    assert "4.29 s" in text  # NCCL default InfiniBand timeout: 4.096 us x 2^20


def test_the_table_marks_the_links_that_reach():
    at = run_page(PAGE, {"d": "30 m"})
    table = table_rows(at, "Link")
    marks = dict(zip(table["Link"], table["Reaches"], strict=True))
    for row in MEDIA:
        assert (marks[row.name] != "no") == row.reaches(30.0)
    # At 30 m the fastest link is 800 GbE over NVIDIA's twin-port 2xSR4 multimode optics (50 m, 17 W).
    best = fastest_option(30.0)
    assert (best.protocol.id, best.medium.id) == ("eth-800g", "sr8-800g")
    assert marks[best.medium.name] == "fastest"
    assert escape_markdown(best.medium.name) in at.success[0].value and "17 W" in at.success[0].value


def test_each_protocol_gets_its_medium_and_watts():
    at = run_page(PAGE, {"d": "3 m"})
    table = table_rows(at, "Protocol")
    rows = dict(zip(table["Protocol"], table["Medium to use here"], strict=True))
    # NVIDIA LinkX: 100G-PAM4 DAC up to 3 m, under 0.1 W; no DAC at 200G-PAM4 lanes (XDR).
    assert rows["InfiniBand NDR (400 Gbit/s)"].startswith("Passive copper DAC")
    assert rows["InfiniBand XDR (800 Gbit/s)"].startswith("Single-mode DR4")
    assert rows["NVLink 4 (H100, H200)"].startswith("nothing reaches")
    assert "W" in dict(zip(table["Protocol"], table["Power per port, one end"], strict=True))[
        "InfiniBand NDR (400 Gbit/s)"]


@pytest.mark.parametrize(("typed", "metres"), [("40 km", 40_000.0), ("1.5 m", 1.5), ("11 m", 11.0)])
def test_the_live_chart_shows_the_links_distance_and_the_pages_figures(typed, metres):
    at = run_page(PAGE, {"d": typed})
    spec = json.loads(live_charts(at)[0].proto.json)
    position = spec["slider"]["index"]
    assert spec["slider"]["values"][position] == metres and spec["slider"]["label"] == "Distance"
    readout = spec["readouts"][position]
    assert readout.startswith(f"{typed}: {metric(at, 'Links that still reach')} links still reach"), readout
    assert f"In fibre: {metric(at, 'One way, in fibre')} one way, {metric(at, 'Round trip')} round trip." in readout


def _live_distance_m(at) -> float:
    spec = json.loads(live_charts(at)[0].proto.json)
    return spec["slider"]["values"][spec["slider"]["index"]]


@pytest.mark.parametrize(("typed", "metres"), [("1.5 m", 1.5), ("7 m", 7.0), ("333 km", 333_000.0)])
def test_slider_and_box_show_the_same_distance(typed, metres):
    # The issue: /Reach?d=1.5+m showed "2 m" on the slider while the box said 1.5 m.
    at = run_page(PAGE, {"d": typed})
    assert _live_distance_m(at) == pytest.approx(metres)
    assert at.text_input(key="reach.d_text").value == typed
    at.text_input(key="reach.d_text").set_value("4.2 m").run()
    assert _live_distance_m(at) == pytest.approx(4.2)


@pytest.mark.parametrize(("typed", "shown", "one_way"), [("1000 km", "1000 km", "4.9 ms"), ("3 ft", "91.44 cm", None),
                                                          ("40 km", "40 km", "196 µs")])
def test_distance_from_the_link(typed, shown, one_way):
    at = run_page(PAGE, {"d": typed})
    assert_page_drawn(at)
    assert not at.warning
    assert metric(at, "Distance") == shown
    if one_way:
        assert metric(at, "One way, in fibre") == one_way
    assert at.query_params["d"] == typed
    assert at.text_input(key="reach.d_text").value == typed


@pytest.mark.parametrize(("typed", "used"), [("-5 m", "10 cm"), ("0 m", "10 cm"), ("2 light-seconds", "20000 km"),
                                             ("1e30 m", "20000 km")])
def test_out_of_scale_link_distances_are_clamped_with_a_warning(typed, used):
    at = run_page(PAGE, {"d": typed})
    assert_page_drawn(at)
    assert len(at.warning) == 1 and "(link parameter `d`)" in at.warning[0].value
    assert f"using `{used}`" in at.warning[0].value
    assert at.query_params["d"] == used
    assert metric(at, "Distance") == used


def test_typing_the_distance_moves_the_page_the_live_chart_and_the_link():
    # Dragging the live chart's slider is walked in a real browser (tests/browser/test_live_chart.py):
    # AppTest cannot move a component.
    at = run_page(PAGE, {"view": "training"})
    at.text_input(key="reach.d_text").set_value("1000 km").run()
    assert not at.exception and not at.warning
    assert metric(at, "One way, in fibre") == "4.9 ms"
    assert at.query_params["d"] == "1000 km"
    assert _live_distance_m(at) == 1_000_000.0
    assert distance_lines(at) == [1e6]  # the training chart's (view=training)

    at.text_input(key="reach.d_text").set_value("2 m").run()
    assert not at.exception
    assert metric(at, "Distance") == "2 m"
    assert at.query_params["d"] == "2 m"
    assert _live_distance_m(at) == 2.0
    assert distance_lines(at) == [2.0]


@pytest.mark.parametrize(("typed", "word"), [("5 kg", "a mass"), ("3 s", "a time"), ("9^9^8 m", "could not read")])
def test_typing_something_that_is_not_a_length_explains_and_keeps_the_view(typed, word):
    at = run_page(PAGE, {"d": "2 km"})
    at.text_input(key="reach.d_text").set_value(typed).run()
    assert not at.exception
    assert any(word in w.value and "expected a length" in w.value for w in at.warning)
    assert metric(at, "Distance") == "2 km"
    assert at.query_params["d"] == "2 km"


def test_typing_an_out_of_scale_distance_clamps_it():
    at = run_page(PAGE)
    at.text_input(key="reach.d_text").set_value("-3 m").run()
    assert not at.exception
    assert any("negative" in w.value for w in at.warning)
    assert metric(at, "Distance") == "10 cm"
    assert at.text_input(key="reach.d_text").value == "10 cm"


def test_training_controls_from_the_link():
    at = run_page(PAGE, {"d": "1000 km", "size": "256 MiB", "h": "10", "medium": "vacuum", "gpu": "b200",
                         "nodes": "6"})
    assert_page_drawn(at)
    assert not at.warning
    assert at.text_input(key="reach.size").value == "256 MiB"
    assert at.number_input(key="reach.h").value == 10
    assert at.radio(key="reach.medium").value == "vacuum"
    assert at.selectbox(key="reach.gpu").value == "b200"
    training = chart_specs(at)[0]
    names = [trace.get("name", "") for trace in training["data"]]
    assert any("every 10 steps" in name for name in names)
    assert any(name.startswith("Ring") and "94 steps" in name for name in names)  # 6 x 8 = 48 GPUs: 2 x 47
    assert metric(at, "Hierarchical every 10 steps")


def test_training_medium_changes_the_gap():
    at = run_page(PAGE, {"d": "1000 km"})
    fibre = metric(at, "Ring, per step")
    at.radio(key="reach.medium").set_value("vacuum").run()
    assert not at.exception
    assert metric(at, "Ring, per step") != fibre
    assert at.query_params["medium"] == "vacuum"
    at.number_input(key="reach.h").set_value(1).run()
    assert at.query_params["h"] == "1"
    assert len([t for t in chart_specs(at)[0]["data"] if t.get("showlegend") is not False]) == 2


def test_one_node_is_split_into_two_sites_with_a_note():
    at = run_page(PAGE, {"nodes": "1"})
    assert not at.exception
    assert any("Two equal sites" in caption.value for caption in at.caption)


def test_cluster_follows_from_another_page():
    at = run_page("pages/2_All_reduce.py", {"gpu": "a100-sxm", "nodes": "2"})
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.selectbox(key="reach.gpu").value == "a100-sxm"


@pytest.mark.parametrize(
    "query",
    [
        {"d": "9^9^8 m"},
        {"d": "<script>alert(1)</script>"},
        {"d": "x" * 10_000},
        {"d": "1e999 m"},
        {"d": "5 kg"},
        {"size": "5 m"},
        {"size": "10^400 B"},
        {"h": "-3"},
        {"h": "NaN"},
        {"medium": "ether"},
        {"gpu": "h9000", "nodes": "0", "nic": "custom", "nic_bw": "5 parsecs"},
        {"d": "[click](http://example.com) m"},
        {"d": "\u202e\u0000 m"},
    ],
)
def test_hostile_links_warn_and_render(query):
    at = run_page(PAGE, query)
    assert_page_drawn(at)
    assert len(at.warning) >= 1
    for warning in at.warning:
        outside_code = re.sub(r"`[^`]*`", "", warning.value)
        assert "<" not in outside_code and ">" not in outside_code
        assert "](http" not in outside_code
    assert metric(at, "Distance")
