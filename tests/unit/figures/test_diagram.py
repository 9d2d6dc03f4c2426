"""Diagram scenes: what the browser draws without Plotly must be what the Plotly figure holds."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from interconnect.figures.diagram import UnsupportedFigure, _scale_colours, diagram_scene
from interconnect.figures.theme import readable_figure
from interconnect.hardware.fabric import build_fabric, design_inputs
from interconnect.topics.fabric.figures import fabric_figure
from interconnect.topics.seating.figures import _PALETTE, gpu_grid_figure
from interconnect.topics.seating.model import Layout, seat_map


def _markers(scene: dict) -> list[dict]:
    return [layer for layer in scene["layers"] if layer["kind"] == "markers"]


def _gpu_colours(scene: dict) -> list[str]:
    gpus = max(_markers(scene), key=lambda layer: len(layer["x"]))
    return [gpus["palette"][i] for i in gpus["index"]]


def test_each_gpu_keeps_its_group_colour():
    # Rank r of a TP 4 x PP 2 x DP 2 layout is in TP group r // 4 (tensor ranks are adjacent): the grid's stepped
    # colour scale gives group k palette colour k. Stages and replicas follow the model's own seat map.
    layout = Layout(tp=4, pp=2, dp=2)
    by_tp = _gpu_colours(diagram_scene(gpu_grid_figure(layout, 8, "tp")))
    assert by_tp == [_PALETTE[r // 4] for r in range(16)]
    seats = seat_map(layout, 8)
    for dim in ("pp", "dp"):
        colours = _gpu_colours(diagram_scene(gpu_grid_figure(layout, 8, dim)))
        assert colours == [_PALETTE[k] for k in seats[dim]] and len(set(colours)) == 2


def test_the_grid_is_one_square_per_gpu_on_equal_axes_with_a_hover_text_each():
    scene = diagram_scene(readable_figure(gpu_grid_figure(Layout(tp=8, dp=4), 8, "tp")))
    gpus = _markers(scene)[0]
    assert len(gpus["x"]) == 32 and gpus["symbol"] == "square" and scene["equal"]
    assert gpus["titles"][9] == "GPU 9: node 1, TP 1, PP 0, DP 1"
    assert scene["title"].startswith("32 GPUs in 4 nodes") and scene["font_size"] >= 14
    assert [entry["name"] for entry in scene["legend"]] == [
        "node (NVLink domain)", "traffic on NVLink", "GPU, coloured by tensor-parallel group"]
    json.dumps(scene, allow_nan=False)  # plain JSON: what the component receives


def test_a_large_grid_has_no_hover_texts_and_straddling_groups_are_open_red_squares():
    scene = diagram_scene(gpu_grid_figure(Layout(tp=16, dp=64), 8, "tp"))
    gpus, straddle = _markers(scene)
    assert len(gpus["x"]) == 1024 and gpus["titles"] is None  # the figure gives none above 600 GPUs
    assert straddle["symbol"] == "square-open" and straddle["palette"] == ["#d32f2f"] and len(straddle["x"]) == 1024
    dashed = [layer for layer in scene["layers"] if layer["kind"] == "line" and layer["dash"] == "dash"]
    assert dashed and dashed[0]["x"].count(None) == dashed[0]["y"].count(None) > 0  # NIC hops, one segment each


def test_the_fabric_picture_keeps_its_ranges_labels_and_path():
    fabric = build_fabric(design_inputs("superpod-16su"), tiers=3)
    figure = fabric_figure(fabric, "cross_pod")
    scene = diagram_scene(figure)
    assert scene["x_range"] == list(figure.layout.xaxis.range) and not scene["equal"]
    assert "5 switch hops" in scene["title"]
    labels = {note["text"]: note for note in scene["texts"]}
    assert labels["64 cores"]["bold"] and labels["64 cores"]["anchor"] == "end"  # "<b>64 cores</b>", right-aligned
    assert labels["GPU a"]["color"] == "#d32f2f" and not labels["GPU a"]["bold"]
    red = "#d32f2f"
    path = [layer for layer in scene["layers"] if layer.get("color") == red or layer.get("palette") == [red]]
    assert [layer["kind"] for layer in path] == ["line", "markers"]  # lines+markers: both drawn
    assert len(path[0]["x"]) == 7  # GPU a, leaf, spine, core, spine, leaf, GPU b
    assert scene["legend"] == []  # every trace of the picture hides its legend entry


def test_a_figure_read_back_from_json_gives_the_same_scene():
    # Plotly writes numeric arrays as base64 typed arrays; an exported figure read back must draw the same grid
    figure = gpu_grid_figure(Layout(tp=4, pp=2, dp=2), 8, "pp")
    assert diagram_scene(go.Figure(json.loads(figure.to_json()))) == diagram_scene(figure)


def test_colour_scale_interpolates_between_stops():
    # halfway from black to white is 127.5 per channel, written #808080; the ends are exact
    assert _scale_colours([0.0, 0.5, 1.0], [[0, "#000000"], [1, "#ffffff"]], 0.0, 1.0) == [
        "#000000", "#808080", "#ffffff"]
    assert _scale_colours([-5.0, 9.0], [[0, "#000"], [1, "#fff"]], 0.0, 1.0) == ["#000000", "#ffffff"]  # clipped


def test_gaps_and_non_finite_points_become_breaks_in_a_line():
    figure = go.Figure(go.Scatter(x=[0, 1, None, 2, float("nan")], y=[0, 1, None, 2, 3], mode="lines"))
    figure.update_xaxes(visible=False).update_yaxes(visible=False)
    line = diagram_scene(figure)["layers"][0]
    assert line["x"] == [0.0, 1.0, None, 2.0, None] and line["y"] == [0.0, 1.0, None, 2.0, 3.0]


def _hidden_axes(figure: go.Figure) -> go.Figure:
    return figure.update_xaxes(visible=False).update_yaxes(visible=False)


@pytest.mark.parametrize("figure", [
    _hidden_axes(go.Figure(go.Bar(x=["a"], y=[1]))),
    go.Figure(go.Scatter(x=[0, 1], y=[0, 1])),  # axes shown: a diagram draws none
    _hidden_axes(go.Figure(go.Scatter(x=[0], y=[0]), layout={"annotations": [{"x": 0, "y": 0, "text": "t"}]})),
    _hidden_axes(go.Figure(go.Scatter(x=[0], y=[0]), layout={"annotations": [
        {"x": 0, "y": 0, "text": "<i>t</i>", "showarrow": False}]})),
    _hidden_axes(go.Figure(go.Scatter(x=[0], y=[0], mode="markers+text", text=["t"]))),
    _hidden_axes(go.Figure(go.Scatter(x=[0], y=[0], mode="markers", marker={"symbol": "diamond"}))),
    _hidden_axes(go.Figure(go.Scatter(x=[0], y=[0]), layout={"shapes": [{"type": "line", "x0": 0, "x1": 1}]})),
], ids=["bar", "visible-axis", "arrow", "markup", "text-mode", "diamond", "shape"])
def test_what_a_diagram_does_not_draw_is_refused(figure):
    with pytest.raises(UnsupportedFigure):
        diagram_scene(figure)
