"""The Seating chart's live family: the seating model over node counts and global batches, the layout following."""

from __future__ import annotations

import numpy as np
import pytest

from interconnect.hardware.cluster import resolve_cluster
from interconnect.topics.seating.model import Layout, Workload, fit_layout, plan
from interconnect.topics.seating.sweep import live_seating_nodes, seating_family
from interconnect.workloads.presets import load_model_presets

L70 = load_model_presets()["llama3-70b"]
CLUSTER, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=8)
LAYOUT = Layout(tp=8, pp=4, zero=1)


def test_every_point_is_the_bill_of_that_layout_and_batch():
    # the family is one vectorized call; each point must equal plan() run on its own for that layout and batch
    counts, batches = [2, 8, 32], [64, 256, 1024]
    family = seating_family(L70, CLUSTER, LAYOUT, Workload(), counts, batches)
    for i, nodes in enumerate(counts):
        layout, _ = fit_layout(L70, 8 * nodes, 8, 4, zero=1)
        cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=nodes)
        for j, batch in enumerate(batches):
            bill = plan(L70, cluster, layout, Workload(global_batch=batch))
            assert family.tflops_per_gpu[i, j] == pytest.approx(bill.tflops_per_gpu / 1e12, rel=1e-9)
            assert family.bubble[i, j] == pytest.approx(bill.bubble_fraction, rel=1e-9)
            assert bool(family.fits[i, j]) == bill.fits


def test_more_gpus_at_the_same_batch_cost_each_gpu_and_a_bigger_batch_wins_it_back():
    # 1F1B's bubble (p - 1) / (m + p - 1) with m = batch / DP micro-batches: at a fixed batch m shrinks as DP grows
    family = seating_family(L70, CLUSTER, LAYOUT, Workload(), [4, 16, 64], [128, 8192])
    small, large = family.tflops_per_gpu[:, 0], family.tflops_per_gpu[:, 1]
    assert np.all(np.diff(small) < 0)  # same batch: less per GPU on more nodes
    assert np.all(large > small)       # a bigger batch recovers it
    assert np.all(family.compute_tflops_per_gpu >= family.tflops_per_gpu)  # compute alone is the ceiling
    p, dp = 4, 64 * 8 // 32
    m = 128 / dp
    assert family.bubble[2, 0] == pytest.approx((p - 1) / (m + p - 1), rel=0.05)


def test_a_batch_smaller_than_the_pipelines_is_a_gap_and_the_layout_follows_the_cluster():
    family = seating_family(L70, CLUSTER, LAYOUT, Workload(), [1, 64], [8, 4096])
    assert [lay.label() for lay in family.layouts] == ["TP8 × PP1 × DP1, ZeRO-1", "TP8 × PP4 × DP16, ZeRO-1"]
    assert "PP 4 → 1" in family.changes[0] and family.changes[1] == ""
    assert np.isnan(family.tflops_per_gpu[1, 0])   # 8 sequences for 16 pipelines: less than one micro-batch each
    assert not family.fits[1, 0]
    assert np.isfinite(family.tflops_per_gpu[1, 1])


def test_the_slider_offers_powers_of_two_and_the_page_count():
    assert live_seating_nodes(12) == (1, 2, 4, 8, 12, 16, 32, 64, 128, 256, 512, 1024)
    assert live_seating_nodes(-5)[0] == 1 and live_seating_nodes(10**9, maximum=100_000)[-1] == 100_000


def test_fitting_a_layout_says_when_ep_falls_to_one():
    # EP must divide TP x CP x DP (the GPUs a stage's experts spread over); when the fitted layout leaves too few,
    # EP becomes 1 and the sentence says why, whether or not TP and PP had to change
    mixtral = load_model_presets()["mixtral-8x7b"]
    layout, change = fit_layout(mixtral, 8, tp=2, pp=4, ep=8)
    assert (layout.tp, layout.pp, layout.dp, layout.ep) == (2, 4, 1, 1)
    assert change == "The cluster has 8 GPUs: EP 8 → 1 (EP must divide TP × DP = 2)."
    layout, change = fit_layout(mixtral, 12, tp=2, pp=4, ep=8)
    assert (layout.tp, layout.pp, layout.dp, layout.ep) == (2, 3, 2, 1)
    assert change.endswith("PP 4 → 3, EP 8 → 1 (EP must divide TP × DP = 4), DP takes the rest (2).")
    assert fit_layout(mixtral, 64, tp=2, pp=4, ep=8) == (Layout(tp=2, pp=4, dp=8, ep=8, zero=1), "")
