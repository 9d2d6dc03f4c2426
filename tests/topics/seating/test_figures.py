"""Seating chart figures: a few traces for any GPU count, colours by group, warnings, bill and memory."""

from __future__ import annotations

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.figures import bill_figure, gpu_grid_figure, grid_positions, memory_figure
from interconnect.topics.seating.model import Layout, Workload, memory_per_gpu, plan
from interconnect.workloads.presets import load_model_presets

L70 = load_model_presets()["llama3-70b"]


def test_a_72_rack_cluster_is_a_few_traces():
    figure = gpu_grid_figure(Layout(tp=8, pp=9, dp=72), 72, "tp", domain_label="rack")
    assert len(figure.data) <= 6
    gpus = next(t for t in figure.data if t.name.startswith("GPU"))
    assert len(gpus.x) == 5184
    assert "5,184 GPUs in 72 racks" in figure.layout.title.text


def test_tp_inside_the_node_has_no_warning_and_no_nic_traffic():
    figure = gpu_grid_figure(Layout(tp=8, dp=4), 8, "tp")
    names = [t.name for t in figure.data]
    assert "traffic on NVLink" in names and "traffic over the NIC" not in names
    assert not any("straddles" in name for name in names)


def test_tp_across_nodes_is_drawn_in_the_warning_colour_with_nic_traffic():
    figure = gpu_grid_figure(Layout(tp=16, dp=2), 8, "tp")
    warning = next(t for t in figure.data if "straddles" in t.name)
    assert len(warning.x) == 32 and warning.marker.line.color == "#d32f2f"
    assert any(t.name == "traffic over the NIC" for t in figure.data)


def test_colour_by_group_stage_and_replica():
    layout = Layout(tp=2, pp=2, dp=2)
    by_tp = np.asarray(next(t for t in gpu_grid_figure(layout, 8, "tp").data if t.name.startswith("GPU")).marker.color)
    by_pp = np.asarray(next(t for t in gpu_grid_figure(layout, 8, "pp").data if t.name.startswith("GPU")).marker.color)
    by_dp = np.asarray(next(t for t in gpu_grid_figure(layout, 8, "dp").data if t.name.startswith("GPU")).marker.color)
    assert by_tp.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]  # TP groups: consecutive pairs
    assert by_pp.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]  # stages: outermost
    assert by_dp.tolist() == [0, 0, 1, 1, 0, 0, 1, 1]  # replicas
    with pytest.raises(ValueError):
        gpu_grid_figure(layout, 8, "colour")


def test_positions_keep_domains_apart():
    p = grid_positions(24, 8)
    boxes = {(round(float(p["box_x0"][d]), 3), round(float(p["box_y0"][d]), 3)) for d in range(p["domains"])}
    assert p["domains"] == 3 and len(boxes) == 3


def test_bill_and_memory_figures():
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=2)
    bill = plan(L70, cluster, Layout(tp=8, dp=2, zero=1), Workload(global_batch=16))
    four, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=4)
    figure = bill_figure(bill)
    labels = list(figure.data[0].y)
    assert labels[0] == "Compute" and not any("Pipeline bubble" in label for label in labels)
    assert any("NVLink" in label for label in labels)
    piped = bill_figure(plan(L70, cluster, Layout(tp=8, pp=2, dp=1, zero=1), Workload(global_batch=16)))
    assert list(piped.data[0].y)[:2] == ["Compute", "Pipeline bubble (1F1B)"]
    assert figure.layout.barmode == "stack"
    stages = {z: memory_per_gpu(L70, four, Layout(tp=8, dp=4, zero=z), Workload(global_batch=16)) for z in range(4)}
    memory = memory_figure(stages, 1)
    texts = memory.data[-1].text
    assert "does not fit" in texts[0] and "does not fit" not in texts[3]
    assert memory.data[0].x[1] == "ZeRO-1 (chosen)"
