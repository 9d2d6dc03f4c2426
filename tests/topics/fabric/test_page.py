"""AppTest of the Fabric page: defaults, published designs, links, hostile links, and the cluster pages' topology."""

from __future__ import annotations

import json

import pytest

from interconnect.inputs.params import to_query
from interconnect.topics.allreduce.inputs import allreduce_specs
from interconnect.topics.fabric.inputs import fabric_specs
from tests.app.conftest import chart_keys, chart_specs, diagram_scenes, run_page

PAGE = "pages/10_Fabric.py"
DEFAULTS = to_query(fabric_specs(), {})


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def text(at) -> str:
    return " ".join(block.value for block in at.markdown)


def test_defaults_are_the_four_su_superpod():
    at = run_page(PAGE)
    assert not at.exception and not at.warning
    # 1024 H100 in 128 DGX: 32 leaves + 16 spines (NVIDIA's SuperPOD table for 4 SU), 1024 + 1024 links.
    assert metrics(at)["Switches"] == "48" and metrics(at)["Links"] == "2,048"
    assert metrics(at)["Bisection per GPU"] == "400 Gbit/s"
    # issue: "Transceivers 4,096" for 2,048 links of twin-port modules (one module carries two 400G links)
    assert metrics(at)["Optical modules"] == "2,048"
    assert "| 512 / 1,024 |" not in text(at) and "| 1,024 / 1,024 |" in text(at)
    assert dict(at.query_params) == DEFAULTS
    assert chart_keys(at) == ["fabric-picture"]  # view=auto: no further chart
    assert not at.get("plotly_chart")  # the picture is SVG drawn without Plotly: the first picture waits for no library
    body = text(at)
    assert "Alibaba HPN" in body and "| NO |" not in body  # every published design reproduced
    assert "32.9 GB/s" in body and "Hypothesis, not a fit" in body


def test_picture_draws_the_chosen_path():
    at = run_page(PAGE, {"gpus": "4096", "path": "cross_pod"})
    assert not at.exception
    picture = diagram_scenes(at)[0]
    assert "Other pod" in picture["title"] and "5 switch hops" in picture["title"]
    labels = [note["text"] for note in picture["texts"]]
    assert "128 leaves" in labels and "64 cores" in labels  # the bold tier labels, as plain text drawn bold
    at.radio(key="fabric.path").set_value("same_rail").run()
    assert "1 switch hop" in diagram_scenes(at)[0]["title"]
    assert at.query_params["path"] == ["same_rail"] or at.query_params["path"] == "same_rail"


def test_oversubscription_and_fat_tree_from_the_link():
    at = run_page(PAGE, {"topo": "fat-tree", "osub": "3", "d1": "rack"})
    assert not at.exception and not at.warning
    body = text(at)
    assert "Passive copper DAC" in body and "48 / 16" in body  # 3:1 of a 64-port leaf


def test_hostile_and_bad_links_give_a_message_not_a_traceback():
    at = run_page(PAGE, {"gpus": "-5", "topo": "<script>", "osub": "nan", "switch": "x" * 500, "path": "moon",
                         "d2": "mars", "tiers": "9"})
    assert not at.exception
    warning = at.warning[0].value
    assert "GPUs" in warning and "Topology" in warning and "`<script>`" in warning  # echoed as code, not HTML
    assert metrics(at)["Switches"]


def test_too_big_for_three_tiers_says_so():
    at = run_page(PAGE, {"gpus": "1000000", "view": "playbook"})
    assert not at.exception
    assert any("more than three tiers" in w.value for w in at.warning)
    assert [chart.key for chart in at.get("plotly_chart")] == ["fabric-playbook"]  # the Playbook chart still draws


@pytest.mark.parametrize("page, query", [
    ("pages/2_All_reduce.py", {"nodes": "64"}),
    ("pages/3_Overlap.py", {"nodes": "64"}),
    # Data parallelism over 128 servers: more than one leaf group of 51 (4:1 leaves), so it crosses the spine.
    ("pages/4_Seating_chart.py", {"nodes": "128", "pp": "1"}),
])
def test_cluster_pages_take_the_topology_from_the_link(page, query):
    plain = run_page(page, query)
    tapered = run_page(page, {**query, "topo": "rail-leaf-spine", "osub": "4"})
    assert not plain.exception and not tapered.exception and not tapered.warning
    assert "topo" not in plain.query_params  # no topology: the link keeps its old form
    assert tapered.query_params["topo"] in ("rail-leaf-spine", ["rail-leaf-spine"])
    assert [m.value for m in plain.metric] != [m.value for m in tapered.metric]


def test_allreduce_without_topology_keeps_its_old_link():
    at = run_page("pages/2_All_reduce.py", {"view": "time"})
    assert dict(at.query_params) == {**to_query(allreduce_specs(), {}), "view": "time"}
    assert not {"topo", "switch", "osub", "shared"} & set(at.query_params)
    spec = json.dumps(chart_specs(at)[0])
    assert spec


MORE = "fabric-more"  # the key of the "More settings" expander


def test_more_settings_are_drawn_only_while_open_and_keep_their_values_closed():
    # issue 26: a plain link sends none of "More settings"' widgets
    at = run_page(PAGE)
    assert not at.exception
    assert not {w.key for w in at.number_input} & {"fabric.osub", "fabric.sosub", "fabric.rails"}
    assert not {w.key for w in at.selectbox} & {"fabric.tiers", "fabric.d1", "fabric.d2", "fabric.d3"}
    # a link that sets any of them opens it, with the link's values
    query = {"osub": "3", "tiers": "3", "rails": "4", "d1": "rack"}
    at = run_page(PAGE, query)
    assert not at.exception and not at.warning
    assert at.number_input(key="fabric.osub").value == 3.0
    assert at.selectbox(key="fabric.d1").value == "rack"
    expected = metrics(at)
    # closed, the values stay in the session, the fabric and the link, through a change of a main control
    at.session_state[MORE] = False
    at.run()
    assert not at.exception
    assert not [w for w in at.number_input if w.key == "fabric.osub"]
    assert metrics(at) == expected
    for key, value in {"osub": 3.0, "tiers": "3", "rails": 4, "d1": "rack"}.items():
        assert at.session_state[f"fabric.{key}"] == value, key
    at.number_input(key="fabric.gpus").set_value(2048).run()
    assert not at.exception
    assert at.query_params["gpus"] in ("2048", ["2048"])
    for key, value in query.items():
        assert at.query_params[key] in (value, [value]), key
    assert metrics(at) == metrics(run_page(PAGE, {**query, "gpus": "2048"}))
    # opened again (as a click would: AppTest's expander has no open()), the widgets show the kept values
    at.session_state[MORE] = True
    at.run()
    assert at.number_input(key="fabric.rails").value == 4
    assert at.selectbox(key="fabric.tiers").value == "3"
