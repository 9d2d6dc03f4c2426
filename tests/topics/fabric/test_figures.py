"""The Fabric page's figures: the path drawn has the hops the model counts, the labels the real counts."""

from __future__ import annotations

import pytest

from interconnect.hardware.fabric import build_fabric, design_inputs, server_inputs
from interconnect.topics.fabric.figures import PATHS, fabric_figure, playbook_figure
from interconnect.topics.fabric.playbook import playbook_hypothesis


def _path(figure):
    return next(trace for trace in figure.data if trace.mode == "lines+markers")


@pytest.mark.parametrize("path", list(PATHS))
def test_the_path_crosses_as_many_switches_as_the_model_counts(path):
    fabric = build_fabric(design_inputs("superpod-16su"))
    figure = fabric_figure(fabric, path)
    points = list(zip(_path(figure).x, _path(figure).y, strict=True))
    switch_hops = sum(1 for _, y in points if y > 0)
    assert switch_hops == fabric.hops()[path]
    assert f"{switch_hops} switch hop" in figure.layout.title.text
    labels = [annotation.text for annotation in figure.layout.annotations]
    assert "<b>512 servers</b>" in labels and "<b>64 cores</b>" in labels


def test_impossible_paths_fall_back_to_what_the_fabric_has():
    two_tier = build_fabric(design_inputs("superpod-h100-4su"))
    assert "Other leaf group" in fabric_figure(two_tier, "cross_pod").layout.title.text
    inputs, _ = server_inputs("dgx-h100", 16, "quantum-2-qm9700", topology="fat-tree")
    tor = build_fabric(inputs)  # one top-of-rack leaf: no other rail, no other group
    assert "Same rail" in fabric_figure(tor, "cross_group").layout.title.text


def test_playbook_chart_has_the_measurement_the_model_and_the_tapers():
    rows, tapered = playbook_hypothesis()
    figure = playbook_figure(rows, tapered)
    names = [trace.name for trace in figure.data]
    assert "Playbook, measured median" in names and "Model, no fabric limit" in names
    assert sum("hypothesis" in name for name in names) == len(tapered)
    measured = next(t for t in figure.data if t.name == "Playbook, measured median")
    assert list(measured.y) == [436.0, 362.0, 160.0, 99.6, 84.7, 64.9, 32.9]  # the Playbook's chart data
